// SPDX-License-Identifier: BSD-3-Clause
// Tiny matrices (max(m, n) <= kTinyMax): one thread per matrix, the working matrix W and V
// in registers, loads and stores staged through shared memory so that a warp reads and
// writes contiguous bytes (the batch is stored matrix after matrix).
//
// Same one-sided Jacobi as the fused kernel (fused_kernel.cuh): the rotation formulas and
// the convergence test with its noise guard come from core/rotation.hpp, the power-of-two
// scaling and the NaN/Inf handling are the same. What differs: one thread does every pair,
// so the pairs follow the cyclic-by-rows ordering (compile-time indices keep W and V in
// registers), and the norms of both columns are computed exactly for every pair (cheap
// here: the columns are in registers).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/precision.hpp"
#include "core/rotation.hpp"
#include "core/scalar.hpp"
#include "cuda/common/kernel_common.cuh"

namespace batchsvd::cuda {

/// Largest order the tiny kernel takes (measured crossover with the fused kernel, H100,
/// 2026-11-23: docs/paths/tiny.md).
inline constexpr int kTinyMax = 4;
/// Threads (= matrices) per block of the tiny kernel.
inline constexpr int kTinyThreads = 128;

/// Shared-memory bytes the tiny kernel needs for one block (staging of the largest operand).
template <class T> constexpr std::size_t tiny_smem_bytes() {
    return std::size_t(kTinyThreads) * kTinyMax * kTinyMax * sizeof(T);
}

namespace detail {

/// Rotates columns (i, j) of a register matrix X (rows x NMAX, rows <= NMAX).
template <class T, int NMAX>
__device__ __forceinline__ void rotate_cols(T (&X)[NMAX][NMAX], int rows, int i, int j,
                                            const T& tw, core::real_of_t<T> cs) {
    const T mtwc = core::scale(core::conj_of(tw), core::real_of_t<T>(-1));
#pragma unroll
    for (int r = 0; r < NMAX; ++r) {
        if (r < rows) {
            const T xo = X[i][r], yo = X[j][r];
            X[i][r] = core::scale(core::axpy(mtwc, yo, xo), cs);
            X[j][r] = core::scale(core::axpy(tw, xo, yo), cs);
        }
    }
}

template <class T, int NMAX>
__device__ __forceinline__ void swap_cols(T (&X)[NMAX][NMAX], int i, int j) {
#pragma unroll
    for (int r = 0; r < NMAX; ++r) {
        const T t = X[i][r];
        X[i][r] = X[j][r];
        X[j][r] = t;
    }
}

/// dst[0, count) = src[0, count) by the block's threads: 16-byte vectors where both ends are
/// 16-byte aligned, elements otherwise. Each byte is touched once, so the global side is
/// streamed: loads from global memory (ToShared) or stores to it (!ToShared) bypass caching.
template <bool ToShared, class T>
__device__ __forceinline__ void stream_copy(T* __restrict__ dst, const T* __restrict__ src, int count) {
    const bool vec = ((reinterpret_cast<std::uintptr_t>(dst) | reinterpret_cast<std::uintptr_t>(src)) & 15) == 0;
    int done = 0;
    if (vec) {
        constexpr int per = 16 / sizeof(T) > 0 ? 16 / sizeof(T) : 1;
        const int nvec = count / per;
        const int4* s4 = reinterpret_cast<const int4*>(src);
        int4* d4 = reinterpret_cast<int4*>(dst);
        for (int i = threadIdx.x; i < nvec; i += kTinyThreads) {
            if constexpr (ToShared) d4[i] = __ldcs(s4 + i);
            else __stcs(d4 + i, s4[i]);
        }
        done = nvec * per;
    }
    for (int i = done + threadIdx.x; i < count; i += kTinyThreads) dst[i] = src[i];
}

}  // namespace detail

/// One thread per matrix. W[c][r] is element (r, c) of the working matrix (M x N, M >= N):
/// A, or A^H for wide A; V[c][r] likewise for the N x N right factor of W. NM: the register
/// arrays' order, max(m, n) <= NM <= kTinyMax (the host picks the matrix's own order).
template <class T, int NM>
__global__ void __launch_bounds__(kTinyThreads) tiny_jacobi_kernel(const JacobiParams<T> p) {
    using R = core::real_of_t<T>;
    static_assert(NM >= 1 && NM <= kTinyMax);
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* stage = reinterpret_cast<T*>(smem_raw);

    const int tid = threadIdx.x;
    const index_t first = index_t(blockIdx.x) * kTinyThreads;
    const int here = int(p.batch - first < kTinyThreads ? p.batch - first : kTinyThreads);
    const int m = p.m, n = p.n, M = p.M, N = p.N;
    const int mn = m * n;

    // ---- coalesced load of the block's matrices into shared memory ----------------------
    // A packed batch (the common case) is one contiguous span: copied as 16-byte vectors
    // without index arithmetic, which dominated this memory-bound kernel.
    if (p.lda == m && p.stride_a == mn) {
        detail::stream_copy<true>(stage, p.a + first * mn, here * mn);
    } else {
        for (int idx = tid; idx < here * mn; idx += kTinyThreads) {
            const int b = idx / mn, e = idx - b * mn;
            const int r = e % m, c = e / m;
            stage[idx] = p.a[(first + b) * p.stride_a + r + index_t(c) * p.lda];
        }
    }
    __syncthreads();

    const bool active = tid < here;
    const index_t b = first + tid;
    T W[NM][NM], V[NM][NM];
    R amax = 0;
    bool bad = false;
#pragma unroll
    for (int c = 0; c < NM; ++c)
#pragma unroll
        for (int r = 0; r < NM; ++r) {
            W[c][r] = T(R(0));
            V[c][r] = T(R(r == c ? 1 : 0));
        }
    // (A separate pass: the transposed store below writes W[r][c] for a later (c, r).)
#pragma unroll
    for (int c = 0; c < NM; ++c)
#pragma unroll
        for (int r = 0; r < NM; ++r) {
            if (active && r < m && c < n) {
                const T x = stage[tid * mn + r + c * m];
                bad = bad || !core::is_finite(x);
                const R ax = core::abs_of(x);
                amax = ax > amax ? ax : amax;
                if (p.transpose) W[r][c] = core::conj_of(x); else W[c][r] = x;
            }
        }

    // ---- scaling by a power of two, as in the fused kernel ------------------------------
    const int scale_e = detail::scale_exponent(amax);
    if (scale_e != 0) {
#pragma unroll
        for (int c = 0; c < NM; ++c)
#pragma unroll
            for (int r = 0; r < NM; ++r) W[c][r] = detail::scale_pow2(W[c][r], scale_e);
    }
    const core::Tolerance<R> tol{p.tol, core::negligible_norm(scalbn(amax, scale_e))};

    // ---- sweeps, cyclic by rows ------------------------------------------------------------
    int sweeps = 0;
    bool converged = false;
    if (active && !bad) {
        for (int sweep = 0; sweep < p.max_sweeps; ++sweep) {
            bool rotated = false;
#pragma unroll
            for (int i = 0; i < NM; ++i)
#pragma unroll
                for (int j = i + 1; j < NM; ++j) {
                    if (j >= N) continue;
                    T c = T(R(0));
                    R a = 0, bb = 0;
#pragma unroll
                    for (int r = 0; r < NM; ++r)
                        if (r < M) {
                            c = core::fma_conj(W[i][r], W[j][r], c);
                            a += core::abs2(W[i][r]);
                            bb += core::abs2(W[j][r]);
                        }
                    const R absc = core::abs_of(c);
                    if (!core::needs_rotation(absc, a, bb, tol)) continue;
                    rotated = true;
                    const core::Rotation<R> rot = core::jacobi_rotation(a, bb, absc);
                    const T tw = core::rotation_twiddle(c, absc, rot.t);
                    detail::rotate_cols(W, M, i, j, tw, rot.cs);
                    if (p.need_vw) detail::rotate_cols(V, N, i, j, tw, rot.cs);
                }
            ++sweeps;
            if (!rotated) {
                converged = true;
                break;
            }
        }
    }

    // ---- sigma, descending order, U = W / sigma, completion of zero columns -------------
    R sg[NM];
#pragma unroll
    for (int c = 0; c < NM; ++c) {
        R s2 = 0;
#pragma unroll
        for (int r = 0; r < NM; ++r) s2 += core::abs2(W[c][r]);
        const R s = std::sqrt(s2);
        sg[c] = (c < N && s > tol.negligible) ? s : R(0);
    }
    // Stable selection sort by descending sigma over the first N columns (compile-time
    // indices: the swaps stay in registers).
#pragma unroll
    for (int i = 0; i < NM; ++i)
#pragma unroll
        for (int j = i + 1; j < NM; ++j)
            if (j < N && sg[j] > sg[i]) {
                const R t = sg[i];
                sg[i] = sg[j];
                sg[j] = t;
                detail::swap_cols(W, i, j);
                detail::swap_cols(V, i, j);
            }
    // Swapping i with a later larger j is not stable for equal values but keeps the
    // descending order, which is all that is promised for ties.
#pragma unroll
    for (int c = 0; c < NM; ++c) {
        if (c >= N) continue;
        if (sg[c] > 0) {
            const R inv = R(1) / sg[c];
#pragma unroll
            for (int r = 0; r < NM; ++r) W[c][r] = core::scale(W[c][r], inv);
        } else {
            // sigma = 0 (sorted last): the unit vector with the largest part orthogonal to
            // the columns before it, by Gram-Schmidt run twice, normalised.
            R best = -1;
            T pick[NM];
#pragma unroll
            for (int e = 0; e < NM; ++e) {
                if (e >= M) continue;
                T y[NM];
#pragma unroll
                for (int r = 0; r < NM; ++r) y[r] = T(R(r == e ? 1 : 0));
#pragma unroll
                for (int pass = 0; pass < 2; ++pass)
#pragma unroll
                    for (int q = 0; q < NM; ++q) {
                        if (q >= c) continue;
                        T h = T(R(0));
#pragma unroll
                        for (int r = 0; r < NM; ++r)
                            if (r < M) h = core::fma_conj(W[q][r], y[r], h);
                        const T mh = core::scale(h, R(-1));
#pragma unroll
                        for (int r = 0; r < NM; ++r) y[r] = core::axpy(mh, W[q][r], y[r]);
                    }
                R nn = 0;
#pragma unroll
                for (int r = 0; r < NM; ++r)
                    if (r < M) nn += core::abs2(y[r]);
                if (nn > best) {
                    best = nn;
#pragma unroll
                    for (int r = 0; r < NM; ++r) pick[r] = y[r];
                }
            }
            const R inv = R(1) / std::sqrt(best);
#pragma unroll
            for (int r = 0; r < NM; ++r) W[c][r] = r < M ? core::scale(pick[r], inv) : T(R(0));
        }
    }

    // ---- outputs: S directly, U and V staged through shared memory (coalesced) ----------
    const int k = N;
    if (active) {
        R* s_out = p.s + b * p.s_stride;
#pragma unroll
        for (int c = 0; c < NM; ++c)
            if (c < k) s_out[c] = bad ? detail::quiet_nan<R>() : scalbn(sg[c], -scale_e);
        p.info[b] = bad ? info_nonfinite : converged ? 0 : sweeps;
        if (p.sweeps) p.sweeps[b] = bad ? 0 : sweeps;
    }
    // U_A (m x k) is W's columns when tall, V_W when wide; V_A (n x k) the other one.
    for (int which = 0; which < 2; ++which) {
        const bool want = which == 0 ? p.compute_u : p.compute_v;
        if (!want) continue;  // uniform over the block
        const int rows = which == 0 ? m : n;
        const bool from_w = (which == 0) != p.transpose;  // U_A = U_W unless wide
        const int len = rows * k;
        __syncthreads();  // the stage is free again
        if (active) {
#pragma unroll
            for (int c = 0; c < NM; ++c)
#pragma unroll
                for (int r = 0; r < NM; ++r)
                    if (c < k && r < rows)
                        stage[tid * len + r + c * rows] =
                            bad ? detail::make_nan<T>() : (from_w ? W[c][r] : V[c][r]);
        }
        __syncthreads();
        T* out = which == 0 ? p.u : p.v;
        const index_t ld = which == 0 ? p.ldu : p.ldv;
        const index_t st = which == 0 ? p.stride_u : p.stride_v;
        if (ld == rows && st == len) {
            detail::stream_copy<false>(out + first * len, stage, here * len);
        } else {
            for (int idx = tid; idx < here * len; idx += kTinyThreads) {
                const int bb = idx / len, e = idx - bb * len;
                const int r = e % rows, c = e / rows;
                out[(first + bb) * st + r + index_t(c) * ld] = stage[idx];
            }
        }
    }
}

}  // namespace batchsvd::cuda
