// SPDX-License-Identifier: BSD-3-Clause
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
//
// Hyperbolic form (Hyp; docs/hyperbolic.md): W = G (m >= n) with its columns reordered so that J
// is partitioned (the columns with j = +1 first, each sign in input order), the hyperbolic
// rotation for a pair of opposite signs (signed_rotation), and hsvd_finalize.
#pragma once

#include "cuda/common/finalize.cuh"
#include "cuda/common/kernel_common.cuh"
#include "cuda/hyperbolic/hsvd_finalize.cuh"
#include "cuda/hyperbolic/hyperbolic_pair.cuh"

namespace batchsvd::cuda {


/// MaxThreads/MinBlocks: launch bounds of the instantiated variants, "small" (teams of at
/// most 128 threads per block, several blocks per SM: registers capped for occupancy) and
/// "large" (up to 512 threads, one matrix per block). E: elements of a column each lane
/// keeps in registers between the dot product and the rotation; rows beyond E * G are
/// re-read from shared memory.
template <class T, int MaxThreads, int MinBlocks, int E, bool Hyp = false>
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
                            // [3]: zero sigmas, [4]: pivot row of the completion; hyperbolic
                            // form: [5] a hyperbolic rotation undefined, [6] npos, and done[q]
                            // the caller's column of working column q
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
    int npos = N;
    if constexpr (Hyp) {  // the columns with j = +1, then the others, each in input order
        sync();  // (flags zeroed first)
        if (tid == 0) flags[6] = detail::partition_signature(p.jsig + b * p.jsig_stride, N, done);
        sync();
        npos = flags[6];
    }
    sync();

    // ---- load W (A or A^H), find max |a| and non-finite entries --------------------------
    const T* a = p.a + b * p.stride_a;
    {
        R amax = 0;
        bool bad = false;
        const int total = p.m * p.n;
        for (int idx = tid; idx < total; idx += TS) {
            const int r = idx % p.m, c = idx / p.m;  // element (r, c) of A: coalesced reads
            T x = a[r + index_t(Hyp ? done[c] : c) * p.lda];
            if (!core::is_finite(x)) bad = true;
            const R ax = core::abs_of(x);
            amax = ax > amax ? ax : amax;
            if (p.transpose) W[c + std::size_t(r) * ldw] = core::conj_of(x);
            else W[r + std::size_t(c) * ldw] = x;
        }
        if (bad) atomicOr(&flags[2], 1);
        detail::atomic_max_abs(maxbits, amax);
    }
    sync();

    if (flags[2]) {  // NaN or Inf: info -1, S, U, V all NaN
        write_nonfinite(p, b, tid, TS);
        if constexpr (Hyp) {
            if (p.jout)
                for (int i = tid; i < N; i += TS) p.jout[b * p.jout_stride + i] = i < npos ? 1 : -1;
        }
        return;
    }

    // ---- overflow/underflow-safe scaling by a power of two --------------------------------
    const R amax = detail::max_abs_from_bits<R>(*maxbits);
    const int scale_e = detail::scale_exponent(amax);
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
    int sweeps = 0, status = 0;
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
                        if constexpr (Hyp) {
                            const bool mixed = (pr.i < npos) != (pr.j < npos);
                            const detail::SignedRotation<T> hr = detail::signed_rotation<T>(ea, eb, c, mixed, tol);
                            if (hr.undefined && lane == 0) flags[5] = 1;
                            if (hr.on) {
                                R sx = 0, sy = 0;
#pragma unroll
                                for (int e = 0; e < E; ++e) {
                                    const int r = lane + e * G;
                                    if (r < M) {
                                        detail::apply_signed(xr[e], yr[e], hr.up);
                                        x[r] = xr[e];
                                        y[r] = yr[e];
                                        sx += core::abs2(xr[e]);
                                        sy += core::abs2(yr[e]);
                                    }
                                }
                                for (int r = lane + E * G; r < M; r += G) {
                                    T xo = x[r], yo = y[r];
                                    detail::apply_signed(xo, yo, hr.up);
                                    x[r] = xo;
                                    y[r] = yo;
                                    sx += core::abs2(xo);
                                    sy += core::abs2(yo);
                                }
                                R na = hr.na, nb = hr.nb;
                                if (!hr.reliable) {
                                    na = detail::group_sum(sx, G, gmask);
                                    nb = detail::group_sum(sy, G, gmask);
                                }
                                __syncwarp(gmask);  // roots[] read by the group (as below)
                                if (lane == 0) {
                                    norms[pr.i] = na;
                                    norms[pr.j] = nb;
                                    roots[pr.i] = std::sqrt(na);
                                    roots[pr.j] = std::sqrt(nb);
                                    *rotated = 1;
                                }
                                if (p.need_vw) {
                                    T* vx = V + std::size_t(pr.i) * ldv;
                                    T* vy = V + std::size_t(pr.j) * ldv;
                                    for (int r = lane; r < N; r += G) {
                                        T xo = vx[r], yo = vy[r];
                                        detail::apply_signed(xo, yo, hr.up);
                                        vx[r] = xo;
                                        vy[r] = yo;
                                    }
                                }
                            }
                        } else {
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
            }
            sync();
        }
        ++sweeps;
        if constexpr (Hyp) {
            // Set during the sweep, read after its last barrier and before the next sweep's
            // first write (compute_norms and a barrier come first): the same on every lane.
            if (*(volatile int*)&flags[5]) {
                status = info_no_hyperbolic_rotation;
                break;
            }
        }
        const bool any = *(volatile int*)rotated != 0;
        if (!any) {
            converged = true;
            break;
        }
    }

    // ---- singular values, order, U = W / sigma; S, U, V written once ----------------------
    detail::compute_norms(p, W, ldw, norms, roots, g, lane, gmask);
    sync();
    if constexpr (Hyp) {
        hsvd_finalize(p, b, W, ldw, V, ldv, norms, roots, rank, done, npos, tol.negligible, scale_e, status,
                      converged ? 0 : sweeps, sweeps, tid, TS, sync);
    } else {
        (void)status;
        finalize_and_write<int>(p, b, W, std::size_t(ldw), V, std::size_t(ldv), norms, rank, done, scratch, flags,
                                tol.negligible, scale_e, converged ? 0 : sweeps, sweeps, tid, TS, sync);
    }
}

}  // namespace batchsvd::cuda
