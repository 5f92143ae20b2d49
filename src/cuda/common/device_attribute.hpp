// SPDX-License-Identifier: BSD-3-Clause
// The current device's attributes (shared memory limits, SM count) for the plans of the
// CUDA paths, each query checked.
#pragma once

#include <cuda_runtime.h>

#include "cuda/common/check.hpp"

namespace batchsvd::cuda {

/// Attribute `attr` of the current device.
inline int device_attribute(cudaDeviceAttr attr) {
    int dev = 0, value = 0;
    BATCHSVD_CUDA_CHECK(cudaGetDevice(&dev));
    BATCHSVD_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, dev));
    return value;
}

}  // namespace batchsvd::cuda
