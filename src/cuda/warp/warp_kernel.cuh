// SPDX-License-Identifier: BSD-3-Clause
// Register-resident one-sided Jacobi for matrices of at most 32 columns: a team of NC lanes
// (NC even, 6 to 32, inside one warp; floor(32 / NC) teams a warp, the lanes past the last
// team idle) per matrix, the working matrix W and V_W in registers.
//
// Lane l of a team holds rows l, l + NC, ..., l + (RPL - 1) NC of W (M x N, M <= NC RPL,
// N <= NC; zero beyond M and N) and row l of V_W. A round-robin step (core/ordering.hpp) pairs
// the NC columns into P = NC / 2 disjoint pairs; the register positions of the pairs are
// compile-time constants (see `slot` below), so the columns never leave the registers. Per
// step every lane writes its rows' share of c = x^H y of every pair (and, at the steps that sum
// them, of |x|^2 of every column) to shared memory; after one __syncwarp lane k + h P (h = 0, 1)
// sums pair k's c over half of the team (and the squared norm of one of its two columns over the
// whole team), and one shuffle with lane k + (1 - h) P completes them (a transpose through shared
// memory: an xor reduce-scatter by shuffles needs a select per value and round, which cost more
// than the arithmetic). Lanes k and k + P then hold bitwise equal sums and compute pair k's
// rotation (core/rotation.hpp, the same formulas and test as every other path); lane k publishes
// it in shared memory (double-buffered by step parity) and every lane applies the step's rotations
// to its rows of W and V. Teams of 32 lanes (and complex64 teams of 16) track the squared norms
// between exact sums (the W-cycle paper's eq. 6; warp_step says when they are summed), so that
// most steps sum only the P dot products. There is no block barrier and no
// shared-memory traffic of columns: what the fused kernel (fused_kernel.cuh) streams through
// shared memory on every step stays in registers. This is the W-cycle paper's section IV-B
// idea (a group of lanes per column pair) turned around: the lanes split the rows, not the
// pairs, so the per-pair work is a short reduction instead of a column stream.
//
// Column positions: the round robin moves every column but one by one position a step. The
// kernel runs U steps (warp_unroll) with the pairs' positions shifted at compile time and
// moves the registers once per U steps, which divides the register moves (about a quarter of
// the instructions of a step at U = 1) by U. Convergence is a window of NC - 1 consecutive
// steps without a rotation (any NC - 1 consecutive steps of the round robin meet every pair
// once), so sweeps need not start at a multiple of U.
//
// When the sweeps end, W and V_W go to shared memory and the fused kernel's finalisation
// (finalize.cuh: sigma, sorting, U = W / sigma, completion of zero columns) writes S, U, V.
#pragma once

#include <type_traits>

#include "cuda/common/finalize.cuh"
#include "cuda/common/kernel_common.cuh"
#include "cuda/common/pair_rotation.cuh"
#include "cuda/hyperbolic/hsvd_finalize.cuh"
#include "cuda/hyperbolic/hyperbolic_pair.cuh"

namespace batchsvd::cuda {

/// Threads per block of the warp kernel (teams of NC lanes: 128 / NC matrices per block).
inline constexpr int kWarpBlockThreads = 128;

/// Round-robin steps per register move (see above; BATCHSVD_WARP_UNROLL overrides it for
/// measurements). H100, 2026-11-25, 10000 matrices, U = 2, 3, 4: 32 x 32 float64 2.86, 2.82,
/// 2.89 ms, float32 1.42, 1.38, 1.42, 16 x 16 float64 0.432, 0.409, 0.418, but 32 x 32
/// complex64 3.67, 3.90, 4.29 (larger bodies cost instruction-cache misses).
template <class T> constexpr int warp_unroll() {
#ifdef BATCHSVD_WARP_UNROLL
    return BATCHSVD_WARP_UNROLL;
#else
    return core::is_complex_v<T> ? 2 : 3;
#endif
}

/// Whether the steps track the squared column norms (summing only c, see warp_step) instead of
/// summing them at every step. H100, 2026-11-25 (10000 matrices, same runs, ms): 32 x 32
/// float64 2.82 -> 2.22, float32 1.38 -> 1.14, complex64 3.68 -> 3.39, 64 x 32 float32 1.91 ->
/// 1.69, 16 x 16 complex64 0.551 -> 0.531; but slower for the real teams of 16 and 8 lanes
/// (16 x 16 float64 0.418 -> 0.444, 8 x 8 0.074 -> 0.084, 32 x 16 0.555 -> 0.598, float32 8 x 8
/// 0.051 -> 0.063: their NC sums are a smaller share of a step than the tracking's shuffles,
/// selects and refreshes), for complex 8 x 8 (complex64 0.076 -> 0.088, complex128 0.154 ->
/// 0.179) and not faster for complex128 16 x 16 (1.055 -> 1.08; that kernel spills).
/// Teams of other sizes follow the nearest measured one: teams from 24 lanes track (the sums
/// of NC norms grow with NC as at 32), complex64 teams from 12 lanes.
/// BATCHSVD_WARP_TRACK_NORMS (0 or 1) overrides it for measurements.
template <class T, int NC> constexpr bool warp_tracks_norms() {
#ifdef BATCHSVD_WARP_TRACK_NORMS
    return BATCHSVD_WARP_TRACK_NORMS;
#else
    if constexpr (std::is_same_v<T, dev_complex<double>>) return NC == 32;
    return NC >= 24 || (NC >= 12 && std::is_same_v<T, dev_complex<float>>);
#endif
}

/// Teams a warp (a team never straddles two warps) and a block.
template <int NC> constexpr int warp_teams_per_warp() { return 32 / NC; }
template <int NC> constexpr int warp_teams_per_block() { return kWarpBlockThreads / 32 * (32 / NC); }

/// Steps between exact norm sums when the norms are tracked (at most; see warp_step).
template <int NC> constexpr int warp_exact_every() {
#ifdef BATCHSVD_WARP_EXACT_EVERY
    return BATCHSVD_WARP_EXACT_EVERY;
#else
    return NC - 1;
#endif
}

/// Blocks per SM the register allocation must allow (__launch_bounds__; 1: the compiler's own
/// choice, which is not the same as an explicit minimum of 1). Left to itself the
/// compiler gives the float64 32-column kernel 252 registers (2 blocks of 128 threads per
/// SM); held to 168 (3 blocks) it moves a few more registers and ran 7% faster (3.41 against
/// 3.66 ms at 10000 x 32 x 32, H100). The same cap made the smaller instances slower (they
/// took more registers than they need: float32 32 x 32 1.89 against 1.54 ms, float64 16 x 16
/// 0.60 against 0.53), and complex ones spill under it: they keep the default. With tracked
/// norms the float32 32-column kernel took 126 registers (4 blocks); held to 5 blocks (96) it
/// ran 1.147 against 1.216 ms (H100, 2026-11-25, no spills in the steps).
/// BATCHSVD_WARP_MIN_BLOCKS_F32 overrides the float32 32 x 32 choice for measurements.
template <class T, int NC, int RPL> __host__ __device__ constexpr int warp_min_blocks() {
    if (core::is_complex_v<T>) return 1;
    if (std::is_same_v<T, float> && NC == 32 && RPL == 1) {
#ifdef BATCHSVD_WARP_MIN_BLOCKS_F32
        return BATCHSVD_WARP_MIN_BLOCKS_F32;
#else
        return 5;
#endif
    }
    // float64 teams of 24 lanes and more, one row a lane: the 32-lane cap, measured there
    // (teams of 16 lanes with 3 rows spilled 412 bytes under it; left to the compiler, none)
    return std::is_same_v<T, double> && RPL == 1 && NC >= 24 ? 3 : 1;
}

/// One step's rotation of one pair, as lane k publishes it: detail::AppliedRotation's form
/// (the three shears' h, s for real T, tw, cs for complex T; the identity for a pair that
/// does not rotate).
template <class T> using WarpRotation = detail::AppliedRotation<T>;

/// The published record of the kernel's hyperbolic form (the hyperbolic SVD: a pair of
/// opposite signs takes a hyperbolic rotation, hyperbolic_pair.cuh: the same shears for real
/// types, a ScaledPairUpdate for complex ones), and of either form.
template <class T, bool Hyp>
using WarpRecord = std::conditional_t<Hyp, detail::SignedRecord<T>, WarpRotation<T>>;

/// Shared memory of the per-step sums of one team: the partial dot products (P rows, each two
/// halves of PH values of T: lane k + h P writes position h PH + k) and partial squared norms
/// (NC rows of NN values of R), each half and row a whole number of 16-byte words (PH >= P and
/// NN >= NC, the extra positions zero, so that a half is read 16 bytes at a time from an
/// aligned start; for teams of 8, 16 and 32 lanes PH = P and NN = NC), each row stride an odd
/// number of 16-byte words so that the lanes' 16-byte reads of eight different rows fall in
/// different banks (for teams of 8, 16 and 32 lanes: the row and 16 bytes; a stride of an even
/// number of words, 14-lane float64 norm rows of 128 bytes, cost 8-way conflicts: 10000 x 14^2
/// took 0.66 ms against 16^2's 0.43, H100, 2026-11-27).
struct WarpSums {
    std::size_t c_stride, n_stride;  ///< row strides, in elements of T and of R
    std::size_t off_n, bytes;        ///< offset of the norm rows, total bytes
    int ph, nn;                      ///< values in a half row of c, in a row of norms
};
__host__ __device__ constexpr int round_up_to(int x, int g) { return (x + g - 1) / g * g; }
/// A row stride of an odd number of 16-byte words holding `bytes`: eight consecutive rows then
/// start in eight different groups of four banks.
__host__ __device__ constexpr std::size_t odd_words_stride(std::size_t bytes) {
    const std::size_t words = (bytes + 15) / 16;
    return 16 * (words % 2 == 1 ? words : words + 1);
}
__host__ __device__ inline WarpSums warp_sums_layout(int nc, std::size_t tsize, std::size_t rsize) {
    WarpSums w;
    w.ph = round_up_to(nc / 2, int(16 / tsize));
    w.nn = round_up_to(nc, int(16 / rsize));
    w.c_stride = odd_words_stride(std::size_t(2 * w.ph) * tsize) / tsize;
    w.n_stride = odd_words_stride(std::size_t(w.nn) * rsize) / rsize;
    w.off_n = align16(std::size_t(nc / 2) * w.c_stride * tsize);
    w.bytes = align16(w.off_n + std::size_t(nc) * w.n_stride * rsize);
    return w;
}

/// Shared memory of one team: the sums' rows, which the finalisation's layout (team_layout)
/// reuses once the sweeps are over, then the rotations of two consecutive steps.
__host__ __device__ inline std::size_t warp_rotations_offset(const TeamLayout& l, int nc, std::size_t tsize,
                                                             std::size_t rsize) {
    const std::size_t sums = warp_sums_layout(nc, tsize, rsize).bytes;
    return align16(l.bytes > sums ? l.bytes : sums);
}
__host__ __device__ inline std::size_t warp_team_bytes(const TeamLayout& l, int nc, std::size_t tsize,
                                                       std::size_t rsize, std::size_t rot_size) {
    return warp_rotations_offset(l, nc, tsize, rsize) + 2 * std::size_t(nc / 2) * rot_size;
}

namespace detail {

/// Register position that holds round-robin slot q J steps after the last register move:
/// core::round_robin_slot, the registers standing for the columns of step 0.
template <int NC> __host__ __device__ constexpr int slot(int q, int J) { return core::round_robin_slot(NC, J, q); }

/// Sum of COUNT values of T at `row` (16-byte aligned), read 16 bytes at a time, with one
/// accumulator per position in the 16-byte word and two words in flight (the accumulators
/// start from the first two words: 0 + x would be one more addition on the chain).
template <class T, int COUNT> __device__ __forceinline__ T sum_row(const T* row) {
    using R = core::real_of_t<T>;
    constexpr int VR = 16 / int(sizeof(R));           // R values per 16-byte read
    constexpr int NR = COUNT * int(sizeof(T) / sizeof(R));
    static_assert(NR % VR == 0, "rows are read 16 bytes at a time");
    constexpr int NW = NR / VR;                       // words
    constexpr int NA = NW >= 2 ? 2 : 1;               // words in flight
    using Vec = std::conditional_t<sizeof(R) == 8, double2, float4>;
    const Vec* v = reinterpret_cast<const Vec*>(row);
    R acc[NA][VR];
#pragma unroll
    for (int i = 0; i < NW; ++i) {
        const Vec x = v[i];
        const R* w = reinterpret_cast<const R*>(&x);
#pragma unroll
        for (int j = 0; j < VR; ++j) acc[i % NA][j] = i < NA ? w[j] : acc[i % NA][j] + w[j];
    }
    if constexpr (NA == 2) {
#pragma unroll
        for (int j = 0; j < VR; ++j) acc[0][j] += acc[1][j];
    }
    if constexpr (core::is_complex_v<T>) {  // positions alternate real and imaginary parts
        R re = acc[0][0], im = acc[0][1];
#pragma unroll
        for (int j = 2; j < VR; j += 2) {
            re += acc[0][j];
            im += acc[0][j + 1];
        }
        return T(re, im);
    } else {
        R s = acc[0][0];
#pragma unroll
        for (int j = 1; j < VR; ++j) s += acc[0][j];
        return s;
    }
}

/// The lanes of one team: the warp lane of its lane 0, its lane mask.
struct TeamLanes {
    int base;
    unsigned mask;
};

/// v from lane `src` of the team (a team lane).
template <class T> __device__ __forceinline__ T team_shfl(const T& v, int src, const TeamLanes& tl) {
    return shfl_parts(v, [&](auto x) { return __shfl_sync(tl.mask, x, tl.base + src); });
}

/// v from the team lane `lane` xor P (NC = 2P a power of two) or, for other team sizes, from
/// lane +- P: pair k's other lane.
template <int NC, class T> __device__ __forceinline__ T pair_partner(const T& v, int lane, const TeamLanes& tl) {
    constexpr int P = NC / 2;
    if constexpr ((NC & (NC - 1)) == 0) return shfl_xor(v, P, tl.mask, NC);
    else return team_shfl(v, lane < P ? lane + P : lane - P, tl);
}

/// Maximum over the lanes of a team (every lane gets it): an xor butterfly for teams of a
/// power of two, else windows doubling around the team (max is idempotent: overlaps are harmless).
template <int NC, class R> __device__ __forceinline__ R team_max(R v, int lane, const TeamLanes& tl) {
    if constexpr ((NC & (NC - 1)) == 0) {
#pragma unroll
        for (int off = NC / 2; off > 0; off >>= 1) {
            const R o = __shfl_xor_sync(tl.mask, v, off, NC);
            v = o > v ? o : v;
        }
    } else {
#pragma unroll
        for (int off = 1; off < NC; off <<= 1) {
            const int src = lane + off < NC ? lane + off : lane + off - NC;
            const R o = __shfl_sync(tl.mask, v, tl.base + src);
            v = o > v ? o : v;
        }
    }
    return v;
}

/// Zeroes the positions of the sums' rows that no lane writes (see WarpSums); before the first
/// step, ordered before the first reads by that step's __syncwarp.
template <int NC, class T>
__device__ __forceinline__ void zero_sums_padding(T* c_rows, core::real_of_t<T>* n_rows, const WarpSums& ws, int lane) {
    using R = core::real_of_t<T>;
    constexpr int P = NC / 2;
    const int cpad = ws.ph - P, npad = ws.nn - NC;
    if (cpad > 0)
        for (int i = lane; i < P * 2 * cpad; i += NC) {
            const int row = i / (2 * cpad), j = i % (2 * cpad), h = j / cpad;
            c_rows[std::size_t(row) * ws.c_stride + h * ws.ph + P + j % cpad] = T(R(0));
        }
    if (npad > 0)
        for (int i = lane; i < NC * npad; i += NC)
            n_rows[std::size_t(i / npad) * ws.n_stride + NC + i % npad] = R(0);
}

/// Exact sums of the step J positions after the last register move: on return lanes k and
/// k + P (k = lane mod P) hold c of pair k and, when `norms` (uniform over the team), the
/// squared norms a, b of its two columns, bitwise equal in both lanes (a and b are left as
/// they are otherwise). The rows may be written again only after the team's next __syncwarp.
template <int NC, int RPL, int J, class T>
__device__ __forceinline__ void team_pair_sums(const T (&W)[RPL][NC], T* c_rows, core::real_of_t<T>* n_rows,
                                               const WarpSums& ws, int lane, const TeamLanes& tl, bool norms, T& c,
                                               core::real_of_t<T>& a, core::real_of_t<T>& b) {
    using R = core::real_of_t<T>;
    constexpr int P = NC / 2;
#pragma unroll
    for (int k = 0; k < P; ++k) {
        T cc = T(R(0));
#pragma unroll
        for (int e = 0; e < RPL; ++e) cc = core::fma_conj(W[e][slot<NC>(k, J)], W[e][slot<NC>(NC - 1 - k, J)], cc);
        c_rows[std::size_t(k) * ws.c_stride + (lane < P ? lane : lane - P + ws.ph)] = cc;
    }
    if (norms) {
#pragma unroll
        for (int q = 0; q < NC; ++q) {
            R nn = 0;
#pragma unroll
            for (int e = 0; e < RPL; ++e) nn += core::abs2(W[e][slot<NC>(q, J)]);
            n_rows[std::size_t(q) * ws.n_stride + lane] = nn;
        }
    }
    __syncwarp(tl.mask);
    constexpr int PH = round_up_to(P, int(16 / sizeof(T)));
    constexpr int NN = round_up_to(NC, int(16 / sizeof(R)));
    const int k = lane % P, h = lane / P;
    c = sum_row<T, PH>(c_rows + std::size_t(k) * ws.c_stride + h * PH);
    R own = 0;
    if (norms) own = sum_row<R, NN>(n_rows + std::size_t(h ? NC - 1 - k : k) * ws.n_stride);
    c = add(c, pair_partner<NC>(c, lane, tl));
    if (norms) {
        const R other = pair_partner<NC>(own, lane, tl);
        a = h ? other : own;
        b = h ? own : other;
    }
}

/// What the steps of one team share: its shared memory, lane, limits, the squared norms of its
/// pair, and the progress counters the steps update.
template <class T, class Rec = WarpRotation<T>> struct WarpTeam {
    using R = core::real_of_t<T>;
    T* c_rows;
    R* n_rows;
    WarpSums ws;
    Rec* rot;              ///< rotations of two consecutive steps
    core::Tolerance<R> tol;
    long long max_steps;
    int lane;
    TeamLanes tl;
    bool need_v;
    R a = 0, b = 0;        ///< squared norms of the next step's pair lane mod P (tracked)
    int exact_in = 0;      ///< steps until the squared norms are summed again (0: the next)
    long long steps = 0;   ///< steps done
    int quiet = 0;         ///< consecutive steps without a rotation
    bool converged = false;
    int n_cols = 0;        ///< hyperbolic form: N, the columns with j = +1 (the first npos),
    int npos = 0;          ///< and the status (info_no_hyperbolic_rotation stops the sweeps)
    int status = 0;
};

/// Step J after the last register move of one team: sums, rotations, application. Returns
/// true when the sweeps are over (converged, or max_steps reached).
///
/// With warp_tracks_norms only c = x^H y is summed at every step; the squared norms are tracked
/// (W-cycle paper eq. 6, core::rotate_norms: a - t|c|, b + t|c|) and summed exactly at the first
/// step, once every NC - 1 steps (so that the rounding of the updates cannot build up over more
/// than a sweep), and at the step after any pair's tracked norm lost accuracy (fell below an
/// eighth: the rounding of a - t|c| relative to the result grows as it cancels). This is the one-
/// dot-product-per-rotation scheme of the paper; the exact steps cost what every step cost before.
/// The tracked norms follow their columns from pair to pair by two shuffles: slot q of a step is
/// slot q - 1 of the next (core::round_robin_slot), so pair k's first column comes from pair k +
/// 1's first (pair P - 1's second for the last pair) and its second from pair k - 1's second (pair
/// 1's first for pair 0); slot 0 stays.
///
/// In the hyperbolic form (Hyp) the pair's columns are known from the step count (slot q of
/// step s holds core::round_robin_slot(NC, s, q)), so a pair of one column with j = +1 and one
/// with j = -1 (the first npos columns and the others) takes the hyperbolic rotation; every
/// record is then a ScaledPairUpdate.
template <int NC, int RPL, int J, bool Hyp, class T>
__device__ __forceinline__ bool warp_step(T (&W)[RPL][NC], T (&V)[NC], WarpTeam<T, WarpRecord<T, Hyp>>& t) {
    using R = core::real_of_t<T>;
    const int lane = t.lane;
    const unsigned mask = t.tl.mask;
    constexpr int P = NC / 2;
    constexpr bool track = warp_tracks_norms<T, NC>();
    T c;
    R na = t.a, nb = t.b;
    team_pair_sums<NC, RPL, J>(W, t.c_rows, t.n_rows, t.ws, lane, t.tl, !track || t.exact_in == 0, c, na, nb);
    // (gram_rotation computes the rotation before the test's outcome, on stand-ins for a pair
    // with a zero column or an exact zero dot product, as padding columns when N < NC: the
    // FP64 slow paths of 0 / 0 and sqrt(0) cost 20% at 10 x 10 and 18 x 18.)
    using Rec = WarpRecord<T, Hyp>;
    Rec mine;
    bool turn, reliable, undefined = false;
    R rna, rnb;  // the pair's new squared norms (na, nb when it does not turn)
    if constexpr (Hyp) {
        const int kk = lane % P, s = int(t.steps % (NC - 1));
        const int ci = core::round_robin_slot(NC, s, kk), cj = core::round_robin_slot(NC, s, NC - 1 - kk);
        const bool mixed = ci < t.n_cols && cj < t.n_cols && ((ci < t.npos) != (cj < t.npos));
        const SignedRotation<T> rot = signed_rotation<T>(na, nb, c, mixed, t.tol);
        mine = rot.up;
        turn = rot.on;
        reliable = rot.reliable;
        undefined = rot.undefined;
        rna = rot.na;
        rnb = rot.nb;
    } else {
        const GramRotation<T> rot = gram_rotation<T>(na, nb, c, t.tol);
        turn = rot.on;
        // (A pair that does not turn has tw = 0, cs = 1: its applied form is the identity.)
        mine = applied_rotation(rot.tw, rot.cs);
        reliable = rot.reliable;
        rna = rot.na;
        rnb = rot.nb;
    }
    // Buffer by the parity of the step: the one written now was last read two steps ago,
    // before the last __syncwarp.
    Rec* buf = t.rot + (t.steps & 1) * P;
    if (lane < P) buf[lane] = mine;
    const bool any = __any_sync(mask, turn);
    __syncwarp(mask);
    if (any) {  // uniform over the team; the pairs that do not turn apply the identity
#pragma unroll
        for (int k = 0; k < P; ++k) {
            const Rec rk = buf[k];
            if constexpr (Hyp) {
#pragma unroll
                for (int e = 0; e < RPL; ++e)
                    apply_signed(W[e][slot<NC>(k, J)], W[e][slot<NC>(NC - 1 - k, J)], rk);
                if (t.need_v) apply_signed(V[slot<NC>(k, J)], V[slot<NC>(NC - 1 - k, J)], rk);
            } else {
#pragma unroll
                for (int e = 0; e < RPL; ++e)
                    apply_rotation(W[e][slot<NC>(k, J)], W[e][slot<NC>(NC - 1 - k, J)], rk.a, rk.b);
                if (t.need_v) apply_rotation(V[slot<NC>(k, J)], V[slot<NC>(NC - 1 - k, J)], rk.a, rk.b);
            }
        }
    }
    if constexpr (track) {
        // The norms of the next step's pair (rot.na, rot.nb are na, nb when it did not turn).
        const bool lost = __any_sync(mask, !reliable);
        const int k = lane % P;
        R first_next, second_prev;  // pair k + 1's first, pair k - 1's second
        if constexpr ((NC & (NC - 1)) == 0) {
            first_next = __shfl_down_sync(mask, rna, 1, P);
            second_prev = __shfl_up_sync(mask, rnb, 1, P);
        } else {  // the same within each half of the team (lanes h P .. h P + P - 1)
            const int h0 = lane - k;
            first_next = team_shfl(rna, h0 + (k + 1 < P ? k + 1 : k), t.tl);
            second_prev = team_shfl(rnb, h0 + (k > 0 ? k - 1 : k), t.tl);
        }
        t.a = k == 0 ? rna : k == P - 1 ? rnb : first_next;
        t.b = k == 0 ? first_next : second_prev;
        t.exact_in = lost ? 0 : t.exact_in == 0 ? warp_exact_every<NC>() - 1 : t.exact_in - 1;
    }
    ++t.steps;
    t.quiet = any ? 0 : t.quiet + 1;
    t.converged = t.quiet >= NC - 1;
    if constexpr (Hyp) {
        if (__any_sync(mask, undefined)) {
            t.status = info_no_hyperbolic_rotation;
            return true;
        }
    }
    return t.converged || t.steps >= t.max_steps;
}

/// Steps J .. U - 1 after the last register move; true when the sweeps are over.
template <int NC, int RPL, int J, int U, bool Hyp, class T>
__device__ __forceinline__ bool warp_steps(T (&W)[RPL][NC], T (&V)[NC], WarpTeam<T, WarpRecord<T, Hyp>>& t) {
    if (warp_step<NC, RPL, J, Hyp>(W, V, t)) return true;
    if constexpr (J + 1 < U) return warp_steps<NC, RPL, J + 1, U, Hyp>(W, V, t);
    return false;
}

}  // namespace detail

/// One team of NC lanes per matrix, RPL rows of W per lane (M <= NC RPL, N <= NC). Hyp: the
/// hyperbolic SVD (one-sided J-orthogonal Jacobi; docs/hyperbolic.md): W = G (m >= n) with its
/// columns reordered so that J is partitioned (the columns with j = +1 first, each sign in its
/// input order), the hyperbolic rotation for pairs of opposite signs, and hsvd_finalize.
template <class T, int NC, int RPL, bool Hyp = false>
__device__ __forceinline__ void warp_jacobi_solve(const JacobiParams<T>& p) {
    using R = core::real_of_t<T>;
    constexpr int P = NC / 2;
    constexpr int U = warp_unroll<T>();
    constexpr int TPW = warp_teams_per_warp<NC>();
    static_assert(NC % 2 == 0 && NC >= 6 && NC <= 32);
    static_assert(U >= 1 && U < NC - 1);
    extern __shared__ __align__(16) unsigned char smem_raw[];

    const int warp_lane = int(threadIdx.x & 31), team_in_warp = warp_lane / NC;
    if (team_in_warp >= TPW) return;  // the lanes past the warp's last team
    const int team = int(threadIdx.x >> 5) * TPW + team_in_warp;
    const int lane = warp_lane - team_in_warp * NC;
    const index_t b = index_t(blockIdx.x) * warp_teams_per_block<NC>() + team;
    if (b >= p.batch) return;  // whole teams only
    const unsigned mask = NC == 32 ? 0xffffffffu : ((1u << NC) - 1u) << (team_in_warp * NC);
    const detail::TeamLanes tl{team_in_warp * NC, mask};
    const int M = p.M, N = p.N;
    const TeamLayout& L = p.layout;
    const WarpSums ws = warp_sums_layout(NC, sizeof(T), sizeof(R));
    const std::size_t rot_off = warp_rotations_offset(L, NC, sizeof(T), sizeof(R));
    using Rec = WarpRecord<T, Hyp>;
    unsigned char* base = smem_raw + std::size_t(team) * warp_team_bytes(L, NC, sizeof(T), sizeof(R), sizeof(Rec));
    Rec* rot = reinterpret_cast<Rec*>(base + rot_off);
    T* c_rows = reinterpret_cast<T*>(base);
    R* n_rows = reinterpret_cast<R*>(base + ws.off_n);

    // ---- hyperbolic form: working column q is the caller's column `source` ------------------
    // (lane q's): the npos columns with j = +1, then those with j = -1, each in input order.
    int source = lane, npos = N;
    if constexpr (Hyp) {
        const bool neg = lane < N && p.jsig[b * p.jsig_stride + lane] < 0;
        const unsigned all = N >= 32 ? 0xffffffffu : (1u << N) - 1u;
        const unsigned neg_bits = (__ballot_sync(mask, neg) >> tl.base) & all;
        const unsigned pos_bits = all & ~neg_bits;
        npos = __popc(pos_bits);
        unsigned bits = lane < npos ? pos_bits : neg_bits;
        const int nth = lane < npos ? lane : lane - npos;
        if (lane < N) {
            for (int i = 0; i < nth; ++i) bits &= bits - 1;  // drop the nth lowest set bits
            source = __ffs(int(bits)) - 1;
        }
    }
    int src_col[NC];
#pragma unroll
    for (int c = 0; c < NC; ++c) src_col[c] = Hyp ? __shfl_sync(mask, source, tl.base + c) : c;

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
                x = p.transpose ? core::conj_of(a[c + index_t(r) * p.lda]) : a[r + index_t(src_col[c]) * p.lda];
                bad = bad || !core::is_finite(x);
                const R ax = core::abs_of(x);
                amax = ax > amax ? ax : amax;
            }
            W[e][c] = x;
        }
    bad = __any_sync(mask, bad);
    if (bad) {
        write_nonfinite(p, b, lane, NC);
        if constexpr (Hyp) {
            if (p.jout && lane < N) p.jout[b * p.jout_stride + lane] = lane < npos ? 1 : -1;
        }
        return;
    }
    amax = detail::team_max<NC>(amax, lane, tl);
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
    // 10000 x 32 x 32 float64, 4.98 against 4.56 ms in complex64 (H100, 2026-11-24).
    T V[NC];
#pragma unroll
    for (int c = 0; c < NC; ++c) V[c] = T(R(lane == c && c < N ? 1 : 0));
    const core::Tolerance<R> tol{p.tol, core::negligible_norm(scalbn(amax, scale_e))};

    // ---- steps: U at a time between register moves ---------------------------------------
    // `moved`: register moves so far (mod NC - 1); position q then holds column
    // slot(q, moved) (the round robin's slot q of step `moved`, its step 0 being the start).
    detail::WarpTeam<T, Rec> t{c_rows, n_rows, ws, rot, tol, (long long)p.max_sweeps * (NC - 1), lane, tl, need_v};
    t.n_cols = N;
    t.npos = npos;
    detail::zero_sums_padding<NC>(c_rows, n_rows, ws, lane);
    int moved = 0;
    const int k = lane % P;
    const bool publisher = lane < P;
    for (;;) {
        if (detail::warp_steps<NC, RPL, 0, U, Hyp>(W, V, t)) break;
        // Move the registers U positions along the cycle 1 .. NC - 1: position q takes the
        // column of position slot(q, U).
#pragma unroll
        for (int e = 0; e < RPL; ++e) {
            T old[NC];
#pragma unroll
            for (int q = 0; q < NC; ++q) old[q] = W[e][q];
#pragma unroll
            for (int q = 1; q < NC; ++q) W[e][q] = old[detail::slot<NC>(q, U)];
        }
        if (need_v) {
            T old[NC];
#pragma unroll
            for (int q = 0; q < NC; ++q) old[q] = V[q];
#pragma unroll
            for (int q = 1; q < NC; ++q) V[q] = old[detail::slot<NC>(q, U)];
        }
        moved = (moved + U) % (NC - 1);
    }
    const int sweeps = int((t.steps + NC - 2) / (NC - 1));

    // ---- finalisation through shared memory (finalize.cuh) -------------------------------
    // Squared column norms first (through the sums' rows, which the layout below reuses):
    // lanes k and k + P hold those of positions k and NC - 1 - k.
    R own_norm;
    int own_col;
    {
        T c;
        R na = 0, nb = 0;
        detail::team_pair_sums<NC, RPL, 0>(W, c_rows, n_rows, ws, lane, tl, true, c, na, nb);
        const int q = publisher ? k : NC - 1 - k;
        own_col = detail::slot<NC>(q, moved);
        own_norm = publisher ? na : nb;
        __syncwarp(mask);  // the rows are read: the layout below may overwrite them
    }
    T* Ws = reinterpret_cast<T*>(base + L.off_w);
    T* Vs = reinterpret_cast<T*>(base + L.off_v);
    R* norms = reinterpret_cast<R*>(base + L.off_norm);
    T* scratch = reinterpret_cast<T*>(base + L.off_scratch);
    int* rank = reinterpret_cast<int*>(base + L.off_int);
    int* done = rank + N;
    int* flags = done + N;
    const int ldw = L.ldw, ldv = L.ldv;
#pragma unroll
    for (int q = 0; q < NC; ++q) {
        const int col = detail::slot<NC>(q, moved);
        if (col < N) {
#pragma unroll
            for (int e = 0; e < RPL; ++e)
                if (lane + NC * e < M) Ws[lane + NC * e + col * ldw] = W[e][q];
            if (need_v && lane < N) Vs[lane + col * ldv] = V[q];
        }
    }
    for (int i = lane; i < 8; i += NC) flags[i] = 0;
    if (own_col < N) norms[own_col] = own_norm;
    detail::TeamSync sync{mask, true};
    sync();
    if constexpr (Hyp) {
        (void)scratch;
        if (lane < N) done[lane] = source;  // hsvd_finalize's source[]
        sync();
        hsvd_finalize(p, b, Ws, ldw, Vs, ldv, norms, norms, rank, done, npos, tol.negligible, scale_e, t.status,
                      t.converged ? 0 : sweeps, sweeps, lane, NC, sync);
    } else {
        finalize_and_write<int>(p, b, Ws, std::size_t(ldw), Vs, std::size_t(ldv), norms, rank, done, scratch, flags,
                                tol.negligible, scale_e, t.converged ? 0 : sweeps, sweeps, lane, NC, sync);
    }
}

/// The kernel: warp_min_blocks picks the variant with the register cap.
template <class T, int NC, int RPL, bool Hyp = false>
__global__ void __launch_bounds__(kWarpBlockThreads) warp_jacobi_kernel(const JacobiParams<T> p) {
    warp_jacobi_solve<T, NC, RPL, Hyp>(p);
}
template <class T, int NC, int RPL, bool Hyp = false>
__global__ void __launch_bounds__(kWarpBlockThreads, warp_min_blocks<T, NC, RPL>())
    warp_jacobi_kernel_capped(const JacobiParams<T> p) {
    warp_jacobi_solve<T, NC, RPL, Hyp>(p);
}

}  // namespace batchsvd::cuda
