// SPDX-License-Identifier: BSD-3-Clause
// Kernels of the CUDA gebrd and of the bidiagonal route to singular values: one block a matrix
// bidiagonalises op(A) (A, or A^H when wide, so that the reduction is always the upper case;
// LAPACK's lower case for m < n is exactly the upper case on A^H with tauq and taup exchanged),
// then one block a matrix finds the bidiagonal's values, a thread a value
// (core::bidiagonal_value_at).
#pragma once

#include "core/bidiagonal_values.hpp"
#include "cuda/bidiagonal/gebd2_block.cuh"
#include "cuda/common/kernel_common.cuh"

namespace batchsvd::cuda {

template <class T> struct BrdParams {
    using R = core::real_of_t<T>;
    const T* a;  ///< the input (gebrd: overwritten through a_out, the same matrices)
    T* a_out;    ///< gebrd: A's storage; the values route: null
    index_t lda, stride_a;
    R* d;        ///< gebrd: the caller's d (vstride apart); the values route: the workspace's (N apart)
    R* e;
    T* tauq;     ///< gebrd only (may be null)
    T* taup;
    index_t vstride;
    int* info;
    T* work;     ///< working matrices in global memory (M x N, leading dimension M, each), or null
    index_t batch;
    int m, n;    ///< A's shape
    int M, N;    ///< op(A)'s (M >= N)
    bool transpose;  ///< op(A) = A^H
};

/// Where a block keeps its working matrix: shared memory (leading dimension M | 1), A itself
/// (gebrd of a tall or square matrix too large for shared memory), or the global workspace.
enum class BrdStorage { shared, in_place, workspace };

/// gebrd (Values = false: A overwritten, d, e, tauq, taup, info) or the first half of the
/// values route (Values = true: d and e of op(A) into the workspace, info); a matrix with NaN or
/// Inf gets info -1 and NaN outputs (gebrd) or just its info (the values kernel writes NaN).
template <class T, int Threads, BrdStorage Storage, bool Values>
__global__ void __launch_bounds__(Threads) gebrd_kernel(const BrdParams<T> p) {
    using R = core::real_of_t<T>;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    __shared__ Gebd2Shared<T, Threads> sh;
    const int tid = threadIdx.x, M = p.M, N = p.N, m = p.m, n = p.n;
    const index_t mn = index_t(m) * n;
    for (index_t b = blockIdx.x; b < p.batch; b += gridDim.x) {
        const T* A = p.a + b * p.stride_a;
        T* W;
        int ldw;
        if constexpr (Storage == BrdStorage::shared) {
            W = reinterpret_cast<T*>(smem_raw);
            ldw = M | 1;
        } else if constexpr (Storage == BrdStorage::in_place) {
            W = p.a_out + b * p.stride_a;
            ldw = int(p.lda);
        } else {
            W = p.work + b * index_t(M) * N;
            ldw = M;
        }
        // op(A) into W (except in place), and whether every entry is finite.
        bool bad = false;
        for (index_t idx = tid; idx < mn; idx += Threads) {
            const int r = int(idx % m), c = int(idx / m);
            const T x = A[r + c * p.lda];
            bad = bad || !core::is_finite(x);
            if constexpr (Storage != BrdStorage::in_place) {
                if (p.transpose) W[c + index_t(r) * ldw] = core::conj_of(x);
                else W[r + index_t(c) * ldw] = x;
            }
        }
        bad = __syncthreads_or(bad);
        R* d = p.d + b * p.vstride;
        R* e = p.e ? p.e + b * p.vstride : nullptr;
        T* tq = (!Values && p.tauq) ? p.tauq + b * p.vstride : nullptr;
        T* tp = (!Values && p.taup) ? p.taup + b * p.vstride : nullptr;
        if (bad) {
            if constexpr (!Values) {
                const R nan = detail::quiet_nan<R>();
                for (index_t idx = tid; idx < mn; idx += Threads)
                    p.a_out[b * p.stride_a + (idx % m) + (idx / m) * p.lda] = detail::make_nan<T>();
                for (int i = tid; i < N; i += Threads) {
                    d[i] = nan;
                    if (e && i + 1 < N) e[i] = nan;
                    if (tq) tq[i] = detail::make_nan<T>();
                    if (tp) tp[i] = detail::make_nan<T>();
                }
            }
            if (tid == 0) p.info[b] = info_nonfinite;
            __syncthreads();
            continue;
        }
        // The reduction of op(A): for A^H, H and G exchange roles (tauq <-> taup).
        gebd2_block<Threads>(W, ldw, M, N, d, e, p.transpose ? tp : tq, p.transpose ? tq : tp, sh);
        if constexpr (!Values && Storage != BrdStorage::in_place) {
            T* Ao = p.a_out + b * p.stride_a;
            for (index_t idx = tid; idx < mn; idx += Threads) {
                const int r = int(idx % m), c = int(idx / m);
                Ao[r + c * p.lda] = p.transpose ? core::conj_of(W[c + index_t(r) * ldw]) : W[r + index_t(c) * ldw];
            }
        }
        if (tid == 0) p.info[b] = 0;
        __syncthreads();  // (shared memory is reused by the next matrix)
    }
}

inline constexpr int kBrdValueThreads = 128;

/// Singular values of each bidiagonal (d, e, N apart in the workspace), descending, into s:
/// a thread a value (blocks of up to kBrdValueThreads threads), P points a bisection step; NaN
/// for a matrix whose info is not 0. Options::sweeps (when asked) 0.
template <class R, int P>
__global__ void __launch_bounds__(kBrdValueThreads)
    bidiagonal_values_kernel(const R* dg, const R* eg, int N, index_t batch, const int* info, R* s,
                             index_t s_stride, int* sweeps) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    R* d = reinterpret_cast<R*>(smem_raw);
    R* e = d + N;
    __shared__ core::BidiagonalBracket<R> br;
    const int tid = threadIdx.x, nt = blockDim.x;
    for (index_t b = blockIdx.x; b < batch; b += gridDim.x) {
        R* sb = s + b * s_stride;
        if (info[b] != 0) {
            for (int r = tid; r < N; r += nt) sb[r] = detail::quiet_nan<R>();
        } else {
            for (int i = tid; i < N; i += nt) {
                d[i] = dg[b * N + i];
                if (i + 1 < N) e[i] = eg[b * N + i];
            }
            __syncthreads();
            if (tid == 0) br = core::bidiagonal_bracket<R>(N, d, e);
            __syncthreads();
            for (int r = tid; r < N; r += nt)
                sb[r] = core::bidiagonal_value_at<P, R>(N, d, e, r, br);
        }
        if (sweeps && tid == 0) sweeps[b] = 0;
        __syncthreads();
    }
}

}  // namespace batchsvd::cuda
