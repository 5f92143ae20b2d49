// SPDX-License-Identifier: BSD-3-Clause
// The current device's attributes (shared memory limits, SM count) for the plans of the
// CUDA paths, each query checked.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>

#include "cuda/common/check.hpp"

namespace batchsvd::cuda {

/// Attribute `attr` of the current device.
inline int device_attribute(cudaDeviceAttr attr) {
    int dev = 0, value = 0;
    BATCHSVD_CUDA_CHECK(cudaGetDevice(&dev));
    BATCHSVD_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, dev));
    return value;
}

/// Blocks of 256 threads for a grid-stride loop over `total` elements: one an element, at most
/// 16 an SM.
inline unsigned grid_stride_blocks(index_t total) {
    return unsigned(std::clamp<index_t>((total + 255) / 256, 1, index_t(device_attribute(cudaDevAttrMultiProcessorCount)) * 16));
}

}  // namespace batchsvd::cuda
