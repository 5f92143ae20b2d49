// SPDX-License-Identifier: BSD-3-Clause
// Last stage of every CUDA Jacobi solve (the fused kernel's team, or one block of the blocked
// path): singular values from the column norms, sorted in descending order, left vectors
// normalised (zero or negligible columns completed to an orthonormal set), and S, U, V written
// once, transposed back for wide inputs. Also the NaN output of a non-finite input.
#pragma once

#include "cuda/common/kernel_common.cuh"

namespace batchsvd::cuda {

/// Matrix b had a NaN or Inf: info -1, and S, U, V all NaN. Threads tid of TS.
template <class T>
__device__ void write_nonfinite(const JacobiParams<T>& p, index_t b, int tid, int TS) {
    using R = core::real_of_t<T>;
    const index_t k = p.N;
    R* s_out = p.s + b * p.s_stride;
    T* u_out = p.compute_u ? p.u + b * p.stride_u : nullptr;
    T* v_out = p.compute_v ? p.v + b * p.stride_v : nullptr;
    const R nan = detail::quiet_nan<R>();
    for (index_t j = tid; j < k; j += TS) s_out[j] = nan;
    if (u_out)
        for (index_t idx = tid; idx < p.m * k; idx += TS)
            u_out[idx % p.m + (idx / p.m) * p.ldu] = detail::make_nan<T>();
    if (v_out)
        for (index_t idx = tid; idx < p.n * k; idx += TS)
            v_out[idx % p.n + (idx / p.n) * p.ldv] = detail::make_nan<T>();
    if (tid == 0) {
        p.info[b] = info_nonfinite;
        if (p.sweeps) p.sweeps[b] = 0;
    }
}

/// Where matrix b's working vectors go: U_W (M x N) is U_A when tall, V_A when wide; V_W
/// (N x N) is V_A when tall, U_A when wide; null where that output is not computed.
template <class T> struct FinalOutputs {
    T* uw;
    index_t ld_uw;
    T* vw;
    index_t ld_vw;
    __device__ FinalOutputs(const JacobiParams<T>& p, index_t b) {
        T* u_out = p.compute_u ? p.u + b * p.stride_u : nullptr;
        T* v_out = p.compute_v ? p.v + b * p.stride_v : nullptr;
        uw = p.transpose ? v_out : u_out;
        ld_uw = p.transpose ? p.ldv : p.ldu;
        vw = p.transpose ? u_out : v_out;
        ld_vw = p.transpose ? p.ldu : p.ldv;
    }
};

/// A singular value from its column's squared norm: rounding noise (not above `negligible`)
/// counts as 0.
template <class R> __device__ __forceinline__ R final_sigma(R norm2, R negligible) {
    const R s = std::sqrt(norm2);
    return s > negligible ? s : R(0);
}

/// Column j's place in the descending order of sigma[0, N) (ties by index).
template <class R> __device__ __forceinline__ int final_rank(const R* sigma, int N, int j) {
    const R sj = sigma[j];
    int r = 0;
    for (int i = 0; i < N; ++i) {
        const R si = sigma[i];
        r += (si > sj || (si == sj && i < j)) ? 1 : 0;
    }
    return r;
}

/// W (M x N, ld ldw) holds the converged working matrix and norms[0, N) its squared column
/// norms, visible to all TS threads; flags[3] is 0. norms has N + 1 entries, rank and done N,
/// scratch N; flags[3] and flags[4] are used. `negligible` and `scale_e` are the solve's
/// (core::negligible_norm, power-of-two scaling), info_value the matrix's status, sweeps the
/// sweeps it took (written where p.sweeps is set). Index: the
/// type of element counters (int where M * N is known to fit). sigma_ready: norms already
/// holds the singular values (the square roots, negligible ones 0: final_sigma), as the
/// blocked path's wide finalisation leaves them.
template <class Index, class T, class Sync>
__device__ void finalize_and_write(const JacobiParams<T>& p, index_t b, T* W, std::size_t ldw,
                                   const T* V, std::size_t ldv, core::real_of_t<T>* norms,
                                   int* rank, int* done, T* scratch, int* flags,
                                   core::real_of_t<T> negligible, int scale_e, int info_value, int sweeps,
                                   int tid, int TS, const Sync& sync, bool sigma_ready = false) {
    using R = core::real_of_t<T>;
    const int M = p.M, N = p.N;
    if (!sigma_ready)
        for (int j = tid; j < N; j += TS) norms[j] = final_sigma(norms[j], negligible);
    sync();
    for (int j = tid; j < N; j += TS) {
        const R sj = norms[j];
        rank[j] = final_rank(norms, N, j);
        done[j] = sj > 0 ? 1 : 0;
        if (!(sj > 0)) atomicOr(&flags[3], 1);
    }
    for (Index idx = tid; idx < Index(M) * N; idx += TS) {
        const int r = int(idx % M), c = int(idx / M);
        const R sc = norms[c];
        if (sc > 0) W[r + std::size_t(c) * ldw] = core::scale(W[r + std::size_t(c) * ldw], R(1) / sc);
    }
    sync();

    // Columns with sigma exactly 0: an orthonormal complement (rare path). The pivot is the
    // unit vector e_r with the largest residual 1 - sum |U(r, q)|^2 over the finished columns,
    // orthogonalised twice by classical Gram-Schmidt.
    if (flags[3]) {
        for (int j = 0; j < N; ++j) {
            if (done[j]) continue;
            T* w = W + std::size_t(j) * ldw;
            for (int r = tid; r < M; r += TS) {
                R res = 1;
                for (int q = 0; q < N; ++q)
                    if (done[q]) res -= core::abs2(W[r + std::size_t(q) * ldw]);
                w[r] = T(res);
            }
            sync();
            if (tid == 0) {
                int best = 0;
                R bv = core::real_part(w[0]);
                for (int r = 1; r < M; ++r)
                    if (core::real_part(w[r]) > bv) { bv = core::real_part(w[r]); best = r; }
                flags[4] = best;
            }
            sync();
            const int piv = flags[4];
            for (int r = tid; r < M; r += TS) w[r] = T(R(r == piv ? 1 : 0));
            sync();
            for (int pass = 0; pass < 2; ++pass) {
                for (int q = tid; q < N; q += TS) {
                    T h = T(R(0));
                    if (done[q])
                        for (int r = 0; r < M; ++r) h = core::fma_conj(W[r + std::size_t(q) * ldw], w[r], h);
                    scratch[q] = h;
                }
                sync();
                for (int r = tid; r < M; r += TS) {
                    T acc = w[r];
                    for (int q = 0; q < N; ++q)
                        if (done[q]) acc = core::axpy(core::scale(scratch[q], R(-1)), W[r + std::size_t(q) * ldw], acc);
                    w[r] = acc;
                }
                sync();
            }
            if (tid == 0) {
                R nn = 0;
                for (int r = 0; r < M; ++r) nn += core::abs2(w[r]);
                norms[N] = R(1) / std::sqrt(nn);
                done[j] = 1;
            }
            sync();
            const R inv = norms[N];
            for (int r = tid; r < M; r += TS) w[r] = core::scale(w[r], inv);
            sync();
        }
    }

    // ---- write S, U, V once -----------------------------------------------------------------
    R* s_out = p.s + b * p.s_stride;
    for (int j = tid; j < N; j += TS) s_out[rank[j]] = scalbn(norms[j], -scale_e);
    const FinalOutputs<T> out(p, b);
    if (out.uw)
        for (Index idx = tid; idx < Index(M) * N; idx += TS) {
            const int r = int(idx % M), c = int(idx / M);
            out.uw[r + index_t(rank[c]) * out.ld_uw] = W[r + std::size_t(c) * ldw];
        }
    if (out.vw)
        for (Index idx = tid; idx < Index(N) * N; idx += TS) {
            const int r = int(idx % N), c = int(idx / N);
            out.vw[r + index_t(rank[c]) * out.ld_vw] = V[r + std::size_t(c) * ldv];
        }
    if (tid == 0) {
        p.info[b] = info_value;
        if (p.sweeps) p.sweeps[b] = sweeps;
    }
}

}  // namespace batchsvd::cuda
