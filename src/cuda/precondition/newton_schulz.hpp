// The Newton-Schulz iteration for the orthogonal (unitary) polar factor, X <- X (3I - X^H X) / 2
// (Higham, "Functions of Matrices", SIAM 2008, section 8.3; each step takes an orthogonality
// error d = ||X^H X - I|| to about 0.75 d^2), one step for a batch of matrices in two
// strided-batched GEMMs. The preconditioner takes its basis to the working precision's
// orthogonality with it (precondition.cu), and the bisection eigensolver its inverse-iteration
// vectors to single precision's (eigensolver_bisect.cuh).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/common/batched_gemm.hpp"
#include "cuda/common/check.hpp"

namespace batchsvd::cuda {

/// One step on `batch` column-major n x n matrices: P = X^H X into p, then next = 1.5 X -
/// 0.5 X P (X copied into next, then one GEMM with beta = 1.5). Strides in elements; x, p and
/// next must not overlap. P stays in p, for a caller that checks the step's input. `blas` must
/// be bound to `stream`. Throws batchsvd::Error on a failed copy or cuBLAS call.
template <class T>
void newton_schulz_step(cublasHandle_t blas, cudaStream_t stream, int n, int batch, const T* x, long long sx, T* p,
                        long long sp, T* next, long long snext) {
    using R = core::real_of_t<T>;
    gemm_strided<T>(blas, true, false, n, n, n, R(1), x, n, sx, x, n, sx, R(0), p, n, sp, batch);
    const std::size_t bytes = std::size_t(n) * std::size_t(n) * sizeof(T);
    if (sx == snext && std::size_t(sx) * sizeof(T) == bytes)  // (contiguous: one copy)
        BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(next, x, bytes * std::size_t(batch), cudaMemcpyDeviceToDevice, stream));
    else
        BATCHSVD_CUDA_CHECK(cudaMemcpy2DAsync(next, std::size_t(snext) * sizeof(T), x, std::size_t(sx) * sizeof(T), bytes,
                                              std::size_t(batch), cudaMemcpyDeviceToDevice, stream));
    gemm_strided<T>(blas, false, false, n, n, n, R(-0.5), x, n, sx, p, n, sp, R(1.5), next, n, snext, batch);
}

}  // namespace batchsvd::cuda
