// SPDX-License-Identifier: BSD-3-Clause
// The pool behind LibraryHandles (library_handles.hpp).
#include "cuda/common/library_handles.hpp"

#include <exception>

#include <mutex>
#include <string>
#include <vector>

#include "cuda/common/check.hpp"

namespace batchsvd::cuda {

namespace {

struct HandlePool {
    std::mutex mutex;
    std::vector<std::vector<HandleSet>> free;  ///< by device
};

HandlePool& pool() {
    static HandlePool p;  // never emptied: see library_handles.hpp
    return p;
}

/// Destroys what exists of a set (one whose creation failed half-way).
void destroy(const HandleSet& s) {
    if (s.params) (void)cusolverDnDestroyParams(s.params);
    if (s.solver) (void)cusolverDnDestroy(s.solver);
    if (s.blas) (void)cublasDestroy(s.blas);
}

/// Back to the pool of `device`.
void give_back(int device, const HandleSet& s) {
    HandlePool& p = pool();
    const std::lock_guard<std::mutex> lock(p.mutex);
    p.free[device].push_back(s);
}

}  // namespace

void check_cublas(cublasStatus_t s, const char* what, const char* file, int line, bool injected) {
    if (s == CUBLAS_STATUS_SUCCESS) return;
    const ErrorCode code = s == CUBLAS_STATUS_ALLOC_FAILED ? ErrorCode::out_of_memory : ErrorCode::device_error;
    throw Error(code, std::string("batchsvd CUDA backend: ") + what + " failed: cuBLAS status " +
                          std::to_string(int(s)) + " (" + cublasGetStatusName(s) + ")" +
                          (injected ? " (injected)" : "") + " at " + file + ":" + std::to_string(line));
}

void check_cusolver(cusolverStatus_t s, const char* what, const char* file, int line, bool injected) {
    if (s == CUSOLVER_STATUS_SUCCESS) return;
    const ErrorCode code = s == CUSOLVER_STATUS_ALLOC_FAILED ? ErrorCode::out_of_memory : ErrorCode::device_error;
    throw Error(code, std::string("batchsvd CUDA backend: ") + what + " failed: cuSOLVER status " +
                          std::to_string(int(s)) + (injected ? " (injected)" : "") + " at " + file + ":" +
                          std::to_string(line));
}

LibraryHandles::LibraryHandles(cudaStream_t stream) : stream_(stream), uncaught_(std::uncaught_exceptions()) {
    BATCHSVD_CUDA_CHECK(cudaGetDevice(&device_));
    {
        HandlePool& p = pool();
        const std::lock_guard<std::mutex> lock(p.mutex);
        if (p.free.size() <= std::size_t(device_)) p.free.resize(std::size_t(device_) + 1);
        if (!p.free[device_].empty()) {
            set_ = p.free[device_].back();
            p.free[device_].pop_back();
        }
    }
    if (!set_.blas) {  // a new set (made outside the lock: creation takes milliseconds)
        HandleSet s;
        try {
            BATCHSVD_CUBLAS_CHECK(cublasCreate(&s.blas));
            BATCHSVD_CUBLAS_CHECK(cublasSetMathMode(s.blas, CUBLAS_DEFAULT_MATH));
            BATCHSVD_CUSOLVER_CHECK(cusolverDnCreate(&s.solver));
            BATCHSVD_CUSOLVER_CHECK(cusolverDnCreateParams(&s.params));
        } catch (...) {
            destroy(s);
            throw;
        }
        set_ = s;
    }
    try {
        BATCHSVD_CUBLAS_CHECK(cublasSetStream(set_.blas, stream));
        BATCHSVD_CUSOLVER_CHECK(cusolverDnSetStream(set_.solver, stream));
    } catch (...) {
        give_back(device_, set_);
        throw;
    }
}

LibraryHandles::~LibraryHandles() {
    if (std::uncaught_exceptions() > uncaught_ && cudaStreamSynchronize(stream_) != cudaSuccess)
        (void)cudaGetLastError();  // (the error in flight is the one reported)
    give_back(device_, set_);
}

}  // namespace batchsvd::cuda
