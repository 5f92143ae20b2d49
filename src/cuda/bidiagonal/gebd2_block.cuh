// SPDX-License-Identifier: BSD-3-Clause
// Bidiagonalisation of one matrix by one thread block: LAPACK's unblocked ?gebd2 (upper case,
// M >= N), step for step as the CPU backend's (cpu/bidiagonal/gebrd.hpp), on a matrix in
// shared memory (the batched-bidiagonalisation paper's "big tile" setting, section 4) or in
// global memory where it does not fit. The column reflector's tail norm is taken from squares
// scaled by a power of two near its largest entry (as the QR panels do); the left update
// H^H C runs a group of lanes a column, the right update C G a thread a row, so both read
// consecutive addresses (shared memory: leading dimension odd; global: coalesced).
//
// Not (yet) the paper's blocked LABRD panels with the trailing update as a batched GEMM: each
// step here reads the trailing matrix twice, so matrices that do not fit in shared memory run
// at the speed of memory (docs/bidiagonal.md).
#pragma once

#include "cuda/common/kernel_common.cuh"

namespace batchsvd::cuda {

/// Block-wide scratch of gebd2_block.
template <class T, int Threads> struct Gebd2Shared {
    core::real_of_t<T> red[Threads / 32 + 1];
    T tau, inv;
    int skip;
};

namespace detail {

/// Thread 0's part of a step: the reflector of (alpha; x) from tail = ||x||, its tau stored
/// (where asked) and the reflector shared with the block (sh); returns beta.
template <class T, int Threads>
__device__ core::real_of_t<T> share_reflector(const T& alpha, core::real_of_t<T> tail, T* tau, int i,
                                              Gebd2Shared<T, Threads>& sh) {
    const Reflector<T> h = householder_reflector(alpha, tail);
    if (tau) tau[i] = h.tau;
    sh.skip = h.identity;
    sh.tau = h.tau;
    sh.inv = h.inv;
    return h.beta;
}

/// Lanes a column for the left update of a column of len entries: each lane about 8 entries,
/// 4 to 32 lanes.
__device__ __forceinline__ int left_group(int len) {
    int g = 4;
    while (g < 32 && g * 8 < len) g *= 2;
    return g;
}

}  // namespace detail

/// ?gebd2 (M >= N: B upper bidiagonal) of W (leading dimension ldw) in place by a block of
/// Threads threads. d[i], e[i] and, where not null, tauq[i], taup[i] are written by thread 0
/// (shared or global memory); reflectors stored as LAPACK stores them. Every thread of the
/// block must call it; it ends with a barrier.
template <int Threads, class T>
__device__ void gebd2_block(T* W, int ldw, int M, int N, core::real_of_t<T>* d, core::real_of_t<T>* e, T* tauq,
                            T* taup, Gebd2Shared<T, Threads>& sh) {
    using R = core::real_of_t<T>;
    const int tid = threadIdx.x;
    const auto at = [&](int i, int j) -> T& { return W[i + index_t(j) * ldw]; };
    for (int i = 0; i < N; ++i) {
        // H(i) annihilates W(i+1:M, i); H(i)^H applied to W(i:M, i+1:N) from the left.
        T* x = &at(i, i);
        const int len = M - i;
        const R tail = detail::block_scaled_norm<Threads>(x + 1, 1, len - 1, sh.red);
        if (tid == 0) {
            const R beta = detail::share_reflector(x[0], tail, tauq, i, sh);
            d[i] = beta;
            x[0] = T(beta);
        }
        __syncthreads();
        if (!sh.skip) {
            const T inv = sh.inv, ctau = core::conj_of(sh.tau);
            for (int r = 1 + tid; r < len; r += Threads) x[r] = detail::mul(x[r], inv);
            __syncthreads();
            // Groups of G lanes a column; every lane of a warp runs the same number of rounds
            // (the shuffles need the whole warp).
            const int G = detail::left_group(len), groups = Threads / G, lane = tid % G, grp = tid / G;
            const int cols = N - i - 1;
            for (int c0 = 0; c0 < cols; c0 += groups) {
                const int c = c0 + grp;
                const bool active = c < cols;
                T* col = &at(i, i + 1 + (active ? c : 0));
                T s = T(R(0));
                const T head = active ? col[0] : T(R(0));  // read before the shuffles, written after
                if (active)
                    for (int r = 1 + lane; r < len; r += G) s = core::fma_conj(x[r], col[r], s);
                s = detail::group_sum(s, G, 0xffffffffu);
                __syncwarp();  // (every lane's read of its head before lane 0's write)
                if (active) {
                    s = detail::mul(ctau, detail::add(head, s));
                    for (int r = 1 + lane; r < len; r += G) col[r] = core::axpy(core::scale(s, R(-1)), x[r], col[r]);
                    if (lane == 0) col[0] = detail::sub(head, s);
                }
            }
        }
        __syncthreads();
        if (i + 1 >= N) {
            if (tid == 0 && taup) taup[i] = T(R(0));
            continue;
        }
        // G(i) annihilates W(i, i+2:N) (the row conjugated first, as ?gebd2 does); applied to
        // W(i+1:M, i+1:N) from the right.
        T* y = &at(i, i + 1);
        const int rlen = N - i - 1;
        if constexpr (core::is_complex_v<T>) {
            for (int k = tid; k < rlen; k += Threads) y[index_t(k) * ldw] = core::conj_of(y[index_t(k) * ldw]);
            __syncthreads();
        }
        const R rtail = detail::block_scaled_norm<Threads>(y + ldw, ldw, rlen - 1, sh.red);
        if (tid == 0) {
            e[i] = detail::share_reflector(y[0], rtail, taup, i, sh);
            y[0] = T(R(1));  // the reflector's head, read by the update below
        }
        __syncthreads();
        if (!sh.skip) {
            const T inv = sh.inv, tau = sh.tau;
            for (int k = 1 + tid; k < rlen; k += Threads) y[index_t(k) * ldw] = detail::mul(y[index_t(k) * ldw], inv);
            __syncthreads();
            // Row r of C = W(i+1:M, i+1:N): w = C_r u, C_r -= tau w u^H.
            for (int r = i + 1 + tid; r < M; r += Threads) {
                T* row = &at(r, i + 1);
                T w = T(R(0));
                for (int k = 0; k < rlen; ++k) w = core::axpy(row[index_t(k) * ldw], y[index_t(k) * ldw], w);
                const T tw = core::scale(detail::mul(tau, w), R(-1));
                for (int k = 0; k < rlen; ++k)
                    row[index_t(k) * ldw] = core::axpy(tw, core::conj_of(y[index_t(k) * ldw]), row[index_t(k) * ldw]);
            }
            __syncthreads();
        }
        if constexpr (core::is_complex_v<T>) {
            for (int k = 1 + tid; k < rlen; k += Threads) y[index_t(k) * ldw] = core::conj_of(y[index_t(k) * ldw]);
        }
        if (tid == 0) y[0] = T(e[i]);
        __syncthreads();
    }
}

}  // namespace batchsvd::cuda
