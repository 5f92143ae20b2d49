// SPDX-License-Identifier: BSD-3-Clause
// Kernels of the CUDA gebrd and of the bidiagonal route to singular values: one block a matrix
// bidiagonalises op(A) (A, or A^H when wide, so that the reduction is always the upper case;
// LAPACK's lower case for m < n is exactly the upper case on A^H with tauq and taup exchanged),
// then one block a matrix finds the bidiagonal's values, a thread a value
// (core::bidiagonal_value_at), or for large float64 batches a thread a matrix by dqds
// (core::bidiagonal_singular_values_dqds).
#pragma once

#include "core/bidiagonal_dqds.hpp"
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
    R* s;        ///< the values route in shared memory: the values (s_stride apart), else null
    index_t s_stride;
    int* sweeps; ///< the values route in shared memory: Options::sweeps (0 each), or null
    index_t batch;
    int m, n;    ///< A's shape
    int M, N;    ///< op(A)'s (M >= N)
    bool transpose;  ///< op(A) = A^H
};

/// Bytes of shared memory before d and e in the values route's fused kernel: the working
/// matrix (ldw x N), which after the reduction holds the values' scratch (N values, then a
/// count a thread), so at least that much; 16-byte aligned.
template <class T, int Threads> __host__ __device__ inline std::size_t brd_fused_work_bytes(int ldw, int N) {
    std::size_t w = std::size_t(ldw) * std::size_t(N) * sizeof(T);
    const std::size_t need = std::size_t(N) * sizeof(core::real_of_t<T>) + std::size_t(Threads) * sizeof(int);
    if (need > w) w = need;
    return (w + 15) / 16 * 16;
}

/// Where a block keeps its working matrix: shared memory (leading dimension M | 1), A itself
/// (gebrd of a tall or square matrix too large for shared memory), or the global workspace.
enum class BrdStorage { shared, in_place, workspace };

/// Points a step of each value's bisection (core::bidiagonal_value_at). The values are bound
/// by the throughput of FP64 division, so the fewest counts a bit of bracket win over more
/// independent chains a thread: values alone with 1, 3 and 7 points (H100, 2026-11-28, the
/// same binary): float64 10000 x 64^2 12.4, 15.1, 21.0 ms; 10000 x 32^2 2.73, 3.39, 4.88;
/// float32 1000 x 128^2 4.75, 5.07, 5.76.
inline constexpr int kBrdBisectionPoints = 1;

/// The singular values of the bidiagonal (d, e) of order N, descending, into out: a thread a
/// value (core::bidiagonal_value_at, P points a bisection step), then ranked through scratch
/// (N entries, apart from d and e), since the brackets of two values within a few ulps of each
/// other may end in either order. Every thread of the block calls it; it does not end with a
/// barrier (a caller that then reuses d, e or scratch synchronises first).
///
/// With Paired (the count of two pivots a division, tgk_counts_below_paired), the block also
/// first counts at one point a thread, evenly spaced over the
/// bracket [0, 2 bound] of every value (blockDim.x points, counted into `counts`, shared
/// memory apart from the rest), and each value starts from the two points around it: one step
/// of the block's counts for the first log2(blockDim.x) bisection steps of every value, and
/// for the values well inside the bracket the geometric steps down from the underflow
/// threshold as well.
template <int P, bool Paired, class R>
__device__ void block_bidiagonal_values(int N, const R* d, const R* e, R* out, R* scratch, int* counts,
                                        core::BidiagonalBracket<R>& br) {
    constexpr bool presplit = Paired;
    const int tid = threadIdx.x, nt = blockDim.x, points = nt;
    if (tid == 0) br = core::bidiagonal_bracket<R>(N, d, e);
    __syncthreads();
    const R top = 2 * br.bound, step = top / R(points + 1);
    if constexpr (presplit) {
        if (tid < points && br.bound != R(0)) {
            const R x = step * R(tid + 1);
            core::bidiagonal_detail::tgk_counts_below_paired<1>(N, d, e, std::ldexp(R(1), br.k), &x, &counts[tid],
                                                                core::bidiagonal_detail::tgk_pivmin<R>());
        }
        __syncthreads();
    }
    for (int r = tid; r < N; r += nt) {
        R lo = 0, hi = top;
        if (presplit && br.bound != R(0)) {  // sigma_r >= x <=> count(x) <= N - 1 - r
            const int target = N - 1 - r;
            int j = 0;
            while (j < points && counts[j] <= target) ++j;
            if (j > 0) lo = step * R(j);
            if (j < points) hi = step * R(j + 1);
        }
        scratch[r] = core::bidiagonal_value_at<P, R, Paired>(N, d, e, r, br, lo, hi);
    }
    __syncthreads();
    for (int r = tid; r < N; r += nt) {
        const R v = scratch[r];
        int rank = 0;
        for (int j = 0; j < N; ++j) {
            const R w = scratch[j];
            rank += (w > v || (w == v && j < r)) ? 1 : 0;
        }
        out[rank] = v;
    }
}

/// gebrd (Values = false: A overwritten, d, e, tauq, taup, info) or the first half of the
/// values route (Values = true: d and e of op(A) into the workspace, info); a matrix with NaN or
/// Inf gets info -1 and NaN outputs (gebrd) or just its info (the values kernel writes NaN).
/// The values route with op(A) in shared memory goes on to the values in the same block (d and
/// e kept in shared memory after W; NaN values for info -1; sweeps 0), so that one block's
/// reduction (barrier-bound) runs beside another's bisection (bound by the FP64 divider).
template <class T, int Threads, BrdStorage Storage, bool Values>
__global__ void __launch_bounds__(Threads) gebrd_kernel(const BrdParams<T> p) {
    using R = core::real_of_t<T>;
    constexpr bool kMayFuse = Values && Storage == BrdStorage::shared;
    const bool fused = kMayFuse && p.s != nullptr;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    __shared__ Gebd2Shared<T, Threads> sh;
    __shared__ core::BidiagonalBracket<R> br;
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
        R* d;
        R* e;
        if (fused) {
            d = reinterpret_cast<R*>(smem_raw + brd_fused_work_bytes<T, Threads>(ldw, N));
            e = d + N;
        } else {
            d = p.d + b * p.vstride;
            e = p.e ? p.e + b * p.vstride : nullptr;
        }
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
            if (fused) {
                for (int r = tid; r < N; r += Threads) p.s[b * p.s_stride + r] = detail::quiet_nan<R>();
                if (p.sweeps && tid == 0) p.sweeps[b] = 0;
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
        if constexpr (kMayFuse) {
            if (fused) {  // W is free: the values' scratch
                R* scratch = reinterpret_cast<R*>(W);  // N values, then Threads counts
                block_bidiagonal_values<kBrdBisectionPoints, true>(N, d, e, p.s + b * p.s_stride, scratch,
                                                                   reinterpret_cast<int*>(scratch + N), br);
                if (p.sweeps && tid == 0) p.sweeps[b] = 0;
            }
        }
        if (tid == 0) p.info[b] = 0;
        __syncthreads();  // (shared memory is reused by the next matrix)
    }
}

inline constexpr int kBrdValueThreads = 128;

/// Singular values of each bidiagonal (d, e, N apart in the workspace), descending, into s:
/// a thread a value (blocks of up to kBrdValueThreads threads), P points a bisection step; NaN
/// for a matrix whose info is not 0. Options::sweeps (when asked) 0. The values route where
/// op(A) does not fit in shared memory (and measurements: BATCHSVD_CUDA_BRD_VALUES).
template <class R, int P, bool Paired>
__global__ void __launch_bounds__(kBrdValueThreads)
    bidiagonal_values_kernel(const R* dg, const R* eg, int N, index_t batch, const int* info, R* s,
                             index_t s_stride, int* sweeps) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    R* d = reinterpret_cast<R*>(smem_raw);
    R* e = d + N;
    R* scratch = e + N;
    int* counts = reinterpret_cast<int*>(scratch + N);  // blockDim.x of them
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
            block_bidiagonal_values<P, Paired>(N, d, e, sb, scratch, counts, br);
        }
        if (sweeps && tid == 0) sweeps[b] = 0;
        __syncthreads();
    }
}

/// Singular values of each bidiagonal (d, e, N apart in the workspace), descending, into s, by
/// dqds: a thread a matrix (core::bidiagonal_singular_values_dqds; its 5N doubles of work in
/// `work`, global memory, interleaved: matrix b's entry i at b + i * batch, so that a warp's
/// threads at the same step of their transforms read one or two lines); NaN for a matrix
/// whose info is not 0. Options::sweeps (when asked) 0.
template <class R>
__global__ void bidiagonal_dqds_kernel(const R* dg, const R* eg, int N, index_t batch, const int* info, R* s,
                                       index_t s_stride, int* sweeps, double* work) {
    for (index_t b = index_t(blockIdx.x) * blockDim.x + threadIdx.x; b < batch; b += index_t(gridDim.x) * blockDim.x) {
        R* sb = s + b * s_stride;
        if (info[b] != 0) {
            for (int r = 0; r < N; ++r) sb[r] = detail::quiet_nan<R>();
        } else {
            core::bidiagonal_singular_values_dqds<R>(N, dg + b * N, eg + b * N, sb, work + b, int(batch));
        }
        if (sweeps) sweeps[b] = 0;
    }
}

}  // namespace batchsvd::cuda
