// SPDX-License-Identifier: BSD-3-Clause
// What the GPU test files share: cases skip, with a message, where no CUDA device exists (CI
// and the development machine have none; they run on a GPU machine through
// scripts/gpu_check.sh), and device memory freed on scope exit.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstddef>

#include "batchsvd/batchsvd.hpp"

/// Skips the current test when no CUDA device is present; `what` names what is not tested.
#define SKIP_WITHOUT_CUDA(what)                                                                   \
    do {                                                                                          \
        if (!::batchsvd::cuda_available())                                                       \
            GTEST_SKIP() << "no CUDA device on this machine: " what " not run (it runs on a GPU " \
                            "machine, see scripts/gpu_check.sh)";                                 \
    } while (0)

namespace batchsvd::test {

/// cudaMalloc'd array, freed on scope exit (p is null when the allocation failed).
template <class T> struct DeviceArray {
    T* p = nullptr;
    std::size_t n = 0;
    explicit DeviceArray(std::size_t count) : n(count) {
        if (n && cudaMalloc(&p, n * sizeof(T)) != cudaSuccess) p = nullptr;
    }
    ~DeviceArray() { if (p) cudaFree(p); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
};

}  // namespace batchsvd::test
