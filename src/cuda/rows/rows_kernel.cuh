// SPDX-License-Identifier: BSD-3-Clause
// Register-resident one-sided Jacobi past what the warp kernel holds (33 to 48 columns, and
// shapes of fewer columns with too many rows for a warp team): one block per matrix, one row
// of W or of V_W a thread, in registers.
//
// The warp kernel (warp/warp_kernel.cuh) keeps a row of W and a row of V_W in every lane of a
// team inside one warp. Past 32 columns a lane cannot hold both (a float64 row of 64 columns
// is 128 registers), so here the rows of the stacked matrix [W; V_W] ((M + N) x NC) are dealt
// one a thread to a block of L = 32 ceil((M + N) / 32) threads: thread l holds row l, a row of
// W for l < M, row l - M of V_W after that, nothing past M + N. A round-robin step is the warp
// kernel's step over the block:
//   1. the threads of W rows write their row's share of c = x^H y of every pair (and, at the
//      steps that sum them, of |x|^2 of every column) to shared memory; block barrier;
//   2. a group of G threads a pair (G a power of two, G P <= L, inside one warp) sums pair k's
//      row 16 bytes at a time and completes it by an xor butterfly, so that the G threads hold
//      bitwise equal sums and compute the same rotation (core/rotation.hpp, the same formulas
//      and test as every other path); the group's first thread publishes it with the pair's
//      new squared norms; a block barrier that also votes whether any pair turned;
//   3. every thread applies the step's rotations to its row, W and V_W alike.
// The squared norms are tracked between exact sums as in the warp kernel's 32-lane teams (the
// W-cycle paper's eq. 6): summed at the first step, every NC - 1 steps, and at the step after
// any pair's tracked norm lost accuracy; they move to the next step's pairs through shared
// memory (the warp kernel moves them by shuffles inside its team). The pairs' register
// positions are compile-time constants for U steps (warp_unroll), then the registers move, and
// convergence is NC - 1 consecutive steps without a rotation, as in the warp kernel.
//
// The kernel holds up to 64 columns and 256 rows; rows_plan (rows_path.cu) gives it what it
// measured faster at (33 to 48 columns in blocks of up to three warps, some of four, and what
// the warp kernel cannot hold up to 32 columns), and instances exist from 8 columns (real
// types 18) to 48. Its cost per matrix and step is the three or four warps' instructions, where the
// warp kernel spends one warp's: docs/paths/rows.md has the measurements.
//
// When the sweeps end, W and V_W go to shared memory (over the sums' rows) and the fused
// kernel's finalisation (finalize.cuh) writes S, U, V.
#pragma once

#include <type_traits>

#include "cuda/common/finalize.cuh"
#include "cuda/common/kernel_common.cuh"
#include "cuda/common/pair_rotation.cuh"
#include "cuda/warp/warp_kernel.cuh"  // slot, warp_unroll, WarpRotation: the warp kernel's step pieces

namespace batchsvd::cuda {

/// Threads a block at most the kernel supports (rows of [W; V_W] a block holds; rows_plan
/// gives it at most 128).
inline constexpr int kRowsMaxThreads = 256;

/// Threads a pair in the sums: the largest power of two G <= 32 with G P <= L.
__host__ __device__ constexpr int rows_group(int threads, int pairs) {
    int g = 1;
    while (2 * g * pairs <= threads && 2 * g <= 32) g *= 2;
    return g;
}

/// A row stride, in 16-byte words, of at least `words` words, congruent to G mod 8 when G < 8:
/// a quarter warp's eight 16-byte reads (8 / G rows, words g = 0 .. G - 1 of each) then fall
/// in eight different groups of four banks.
__host__ __device__ constexpr int rows_stride_words(int words, int G) {
    if (G >= 8) return words;
    int s = words;
    while (s % 8 != G % 8) ++s;
    return s;
}

/// The layout and counts of one launch, computed once on the host (rows_consts) and read by the
/// kernel from its parameters, so that they take no registers (a float64 row of 64 columns
/// takes 128 of the 168 a thread gets at three blocks an SM).
///
/// Shared memory: P rows of partial dot products (mc values of T: M rounded up to whole 16-byte
/// words, the positions past M written as zero) and NC rows of partial squared norms (mn values
/// of R), by column position; the finalisation's layout (team_layout) reuses them once the
/// sweeps are over. Then the step's rotations, the pairs' new squared norms, the lost-accuracy
/// word and the load's reduction scratch.
struct RowsConsts {
    int threads, rows;              ///< L; rows of [W; V_W] held (M, plus N with V_W)
    int G, g_shift, summers;        ///< threads a pair (2^g_shift), threads that sum (G P)
    int wc, wn, mc, mn;             ///< 16-byte words and values of a c row, of a norm row
    int c_iters, n_iters;           ///< words of a row a summer reads at most (ceil(w / G))
    int c_stride, n_stride;         ///< row strides, in elements of T and of R
    int off_n, off_rot, off_next, off_lost, off_red, bytes;  ///< byte offsets, total bytes
};
__host__ __device__ inline RowsConsts rows_consts(int nc, int M, int N, bool need_v, std::size_t tsize,
                                                  std::size_t rsize, std::size_t rot_size, const TeamLayout& lay) {
    RowsConsts r;
    r.rows = M + (need_v ? N : 0);
    r.threads = (r.rows + 31) / 32 * 32;
    r.G = rows_group(r.threads, nc / 2);
    r.g_shift = 0;
    while ((1 << r.g_shift) < r.G) ++r.g_shift;
    r.summers = r.G * (nc / 2);
    r.wc = int((std::size_t(M) * tsize + 15) / 16);
    r.wn = int((std::size_t(M) * rsize + 15) / 16);
    r.mc = int(std::size_t(r.wc) * 16 / tsize);
    r.mn = int(std::size_t(r.wn) * 16 / rsize);
    r.c_iters = (r.wc + r.G - 1) / r.G;
    r.n_iters = (r.wn + r.G - 1) / r.G;
    r.c_stride = int(std::size_t(rows_stride_words(r.wc, r.G)) * 16 / tsize);
    r.n_stride = int(std::size_t(rows_stride_words(r.wn, r.G)) * 16 / rsize);
    r.off_n = int(align16(std::size_t(nc / 2) * std::size_t(r.c_stride) * tsize));
    const std::size_t sums = align16(std::size_t(r.off_n) + std::size_t(nc) * std::size_t(r.n_stride) * rsize);
    r.off_rot = int(align16(lay.bytes > sums ? lay.bytes : sums));
    r.off_next = int(align16(std::size_t(r.off_rot) + std::size_t(nc / 2) * rot_size));
    r.off_lost = int(align16(std::size_t(r.off_next) + std::size_t(nc) * rsize));
    r.off_red = r.off_lost + 16;
    r.bytes = int(align16(std::size_t(r.off_red) + std::size_t(kRowsMaxThreads / 32) * rsize));
    return r;
}

namespace detail {

/// Sum of the 16-byte words first, first + step, ..., first + (iters - 1) step of `row` (16-byte
/// aligned) that are below `words`, one accumulator per position in a word. (The trip count is
/// given: a loop to `words` by a run-time step costs an integer division a call.)
template <class T>
__device__ __forceinline__ T sum_words(const T* row, int first, int step, int iters, int words) {
    using R = core::real_of_t<T>;
    constexpr int VR = 16 / int(sizeof(R));
    using Vec = std::conditional_t<sizeof(R) == 8, double2, float4>;
    const Vec* v = reinterpret_cast<const Vec*>(row);
    R acc[VR];
#pragma unroll
    for (int j = 0; j < VR; ++j) acc[j] = R(0);
    for (int i = 0, w = first; i < iters; ++i, w += step) {
        if (w < words) {
            const Vec x = v[w];
            const R* e = reinterpret_cast<const R*>(&x);
#pragma unroll
            for (int j = 0; j < VR; ++j) acc[j] += e[j];
        }
    }
    if constexpr (core::is_complex_v<T>) {  // positions alternate real and imaginary parts
        R re = acc[0], im = acc[1];
#pragma unroll
        for (int j = 2; j < VR; j += 2) {
            re += acc[j];
            im += acc[j + 1];
        }
        return T(re, im);
    } else {
        R s = acc[0];
#pragma unroll
        for (int j = 1; j < VR; ++j) s += acc[j];
        return s;
    }
}

/// Sum over the G lanes of a group (G a power of two up to 32, uniform over the warp) by an
/// xor butterfly, its rounds unrolled: every lane ends with the bitwise same value.
template <class T> __device__ __forceinline__ T rows_group_sum(T v, int G) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        if (off < G) v = add(v, shfl_xor(v, off, 0xffffffffu, 32));
    return v;
}

/// Each thread's part in the steps (what the block shares is in RowsConsts and JacobiParams).
template <class R> struct RowsState {
    R negligible;        ///< Tolerance::negligible
    R a = 0, b = 0;      ///< squared norms of pair l >> g_shift at the next step (tracked)
    int exact_in = 0;    ///< steps until the squared norms are summed again (0: the next)
    int steps = 0;       ///< steps done
    int quiet = 0;       ///< consecutive steps without a rotation
    bool converged = false;
};

/// Step J after the last register move: sums, rotations, application. Returns true when the
/// sweeps are over (converged, or max_steps reached), the same for every thread of the block.
template <int NC, int J, class T>
__device__ __forceinline__ bool rows_step(T (&X)[NC], RowsState<core::real_of_t<T>>& t, const JacobiParams<T>& p,
                                          const RowsConsts& rc, unsigned char* smem) {
    using R = core::real_of_t<T>;
    constexpr int P = NC / 2;
    const int l = int(threadIdx.x);
    const bool exact = t.exact_in == 0;
    T* c_rows = reinterpret_cast<T*>(smem);
    R* n_rows = reinterpret_cast<R*>(smem + rc.off_n);
    WarpRotation<T>* rot = reinterpret_cast<WarpRotation<T>*>(smem + rc.off_rot);
    R* next = reinterpret_cast<R*>(smem + rc.off_next);
    int* lost = reinterpret_cast<int*>(smem + rc.off_lost);
    // 1. this row's shares (the rows' positions past M, up to their 16-byte padding, are
    // zero from the start). One pointer stepped by the stride: P addresses kept from step to
    // step would take registers.
    if (l < p.M) {
        T* cp = c_rows + l;
#pragma unroll
        for (int k = 0; k < P; ++k) {
            *cp = core::fma_conj(X[slot<NC>(k, J)], X[slot<NC>(NC - 1 - k, J)], T(R(0)));
            cp += rc.c_stride;
        }
        if (exact) {
            R* np = n_rows + l;
#pragma unroll
            for (int q = 0; q < NC; ++q) {
                *np = core::abs2(X[slot<NC>(q, J)]);
                np += rc.n_stride;
            }
        }
    }
    __syncthreads();
    // 2. sums and rotations, a group of G threads a pair (every thread of a warp that holds
    // summers takes part in the butterflies; the others sum nothing)
    bool turn = false;
    if ((l & ~31) < rc.summers) {
        const bool summer = l < rc.summers;
        const int k = summer ? l >> rc.g_shift : 0, g = l & (rc.G - 1);
        T c = sum_words(c_rows + k * rc.c_stride, g, rc.G, rc.c_iters, summer ? rc.wc : 0);
        c = rows_group_sum(c, rc.G);
        R na = t.a, nb = t.b;
        if (exact) {
            na = sum_words(n_rows + k * rc.n_stride, g, rc.G, rc.n_iters, summer ? rc.wn : 0);
            nb = sum_words(n_rows + (NC - 1 - k) * rc.n_stride, g, rc.G, rc.n_iters, summer ? rc.wn : 0);
            na = rows_group_sum(na, rc.G);
            nb = rows_group_sum(nb, rc.G);
        }
        const GramRotation<T> r = gram_rotation<T>(na, nb, c, core::Tolerance<R>{p.tol, t.negligible});
        turn = summer && r.on;
        if (summer && g == 0) {
            rot[k] = applied_rotation(r.tw, r.cs);
            next[2 * k] = r.na;
            next[2 * k + 1] = r.nb;
            if (!r.reliable) *lost = t.steps + 1;
        }
    }
    const bool any = __syncthreads_or(turn) != 0;
    // 3. the rotations, to every row (a pair that does not turn applies the identity, exactly).
    // Unconditionally: skipping a quiet step's application (as the warp kernel does) joins two
    // versions of the row, and the compiler moved the whole row between registers at every step
    // to join them (H100, 2026-11-28: a third of the instructions at 33 columns).
#pragma unroll
    for (int k = 0; k < P; ++k) {
        const WarpRotation<T> rk = rot[k];
        apply_rotation(X[slot<NC>(k, J)], X[slot<NC>(NC - 1 - k, J)], rk.a, rk.b);
    }
    // The next step's pair k: its first column was pair k + 1's first (pair P - 1's second
    // for the last pair), its second pair k - 1's second (pair 1's first for pair 0).
    if (l < rc.summers) {
        const int k = l >> rc.g_shift;
        t.a = k == 0 ? next[0] : k == P - 1 ? next[2 * k + 1] : next[2 * (k + 1)];
        t.b = k == 0 ? next[2] : next[2 * (k - 1) + 1];
    }
    const bool lost_now = *lost == t.steps + 1;
    t.exact_in = lost_now ? 0 : t.exact_in == 0 ? NC - 2 : t.exact_in - 1;
    ++t.steps;
    t.quiet = any ? 0 : t.quiet + 1;
    t.converged = t.quiet >= NC - 1;
    return t.converged || t.steps >= p.max_sweeps * (NC - 1);
}

/// Steps J .. U - 1 after the last register move; true when the sweeps are over.
template <int NC, int J, int U, class T>
__device__ __forceinline__ bool rows_steps(T (&X)[NC], RowsState<core::real_of_t<T>>& t, const JacobiParams<T>& p,
                                           const RowsConsts& rc, unsigned char* smem) {
    if (rows_step<NC, J>(X, t, p, rc, smem)) return true;
    if constexpr (J + 1 < U) return rows_steps<NC, J + 1, U>(X, t, p, rc, smem);
    return false;
}

}  // namespace detail

/// One block of rc.threads threads a matrix, thread l holding row l of [W; V_W], N <= NC.
template <class T, int NC>
__device__ __forceinline__ void rows_jacobi_solve(const JacobiParams<T>& p, const RowsConsts& rc) {
    using R = core::real_of_t<T>;
    constexpr int U = warp_unroll<T>();
    static_assert(NC % 2 == 0 && NC >= 8 && NC <= 64);
    static_assert(U >= 1 && U < NC - 1);
    extern __shared__ __align__(16) unsigned char smem_raw[];

    const int l = int(threadIdx.x), L = rc.threads;
    const index_t b = index_t(blockIdx.x);
    const int M = p.M, N = p.N;
    R* red = reinterpret_cast<R*>(smem_raw + rc.off_red);

    // ---- load: row l of [W; V_W], W = A or A^H, V_W = I ---------------------------------------
    T X[NC];
    const T* a = p.a + b * p.stride_a;
    R amax = 0;
    bool bad = false;
    const bool is_w = l < M;
#pragma unroll
    for (int c = 0; c < NC; ++c) {
        T x = T(R(0));
        if (is_w && c < N) {
            x = p.transpose ? core::conj_of(a[c + index_t(l) * p.lda]) : a[l + index_t(c) * p.lda];
            bad = bad || !core::is_finite(x);
            const R ax = core::abs_of(x);
            amax = ax > amax ? ax : amax;
        } else if (!is_w && l < rc.rows && c == l - M) {
            x = T(R(1));
        }
        X[c] = x;
    }
    if (__syncthreads_or(bad)) {
        write_nonfinite(p, b, l, L);
        return;
    }
    amax = detail::warp_max(amax);
    if ((l & 31) == 0) red[l >> 5] = amax;
    if (l == 0) *reinterpret_cast<int*>(smem_raw + rc.off_lost) = 0;
    // the sums' padding positions (rows past M), which the steps never write
    if (l >= M && l < rc.mc)
        for (int k = 0; k < NC / 2; ++k) reinterpret_cast<T*>(smem_raw)[k * rc.c_stride + l] = T(R(0));
    if (l >= M && l < rc.mn)
        for (int q = 0; q < NC; ++q) reinterpret_cast<R*>(smem_raw + rc.off_n)[q * rc.n_stride + l] = R(0);
    __syncthreads();
    amax = 0;
    for (int i = 0; i < L / 32; ++i) amax = red[i] > amax ? red[i] : amax;
    const int scale_e = detail::scale_exponent(amax);
    if (scale_e != 0 && is_w) {
#pragma unroll
        for (int c = 0; c < NC; ++c) X[c] = detail::scale_pow2(X[c], scale_e);
    }

    // ---- steps: U at a time between register moves -------------------------------------------
    detail::RowsState<R> t{core::negligible_norm(scalbn(amax, scale_e))};
    int moved = 0;  // register moves so far (mod NC - 1): position q holds column slot(q, moved)
    for (;;) {
        if (detail::rows_steps<NC, 0, U>(X, t, p, rc, smem_raw)) break;
        T old[NC];
#pragma unroll
        for (int q = 0; q < NC; ++q) old[q] = X[q];
#pragma unroll
        for (int q = 1; q < NC; ++q) X[q] = old[detail::slot<NC>(q, U)];
        moved = (moved + U) % (NC - 1);
    }
    const int sweeps = (t.steps + NC - 2) / (NC - 1);

    // ---- finalisation through shared memory (finalize.cuh) -----------------------------------
    // Exact squared norms of every position (thread q < NC sums row q), through the sums' rows,
    // which the layout below then reuses.
    R* n_rows = reinterpret_cast<R*>(smem_raw + rc.off_n);
    if (l < rc.mn) {
#pragma unroll
        for (int q = 0; q < NC; ++q) n_rows[q * rc.n_stride + l] = is_w ? core::abs2(X[q]) : R(0);
    }
    __syncthreads();
    R own_norm = 0;
    int own_col = N;
    if (l < NC) {
        own_norm = detail::sum_words(n_rows + l * rc.n_stride, 0, 1, rc.wn, rc.wn);
        own_col = detail::slot<NC>(l, moved);
    }
    __syncthreads();
    const TeamLayout& lay = p.layout;
    T* Ws = reinterpret_cast<T*>(smem_raw + lay.off_w);
    T* Vs = reinterpret_cast<T*>(smem_raw + lay.off_v);
    R* norms = reinterpret_cast<R*>(smem_raw + lay.off_norm);
    T* scratch = reinterpret_cast<T*>(smem_raw + lay.off_scratch);
    int* rank = reinterpret_cast<int*>(smem_raw + lay.off_int);
    int* done = rank + N;
    int* flags = done + N;
    const int ldw = lay.ldw, ldv = lay.ldv;
#pragma unroll
    for (int q = 0; q < NC; ++q) {
        const int col = detail::slot<NC>(q, moved);
        if (col < N) {
            if (is_w) Ws[l + std::size_t(col) * ldw] = X[q];
            else if (l < rc.rows) Vs[(l - M) + std::size_t(col) * ldv] = X[q];
        }
    }
    if (l < 8) flags[l] = 0;
    if (own_col < N) norms[own_col] = own_norm;
    const detail::TeamSync sync{0xffffffffu, false};
    sync();
    finalize_and_write<int>(p, b, Ws, std::size_t(ldw), Vs, std::size_t(ldv), norms, rank, done, scratch, flags,
                            t.negligible, scale_e, t.converged ? 0 : sweeps, sweeps, l, L, sync);
}

/// Registers a thread the kernel is held to (__maxnreg__): 168 (three blocks of 128 threads an
/// SM, four of 96), and 128 for float64 rows of at most 40 columns (five blocks of 96
/// threads). H100, 2026-11-28, 10000 float64 matrices, ms, 128 / 168 / 232 registers: 33^2
/// 7.84 / 8.58 / 14.7, 40^2 10.74 / 11.18 / 18.4, 48^2 21.2 (spilled) / 15.0 / 24.5; below 168
/// the compiler takes what it needs. (Left to itself it took 230-255 at every order.)
template <class T, int NC> constexpr int rows_max_registers() {
    return std::is_same_v<T, double> && NC <= 40 ? 128 : 168;
}

/// The kernel, its registers held to REGS a thread.
template <class T, int NC, int REGS>
__global__ void __maxnreg__(REGS)
    rows_jacobi_kernel(const __grid_constant__ JacobiParams<T> p, const __grid_constant__ RowsConsts rc) {
    rows_jacobi_solve<T, NC>(p, rc);
}

}  // namespace batchsvd::cuda
