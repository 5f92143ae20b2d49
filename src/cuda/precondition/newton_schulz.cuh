// SPDX-License-Identifier: BSD-3-Clause
// The Newton-Schulz iteration for the orthogonal (unitary) polar factor, X <- X (3I - X^H X) / 2
// (Higham, "Functions of Matrices", SIAM 2008, section 8.3; each step takes an orthogonality
// error d = ||X^H X - I|| to about 0.75 d^2), one step for a batch of matrices: P = X^H X and
// X (1.5 I - 0.5 P) as strided-batched GEMMs, the middle factor formed in place of P by a
// kernel. The preconditioner takes its basis to the working precision's orthogonality with it
// (precondition.cu), the bisection eigensolver its inverse-iteration vectors to single
// precision's (eigensolver_bisect.cuh).
//
// Tried, and why not: next = 1.5 X - 0.5 X P as a copy of X and one GEMM with beta = 1.5 (no
// kernel of our own) cost the preconditioner up to 4% of the whole solve where its GEMMs are
// small (H100, 2026-11-26, float64 1000 x 150^2 26.2 against 25.2 ms).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <limits>

#include "cuda/common/batched_gemm.hpp"
#include "cuda/common/check.hpp"
#include "cuda/common/device_attribute.hpp"
#include "cuda/common/kernel_common.cuh"

namespace batchsvd::cuda {

namespace detail {

/// P <- (3 I - P) / 2 in place, for `batch` n x n matrices at stride sp (elements).
template <class T> __global__ void newton_schulz_factor_kernel(T* P, int n, long long sp, index_t total) {
    using R = core::real_of_t<T>;
    const index_t nn = index_t(n) * n;
    for (index_t i = index_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += index_t(gridDim.x) * blockDim.x) {
        const index_t b = i / nn;
        const unsigned k = unsigned(i - b * nn);  // (n^2 < 2^32)
        T* at = P + b * sp + k;
        const T half = core::scale(*at, R(-0.5));  // 1.5 I - P / 2
        *at = k % unsigned(n) == k / unsigned(n) ? add(half, T(R(1.5))) : half;
    }
}

/// One block a matrix: flags[b] = 1 where ||P - I||_F^2 > n u / 2 (u of T's precision; NaN
/// too), else 0.
template <class T>
__global__ void __launch_bounds__(256) newton_schulz_check_kernel(const T* P, long long sp, int* flags, int n,
                                                                  index_t batch) {
    using R = core::real_of_t<T>;
    __shared__ R red[256 / 32 + 1];
    for (index_t b = blockIdx.x; b < batch; b += gridDim.x) {
        const T* pm = P + b * sp;
        R e2 = 0;
        for (int c = 0; c < n; ++c)
            for (int r = threadIdx.x; r < n; r += blockDim.x) {
                const T x = pm[r + index_t(c) * n];
                e2 += core::abs2(r == c ? add(x, T(R(-1))) : x);
            }
        e2 = block_sum<256>(e2, red);
        if (threadIdx.x == 0) flags[b] = !(e2 <= R(n) * std::numeric_limits<R>::epsilon() / 2);
        __syncthreads();  // (red is the next matrix's)
    }
}

}  // namespace detail

/// One step on `batch` column-major n x n matrices: P = X^H X into p, flags (when given) from
/// P (newton_schulz_check_kernel: whether X was orthogonal enough for this step to take it to
/// rounding), the factor (3 I - P) / 2 in place of P, then next = X times it. Strides in
/// elements; x, p and next must not overlap. `blas` must be bound to `stream`. Throws
/// batchsvd::Error on a failed launch or cuBLAS call.
template <class T>
void newton_schulz_step(cublasHandle_t blas, cudaStream_t stream, int n, int batch, const T* x, long long sx, T* p,
                        long long sp, T* next, long long snext, int* flags = nullptr) {
    using R = core::real_of_t<T>;
    gemm_strided<T>(blas, true, false, n, n, n, R(1), x, n, sx, x, n, sx, R(0), p, n, sp, batch);
    const index_t total = index_t(batch) * n * n;
    if (flags) {
        detail::newton_schulz_check_kernel<T><<<unsigned(std::min<index_t>(batch, 1 << 20)), 256, 0, stream>>>(
            p, sp, flags, n, batch);
        BATCHSVD_CUDA_CHECK_LAUNCH("newton_schulz_check_kernel");
    }
    detail::newton_schulz_factor_kernel<T><<<grid_stride_blocks(total), 256, 0, stream>>>(p, n, sp, total);
    BATCHSVD_CUDA_CHECK_LAUNCH("newton_schulz_factor_kernel");
    gemm_strided<T>(blas, false, false, n, n, n, R(1), x, n, sx, p, n, sp, R(0), next, n, snext, batch);
}

}  // namespace batchsvd::cuda
