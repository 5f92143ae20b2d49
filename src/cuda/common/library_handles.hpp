// SPDX-License-Identifier: BSD-3-Clause
// cuBLAS and cuSOLVER handles for the CUDA backend's library calls (precondition.cu), from a
// process-wide pool per device: a call takes a set for its duration (LibraryHandles) and gives
// it back, so that handles, which take milliseconds to create, are made once per concurrent
// caller rather than once per call, and concurrent host threads never share one. The pool is
// never destroyed: handles left at exit are released with the process, since destroying them
// from a static destructor could run after the CUDA runtime has shut down.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include "cuda/common/fault_injection.hpp"

namespace batchsvd::cuda {

struct HandleSet {
    cublasHandle_t blas = nullptr;
    cusolverDnHandle_t solver = nullptr;
    cusolverDnParams_t params = nullptr;
};

/// A handle set of the current device, bound to `stream` (cuBLAS in its default math mode,
/// set explicitly: products at least as precise as their type, so no TF32 for float), held
/// until the destructor gives it back to the pool. Left by an exception, the destructor first
/// waits for the stream, so that library work still queued with the set ends before another
/// caller can take it.
class LibraryHandles {
public:
    explicit LibraryHandles(cudaStream_t stream);
    ~LibraryHandles();
    LibraryHandles(const LibraryHandles&) = delete;
    LibraryHandles& operator=(const LibraryHandles&) = delete;
    const HandleSet& get() const { return set_; }

private:
    int device_ = 0;
    HandleSet set_;
    cudaStream_t stream_ = nullptr;
    int uncaught_ = 0;  ///< exceptions in flight at construction (an error path waits, ~LibraryHandles)
};

/// Throws batchsvd::Error (device_error, or out_of_memory for allocation failures) naming the
/// call `what` at file:line, for a failed cuBLAS or cuSOLVER status; `injected` marks a fault
/// made by fault_injection.hpp.
void check_cublas(cublasStatus_t s, const char* what, const char* file, int line, bool injected = false);
void check_cusolver(cusolverStatus_t s, const char* what, const char* file, int line, bool injected = false);

}  // namespace batchsvd::cuda

/// A cuBLAS or cuSOLVER call, checked; one `call` point of fault injection (an injected fault
/// skips the call and reports CUBLAS_STATUS_EXECUTION_FAILED / CUSOLVER_STATUS_EXECUTION_FAILED).
#define BATCHSVD_CUBLAS_CHECK(call)                                                                \
    do {                                                                                           \
        if (::batchsvd::cuda::detail::call_fault_point())                                          \
            ::batchsvd::cuda::check_cublas(CUBLAS_STATUS_EXECUTION_FAILED, #call, __FILE__,        \
                                           __LINE__, true);                                        \
        else                                                                                       \
            ::batchsvd::cuda::check_cublas((call), #call, __FILE__, __LINE__);                     \
    } while (0)
#define BATCHSVD_CUSOLVER_CHECK(call)                                                              \
    do {                                                                                           \
        if (::batchsvd::cuda::detail::call_fault_point())                                          \
            ::batchsvd::cuda::check_cusolver(CUSOLVER_STATUS_EXECUTION_FAILED, #call, __FILE__,    \
                                             __LINE__, true);                                      \
        else                                                                                       \
            ::batchsvd::cuda::check_cusolver((call), #call, __FILE__, __LINE__);                   \
    } while (0)
