// SPDX-License-Identifier: BSD-3-Clause
// The current CUDA device, set for a scope and restored after it.
#pragma once

#include <cuda_runtime.h>

#include "cuda/common/check.hpp"

namespace batchsvd::cuda {

/// Makes `device` current for the scope and restores the previous one.
class DeviceScope {
public:
    explicit DeviceScope(int device) {
        BATCHSVD_CUDA_CHECK(cudaGetDevice(&saved_));
        if (device != saved_) BATCHSVD_CUDA_CHECK(cudaSetDevice(device));
    }
    ~DeviceScope() { (void)cudaSetDevice(saved_); }
    DeviceScope(const DeviceScope&) = delete;
    DeviceScope& operator=(const DeviceScope&) = delete;

private:
    int saved_ = 0;
};

}  // namespace batchsvd::cuda
