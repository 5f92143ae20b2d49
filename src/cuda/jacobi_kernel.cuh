// The fused one-sided Jacobi kernel: one "team" of threads per matrix keeps the working matrix
// (and V when it is needed) in shared memory for the whole solve (abfasi section 9.1; the
// W-cycle paper's section IV-B: a group of lanes per column pair, tracked column norms).
//
// Working matrix: W = A for tall/square A (m >= n), W = A^H for wide A (then U_A = V_W and
// V_A = U_W), so W is M x N with M >= N and k = N.
//
// Team: P = round_robin_pairs(N) groups of G lanes (G a power of two <= 32, chosen from M),
// one group per column pair of a round-robin step. A team of <= 32 threads lives inside one
// warp (several teams per block, synchronised by __syncwarp on the team's lanes); a larger
// team is one block (synchronised by __syncthreads). Each matrix stops on its own when a sweep
// does no rotation.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

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
};

namespace detail {

template <class T> __device__ __forceinline__ T shfl_xor(T v, int off, unsigned mask, int width) {
    if constexpr (core::is_complex_v<T>) {
        using R = core::real_of_t<T>;
        R re = __shfl_xor_sync(mask, v.real(), off, width);
        R im = __shfl_xor_sync(mask, v.imag(), off, width);
        return T(re, im);
    } else {
        return __shfl_xor_sync(mask, v, off, width);
    }
}

template <class T> __device__ __forceinline__ T add(const T& x, const T& y) {
    if constexpr (core::is_complex_v<T>) return T(x.real() + y.real(), x.imag() + y.imag());
    else return x + y;
}

/// Sum over the G lanes of a group by an xor butterfly: every lane ends with the bitwise same
/// value (a + b == b + a), so decisions taken on it are uniform over the group.
template <class T> __device__ __forceinline__ T group_sum(T v, int G, unsigned mask) {
    for (int off = G >> 1; off > 0; off >>= 1) v = add(v, shfl_xor(v, off, mask, G));
    return v;
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

/// MaxThreads/MinBlocks: launch bounds of the instantiated variants, "small" (teams of at
/// most 128 threads per block, several blocks per SM: registers capped for occupancy) and
/// "large" (up to 512 threads, one matrix per block). E: elements of a column each lane
/// keeps in registers between the dot product and the rotation; rows beyond E * G are
/// re-read from shared memory.
template <class T, int MaxThreads, int MinBlocks, int E>
__global__ void __launch_bounds__(MaxThreads, MinBlocks)
    jacobi_block_per_matrix_kernel(const JacobiParams<T> p) {
    using R = core::real_of_t<T>;
    extern __shared__ __align__(16) unsigned char smem_raw[];

    const int team = threadIdx.x / p.team_threads;
    const int tid = threadIdx.x - team * p.team_threads;
    const index_t b = index_t(blockIdx.x) * p.teams_per_block + team;
    if (b >= p.batch) return;  // only whole teams return: no barrier is shared with them

    detail::TeamSync sync;
    sync.in_warp = p.team_threads <= 32;
    if (sync.in_warp) {
        const int base = (threadIdx.x & 31) & ~(p.team_threads - 1);
        sync.mask = p.team_threads == 32 ? 0xffffffffu : (((1u << p.team_threads) - 1u) << base);
    } else {
        sync.mask = 0xffffffffu;
    }
    const int TS = p.team_threads;
    const int M = p.M, N = p.N;
    const TeamLayout& L = p.layout;
    unsigned char* base = smem_raw + std::size_t(team) * L.bytes;
    T* W = reinterpret_cast<T*>(base + L.off_w);
    T* V = reinterpret_cast<T*>(base + L.off_v);
    R* norms = reinterpret_cast<R*>(base + L.off_norm);  // squared column norms
    R* roots = norms + N + 1;                            // column norms
    T* scratch = reinterpret_cast<T*>(base + L.off_scratch);
    int* rank = reinterpret_cast<int*>(base + L.off_int);
    int* done = rank + N;
    int* flags = done + N;  // [0],[1]: rotation flags (by sweep parity), [2]: nonfinite,
                            // [3]: zero sigmas, [4]: pivot row of the completion
    unsigned long long* maxbits = reinterpret_cast<unsigned long long*>(base + L.off_max);
    const int ldw = L.ldw, ldv = L.ldv;

    const int G = p.G;
    const int g = tid / G;          // pair group
    const int lane = tid - g * G;   // lane in the group
    unsigned gmask;
    {
        const int wl = threadIdx.x & 31;
        const int gbase = wl & ~(G - 1);
        gmask = G == 32 ? 0xffffffffu : (((1u << G) - 1u) << gbase);
    }

    for (int i = tid; i < 8; i += p.team_threads) flags[i] = 0;  // teams may be 1 thread
    if (tid == 0) *maxbits = 0;
    sync();

    // ---- load W (A or A^H), find max |a| and non-finite entries --------------------------
    const T* a = p.a + b * p.stride_a;
    {
        R amax = 0;
        bool bad = false;
        const int total = p.m * p.n;
        for (int idx = tid; idx < total; idx += TS) {
            const int r = idx % p.m, c = idx / p.m;  // element (r, c) of A: coalesced reads
            T x = a[r + index_t(c) * p.lda];
            if (!core::is_finite(x)) bad = true;
            const R ax = core::abs_of(x);
            amax = ax > amax ? ax : amax;
            if (p.transpose) W[c + std::size_t(r) * ldw] = core::conj_of(x);
            else W[r + std::size_t(c) * ldw] = x;
        }
        if (bad) atomicOr(&flags[2], 1);
        if (amax > 0) {
            if constexpr (sizeof(R) == 4) atomicMax(reinterpret_cast<unsigned*>(maxbits), __float_as_uint(amax));
            else atomicMax(maxbits, (unsigned long long)__double_as_longlong(amax));
        }
    }
    sync();

    const index_t k = N;
    R* s_out = p.s + b * p.s_stride;
    T* u_out = p.compute_u ? p.u + b * p.stride_u : nullptr;
    T* v_out = p.compute_v ? p.v + b * p.stride_v : nullptr;

    if (flags[2]) {  // NaN or Inf: info -1, S, U, V all NaN
        const R nan = detail::quiet_nan<R>();
        for (int j = tid; j < k; j += TS) s_out[j] = nan;
        if (u_out)
            for (int idx = tid; idx < p.m * k; idx += TS)
                u_out[idx % p.m + index_t(idx / p.m) * p.ldu] = detail::make_nan<T>();
        if (v_out)
            for (int idx = tid; idx < p.n * k; idx += TS)
                v_out[idx % p.n + index_t(idx / p.n) * p.ldv] = detail::make_nan<T>();
        if (tid == 0) p.info[b] = info_nonfinite;
        return;
    }

    // ---- overflow/underflow-safe scaling by a power of two --------------------------------
    int scale_e = 0;
    R amax;
    {
        if constexpr (sizeof(R) == 4) amax = __uint_as_float(unsigned(*maxbits));
        else amax = __longlong_as_double((long long)*maxbits);
        constexpr int se = core::precision<R>::scale_exp;
        const R hi = scalbn(R(1), se), lo = scalbn(R(1), -se);
        if (amax > 0 && (amax > hi || amax < lo)) scale_e = -ilogb(amax);
    }
    if (scale_e != 0) {
        for (int idx = tid; idx < M * N; idx += TS) {
            const int r = idx % M, c = idx / M;
            W[r + std::size_t(c) * ldw] = detail::scale_pow2(W[r + std::size_t(c) * ldw], scale_e);
        }
    }
    if (p.need_vw) {
        for (int idx = tid; idx < N * N; idx += TS) {
            const int r = idx % N, c = idx / N;
            V[r + std::size_t(c) * ldv] = T(R(r == c ? 1 : 0));
        }
    }
    sync();

    // ---- sweeps of the parallel round-robin ordering ---------------------------------------
    const int steps = core::round_robin_steps(N);
    const core::Tolerance<R> tol{p.tol, core::negligible_norm(scalbn(amax, scale_e))};
    int sweeps = 0;
    bool converged = false;
    for (int sweep = 0; sweep < p.max_sweeps; ++sweep) {
        detail::compute_norms(p, W, ldw, norms, roots, g, lane, gmask);  // exact norms each sweep
        sync();
        if (tid == 0) flags[(sweep + 1) & 1] = 0;  // next sweep's flag; read before this sweep
        int* rotated = &flags[sweep & 1];
        for (int step = 0; step < steps; ++step) {
            if (g < p.P) {
                const core::IndexPair pr = core::round_robin_pair(N, step, g);
                if (pr.j < N) {
                    T* x = W + std::size_t(pr.i) * ldw;
                    T* y = W + std::size_t(pr.j) * ldw;
                    T xr[E], yr[E];
                    // Two accumulators each, so that the fma chains overlap.
                    T c0 = T(R(0)), c1 = T(R(0));
                    R pa0 = 0, pa1 = 0, pb0 = 0, pb1 = 0;  // this lane's ||x||^2, ||y||^2
#pragma unroll
                    for (int e = 0; e < E; ++e) {
                        const int r = lane + e * G;
                        if (r < M) {
                            xr[e] = x[r];
                            yr[e] = y[r];
                        }
                    }
#pragma unroll
                    for (int e = 0; e < E; e += 2) {
                        if (lane + e * G < M) {
                            c0 = core::fma_conj(xr[e], yr[e], c0);
                            pa0 = std::fma(core::real_part(xr[e]), core::real_part(xr[e]), pa0);
                            pb0 = std::fma(core::real_part(yr[e]), core::real_part(yr[e]), pb0);
                            if constexpr (core::is_complex_v<T>) {
                                pa0 = std::fma(xr[e].imag(), xr[e].imag(), pa0);
                                pb0 = std::fma(yr[e].imag(), yr[e].imag(), pb0);
                            }
                        }
                        if (e + 1 < E && lane + (e + 1) * G < M) {
                            c1 = core::fma_conj(xr[e + 1], yr[e + 1], c1);
                            pa1 += core::abs2(xr[e + 1]);
                            pb1 += core::abs2(yr[e + 1]);
                        }
                    }
                    for (int r = lane + E * G; r < M; r += G) {
                        const T xo = x[r], yo = y[r];
                        c0 = core::fma_conj(xo, yo, c0);
                        pa0 += core::abs2(xo);
                        pb0 += core::abs2(yo);
                    }
                    T c = detail::add(c0, c1);
                    const R pa = pa0 + pa1, pb = pb0 + pb1;
                    const R ra = roots[pr.i], rb = roots[pr.j];  // read before any lane writes
                    c = detail::group_sum(c, G, gmask);
                    const R absc = core::abs_of(c);
                    // The test runs on the tracked norms (one reduction per pair); the angle
                    // on exact ones: tracked norms drift by ~N u within a sweep, which for
                    // nearly equal norms turns cot(2 phi) wrong and stalls convergence.
                    if (core::needs_rotation_norms(absc, ra, rb, tol)) {
                        const R ea = detail::group_sum(pa, G, gmask);
                        const R eb = detail::group_sum(pb, G, gmask);
                        const core::Rotation<R> rot = core::jacobi_rotation(ea, eb, absc);
                        const T tw = core::rotation_twiddle(c, absc, rot.t);
                        const T mtwc = core::scale(core::conj_of(tw), R(-1));  // -conj(tw)
                        const R cs = rot.cs;
                        R sx = 0, sy = 0;  // new squared norms, in case tracking is unreliable
#pragma unroll
                        for (int e = 0; e < E; ++e) {
                            const int r = lane + e * G;
                            if (r < M) {
                                const T nx = core::scale(core::axpy(mtwc, yr[e], xr[e]), cs);
                                const T ny = core::scale(core::axpy(tw, xr[e], yr[e]), cs);
                                x[r] = nx;
                                y[r] = ny;
                                sx += core::abs2(nx);
                                sy += core::abs2(ny);
                            }
                        }
                        for (int r = lane + E * G; r < M; r += G) {
                            const T xo = x[r], yo = y[r];
                            const T nx = core::scale(core::axpy(mtwc, yo, xo), cs);
                            const T ny = core::scale(core::axpy(tw, xo, yo), cs);
                            x[r] = nx;
                            y[r] = ny;
                            sx += core::abs2(nx);
                            sy += core::abs2(ny);
                        }
                        core::TrackedNorms<R> tn = core::rotate_norms(ea, eb, absc, rot.t);
                        if (!tn.reliable) {
                            tn.a = detail::group_sum(sx, G, gmask);
                            tn.b = detail::group_sum(sy, G, gmask);
                        }
                        // The group's lanes read roots[] above; order those reads before
                        // lane 0 overwrites them (shuffles imply no memory ordering).
                        __syncwarp(gmask);
                        if (lane == 0) {
                            norms[pr.i] = tn.a;
                            norms[pr.j] = tn.b;
                            roots[pr.i] = std::sqrt(tn.a);
                            roots[pr.j] = std::sqrt(tn.b);
                            *rotated = 1;
                        }
                        if (p.need_vw) {
                            T* vx = V + std::size_t(pr.i) * ldv;
                            T* vy = V + std::size_t(pr.j) * ldv;
                            for (int r = lane; r < N; r += G) {
                                const T xo = vx[r], yo = vy[r];
                                vx[r] = core::scale(core::axpy(mtwc, yo, xo), cs);
                                vy[r] = core::scale(core::axpy(tw, xo, yo), cs);
                            }
                        }
                    }
                }
            }
            sync();
        }
        ++sweeps;
        const bool any = *(volatile int*)rotated != 0;
        if (!any) {
            converged = true;
            break;
        }
    }

    // ---- singular values, order, U = W / sigma ---------------------------------------------
    detail::compute_norms(p, W, ldw, norms, roots, g, lane, gmask);
    sync();
    for (int j = tid; j < N; j += TS) {  // sigma, scaled; rounding noise counts as 0
        const R sj = std::sqrt(norms[j]);
        norms[j] = sj > tol.negligible ? sj : R(0);
    }
    sync();
    for (int j = tid; j < N; j += TS) {
        const R sj = norms[j];
        int r = 0;
        for (int i = 0; i < N; ++i) {
            const R si = norms[i];
            r += (si > sj || (si == sj && i < j)) ? 1 : 0;
        }
        rank[j] = r;
        done[j] = sj > 0 ? 1 : 0;
        if (!(sj > 0)) atomicOr(&flags[3], 1);
    }
    for (int idx = tid; idx < M * N; idx += TS) {
        const int r = idx % M, c = idx / M;
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
    for (int j = tid; j < N; j += TS) s_out[rank[j]] = scalbn(norms[j], -scale_e);
    // U_W (M x N) is U_A when tall, V_A when wide; V_W (N x N) is V_A when tall, U_A when wide.
    T* uw_out = p.transpose ? v_out : u_out;
    const index_t ld_uw = p.transpose ? p.ldv : p.ldu;
    T* vw_out = p.transpose ? u_out : v_out;
    const index_t ld_vw = p.transpose ? p.ldu : p.ldv;
    if (uw_out)
        for (int idx = tid; idx < M * N; idx += TS) {
            const int r = idx % M, c = idx / M;
            uw_out[r + index_t(rank[c]) * ld_uw] = W[r + std::size_t(c) * ldw];
        }
    if (vw_out)
        for (int idx = tid; idx < N * N; idx += TS) {
            const int r = idx % N, c = idx / N;
            vw_out[r + index_t(rank[c]) * ld_vw] = V[r + std::size_t(c) * ldv];
        }
    if (tid == 0) p.info[b] = converged ? 0 : sweeps;
}

}  // namespace batchsvd::cuda
