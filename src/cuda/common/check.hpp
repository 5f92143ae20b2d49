// SPDX-License-Identifier: BSD-3-Clause
// Error checking for the CUDA backend: every runtime call and launch goes through
// BATCHSVD_CUDA_CHECK, which turns a failure into the API's batchsvd::Error.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "batchsvd/batchsvd.hpp"

namespace batchsvd::cuda {

inline ErrorCode error_code_of(cudaError_t e) {
    switch (e) {
        case cudaErrorMemoryAllocation: return ErrorCode::out_of_memory;
        case cudaErrorNoDevice:
        case cudaErrorInsufficientDriver:
        case cudaErrorInitializationError:
        case cudaErrorNoKernelImageForDevice:
        case cudaErrorInvalidDevice: return ErrorCode::backend_unavailable;
        default: return ErrorCode::device_error;
    }
}

[[noreturn]] inline void throw_cuda_error(cudaError_t e, const char* what, const char* file,
                                          int line) {
    throw Error(error_code_of(e), std::string("batchsvd CUDA backend: ") + what + " failed: " +
                                      cudaGetErrorName(e) + " (" + cudaGetErrorString(e) +
                                      ") at " + file + ":" + std::to_string(line));
}

}  // namespace batchsvd::cuda

#define BATCHSVD_CUDA_CHECK(call)                                                          \
    do {                                                                                   \
        const cudaError_t batchsvd_err_ = (call);                                          \
        if (batchsvd_err_ != cudaSuccess)                                                  \
            ::batchsvd::cuda::throw_cuda_error(batchsvd_err_, #call, __FILE__, __LINE__);  \
    } while (0)

/// After a kernel launch: a bad configuration shows up in cudaGetLastError.
#define BATCHSVD_CUDA_CHECK_LAUNCH(kernel_name)                                            \
    do {                                                                                   \
        const cudaError_t batchsvd_err_ = cudaGetLastError();                              \
        if (batchsvd_err_ != cudaSuccess)                                                  \
            ::batchsvd::cuda::throw_cuda_error(batchsvd_err_, "launch of " kernel_name,    \
                                               __FILE__, __LINE__);                        \
    } while (0)
