// SPDX-License-Identifier: BSD-3-Clause
// Types and helpers shared by the CUDA kernels: the device complex type, the kernel
// parameters, warp reductions, NaN and power-of-two scaling helpers.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <limits>

#include "batchsvd/batchsvd.hpp"
#include "core/ordering.hpp"
#include "core/precision.hpp"
#include "core/rotation.hpp"
#include "core/scalar.hpp"

namespace batchsvd::cuda {

/// Complex number for device code, layout-compatible with std::complex<R>.
template <class R> struct alignas(2 * sizeof(R)) dev_complex {
    R re_, im_;
    dev_complex() = default;
    __host__ __device__ constexpr dev_complex(R r, R i = R(0)) : re_(r), im_(i) {}
    __host__ __device__ constexpr R real() const { return re_; }
    __host__ __device__ constexpr R imag() const { return im_; }
};

/// Device type of a public scalar type.
template <class T> struct device_scalar { using type = T; };
template <class R> struct device_scalar<std::complex<R>> { using type = dev_complex<R>; };
template <class T> using device_scalar_t = typename device_scalar<T>::type;


/// Shared-memory layout of one team (one matrix), in bytes. Host and device compute it alike.
struct TeamLayout {
    int ldw = 0, ldv = 0;  ///< leading dimensions (odd, against bank conflicts)
    std::size_t off_w = 0, off_v = 0, off_norm = 0, off_scratch = 0, off_int = 0, off_max = 0;
    std::size_t bytes = 0;
};

__host__ __device__ inline std::size_t align16(std::size_t x) { return (x + 15) & ~std::size_t(15); }

__host__ __device__ inline TeamLayout team_layout(int M, int N, bool need_v, std::size_t tsize,
                                                  std::size_t rsize) {
    TeamLayout l;
    l.ldw = M | 1;
    l.ldv = N | 1;
    l.off_w = 0;
    l.off_v = align16(l.off_w + std::size_t(l.ldw) * N * tsize);
    l.off_norm = align16(l.off_v + (need_v ? std::size_t(l.ldv) * N * tsize : 0));
    // squared norms (then sigma, plus one spare), then the norms themselves
    l.off_scratch = align16(l.off_norm + std::size_t(2 * N + 1) * rsize);
    l.off_int = align16(l.off_scratch + std::size_t(N) * tsize);        // completion coeffs
    l.off_max = align16(l.off_int + std::size_t(2 * N + 8) * sizeof(int));  // rank, done, flags
    l.bytes = align16(l.off_max + sizeof(unsigned long long));
    return l;
}

template <class T> struct JacobiParams {
    using R = core::real_of_t<T>;
    const T* a;
    index_t lda, stride_a;
    R* s;
    index_t s_stride;
    T* u;
    index_t ldu, stride_u;
    T* v;
    index_t ldv, stride_v;
    int* info;
    int* sweeps;       ///< Options::sweeps (nullptr: not written)
    index_t batch;
    int m, n;          ///< the input's shape
    int M, N;          ///< the working matrix's shape (M >= N)
    bool transpose;    ///< W = A^H
    bool compute_u, compute_v;
    bool need_vw;      ///< accumulate V_W (needed for V_A when tall, U_A when wide)
    int G, P;          ///< lanes per pair, pairs per step
    int team_threads;  ///< threads per team (power of two when <= 32)
    int teams_per_block;
    TeamLayout layout;
    R tol;
    int max_sweeps;
    // The hyperbolic SVD (warp kernel's hyperbolic form): the signatures (+1 / -1, jsig_stride
    // apart; stride 0: one for every matrix) and the output signatures (may be null).
    const int* jsig = nullptr;
    index_t jsig_stride = 0;
    int* jout = nullptr;
    index_t jout_stride = 0;
};

namespace detail {

/// The block barrier of warp-specialised code, where warps reach it from different places in
/// the kernel (pair_eigen_sweep: warp 0's rotation loop and the other warps' appliers' loop):
/// PTX barrier.sync, which counts threads wherever they execute it. __syncthreads() is
/// bar.sync, i.e. barrier.sync.aligned, which requires every thread of the block to execute the
/// same barrier instruction (undefined otherwise; compute-sanitizer's synccheck reports it as
/// a barrier error and aborts the kernel; docs/reliability.md).
__device__ __forceinline__ void block_barrier_unaligned() { __barrier_sync(0); }

/// A warp shuffle of a real or complex value: `op` (a __shfl_*_sync of one real) applied to
/// each real part.
template <class T, class Op> __device__ __forceinline__ T shfl_parts(const T& v, Op op) {
    if constexpr (core::is_complex_v<T>) return T(op(v.real()), op(v.imag()));
    else return op(v);
}
template <class T> __device__ __forceinline__ T shfl_xor(T v, int off, unsigned mask, int width) {
    return shfl_parts(v, [&](auto x) { return __shfl_xor_sync(mask, x, off, width); });
}
template <class T> __device__ __forceinline__ T shfl_idx(T v, int lane) {
    return shfl_parts(v, [&](auto x) { return __shfl_sync(0xffffffffu, x, lane); });
}
template <class T> __device__ __forceinline__ T shfl_down(T v, int delta, int width) {
    return shfl_parts(v, [&](auto x) { return __shfl_down_sync(0xffffffffu, x, delta, width); });
}
template <class T> __device__ __forceinline__ T shfl_up(T v, int delta, int width) {
    return shfl_parts(v, [&](auto x) { return __shfl_up_sync(0xffffffffu, x, delta, width); });
}

template <class T> __device__ __forceinline__ T add(const T& x, const T& y) {
    if constexpr (core::is_complex_v<T>) return T(x.real() + y.real(), x.imag() + y.imag());
    else return x + y;
}
template <class T> __device__ __forceinline__ T sub(const T& x, const T& y) {
    return add(x, core::scale(y, core::real_of_t<T>(-1)));
}
template <class T> __device__ __forceinline__ T mul(const T& a, const T& b) {
    return core::axpy(a, b, T(core::real_of_t<T>(0)));
}

/// 1 / z, without squaring |z| (no overflow or underflow for scaled data).
template <class T> __device__ __forceinline__ T reciprocal(const T& z) {
    using R = core::real_of_t<T>;
    if constexpr (core::is_complex_v<T>) {
        const R h = hypot(z.real(), z.imag());
        return T((z.real() / h) / h, (-z.imag() / h) / h);
    } else {
        return R(1) / z;
    }
}

/// A Householder reflector H = I - tau v v^H with H^H (alpha; x) = (beta; 0), v = (1; x / (alpha
/// - beta)), from alpha and tail = ||x|| (LAPACK's xLARFG: beta real, -sign(Re alpha) times
/// ||(alpha; x)||, tau = (beta - alpha) / beta). identity: H = I (tau = 0), for a zero tail
/// with a real head and for a column below the normal range, where 1 / (alpha - beta) would
/// overflow (what is dropped is far below u ||A||). Used by the QR panels and the
/// preconditioner's tridiagonalisation.
template <class T> struct Reflector {
    T tau, inv;  ///< tau and 1 / (alpha - beta), the scale of x
    core::real_of_t<T> beta;
    bool identity;
};
template <class T> __device__ __forceinline__ Reflector<T> householder_reflector(const T& alpha, core::real_of_t<T> tail) {
    using R = core::real_of_t<T>;
    const R mag = hypot(core::abs_of(alpha), tail);
    if ((tail == 0 && core::imag_part(alpha) == R(0)) || mag < std::numeric_limits<R>::min())
        return {T(R(0)), T(R(0)), core::real_part(alpha), true};
    const R beta = core::real_part(alpha) >= 0 ? -mag : mag;
    T tau;  // (beta - alpha) / beta
    if constexpr (core::is_complex_v<T>) tau = T((beta - alpha.real()) / beta, -alpha.imag() / beta);
    else tau = (beta - alpha) / beta;
    return {tau, reciprocal(add(alpha, T(-beta))), beta, false};
}

/// Sum over the G lanes of a group by an xor butterfly: every lane ends with the bitwise same
/// value (a + b == b + a), so decisions taken on it are uniform over the group.
template <class T> __device__ __forceinline__ T group_sum(T v, int G, unsigned mask) {
    for (int off = G >> 1; off > 0; off >>= 1) v = add(v, shfl_xor(v, off, mask, G));
    return v;
}

/// Maximum over a full warp (every lane gets it).
template <class R> __device__ __forceinline__ R warp_max(R v) {
    for (int off = 16; off > 0; off >>= 1) {
        const R o = __shfl_xor_sync(0xffffffffu, v, off);
        v = o > v ? o : v;
    }
    return v;
}

/// Sum over a block of Threads threads (a multiple of 32, at most 1024); red, in shared
/// memory, holds Threads / 32 + 1 values. Every thread gets the result.
template <int Threads, class R> __device__ R block_sum(R v, R* red) {
    static_assert(Threads % 32 == 0 && Threads <= 1024);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = group_sum(v, 32, 0xffffffffu);
    if (lane == 0) red[warp] = v;
    __syncthreads();
    if (warp == 0) {
        R w = lane < Threads / 32 ? red[lane] : R(0);
        w = group_sum(w, 32, 0xffffffffu);
        if (lane == 0) red[Threads / 32] = w;
    }
    __syncthreads();
    const R total = red[Threads / 32];
    __syncthreads();  // red is reused by the next call
    return total;
}

/// Maximum over a block of Threads threads; red as for block_sum. Every thread gets it.
template <int Threads, class R> __device__ R block_max(R v, R* red) {
    static_assert(Threads % 32 == 0 && Threads <= 1024);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_max(v);
    if (lane == 0) red[warp] = v;
    __syncthreads();
    if (warp == 0) {
        R w = lane < Threads / 32 ? red[lane] : R(0);
        w = warp_max(w);
        if (lane == 0) red[Threads / 32] = w;
    }
    __syncthreads();
    const R total = red[Threads / 32];
    __syncthreads();
    return total;
}

/// Synchronises a team: __syncwarp over its lanes when it lives in one warp, else the block.
struct TeamSync {
    unsigned mask;
    bool in_warp;
    __device__ __forceinline__ void operator()() const {
        if (in_warp) __syncwarp(mask); else __syncthreads();
    }
};

template <class R> __device__ __forceinline__ R quiet_nan() {
    if constexpr (sizeof(R) == 4) return __int_as_float(0x7fffffff);
    else return __longlong_as_double(0x7fffffffffffffffLL);
}

template <class T> __device__ __forceinline__ T make_nan() {
    using R = core::real_of_t<T>;
    if constexpr (core::is_complex_v<T>) return T(quiet_nan<R>(), quiet_nan<R>());
    else return quiet_nan<R>();
}

template <class T> __device__ __forceinline__ T scale_pow2(const T& x, int e) {
    if constexpr (core::is_complex_v<T>) return T(scalbn(x.real(), e), scalbn(x.imag(), e));
    else return scalbn(x, e);
}

/// ||x|| over len entries (stride inc) by a block of Threads threads, from squares scaled by a
/// power of two near the largest entry (as LAPACK's nrm2): rank deficiency leaves columns of
/// rounding noise of rounding noise (1e-26 in float, 1e-160 in double) whose plain squares
/// underflow, and a Householder tail norm that does not match the tail makes the reflector
/// non-unitary. red as for block_sum. Every thread gets it.
template <int Threads, class T>
__device__ core::real_of_t<T> block_scaled_norm(const T* x, int inc, int len, core::real_of_t<T>* red) {
    using R = core::real_of_t<T>;
    R pmax = 0;
    for (int i = threadIdx.x; i < len; i += Threads) pmax = fmax(pmax, core::abs_of(x[index_t(i) * inc]));
    const R tmax = block_max<Threads>(pmax, red);
    if (!(tmax > 0)) return 0;
    const int e = ilogb(tmax);
    R part = 0;
    for (int i = threadIdx.x; i < len; i += Threads) part += core::abs2(scale_pow2(x[index_t(i) * inc], -e));
    return scalbn(sqrt(block_sum<Threads>(part, red)), e);
}

/// Power-of-two scaling exponent of a matrix whose largest |entry| is amax: 0 when amax is
/// within [2^-scale_exp_low, 2^scale_exp] (or 0), else -ilogb(amax), which brings it to [1, 2).
template <class R> __device__ __forceinline__ int scale_exponent(R amax) {
    constexpr int hi = core::precision<R>::scale_exp, lo = core::precision<R>::scale_exp_low;
    return (amax > 0 && (amax > scalbn(R(1), hi) || amax < scalbn(R(1), -lo))) ? -ilogb(amax) : 0;
}

/// Largest |entry| kept as the bits of a non-negative R in a 64-bit word (the bit patterns of
/// non-negative floating-point numbers order like the numbers): update and read back.
template <class R> __device__ __forceinline__ void atomic_max_abs(unsigned long long* bits, R v) {
    if (!(v > 0)) return;
    if constexpr (sizeof(R) == 4) atomicMax(reinterpret_cast<unsigned*>(bits), __float_as_uint(v));
    else atomicMax(bits, (unsigned long long)__double_as_longlong(v));
}
template <class R> __device__ __forceinline__ R max_abs_from_bits(unsigned long long bits) {
    if constexpr (sizeof(R) == 4) return __uint_as_float(unsigned(bits));
    else return __longlong_as_double((long long)bits);
}

/// Squared norms of the columns, and the norms (roots[]): group g does columns g, g + P, ...
template <class T>
__device__ __forceinline__ void compute_norms(const JacobiParams<T>& p, const T* W, int ldw,
                                              core::real_of_t<T>* norms, core::real_of_t<T>* roots,
                                              int g, int lane, unsigned gmask) {
    using R = core::real_of_t<T>;
    if (g >= p.P) return;
    for (int c = g; c < p.N; c += p.P) {
        R acc = 0;
        const T* col = W + std::size_t(c) * ldw;
        for (int r = lane; r < p.M; r += p.G) acc += core::abs2(col[r]);
        acc = group_sum(acc, p.G, gmask);
        if (lane == 0) {
            norms[c] = acc;
            roots[c] = std::sqrt(acc);
        }
    }
}

}  // namespace detail

}  // namespace batchsvd::cuda
