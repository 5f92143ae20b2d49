// SPDX-License-Identifier: BSD-3-Clause
// The blocked hyperbolic SVD on the GPU, for G past the fused kernel's shared memory: one-sided
// block J-orthogonal Jacobi (the hierarchical-blocked paper, section 4.3, with the SVD's blocked
// path's organisation, blocked_kernels.cuh). The working matrix W = G (columns partitioned: the
// +1 columns first) and V live in a device workspace; the columns are cut into blocks of
// kHypBlock, and a round-robin ordering runs over the blocks, one launch a step, one thread
// block a (matrix, block pair). It forms the pair's Gram matrix H = [Xi Xj]^H [Xi Xj] (W2 x W2,
// W2 = 2 kHypBlock) in shared memory, runs one sweep of two-sided J-orthogonal Jacobi on H
// (Q^H H Q with Q^H J Q = J: a pair of equal signs takes the trigonometric rotation, of
// opposite signs the hyperbolic one, both from signed_rotation on H's entries), accumulates Q,
// and, when any pair rotated, replaces [Xi Xj] by [Xi Xj] Q and [Vi Vj] by [Vi Vj] Q.
// What differs from the SVD's blocked path: no tensor cores, no cluster split, no skipping of
// converged pairs, Q and H in shared memory; the rotations are computed as the fused kernel's
// are (the same test |h_pq| > tol sqrt(h_pp h_qq) on H as on the columns).
#pragma once

#include "batchsvd/hyperbolic.hpp"
#include "cuda/common/kernel_common.cuh"
#include "cuda/hyperbolic/hsvd_finalize.cuh"
#include "cuda/hyperbolic/hyperbolic_pair.cuh"

namespace batchsvd::cuda {

inline constexpr int kHypBlock = 16;              ///< columns a block
inline constexpr int kHypPair = 2 * kHypBlock;    ///< columns of a block pair (W2)
inline constexpr int kHypThreads = 256;           ///< threads of each kernel's blocks
/// Rows of a panel tile in shared memory (16-byte types: 16, so that H, Q and the tile stay
/// within 48 KB of static shared memory).
template <class T> inline constexpr int kHypTileRows = sizeof(T) > 8 ? 16 : 32;

/// Per-matrix state of the blocked iteration (device memory).
template <class R> struct HypBlockedState {
    R negligible;    ///< core::negligible_norm of the scaled matrix
    int scale_e;     ///< the power-of-two exponent G was scaled by
    int npos;        ///< columns with j = +1 (the first npos working columns)
    int status;      ///< 0, info_nonfinite or info_no_hyperbolic_rotation
    int active;      ///< still iterating
    int rotated;     ///< a pair rotated in this sweep
    int sweeps;
    int converged;
};

/// The blocked iteration's operands: the JacobiParams of the call (outputs, shape, tolerance,
/// signatures) and the workspace, `ws_stride` elements a matrix (W, M x N with ld M, then V,
/// N x N with ld N when p.need_vw), `source` N ints a matrix (the caller's column of each
/// working column).
template <class T> struct HypBlockedParams {
    JacobiParams<T> p;
    T* ws;
    std::size_t ws_stride;
    int* source;
    HypBlockedState<core::real_of_t<T>>* state;
};

/// Block b: matrix b's signature partitioned (source), finiteness and largest entry, the
/// scaling exponent, W = G scaled with its columns in the partitioned order, V = I, the state.
template <class T> __global__ void __launch_bounds__(kHypThreads) hyp_blocked_load_kernel(const HypBlockedParams<T> q) {
    using R = core::real_of_t<T>;
    const JacobiParams<T>& p = q.p;
    const index_t b = blockIdx.x;
    const int M = p.M, N = p.N, tid = threadIdx.x;
    __shared__ int npos_s;
    __shared__ R red[kHypThreads / 32];
    __shared__ int bad_s;
    int* src = q.source + b * N;
    if (tid == 0) {
        npos_s = detail::partition_signature(p.jsig + b * p.jsig_stride, N, src);
        bad_s = 0;
    }
    __syncthreads();
    const T* a = p.a + b * p.stride_a;
    R amax = 0;
    bool bad = false;
    for (index_t idx = tid; idx < index_t(M) * N; idx += kHypThreads) {
        const T x = a[idx % M + (idx / M) * p.lda];
        bad = bad || !core::is_finite(x);
        amax = fmax(amax, core::abs_of(x));
    }
    if (bad) bad_s = 1;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) amax = fmax(amax, __shfl_xor_sync(0xffffffffu, amax, off));
    if ((tid & 31) == 0) red[tid >> 5] = amax;
    __syncthreads();
    R big = 0;
    for (int w = 0; w < kHypThreads / 32; ++w) big = fmax(big, red[w]);
    const bool nonfinite = bad_s != 0;
    const int e = nonfinite ? 0 : detail::scale_exponent(big);
    T* W = q.ws + std::size_t(b) * q.ws_stride;
    T* V = W + std::size_t(M) * N;
    for (index_t idx = tid; idx < index_t(M) * N; idx += kHypThreads) {
        const int r = int(idx % M), c = int(idx / M);
        W[idx] = nonfinite ? T(R(0)) : detail::scale_pow2(a[r + index_t(src[c]) * p.lda], e);
    }
    if (p.need_vw)
        for (index_t idx = tid; idx < index_t(N) * N; idx += kHypThreads)
            V[idx] = T(R(idx % N == idx / N ? 1 : 0));
    if (tid == 0) {
        HypBlockedState<R> s{};
        s.negligible = core::negligible_norm(scalbn(big, e));
        s.scale_e = e;
        s.npos = npos_s;
        s.status = nonfinite ? info_nonfinite : 0;
        s.active = nonfinite ? 0 : 1;
        q.state[b] = s;
    }
}

/// Step `step` of the round robin over the column blocks: block (pair, matrix) of the grid
/// orthogonalises its block pair (Gram matrix, one two-sided sweep, update), as the header says.
/// Padding columns (past N) are zero and never rotate.
template <class T>
__global__ void __launch_bounds__(kHypThreads) hyp_blocked_pair_kernel(const HypBlockedParams<T> q, int step) {
    using R = core::real_of_t<T>;
    constexpr int W2 = kHypPair, LD = W2 + 1, TR = kHypTileRows<T>, TLD = TR + 1;
    const JacobiParams<T>& p = q.p;
    const index_t b = blockIdx.y;
    HypBlockedState<R>& st = q.state[b];
    if (!st.active) return;
    const int M = p.M, N = p.N, tid = threadIdx.x;
    const int nblk = (N + kHypBlock - 1) / kHypBlock;
    const core::IndexPair bp = core::round_robin_pair(nblk, step, blockIdx.x);
    if (bp.j >= nblk && nblk > 1) return;  // (an odd count of blocks: the padding block's pair;
                                           // a single block is paired with padding columns)
    __shared__ T H[W2 * LD], Q[W2 * LD], tile[W2 * TLD];  // tile: TR rows x W2, ld TLD
    __shared__ T rec[W2 / 2][4];  // each pair's explicit 2 x 2 rotation R (column op: [x y] R)
    __shared__ int col[W2];
    __shared__ int any_rot, undefined;
    if (tid < W2) {
        const int c = tid < kHypBlock ? bp.i * kHypBlock + tid : bp.j * kHypBlock + tid - kHypBlock;
        col[tid] = c < N && (tid < kHypBlock ? bp.i : bp.j) < nblk ? c : -1;
    }
    if (tid == 0) any_rot = undefined = 0;
    T* W = q.ws + std::size_t(b) * q.ws_stride;
    T* V = W + std::size_t(M) * N;
    const int npos = st.npos;
    const core::Tolerance<R> tol{p.tol, st.negligible};
    __syncthreads();

    // ---- H = [Xi Xj]^H [Xi Xj], row tiles through shared memory --------------------------
    // Thread t owns entries (r, c) = (t % W2, t / W2 + 8 k), k < 4.
    T acc[W2 * W2 / kHypThreads];
#pragma unroll
    for (int k = 0; k < W2 * W2 / kHypThreads; ++k) acc[k] = T(R(0));
    for (int r0 = 0; r0 < M; r0 += TR) {
        for (int idx = tid; idx < TR * W2; idx += kHypThreads) {
            const int r = idx % TR, l = idx / TR;
            tile[r + l * TLD] = (r0 + r < M && col[l] >= 0) ? W[r0 + r + std::size_t(col[l]) * M] : T(R(0));
        }
        __syncthreads();
        const int hr = tid % W2;
#pragma unroll
        for (int k = 0; k < W2 * W2 / kHypThreads; ++k) {
            const int hc = tid / W2 + (kHypThreads / W2) * k;
            T s = acc[k];
            for (int r = 0; r < TR; ++r) s = core::fma_conj(tile[r + hr * TLD], tile[r + hc * TLD], s);
            acc[k] = s;
        }
        __syncthreads();
    }
    {
        const int hr = tid % W2;
#pragma unroll
        for (int k = 0; k < W2 * W2 / kHypThreads; ++k) {
            const int hc = tid / W2 + (kHypThreads / W2) * k;
            H[hr + hc * LD] = acc[k];  // (x_hr^H x_hc)
            Q[hr + hc * LD] = T(R(hr == hc ? 1 : 0));
        }
    }
    __syncthreads();

    // ---- one sweep of two-sided J-orthogonal Jacobi on H ----------------------------------
    for (int s = 0; s < W2 - 1; ++s) {
        if (tid < W2 / 2) {
            const core::IndexPair pr = core::round_robin_pair(W2, s, tid);
            const int x = pr.i, y = pr.j;
            const R a = core::real_part(H[x + x * LD]), bb = core::real_part(H[y + y * LD]);
            const T c = H[x + y * LD];  // x_x^H x_y
            const bool mixed = col[x] >= 0 && col[y] >= 0 && ((col[x] < npos) != (col[y] < npos));
            const detail::SignedRotation<T> r = detail::signed_rotation<T>(a, bb, c, mixed, tol);
            if (r.undefined) undefined = 1;
            // The explicit 2 x 2 R of the column operation [x y] <- [x y] R: the record applied
            // to (1, 0) and (0, 1).
            T e0 = T(R(1)), f0 = T(R(0)), e1 = T(R(0)), f1 = T(R(1));
            if (r.on) {
                detail::apply_signed(e0, f0, r.up);  // (R11, R12)
                detail::apply_signed(e1, f1, r.up);  // (R21, R22)
                any_rot = 1;
            }
            rec[tid][0] = e0;
            rec[tid][1] = f0;
            rec[tid][2] = e1;
            rec[tid][3] = f1;
        }
        __syncthreads();
        // Columns of H and Q: H <- H R, Q <- Q R (pair k, row r; 16 x 32 items).
        for (int idx = tid; idx < (W2 / 2) * W2; idx += kHypThreads) {
            const int k = idx / W2, r = idx % W2;
            const core::IndexPair pr = core::round_robin_pair(W2, s, k);
            const T r11 = rec[k][0], r12 = rec[k][1], r21 = rec[k][2], r22 = rec[k][3];
            T* hx = &H[r + pr.i * LD];
            T* hy = &H[r + pr.j * LD];
            const T x = *hx, y = *hy;
            *hx = core::axpy(r21, y, detail::mul(r11, x));
            *hy = core::axpy(r22, y, detail::mul(r12, x));
            T* qx = &Q[r + pr.i * LD];
            T* qy = &Q[r + pr.j * LD];
            const T u = *qx, v = *qy;
            *qx = core::axpy(r21, v, detail::mul(r11, u));
            *qy = core::axpy(r22, v, detail::mul(r12, u));
        }
        __syncthreads();
        // Rows of H: H <- R^H H (pair k, column c).
        for (int idx = tid; idx < (W2 / 2) * W2; idx += kHypThreads) {
            const int k = idx / W2, c = idx % W2;
            const core::IndexPair pr = core::round_robin_pair(W2, s, k);
            const T r11 = core::conj_of(rec[k][0]), r12 = core::conj_of(rec[k][1]);
            const T r21 = core::conj_of(rec[k][2]), r22 = core::conj_of(rec[k][3]);
            T* hx = &H[pr.i + c * LD];
            T* hy = &H[pr.j + c * LD];
            const T x = *hx, y = *hy;
            *hx = core::axpy(r21, y, detail::mul(r11, x));
            *hy = core::axpy(r22, y, detail::mul(r12, x));
        }
        __syncthreads();
    }
    if (undefined) {
        if (tid == 0) atomicExch(&st.status, info_no_hyperbolic_rotation);
        return;  // (the matrix stops at the sweep's end; its outputs are NaN)
    }
    if (!any_rot) return;
    if (tid == 0) st.rotated = 1;

    // ---- [Xi Xj] <- [Xi Xj] Q and [Vi Vj] <- [Vi Vj] Q, row tiles -----------------------
    for (int part = 0; part < (p.need_vw ? 2 : 1); ++part) {
        T* X = part == 0 ? W : V;
        const int rows = part == 0 ? M : N;
        for (int r0 = 0; r0 < rows; r0 += TR) {
            for (int idx = tid; idx < TR * W2; idx += kHypThreads) {
                const int r = idx % TR, l = idx / TR;
                tile[r + l * TLD] = (r0 + r < rows && col[l] >= 0) ? X[r0 + r + std::size_t(col[l]) * rows] : T(R(0));
            }
            __syncthreads();
            for (int idx = tid; idx < TR * W2; idx += kHypThreads) {
                const int r = idx % TR, c = idx / TR;
                if (r0 + r < rows && col[c] >= 0) {
                    T s = T(R(0));
                    for (int l = 0; l < W2; ++l) s = core::axpy(Q[l + c * LD], tile[r + l * TLD], s);
                    X[r0 + r + std::size_t(col[c]) * rows] = s;
                }
            }
            __syncthreads();
        }
    }
}

/// The end of a sweep: a matrix none of whose pairs rotated has converged, one out of sweeps or
/// without a hyperbolic rotation stops; *active_count (zeroed by the caller) gets those left.
template <class R>
__global__ void hyp_blocked_sweep_end_kernel(HypBlockedState<R>* state, index_t batch, int max_sweeps, int* active_count) {
    const index_t b = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (b >= batch) return;
    HypBlockedState<R>& s = state[b];
    if (!s.active) return;
    s.sweeps += 1;
    if (s.status != 0) s.active = 0;
    else if (!s.rotated) {
        s.active = 0;
        s.converged = 1;
    } else if (s.sweeps >= max_sweeps) {
        s.active = 0;
    }
    s.rotated = 0;
    if (s.active) atomicAdd(active_count, 1);
}

/// Block b: matrix b's squared column norms, then hsvd_finalize (status, sort within each
/// sign, S, J', U, V). Dynamic shared memory: N reals twice, N ints twice.
template <class T> __global__ void __launch_bounds__(kHypThreads) hyp_blocked_finalize_kernel(const HypBlockedParams<T> q) {
    using R = core::real_of_t<T>;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const JacobiParams<T>& p = q.p;
    const index_t b = blockIdx.x;
    const int M = p.M, N = p.N, tid = threadIdx.x;
    R* sq = reinterpret_cast<R*>(smem_raw);
    R* sigma = sq + N;
    int* rank = reinterpret_cast<int*>(sigma + N);
    int* source = rank + N;
    const HypBlockedState<R> st = q.state[b];
    const T* W = q.ws + std::size_t(b) * q.ws_stride;
    const T* V = W + std::size_t(M) * N;
    const int lane = tid & 31, warp = tid >> 5;
    for (int c = warp; c < N; c += kHypThreads / 32) {
        R acc = 0;
        for (int r = lane; r < M; r += 32) acc += core::abs2(W[r + std::size_t(c) * M]);
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
        if (lane == 0) sq[c] = acc;
    }
    for (int c = tid; c < N; c += kHypThreads) source[c] = q.source[b * N + c];
    __syncthreads();
    detail::TeamSync sync{0xffffffffu, false};
    hsvd_finalize(p, b, W, M, V, N, sq, sigma, rank, source, st.npos, st.negligible, st.scale_e, st.status,
                  st.converged ? 0 : st.sweeps, st.sweeps, tid, kHypThreads, sync);
}

}  // namespace batchsvd::cuda
