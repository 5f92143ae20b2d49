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

/// The factorisation kernel's shape for orders up to 32 K (K = 1, 2: a lane holds K rows or
/// columns): matrices (warps) a block, and the leading dimension of a Schur complement in shared
/// memory (odd: a lane a row or a column, no bank conflicts).
inline constexpr int kFactorMaxOrder = 64;
template <int K> constexpr int factor_warps() { return K == 1 ? 4 : 2; }
template <int K> constexpr int factor_ld() { return 32 * K + 1; }
template <class T, int K> constexpr std::size_t factor_smem_bytes() {
    return std::size_t(factor_warps<K>()) * 32 * K * factor_ld<K>() * sizeof(T);
}

namespace detail {

template <class T> __device__ __forceinline__ T warp_shfl(const T& v, int src) {
    return shfl_parts(v, [&](auto x) { return __shfl_sync(0xffffffffu, x, src); });
}

/// a[k] for a k the same on every lane, by selects (no local memory).
template <int K, class V> __device__ __forceinline__ V pick(const V (&a)[K], int k) {
    V r = a[0];
#pragma unroll
    for (int q = 1; q < K; ++q)
        if (k == q) r = a[q];
    return r;
}

/// The value position c holds (position c: element c / 32 of lane c % 32).
template <int K, class V> __device__ __forceinline__ V from_position(const V (&a)[K], int c) {
    return warp_shfl(pick<K>(a, c >> 5), c & 31);
}

/// The symmetric exchange of positions x and y of the Schur complement S (rows, then columns,
/// as the CPU's) and of the pivot order p (lane i holds p_i, p_{i+32}, ...).
template <int K, class T> __device__ void swap_positions(T* S, int n, int x, int y, int lane, int (&p)[K]) {
    constexpr int ld = factor_ld<K>();
    if (x == y) return;
#pragma unroll
    for (int q = 0; q < K; ++q) {
        const int i = lane + 32 * q;
        if (i < n) {
            const T u = S[x + i * ld];
            S[x + i * ld] = S[y + i * ld];
            S[y + i * ld] = u;
        }
    }
    __syncwarp();
#pragma unroll
    for (int q = 0; q < K; ++q) {
        const int i = lane + 32 * q;
        if (i < n) {
            const T u = S[i + x * ld];
            S[i + x * ld] = S[i + y * ld];
            S[i + y * ld] = u;
        }
    }
    __syncwarp();
    const int px = from_position<K>(p, x), py = from_position<K>(p, y);
#pragma unroll
    for (int q = 0; q < K; ++q) {
        const int i = lane + 32 * q;
        p[q] = i == x ? py : i == y ? px : p[q];
    }
}

/// The better of two pivot candidates (value, then the smaller column, then the smaller row):
/// the CPU's scan in column-major order, which keeps the first of equal values.
__device__ __forceinline__ bool better(double v, int c, int i, double v2, int c2, int i2) {
    return v2 > v || (v2 == v && (c2 < c || (c2 == c && i2 < i)));
}

/// A = G diag(j) G^H by complete (Bunch-Parlett) pivoting, the CPU's algorithm
/// (src/cpu/hyperbolic/bunch_parlett.hpp) step for step and with the same arithmetic, a warp on
/// one matrix: lane c scans columns c, c + 32, ... for the pivot, lane i updates rows i,
/// i + 32, ... of the Schur complement S (n <= 32 K, in shared memory, ld factor_ld<K>();
/// destroyed). G (n x n, ld n, zero on entry) and j in global memory. Returns the rank r.
template <int K, class T> __device__ int j_factor_warp(int n, T* S, T* G, int* j, int lane) {
    using R = core::real_of_t<T>;
    constexpr int ld = factor_ld<K>();
    const R alpha = (R(1) + sqrt(R(17))) / R(8);
    auto at = [&](int i, int k) -> T& { return S[i + k * ld]; };
    int p[K];
#pragma unroll
    for (int q = 0; q < K; ++q) p[q] = lane + 32 * q;
    int r = 0, k = 0;
    while (k < n) {
        // The largest diagonal entry (mu1 at d1) and off-diagonal one (mu0 at (r0, c0)).
        R mu1 = -1, mu0 = 0;
        int d1 = lane, c0 = lane, r0 = n;
#pragma unroll
        for (int q = 0; q < K; ++q) {
            const int c = lane + 32 * q;
            if (c >= k && c < n) {
                const R d = fabs(core::real_part(at(c, c)));
                if (d > mu1) {  // (a later position of the lane only when larger)
                    mu1 = d;
                    d1 = c;
                }
                R x0 = 0;
                int i0 = n;
                for (int i = c + 1; i < n; ++i) {
                    const R x = core::abs_of(at(i, c));
                    if (x > x0) {
                        x0 = x;
                        i0 = i;
                    }
                }
                if (better(double(mu0), c0, r0, double(x0), c, i0)) {
                    mu0 = x0;
                    c0 = c;
                    r0 = i0;
                }
            }
        }
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
            swap_positions<K>(S, n, k, d1, lane, p);
            const R dd = core::real_part(at(k, k));
            const R f = R(1) / copysign(sqrt(fabs(dd)), dd);
            const int sg = dd > 0 ? 1 : -1;
            T g0[K];
#pragma unroll
            for (int q = 0; q < K; ++q) {
                const int i = lane + 32 * q;
                g0[q] = T(R(0));
                if (i >= k && i < n) {
                    g0[q] = i == k ? T(sqrt(fabs(dd))) : core::scale(at(i, k), f);
                    G[p[q] + r * n] = g0[q];
                }
            }
            if (lane == 0) j[r] = sg;
            // S -= g sg g^H on the trailing block, a row a lane
            for (int c = k + 1; c < n; ++c) {
                const T mg = core::scale(core::conj_of(from_position<K>(g0, c)), R(-sg));
#pragma unroll
                for (int q = 0; q < K; ++q) {
                    const int i = lane + 32 * q;
                    if (i > k && i < n) at(i, c) = core::axpy(mg, g0[q], at(i, c));
                }
            }
            __syncwarp();
#pragma unroll
            for (int q = 0; q < K; ++q) {
                const int i = lane + 32 * q;
                if (i > k && i < n) at(i, i) = T(core::real_part(at(i, i)));
            }
            __syncwarp();
            r += 1;
            k += 1;
        } else {
            swap_positions<K>(S, n, k, c0, lane, p);
            swap_positions<K>(S, n, k + 1, r0 == k ? c0 : r0, lane, p);
            const R e11 = core::real_part(at(k, k)), e22 = core::real_part(at(k + 1, k + 1));
            const T e12 = at(k, k + 1);  // (k, k+1): conj of the stored (k+1, k)
            const R ac = core::abs_of(e12);
            const core::Rotation<R> rot = core::jacobi_rotation_ieee(e11, e22, ac);
            const T tw = core::scale(e12, rot.t / ac);
            const R l1 = e11 - rot.t * ac, l2 = e22 + rot.t * ac;
            const R f1 = R(1) / copysign(sqrt(fabs(l1)), l1);
            const R f2 = R(1) / copysign(sqrt(fabs(l2)), l2);
            const T mtwc = core::scale(core::conj_of(tw), R(-1));
            T g0[K], g1[K];
#pragma unroll
            for (int q = 0; q < K; ++q) {
                const int i = lane + 32 * q;
                g0[q] = g1[q] = T(R(0));
                if (i >= k && i < n) {
                    const T x = at(i, k), y = at(i, k + 1);
                    g0[q] = core::scale(core::scale(core::axpy(mtwc, y, x), rot.cs), f1);  // [x y] q1
                    g1[q] = core::scale(core::scale(core::axpy(tw, x, y), rot.cs), f2);    // [x y] q2
                    G[p[q] + r * n] = g0[q];
                    G[p[q] + (r + 1) * n] = g1[q];
                }
            }
            const int s1 = l1 > 0 ? 1 : -1, s2 = l2 > 0 ? 1 : -1;
            if (lane == 0) {
                j[r] = s1;
                j[r + 1] = s2;
            }
            for (int c = k + 2; c < n; ++c) {
                const T mg0 = core::scale(core::conj_of(from_position<K>(g0, c)), R(-s1));
                const T mg1 = core::scale(core::conj_of(from_position<K>(g1, c)), R(-s2));
#pragma unroll
                for (int q = 0; q < K; ++q) {
                    const int i = lane + 32 * q;
                    if (i > k + 1 && i < n) at(i, c) = core::axpy(mg1, g1[q], core::axpy(mg0, g0[q], at(i, c)));
                }
            }
            __syncwarp();
#pragma unroll
            for (int q = 0; q < K; ++q) {
                const int i = lane + 32 * q;
                if (i > k + 1 && i < n) at(i, i) = T(core::real_part(at(i, i)));
            }
            __syncwarp();
            r += 2;
            k += 2;
        }
    }
    return r;
}

}  // namespace detail

/// Warp b: matrix b's lower triangle (the diagonal's imaginary part dropped), checked and
/// scaled as the CPU's load_hermitian does, factored into G and J (n <= 32 K).
template <class T, int K>
__global__ void __launch_bounds__(32 * factor_warps<K>())
    j_factor_kernel(const T* a, index_t lda, index_t stride_a, int n, index_t batch, EighWork<T> w) {
    using R = core::real_of_t<T>;
    constexpr int ld = factor_ld<K>();
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const int lane = int(threadIdx.x & 31), warp = int(threadIdx.x >> 5);
    const index_t b = index_t(blockIdx.x) * factor_warps<K>() + warp;
    if (b >= batch) return;  // whole warps
    T* S = reinterpret_cast<T*>(smem_raw) + std::size_t(warp) * 32 * K * ld;
    const T* ab = a + b * stride_a;
    R amax = 0;
    bool finite = true;
#pragma unroll
    for (int q = 0; q < K; ++q) {
        const int c = lane + 32 * q;
        if (c < n) {
            const R d = core::real_part(ab[c + c * lda]);
            finite = finite && isfinite(d);
            amax = fmax(amax, fabs(d));
            S[c + c * ld] = T(d);
            for (int i = c + 1; i < n; ++i) {
                const T x = ab[i + c * lda];
                finite = finite && core::is_finite(x);
                amax = fmax(amax, fmax(fabs(core::real_part(x)), fabs(core::imag_part(x))));
                S[i + c * ld] = x;
                S[c + i * ld] = core::conj_of(x);
            }
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
        if (e != 0)
            for (int c = lane; c < n; c += 32)
                for (int i = 0; i < n; ++i) S[i + c * ld] = detail::scale_pow2(S[i + c * ld], e);
        __syncwarp();
        r = detail::j_factor_warp<K>(n, S, G, J, lane);
        if (r < n) state = eigh_singular;
    }
    for (int i = lane; i < n; i += 32)
        if (i >= r) J[i] = 1;  // the zero columns (an HSVD the assembly ignores)
    if (lane == 0) {
        w.state[b] = state;
        w.scale[b] = e;
    }
}

/// Warp b (a lane eigenvalues lane, lane + 32, ...; n <= 32 K): lambda = j' sigma^2 2^-e from
/// matrix b's HSVD, in ascending order (stable), the eigenvectors U's columns in the same order;
/// the states without an HSVD as the CPU's eigh_one gives them. Matrices left to the CPU are not
/// touched.
template <class T, int K>
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
    R lam[K];
    int rank[K];
#pragma unroll
    for (int q = 0; q < K; ++q) {
        const int i = lane + 32 * q;
        lam[q] = 0;
        rank[q] = 0;
        if (i < n) {
            const R sv = w.sigma[b * n + i];
            lam[q] = scalbn(R(w.jout[b * n + i]) * sv * sv, -w.scale[b]);
        }
    }
    for (int c = 0; c < n; ++c) {
        const R x = detail::from_position<K>(lam, c);
#pragma unroll
        for (int q = 0; q < K; ++q) rank[q] += (x < lam[q] || (x == lam[q] && c < lane + 32 * q)) ? 1 : 0;
    }
#pragma unroll
    for (int q = 0; q < K; ++q) {
        const int i = lane + 32 * q;
        if (i < n) {
            wb[rank[q]] = lam[q];
            if (zb) {
                const T* ub = w.u + b * index_t(n) * n + index_t(i) * n;
                for (int r = 0; r < n; ++r) zb[r + index_t(rank[q]) * ldz] = ub[r];
            }
        }
    }
    if (lane == 0) info[b] = hinfo;
}

}  // namespace batchsvd::cuda
