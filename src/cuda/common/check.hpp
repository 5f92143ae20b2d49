// SPDX-License-Identifier: BSD-3-Clause
// Error checking for the CUDA backend: every runtime call and launch goes through
// BATCHSVD_CUDA_CHECK, which turns a failure into the API's batchsvd::Error. Launches and
// allocations are also the points where tests inject faults (fault_injection.hpp).
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "batchsvd/batchsvd.hpp"
#include "cuda/common/fault_injection.hpp"

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

/// Throws the Error for `e` returned by `what` at file:line; `injected` marks a fault made by
/// fault_injection.hpp. The runtime's last error is cleared first (a failed allocation or a
/// bad launch configuration would otherwise fail the next launch check; sticky errors stay).
[[noreturn]] inline void throw_cuda_error(cudaError_t e, const char* what, const char* file, int line,
                                          bool injected = false) {
    (void)cudaGetLastError();
    throw Error(error_code_of(e), std::string("batchsvd CUDA backend: ") + what + " failed: " +
                                      cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")" +
                                      (injected ? " (injected)" : "") + " at " + file + ":" +
                                      std::to_string(line));
}

}  // namespace batchsvd::cuda

#define BATCHSVD_CUDA_CHECK(call)                                                                  \
    do {                                                                                           \
        const cudaError_t batchsvd_err_ = (call);                                                  \
        if (batchsvd_err_ != cudaSuccess)                                                          \
            ::batchsvd::cuda::throw_cuda_error(batchsvd_err_, #call, __FILE__, __LINE__);          \
    } while (0)

/// After a kernel launch: a bad configuration shows up in cudaGetLastError. One `call` point
/// of fault injection (the kernel is enqueued already when the fault is injected).
#define BATCHSVD_CUDA_CHECK_LAUNCH(kernel_name)                                                    \
    do {                                                                                           \
        const cudaError_t batchsvd_err_ = cudaGetLastError();                                      \
        if (batchsvd_err_ != cudaSuccess)                                                          \
            ::batchsvd::cuda::throw_cuda_error(batchsvd_err_, "launch of " kernel_name,            \
                                               __FILE__, __LINE__);                                \
        if (::batchsvd::cuda::detail::call_fault_point())                                          \
            ::batchsvd::cuda::throw_cuda_error(cudaErrorLaunchOutOfResources,                      \
                                               "launch of " kernel_name, __FILE__, __LINE__, true); \
    } while (0)

/// A launcher that returns its launches' error (the eigensolvers' launch_* functions): checked
/// as BATCHSVD_CUDA_CHECK, and one `call` point of fault injection (after the launches).
#define BATCHSVD_CUDA_CHECK_LAUNCHER(call)                                                         \
    do {                                                                                           \
        const cudaError_t batchsvd_err_ = (call);                                                  \
        if (batchsvd_err_ != cudaSuccess)                                                          \
            ::batchsvd::cuda::throw_cuda_error(batchsvd_err_, #call, __FILE__, __LINE__);          \
        if (::batchsvd::cuda::detail::call_fault_point())                                          \
            ::batchsvd::cuda::throw_cuda_error(cudaErrorLaunchOutOfResources, #call, __FILE__,     \
                                               __LINE__, true);                                    \
    } while (0)

/// An allocation outside DeviceBuffer (cudaHostAlloc): checked as BATCHSVD_CUDA_CHECK, and one
/// `alloc` point of fault injection (an injected fault skips the call).
#define BATCHSVD_CUDA_CHECK_ALLOC(call)                                                            \
    do {                                                                                           \
        if (::batchsvd::cuda::detail::alloc_fault_point())                                         \
            ::batchsvd::cuda::throw_cuda_error(cudaErrorMemoryAllocation, #call, __FILE__,         \
                                               __LINE__, true);                                    \
        BATCHSVD_CUDA_CHECK(call);                                                                 \
    } while (0)
