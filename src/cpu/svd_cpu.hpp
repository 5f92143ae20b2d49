// SPDX-License-Identifier: BSD-3-Clause
// CPU backend entry: the same contract as batchsvd::gesvd with host pointers; arguments are
// already validated by the dispatcher (src/dispatch.cpp).
#pragma once

#include "batchsvd/batchsvd.hpp"

namespace batchsvd::cpu {

template <class T>
void gesvd(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s,
           index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
           const Options& opts);

}  // namespace batchsvd::cpu
