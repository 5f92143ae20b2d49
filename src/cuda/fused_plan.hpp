// What the fused shared-memory kernel takes on this device (plain C++: for tests, benchmarks
// and tools). Larger sizes go to the CPU fallback in this version.
#pragma once

#include "batchsvd/batchsvd.hpp"

namespace batchsvd::cuda {

/// True when an m x n matrix of T (with V_W accumulated when need_v) fits the fused kernel on
/// the current device.
template <class T> bool fits_fused_kernel(index_t m, index_t n, bool need_v);

/// Largest n such that an n x n matrix of T fits the fused kernel on the current device.
template <class T> index_t largest_fused_square(bool need_v);

}  // namespace batchsvd::cuda
