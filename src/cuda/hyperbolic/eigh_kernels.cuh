// SPDX-License-Identifier: BSD-3-Clause
// eigh_indefinite on the GPU, around the hyperbolic SVD of the warp kernel: the J-factorisation
// A = G J G^H of each matrix (a warp a matrix, the Schur complement in shared memory), and the
// assembly of the eigenvalues lambda = j' sigma^2 in ascending order with their eigenvectors
// (a warp a matrix, a lane an eigenvalue).
#pragma once

#include "batchsvd/hyperbolic.hpp"
#include "cuda/common/kernel_common.cuh"

namespace batchsvd::cuda {

/// What the factorisation leaves for each matrix.
enum EighState : int {
    eigh_factored = 0,   ///< G of full rank: its HSVD gives the eigenpairs
    eigh_nonfinite = 1,  ///< NaN or Inf in A
    eigh_zero = 2,       ///< A = 0: every eigenvalue 0, eigenvectors I
    eigh_singular = 3,   ///< 0 < rank < n: left to the CPU backend (the null space completes U)
};

/// The device workspace of eigh_indefinite for `batch` matrices of order n.
template <class T> struct EighWork {
    using R = core::real_of_t<T>;
    T* g;        ///< the factors G (n x n each, column-major, n * n apart)
    int* j;      ///< their signatures (n apart; +1 for the zero columns of a singular A)
    int* state;  ///< EighState
    int* scale;  ///< the power-of-two exponent A was scaled by
    R* sigma;    ///< the HSVD's values, signatures, U and status
    int* jout;
    T* u;
    int* hinfo;
};

/// The factorisation kernel's shape: matrices (warps) a block, the leading dimension of a
/// Schur complement in shared memory (odd: a lane a row or a column, no bank conflicts).
inline constexpr int kFactorWarps = 4;
inline constexpr int kFactorLd = 33;
template <class T> constexpr std::size_t factor_smem_bytes() { return std::size_t(kFactorWarps) * 32 * kFactorLd * sizeof(T); }

namespace detail {

template <class T> __device__ __forceinline__ T warp_shfl(const T& v, int src) {
    return shfl_parts(v, [&](auto x) { return __shfl_sync(0xffffffffu, x, src); });
}

/// The symmetric exchange of positions x and y of the Schur complement S (rows, then columns,
/// as the CPU's) and of the pivot order p (lane i holds p_i).
template <class T> __device__ void swap_positions(T* S, int n, int x, int y, int lane, int& p) {
    if (x == y) return;
    if (lane < n) {
        const T u = S[x + lane * kFactorLd];
        S[x + lane * kFactorLd] = S[y + lane * kFactorLd];
        S[y + lane * kFactorLd] = u;
    }
    __syncwarp();
    if (lane < n) {
        const T u = S[lane + x * kFactorLd];
        S[lane + x * kFactorLd] = S[lane + y * kFactorLd];
        S[lane + y * kFactorLd] = u;
    }
    __syncwarp();
    const int px = __shfl_sync(0xffffffffu, p, x), py = __shfl_sync(0xffffffffu, p, y);
    p = lane == x ? py : lane == y ? px : p;
}

/// The better of two pivot candidates (value, then the smaller column, then the smaller row):
/// the CPU's scan in column-major order, which keeps the first of equal values.
__device__ __forceinline__ bool better(double v, int c, int i, double v2, int c2, int i2) {
    return v2 > v || (v2 == v && (c2 < c || (c2 == c && i2 < i)));
}

/// A = G diag(j) G^H by complete (Bunch-Parlett) pivoting, the CPU's algorithm
/// (src/cpu/hyperbolic/bunch_parlett.hpp) step for step and with the same arithmetic, a warp on
/// one matrix: lane c scans column c for the pivot, lane i updates row i of the Schur
/// complement S (n <= 32, in shared memory, ld kFactorLd; destroyed). G (n x n, ld n, zero on
/// entry) and j in global memory. Returns the rank r.
template <class T> __device__ int j_factor_warp(int n, T* S, T* G, int* j, int lane) {
    using R = core::real_of_t<T>;
    const R alpha = (R(1) + sqrt(R(17))) / R(8);
    auto at = [&](int i, int k) -> T& { return S[i + k * kFactorLd]; };
    int p = lane;
    int r = 0, k = 0;
    while (k < n) {
        // The largest diagonal entry (mu1 at d1) and off-diagonal one (mu0 at (i0, j0)).
        R d = -1, x0 = 0;
        int i0 = n;
        if (lane >= k && lane < n) {
            d = fabs(core::real_part(at(lane, lane)));
            for (int i = lane + 1; i < n; ++i) {
                const R x = core::abs_of(at(i, lane));
                if (x > x0) {
                    x0 = x;
                    i0 = i;
                }
            }
        }
        R mu1 = d, mu0 = x0;
        int d1 = lane, c0 = lane, r0 = i0;
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            const R od = __shfl_xor_sync(0xffffffffu, mu1, off);
            const int ol = __shfl_xor_sync(0xffffffffu, d1, off);
            if (od > mu1 || (od == mu1 && ol < d1)) {
                mu1 = od;
                d1 = ol;
            }
            const R ox = __shfl_xor_sync(0xffffffffu, mu0, off);
            const int oc = __shfl_xor_sync(0xffffffffu, c0, off), oi = __shfl_xor_sync(0xffffffffu, r0, off);
            if (better(double(mu0), c0, r0, double(ox), oc, oi)) {
                mu0 = ox;
                c0 = oc;
                r0 = oi;
            }
        }
        if (mu1 == 0 && mu0 == 0) break;  // the rest of A's rank is zero
        if (mu0 == 0) c0 = r0 = k;
        if (mu1 >= alpha * mu0) {
            swap_positions(S, n, k, d1, lane, p);
            const R dd = core::real_part(at(k, k));
            const R f = R(1) / copysign(sqrt(fabs(dd)), dd);
            const int sg = dd > 0 ? 1 : -1;
            T g0 = T(R(0));
            if (lane >= k && lane < n) g0 = core::scale(at(lane, k), f);
            if (lane == k) g0 = T(sqrt(fabs(dd)));
            if (lane >= k && lane < n) G[p + r * n] = g0;
            if (lane == 0) j[r] = sg;
            // S -= g sg g^H on the trailing block, a row a lane
            for (int c = k + 1; c < n; ++c) {
                const T gc = warp_shfl(g0, c);
                if (lane > k && lane < n) at(lane, c) = core::axpy(core::scale(core::conj_of(gc), R(-sg)), g0, at(lane, c));
            }
            __syncwarp();
            if (lane > k && lane < n) at(lane, lane) = T(core::real_part(at(lane, lane)));
            __syncwarp();
            r += 1;
            k += 1;
        } else {
            swap_positions(S, n, k, c0, lane, p);
            swap_positions(S, n, k + 1, r0 == k ? c0 : r0, lane, p);
            const R e11 = core::real_part(at(k, k)), e22 = core::real_part(at(k + 1, k + 1));
            const T e12 = at(k, k + 1);  // (k, k+1): conj of the stored (k+1, k)
            const R ac = core::abs_of(e12);
            const core::Rotation<R> rot = core::jacobi_rotation_ieee(e11, e22, ac);
            const T tw = core::scale(e12, rot.t / ac);
            const R l1 = e11 - rot.t * ac, l2 = e22 + rot.t * ac;
            const R f1 = R(1) / copysign(sqrt(fabs(l1)), l1);
            const R f2 = R(1) / copysign(sqrt(fabs(l2)), l2);
            const T mtwc = core::scale(core::conj_of(tw), R(-1));
            T g0 = T(R(0)), g1 = T(R(0));
            if (lane >= k && lane < n) {
                const T x = at(lane, k), y = at(lane, k + 1);
                g0 = core::scale(core::scale(core::axpy(mtwc, y, x), rot.cs), f1);  // [x y] q1
                g1 = core::scale(core::scale(core::axpy(tw, x, y), rot.cs), f2);    // [x y] q2
                G[p + r * n] = g0;
                G[p + (r + 1) * n] = g1;
            }
            const int s1 = l1 > 0 ? 1 : -1, s2 = l2 > 0 ? 1 : -1;
            if (lane == 0) {
                j[r] = s1;
                j[r + 1] = s2;
            }
            for (int c = k + 2; c < n; ++c) {
                const T gc0 = warp_shfl(g0, c), gc1 = warp_shfl(g1, c);
                if (lane > k + 1 && lane < n) {
                    const T mg0 = core::scale(core::conj_of(gc0), R(-s1)), mg1 = core::scale(core::conj_of(gc1), R(-s2));
                    at(lane, c) = core::axpy(mg1, g1, core::axpy(mg0, g0, at(lane, c)));
                }
            }
            __syncwarp();
            if (lane > k + 1 && lane < n) at(lane, lane) = T(core::real_part(at(lane, lane)));
            __syncwarp();
            r += 2;
            k += 2;
        }
    }
    return r;
}

}  // namespace detail

/// Warp b: matrix b's lower triangle (the diagonal's imaginary part dropped), checked and
/// scaled as the CPU's load_hermitian does, factored into G and J (n <= 32).
template <class T>
__global__ void __launch_bounds__(32 * kFactorWarps)
    j_factor_kernel(const T* a, index_t lda, index_t stride_a, int n, index_t batch, EighWork<T> w) {
    using R = core::real_of_t<T>;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const int lane = int(threadIdx.x & 31), warp = int(threadIdx.x >> 5);
    const index_t b = index_t(blockIdx.x) * kFactorWarps + warp;
    if (b >= batch) return;  // whole warps
    T* S = reinterpret_cast<T*>(smem_raw) + std::size_t(warp) * 32 * kFactorLd;
    const T* ab = a + b * stride_a;
    R amax = 0;
    bool finite = true;
    if (lane < n) {
        const int c = lane;
        const R d = core::real_part(ab[c + c * lda]);
        finite = isfinite(d);
        amax = fabs(d);
        S[c + c * kFactorLd] = T(d);
        for (int i = c + 1; i < n; ++i) {
            const T x = ab[i + c * lda];
            finite = finite && core::is_finite(x);
            amax = fmax(amax, fmax(fabs(core::real_part(x)), fabs(core::imag_part(x))));
            S[i + c * kFactorLd] = x;
            S[c + i * kFactorLd] = core::conj_of(x);
        }
    }
    finite = __all_sync(0xffffffffu, finite);
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) amax = fmax(amax, __shfl_xor_sync(0xffffffffu, amax, off));
    T* G = w.g + b * index_t(n) * n;
    int* J = w.j + b * n;
    for (int i = lane; i < n * n; i += 32) G[i] = T(R(0));
    int state = eigh_factored, e = 0, r = 0;
    __syncwarp();
    if (!finite || amax == 0) {
        state = finite ? eigh_zero : eigh_nonfinite;
    } else {
        e = detail::scale_exponent(amax);
        if (e != 0 && lane < n)
            for (int i = 0; i < n; ++i) S[i + lane * kFactorLd] = detail::scale_pow2(S[i + lane * kFactorLd], e);
        __syncwarp();
        r = detail::j_factor_warp(n, S, G, J, lane);
        if (r < n) state = eigh_singular;
    }
    if (lane >= r && lane < n) J[lane] = 1;  // the zero columns (an HSVD the assembly ignores)
    if (lane == 0) {
        w.state[b] = state;
        w.scale[b] = e;
    }
}

/// Warp b (a lane an eigenvalue, n <= 32): lambda = j' sigma^2 2^-e from matrix b's HSVD, in
/// ascending order (stable), the eigenvectors U's columns in the same order; the states without
/// an HSVD as the CPU's eigh_one gives them. Matrices left to the CPU are not touched.
template <class T>
__global__ void eigh_assemble_kernel(int n, index_t batch, EighWork<T> w, core::real_of_t<T>* wout, index_t w_stride,
                                     T* z, index_t ldz, index_t stride_z, int* info, int* sweeps) {
    using R = core::real_of_t<T>;
    const index_t b = (index_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const int lane = int(threadIdx.x & 31);
    if (b >= batch) return;  // whole warps
    const int state = w.state[b];
    if (state == eigh_singular) return;
    R* wb = wout + b * w_stride;
    T* zb = z ? z + b * stride_z : nullptr;
    const int hinfo = w.hinfo[b];
    if (state == eigh_nonfinite || (state == eigh_factored && hinfo < 0)) {
        for (int i = lane; i < n; i += 32) wb[i] = detail::quiet_nan<R>();
        if (zb)
            for (int idx = lane; idx < n * n; idx += 32) zb[idx % n + index_t(idx / n) * ldz] = detail::make_nan<T>();
        if (lane == 0) {
            info[b] = state == eigh_nonfinite ? info_nonfinite : hinfo;
            if (sweeps && state == eigh_nonfinite) sweeps[b] = 0;
        }
        return;
    }
    if (state == eigh_zero) {
        for (int i = lane; i < n; i += 32) wb[i] = R(0);
        if (zb)
            for (int idx = lane; idx < n * n; idx += 32)
                zb[idx % n + index_t(idx / n) * ldz] = T(R(idx % n == idx / n ? 1 : 0));
        if (lane == 0) {
            info[b] = 0;
            if (sweeps) sweeps[b] = 0;
        }
        return;
    }
    R lam = 0;
    if (lane < n) {
        const R sv = w.sigma[b * n + lane];
        lam = scalbn(R(w.jout[b * n + lane]) * sv * sv, -w.scale[b]);
    }
    int rank = 0;
    for (int q = 0; q < n; ++q) {
        const R x = __shfl_sync(0xffffffffu, lam, q);
        rank += (x < lam || (x == lam && q < lane)) ? 1 : 0;
    }
    if (lane < n) {
        wb[rank] = lam;
        if (zb) {
            const T* ub = w.u + b * index_t(n) * n + index_t(lane) * n;
            for (int i = 0; i < n; ++i) zb[i + index_t(rank) * ldz] = ub[i];
        }
    }
    if (lane == 0) info[b] = hinfo;
}

}  // namespace batchsvd::cuda
