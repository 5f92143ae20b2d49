// SPDX-License-Identifier: BSD-3-Clause
// A kernel's dynamic shared memory limit, raised and never lowered. The limit
// (cudaFuncAttributeMaxDynamicSharedMemorySize) belongs to the kernel on its device, not to a
// launch: where threads solve batches of different sizes at once (gesvd_vbatched, several
// devices), a thread that set it to its own smaller need would fail another's larger launch
// with cudaErrorInvalidValue. The limit only permits: a launch still takes the shared memory it
// asks for.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <utility>

namespace batchsvd::cuda {

/// Makes `kernel` launchable with `bytes` of dynamic shared memory on the current device.
template <class Kernel> cudaError_t allow_dynamic_smem(Kernel* kernel, std::size_t bytes) {
    static std::mutex mutex;
    static std::map<std::pair<const void*, int>, std::size_t> limits;  // (kernel, device) -> limit set
    int device = 0;
    if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
    const void* key = reinterpret_cast<const void*>(kernel);
    const std::lock_guard<std::mutex> lock(mutex);
    std::size_t& limit = limits[{key, device}];
    if (bytes <= limit) return cudaSuccess;
    const cudaError_t e = cudaFuncSetAttribute(key, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes));
    if (e == cudaSuccess) limit = bytes;
    return e;
}

}  // namespace batchsvd::cuda
