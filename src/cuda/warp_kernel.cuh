// Register-resident one-sided Jacobi for matrices of at most 32 columns: a team of NC lanes
// (NC = 8, 16 or 32, inside one warp) per matrix, the working matrix W and V_W in registers.
//
// Lane l of a team holds rows l, l + NC, ..., l + (RPL - 1) NC of W (M x N, M <= NC RPL,
// N <= NC; zero beyond M and N) and row l of V_W. A round-robin step (core/ordering.hpp) pairs
// the NC columns into P = NC / 2 disjoint pairs, always the same register positions, the
// columns moving one position between steps, so that every index is a compile-time constant
// and the columns never leave the registers. Per
// step every lane forms its rows' share of c = x^H y, a = |x|^2 and b = |y|^2 of every pair,
// an xor reduce-scatter over the team (P shuffles per quantity) leaves the sums of pair k in
// lanes 2k and 2k + 1, which compute its rotation (core/rotation.hpp, the same formulas and
// test as every other path, on exact norms); lane 2k publishes it in shared memory
// (double-buffered by step parity, so one __syncwarp per step) and every lane applies the
// step's rotations to its rows of W and V. There is no block barrier and no shared-memory
// traffic of columns: what the fused kernel (jacobi_kernel.cuh) streams through shared memory
// on every step stays in registers. This is the W-cycle paper's section IV-B idea (a group
// of lanes per column pair) turned around: the lanes split the rows, not the pairs, so the
// per-pair work is a short reduction instead of a column stream.
//
// When the sweeps end, W and V_W go to shared memory and the fused kernel's finalisation
// (finalize.cuh: sigma, sorting, U = W / sigma, completion of zero columns) writes S, U, V.
#pragma once

#include "cuda/finalize.cuh"
#include "cuda/kernel_common.cuh"

namespace batchsvd::cuda {

/// Threads per block of the warp kernel (teams of NC lanes: 128 / NC matrices per block).
inline constexpr int kWarpBlockThreads = 128;

/// One step's rotation of one pair, as lane 2k publishes it: cs == 0 means no rotation.
template <class T> struct alignas(16) WarpRotation {
    T tw;
    core::real_of_t<T> cs;
};

/// Shared memory of one team: the finalisation's layout (team_layout), then the rotations of
/// two consecutive steps.
__host__ __device__ inline std::size_t warp_team_bytes(const TeamLayout& l, int nc, std::size_t rot_size) {
    return align16(l.bytes) + 2 * std::size_t(nc / 2) * rot_size;
}

namespace detail {

/// One round of team_reduce_scatter: v[0, SIZE) holds partial sums; the lane keeps the half
/// its bit H selects and adds its partner's share of that half (compile-time indices only).
template <int NC, int SIZE, int H, class T>
__device__ __forceinline__ void reduce_scatter_round(T (&v)[NC / 2], int lane, unsigned mask) {
    if constexpr (SIZE > 1) {
        const bool upper = (lane & H) != 0;
#pragma unroll
        for (int i = 0; i < SIZE / 2; ++i) {
            const T send = upper ? v[i] : v[i + SIZE / 2];
            const T keep = upper ? v[i + SIZE / 2] : v[i];
            v[i] = add(keep, shfl_xor(send, H, mask, NC));
        }
        reduce_scatter_round<NC, SIZE / 2, H / 2>(v, lane, mask);
    }
}

/// Sums each of the P = NC / 2 values v[0..P) over the NC lanes of a team; on return v[0] of
/// lane l holds the sum of value l / 2 (lanes 2k and 2k + 1 hold bitwise equal sums).
/// Recursive halving on lane bits log2(NC) - 1 .. 1, then an exchange on bit 0: P shuffles.
template <int NC, class T>
__device__ __forceinline__ void team_reduce_scatter(T (&v)[NC / 2], int lane, unsigned mask) {
    reduce_scatter_round<NC, NC / 2, NC / 2>(v, lane, mask);
    v[0] = add(v[0], shfl_xor(v[0], 1, mask, NC));
}

/// Maximum over the lanes of a team (every lane gets it).
template <int NC, class R> __device__ __forceinline__ R team_max(R v, unsigned mask) {
#pragma unroll
    for (int off = NC / 2; off > 0; off >>= 1) {
        const R o = __shfl_xor_sync(mask, v, off, NC);
        v = o > v ? o : v;
    }
    return v;
}

/// x' = cs (x - conj(tw) y), y' = cs (y + tw x): the rotation of every other path.
template <class T>
__device__ __forceinline__ void rotate_pair(T& x, T& y, const T& tw, core::real_of_t<T> cs) {
    using R = core::real_of_t<T>;
    const T xo = x, yo = y;
    x = core::scale(core::axpy(core::scale(core::conj_of(tw), R(-1)), yo, xo), cs);
    y = core::scale(core::axpy(tw, xo, yo), cs);
}

}  // namespace detail

/// One team of NC lanes per matrix, RPL rows of W per lane (M <= NC RPL, N <= NC).
template <class T, int NC, int RPL>
__global__ void __launch_bounds__(kWarpBlockThreads) warp_jacobi_kernel(const JacobiParams<T> p) {
    using R = core::real_of_t<T>;
    constexpr int P = NC / 2;
    static_assert(NC == 8 || NC == 16 || NC == 32);
    extern __shared__ __align__(16) unsigned char smem_raw[];

    const int team = threadIdx.x / NC;
    const int lane = threadIdx.x % NC;
    const index_t b = index_t(blockIdx.x) * (kWarpBlockThreads / NC) + team;
    if (b >= p.batch) return;  // whole teams only
    const unsigned mask = NC == 32 ? 0xffffffffu : (((1u << NC) - 1u) << ((threadIdx.x & 31) & ~(NC - 1)));
    const int M = p.M, N = p.N;
    const TeamLayout& L = p.layout;
    unsigned char* base = smem_raw + std::size_t(team) * warp_team_bytes(L, NC, sizeof(WarpRotation<T>));
    WarpRotation<T>* rot = reinterpret_cast<WarpRotation<T>*>(base + align16(L.bytes));

    // ---- load: lane l holds rows l + NC e of W = A or A^H ---------------------------------
    T W[RPL][NC];
    const T* a = p.a + b * p.stride_a;
    R amax = 0;
    bool bad = false;
#pragma unroll
    for (int e = 0; e < RPL; ++e)
#pragma unroll
        for (int c = 0; c < NC; ++c) {
            const int r = lane + NC * e;
            T x = T(R(0));
            if (r < M && c < N) {
                x = p.transpose ? core::conj_of(a[c + index_t(r) * p.lda]) : a[r + index_t(c) * p.lda];
                bad = bad || !core::is_finite(x);
                const R ax = core::abs_of(x);
                amax = ax > amax ? ax : amax;
            }
            W[e][c] = x;
        }
    bad = __any_sync(mask, bad);
    if (bad) {
        write_nonfinite(p, b, lane, NC);
        return;
    }
    amax = detail::team_max<NC>(amax, mask);
    const int scale_e = detail::scale_exponent(amax);
    if (scale_e != 0) {
#pragma unroll
        for (int e = 0; e < RPL; ++e)
#pragma unroll
            for (int c = 0; c < NC; ++c) W[e][c] = detail::scale_pow2(W[e][c], scale_e);
    }
    const bool need_v = p.need_vw;
    // V_W in registers too (row `lane`). Keeping it in shared memory instead (each lane its
    // own row) frees NC registers, but measured slower: 5.75 against 5.09 ms at
    // 10000 x 32 x 32 float64, 4.98 against 4.56 ms in complex64 (H100).
    T V[NC];
#pragma unroll
    for (int c = 0; c < NC; ++c) V[c] = T(R(lane == c && c < N ? 1 : 0));
    const core::Tolerance<R> tol{p.tol, core::negligible_norm(scalbn(amax, scale_e))};

    // ---- sweeps: NC - 1 round-robin steps of P pairs each ---------------------------------
    // Register position q holds the column core::round_robin_pair puts in slot q at the
    // current step: pair k of every step is positions (k, NC - 1 - k), and between steps the
    // columns move one position along the cycle 1 .. NC - 1 (register moves, no index that is
    // not a compile-time constant). After NC - 1 steps, a whole sweep, every column is back in
    // its own position.
    int sweeps = 0;
    bool converged = false;
    for (int sweep = 0; sweep < p.max_sweeps; ++sweep) {
        bool rotated = false;
        for (int s = 0; s < NC - 1; ++s) {
            // One quantity at a time, so that only P partial sums are live beside W and V.
            T c[P];
            R na[P], nb[P];
#pragma unroll
            for (int k = 0; k < P; ++k) {
                T cc = T(R(0));
#pragma unroll
                for (int e = 0; e < RPL; ++e) cc = core::fma_conj(W[e][k], W[e][NC - 1 - k], cc);
                c[k] = cc;
            }
            detail::team_reduce_scatter<NC>(c, lane, mask);
#pragma unroll
            for (int k = 0; k < P; ++k) {
                R aa = 0;
#pragma unroll
                for (int e = 0; e < RPL; ++e) aa += core::abs2(W[e][k]);
                na[k] = aa;
            }
            detail::team_reduce_scatter<NC>(na, lane, mask);
#pragma unroll
            for (int k = 0; k < P; ++k) {
                R bb = 0;
#pragma unroll
                for (int e = 0; e < RPL; ++e) bb += core::abs2(W[e][NC - 1 - k]);
                nb[k] = bb;
            }
            detail::team_reduce_scatter<NC>(nb, lane, mask);
            // Lanes 2k and 2k + 1 hold pair k's sums; lane 2k publishes its rotation.
            WarpRotation<T> mine{T(R(0)), R(0)};
            const R absc = core::abs_of(c[0]);
            // Computed before the test's outcome (side by side with its square roots), on
            // harmless stand-ins for a pair with a zero column or an exact zero dot product
            // (padding columns when N < NC): 0 / 0 and sqrt(0) take the slow special-case
            // paths of the FP64 division and square root, which cost 20% at 10 x 10 and 18 x 18.
            const bool live = absc > R(0) && na[0] > R(0) && nb[0] > R(0);
            const core::Rotation<R> r = core::jacobi_rotation(live ? na[0] : R(1), live ? nb[0] : R(2),
                                                              live ? absc : R(1));
            if (live && core::needs_rotation(absc, na[0], nb[0], tol)) {
                mine.tw = core::rotation_twiddle(c[0], absc, r.t);
                mine.cs = r.cs;
                rotated = true;
            }
            // Buffer by the parity of the step counted over all sweeps (NC - 1 steps a sweep
            // is odd): the buffer written now was last read two steps ago, before the last
            // __syncwarp.
            WarpRotation<T>* buf = rot + ((s + sweep) & 1) * P;
            if ((lane & 1) == 0) buf[lane / 2] = mine;
            __syncwarp(mask);
#pragma unroll
            for (int k = 0; k < P; ++k) {
                const WarpRotation<T> r = buf[k];
                if (r.cs == R(0)) continue;  // uniform over the team
#pragma unroll
                for (int e = 0; e < RPL; ++e) detail::rotate_pair(W[e][k], W[e][NC - 1 - k], r.tw, r.cs);
                if (need_v) detail::rotate_pair(V[k], V[NC - 1 - k], r.tw, r.cs);
            }
            // Next step: position q takes the column of position q + 1 (q = NC - 1: of 1).
#pragma unroll
            for (int e = 0; e < RPL; ++e) {
                const T first = W[e][1];
#pragma unroll
                for (int q = 1; q < NC - 1; ++q) W[e][q] = W[e][q + 1];
                W[e][NC - 1] = first;
            }
            if (need_v) {
                const T first = V[1];
#pragma unroll
                for (int q = 1; q < NC - 1; ++q) V[q] = V[q + 1];
                V[NC - 1] = first;
            }
        }
        ++sweeps;
        if (!__any_sync(mask, rotated)) {
            converged = true;
            break;
        }
    }

    // ---- finalisation through shared memory (finalize.cuh) -------------------------------
    T* Ws = reinterpret_cast<T*>(base + L.off_w);
    T* Vs = reinterpret_cast<T*>(base + L.off_v);
    R* norms = reinterpret_cast<R*>(base + L.off_norm);
    T* scratch = reinterpret_cast<T*>(base + L.off_scratch);
    int* rank = reinterpret_cast<int*>(base + L.off_int);
    int* done = rank + N;
    int* flags = done + N;
    const int ldw = L.ldw, ldv = L.ldv;
#pragma unroll
    for (int e = 0; e < RPL; ++e)
#pragma unroll
        for (int c = 0; c < NC; ++c)
            if (lane + NC * e < M && c < N) Ws[lane + NC * e + c * ldw] = W[e][c];
    if (need_v && lane < N) {
#pragma unroll
        for (int c = 0; c < NC; ++c)
            if (c < N) Vs[lane + c * ldv] = V[c];
    }
    for (int i = lane; i < 8; i += NC) flags[i] = 0;
    // Squared column norms: after a reduce-scatter in the pairing of the steps, lane 2k holds
    // column k's and lane 2k + 1 column NC - 1 - k's.
    {
        R na[P], nb[P];
#pragma unroll
        for (int k = 0; k < P; ++k) {
            R aa = 0, bb = 0;
#pragma unroll
            for (int e = 0; e < RPL; ++e) {
                aa += core::abs2(W[e][k]);
                bb += core::abs2(W[e][NC - 1 - k]);
            }
            na[k] = aa;
            nb[k] = bb;
        }
        detail::team_reduce_scatter<NC>(na, lane, mask);
        detail::team_reduce_scatter<NC>(nb, lane, mask);
        const int col = (lane & 1) ? NC - 1 - lane / 2 : lane / 2;
        if (col < N) norms[col] = (lane & 1) ? nb[0] : na[0];
    }
    detail::TeamSync sync{mask, true};
    sync();
    finalize_and_write<int>(p, b, Ws, std::size_t(ldw), Vs, std::size_t(ldv), norms, rank, done,
                            scratch, flags, tol.negligible, scale_e, converged ? 0 : sweeps, lane, NC,
                            sync);
}

}  // namespace batchsvd::cuda
