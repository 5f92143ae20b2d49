// SPDX-License-Identifier: BSD-3-Clause
// Kernels of the CUDA QR pre-processing (abfasi section 9.2: W = QR, SVD of R, U_W = Q U_R),
// with the reflector convention of the CPU backend (cpu/householder_qr.hpp, LAPACK's
// geqr2/larfg): H_j = I - tau_j v_j v_j^H, v_j(0) = 1 implicit, a real beta on R's diagonal.
// One thread block per matrix, working in the device workspace (W is M x N, leading
// dimension M, scaled like the blocked path's); a warp per trailing column.
#pragma once

#include <limits>

#include "cuda/blocked/blocked_kernels.cuh"
#include "cuda/common/kernel_common.cuh"

namespace batchsvd::cuda {

inline constexpr int kQrThreads = 256;

template <class T> struct QrParams {
    T* W;                       ///< batch x (M x N): in, the scaled working matrix; out, R and the reflectors
    T* tau;                     ///< batch x N
    T* R;                       ///< batch x (N x N): R, zero below the diagonal
    const BlockedState* state;  ///< scan results (non-finite matrices are skipped)
    index_t batch;
    int M, N;
};

namespace detail {

/// c <- (I - tau v v^H) c for one column c (length len) and the reflector v (v(0) = 1
/// implicit) at the same offset, by one warp: s = tau (c(0) + v(1:)^H c(1:)), c(0) -= s,
/// c(1:) -= v(1:) s. Pass conj(tau) to apply H^H.
template <class T>
__device__ __forceinline__ void reflect_column(const T* v, T tau, T* c, int len) {
    const int lane = threadIdx.x % 32;
    T s = T(core::real_of_t<T>(0));
    for (int i = 1 + lane; i < len; i += 32) s = core::fma_conj(v[i], c[i], s);
    s = group_sum(s, 32, 0xffffffffu);
    s = mul(tau, add(c[0], s));
    __syncwarp();  // every lane has read c[0]
    if (lane == 0) c[0] = add(c[0], core::scale(s, core::real_of_t<T>(-1)));
    for (int i = 1 + lane; i < len; i += 32) c[i] = core::axpy(core::scale(s, core::real_of_t<T>(-1)), v[i], c[i]);
}

}  // namespace detail

/// Householder QR of one M x N matrix W (leading dimension M, global or shared memory) in
/// place by the block: R in its upper triangle, the reflectors below it, tau[0, N).
template <class T>
__device__ void householder_qr_block(T* W, int M, int N, T* tau, core::real_of_t<T>* red,
                                     T& sh_tau, T& sh_inv, int& sh_skip) {
    using R = core::real_of_t<T>;
    const int tid = threadIdx.x, warp = tid / 32, warps = kQrThreads / 32;
    for (int j = 0; j < N; ++j) {
        T* x = W + j + index_t(j) * M;
        const int len = M - j;
        const R tail = detail::block_scaled_norm<kQrThreads>(x + 1, 1, len - 1, red);
        if (tid == 0) {
            const detail::Reflector<T> h = detail::householder_reflector(x[0], tail);
            tau[j] = h.tau;
            sh_skip = h.identity;
            if (!h.identity) {
                sh_tau = h.tau;
                sh_inv = h.inv;
                x[0] = T(h.beta);  // R(j, j); the reflector's head 1 stays implicit
            }
        }
        __syncthreads();
        if (!sh_skip) {
            const T inv = sh_inv, tj = sh_tau;
            for (int i = 1 + tid; i < len; i += kQrThreads) x[i] = detail::mul(x[i], inv);
            __syncthreads();
            // Trailing columns: H^H = I - conj(tau) v v^H, a warp per column.
            for (int k = j + 1 + warp; k < N; k += warps)
                detail::reflect_column(x, core::conj_of(tj), W + j + index_t(k) * M, len);
        }
        __syncthreads();
    }
}

/// Householder QR of each W in place (householder_qr of the CPU backend), then R copied out.
/// InSmem: the block copies its matrix into shared memory (M N elements), factors it there
/// and copies the reflectors back, instead of working on global memory.
template <class T, bool InSmem>
__global__ void __launch_bounds__(kQrThreads) householder_qr_kernel(const QrParams<T> p) {
    using R = core::real_of_t<T>;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    __shared__ R red[kQrThreads / 32 + 1];
    __shared__ T sh_tau, sh_inv;
    __shared__ int sh_skip;
    const int M = p.M, N = p.N, tid = threadIdx.x;
    const index_t MN = index_t(M) * N;
    for (index_t b = blockIdx.x; b < p.batch; b += gridDim.x) {
        T* Wg = p.W + b * MN;
        T* tau = p.tau + b * index_t(N);
        T* Rb = p.R + b * index_t(N) * N;
        const bool bad = p.state[b].nonfinite != 0;  // W was not loaded: R = 0, Q = I
        T* W = Wg;
        if constexpr (InSmem) {
            W = reinterpret_cast<T*>(smem_raw);
            if (!bad)
                for (index_t idx = tid; idx < MN; idx += kQrThreads) W[idx] = Wg[idx];
            __syncthreads();
        }
        if (!bad) householder_qr_block(W, M, N, tau, red, sh_tau, sh_inv, sh_skip);
        for (index_t idx = tid; idx < index_t(N) * N; idx += kQrThreads) {
            const int i = int(idx % N), j = int(idx / N);
            Rb[idx] = (!bad && i <= j) ? W[i + index_t(j) * M] : T(R(0));
        }
        if constexpr (InSmem) {  // the reflectors, for apply_q_kernel
            if (!bad)
                for (index_t idx = tid; idx < MN; idx += kQrThreads) Wg[idx] = W[idx];
        }
        if (bad)
            for (int j = tid; j < N; j += kQrThreads) tau[j] = T(R(0));
        __syncthreads();
    }
}

/// X <- Q X for one M x N block X (leading dimension ldx, global or shared memory), Q from
/// the reflectors of householder_qr_block (W, leading dimension M) and tau.
template <class T>
__device__ void apply_q_block(const T* W, int M, int N, const T* tau, T* X, index_t ldx) {
    using R = core::real_of_t<T>;
    const int warp = threadIdx.x / 32, warps = kQrThreads / 32;
    for (int j = N - 1; j >= 0; --j) {
        const T tj = tau[j];
        if (core::real_part(tj) == R(0) && core::imag_part(tj) == R(0)) continue;
        const T* v = W + j + index_t(j) * M;
        for (int k = warp; k < N; k += warps) detail::reflect_column(v, tj, X + j + index_t(k) * ldx, M - j);
        __syncthreads();
    }
}

/// U_W = Q [U_R; 0] in place in the output (ld ldx, stride sx), whose first N rows hold U_R.
/// InSmem: [U_R; 0] is built in shared memory (M N elements, leading dimension M), Q applied
/// there, and the result written once.
template <class T, bool InSmem>
__global__ void __launch_bounds__(kQrThreads) apply_q_kernel(const QrParams<T> p, T* X, index_t ldx, index_t sx) {
    using R = core::real_of_t<T>;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const int M = p.M, N = p.N, tid = threadIdx.x;
    for (index_t b = blockIdx.x; b < p.batch; b += gridDim.x) {
        if (p.state[b].nonfinite) continue;  // its outputs become NaN afterwards
        T* Xb = X + b * sx;
        const T* W = p.W + b * index_t(M) * N;
        const T* tau = p.tau + b * index_t(N);
        if constexpr (InSmem) {
            T* U = reinterpret_cast<T*>(smem_raw);
            for (index_t idx = tid; idx < index_t(M) * N; idx += kQrThreads) {
                const index_t r = idx % M, c = idx / M;
                U[idx] = r < N ? Xb[r + c * ldx] : T(R(0));
            }
            __syncthreads();
            apply_q_block(W, M, N, tau, U, M);
            __syncthreads();
            for (index_t idx = tid; idx < index_t(M) * N; idx += kQrThreads) {
                const index_t r = idx % M, c = idx / M;
                Xb[r + c * ldx] = U[idx];
            }
            __syncthreads();
        } else {
            for (index_t idx = tid; idx < index_t(M - N) * N; idx += kQrThreads) {
                const index_t r = N + idx % (M - N), c = idx / (M - N);
                Xb[r + c * ldx] = T(R(0));
            }
            __syncthreads();
            apply_q_block(W, M, N, tau, Xb, ldx);
        }
    }
}

/// Last step: a non-finite matrix gets NaN outputs and info -1 (its R was zero); the others
/// get their singular values unscaled (the SVD of R ran on the scaled matrix).
template <class T>
__global__ void qr_fixup_kernel(const JacobiParams<T> q, const BlockedState* state) {
    for (index_t b = blockIdx.x; b < q.batch; b += gridDim.x) {
        const BlockedState st = state[b];
        if (st.nonfinite) {
            write_nonfinite(q, b, threadIdx.x, blockDim.x);
            continue;
        }
        const int scale_e = detail::state_scale_exponent<core::real_of_t<T>>(st);
        if (scale_e == 0) continue;
        core::real_of_t<T>* s = q.s + b * q.s_stride;
        for (int j = threadIdx.x; j < q.N; j += blockDim.x) s[j] = scalbn(s[j], -scale_e);
    }
}

}  // namespace batchsvd::cuda
