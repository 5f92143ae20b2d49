// SPDX-License-Identifier: BSD-3-Clause
// Kernels of the blocked one-sided Jacobi path, for matrices that do not fit in one block's
// shared memory (abfasi sections 5-9; W-cycle sections III and IV-C). The working matrix
// W = A (or A^H when wide, M x N, M >= N) and V_W live in a device workspace; columns are split
// into blocks of NB (the last one ragged), and a round-robin ordering runs over the blocks.
//
// One launch per round-robin step, one thread block per (matrix, block pair): it forms the Gram
// matrix G = [Xi Xj]^H [Xi Xj] of the pair (2NB x 2NB; in double precision on the FP64 tensor
// cores, blocked_dmma.cuh, else streamed over rows through shared memory), runs ONE sweep of a
// parallel two-sided Jacobi eigensolver on G in shared memory (Design-2: the rotations of each
// inner step are disjoint, so all threads apply them to 2x2 blocks of G at once), accumulates
// them into Q, and, when any rotation was needed, multiplies [Xi Xj] and [Vi Vj] by Q in place
// (Algorithm 3's fused update: each row tile read once, the product kept in registers).
// Differences from the paper: the Gram, the eigensolver and the update are one kernel (no Gram
// matrices in global memory), and a ragged or missing block is zero-padded in registers or
// shared memory only.
//
// Small batches (W-cycle section IV-C's tailoring of the Gram and update over several thread
// blocks): when the batch's pairs alone would leave SMs idle, a pair goes to a cluster of
// `split` blocks, each taking a chunk of the rows; the partial Gram matrices are summed through
// distributed shared memory and every block runs the same eigensolver (one kernel a step still,
// where the paper launches a GEMM, the eigensolver and a GEMM).
//
// Masking (Design-4): a matrix whose sweep needed no rotation is converged and its blocks
// return at once in later launches; status is per matrix. Within a sweep, a block pair whose
// Gram matrix passes the convergence test everywhere skips the eigensolver and the update.
#pragma once

#include <algorithm>
#include <type_traits>

#include <cooperative_groups.h>

#include "cuda/blocked/blocked_dmma.cuh"
#include "cuda/common/finalize.cuh"
#include "cuda/common/pair_rotation.cuh"
#include "cuda/blocked/slot_g.cuh"
#include "cuda/blocked/slot_q.cuh"
#include "cuda/common/kernel_common.cuh"

namespace batchsvd::cuda {

/// Per-matrix state of the blocked iteration (device memory, zeroed before the solve).
struct BlockedState {
    unsigned long long maxbits;  ///< max |a_ij| (detail::atomic_max_abs)
    int nonfinite;               ///< a NaN or Inf entry was seen
    int active;                  ///< still iterating
    int rotated;                 ///< some block pair rotated in the current sweep
    int sweeps;                  ///< sweeps done
    int converged;               ///< a sweep needed no rotation
};

template <class T> struct BlockedParams {
    using R = core::real_of_t<T>;
    JacobiParams<T> out;  ///< input, outputs, shapes, tolerance (the fused kernel's fields)
    T* W;                 ///< batch x (M x N), leading dimension M
    T* V;                 ///< batch x (N x N), leading dimension N; null when V_W is not needed
    BlockedState* state;  ///< batch
    R* norms;             ///< batch x (N + 1), finalisation
    int* ints;            ///< batch x (2N + 8), finalisation: rank, done, flags
    T* scratch;           ///< batch x N, finalisation
    int nb;               ///< block width (the kernel's NB)
    int nblk;             ///< number of block columns, ceil(N / nb)
    /// Blocks of a thread-block cluster that share a block pair, each over its own chunk of the
    /// rows (1: one block a pair). Set when the batch alone leaves SMs idle (blocked_path.cu).
    int split;
    /// Work the pair kernel does (bits): 1 Gram, 2 eigensolver (needs 1), 4 update (needs 2).
    /// Always 7 but for timing the parts of a sweep (blocked_phases_from_env, benchmarks).
    int phases;
    /// Counters of the sweep log (BATCHSVD_CUDA_SWEEP_LOG, blocked_path.cu), else null: [0] the
    /// (matrix, block pair) Gram matrices formed, [1] those that rotated.
    int* pair_log;
    /// Skipping pairs already known to be converged (null when off, blocked_path.cu):
    /// block_stamp, batch x nblk, the stamp of the step that last rotated each block column (-1:
    /// none). A step's stamp is stamp_base + step, with stamp_base = sweep x steps. Every pair
    /// comes once a sweep, at the same step, so its previous visit had stamp stamp_base - steps
    /// + step: when neither of its blocks has rotated since (nor at it: a rotation there would
    /// have stamped both), that visit found nothing to rotate, or was itself skipped on the
    /// same grounds, and the pair would form the same Gram matrix and reach the same verdict.
    int* block_stamp;
    int stamp_base;
    /// Null but for one matrix's columns held in pieces by several devices
    /// (multi_gpu/one_matrix_over_devices.cu): each step's block pairs (pairs a step x 2 block
    /// indices; a second index >= nblk leaves the first alone) in place of the round robin.
    const int* pair_table;
    /// Rows (and leading dimension) of each matrix's V_W: N, or the whole matrix's order for
    /// a piece of its columns.
    int v_rows;
};

inline constexpr int kBlockedAllPhases = 7;

/// Whether the pair kernel of T keeps the per-pair records (BlockedParams::pair_log, the
/// skipping's stamps). Not in float64: its 32-column kernel sits at its 128-register budget,
/// and the records' few instructions (a check before the step, stores after it) tipped it
/// from 4 to 112 bytes of spills, about 10% slower sweeps (H100, 2026-11-26, one machine:
/// 1000 x 256^2 unpreconditioned 156.9 ms on 0dd219e, before the records, against 173.8 on
/// 5ee16a4), while the skipping had saved nothing there (2026-11-25: 97.0 ms with it, 96.5
/// without).
/// The other precisions' kernels keep or lower their spills with the records.
template <class T> inline constexpr bool kBlockedPairRecords = !std::is_same_v<T, double>;

inline constexpr int kBlockedThreads = 256;

/// Register tiling of the pair kernel for a pair width W2 = 2 NB (32 or 64).
/// Update [Xi Xj] <- [Xi Xj] Q: warp w computes output columns [w KC, (w + 1) KC), lane l rows
/// l + 32 e (e < RE) of each row tile: RE x KC = 16 products per thread, each tile element
/// and Q entry loaded from shared memory once per RE (resp. KC) of them.
/// Gram [Xi Xj]^H [Xi Xj]: thread t computes the 4 x 4 entries (ti + TI a, tj + TI b) over
/// one of S row groups of the tile; the S partial sums are added at the end.
template <int W2> struct PairTiling {
    static constexpr int KC = W2 / 8;
    static constexpr int RE = 16 / KC;
    static constexpr int TR = 32 * RE;   ///< rows per tile: 128 (W2 = 32) or 64 (W2 = 64)
    static constexpr int TRP = TR + 1;   ///< leading dimension of the column-major tile
    static constexpr int TI = W2 / 4;
    static constexpr int S = kBlockedThreads / (TI * TI);
    static_assert(kBlockedThreads / 32 * KC == W2 && S >= 1 && TR % S == 0 && S * W2 <= TRP);
};

/// Whether the pair kernel's Gram and update run on the FP64 tensor cores (blocked_dmma.cuh):
/// double and complex double. float and complex float stream row tiles through shared memory
/// (PairTiling).
template <class T> constexpr bool blocked_uses_dmma() { return std::is_same_v<core::real_of_t<T>, double>; }

/// Whether the eigensolver keeps Q in registers (SlotQ) rather than in shared memory: for every
/// 64-wide pair. Measured on the H100 (2026-11-25, 1000 matrices, against Q in shared memory):
/// float64 256^2 201.6 -> 183.5 ms, complex64 256^2 295.7 -> 257.9, float32 (two rows a
/// thread, slot-order G, 3 blocks per SM) 256^2 154.1 -> 134.2 (but 50 x 512^2 94.5 -> 98.9).
/// 32-wide pairs lose (float64 128^2 31.3 -> 33.1, complex128 128^2 62.9 -> 65.6): their Q
/// costs fewer wavefronts than the register shifts and shuffles cost issue slots.
template <int W2> constexpr bool eigen_q_in_registers() { return W2 == 64; }

/// The pair kernel's shared memory for element type T and pair width W2, offsets in elements
/// of T: the row tile (scalar products only), G, Q, a second buffer of G for the eigensolver
/// (slot_g.cuh) where neither Q's array (Q in registers) nor the tile is free during the sweep,
/// then the records of two inner steps' pairs and a flag. The one place both the host (launch
/// size) and the kernel read it from.
template <class T, int W2> struct PairSmem {
    static constexpr int LDG = detail::slot_g_ld<W2>, GE = W2 * LDG;
    static constexpr bool dmma = blocked_uses_dmma<T>(), qreg = eigen_q_in_registers<W2>();
    static constexpr int tile = 0, g = dmma ? 0 : std::max(W2 * PairTiling<W2>::TRP, GE), q = g + GE;
    static constexpr int gb = qreg ? q : !dmma ? tile : q + GE;
    static constexpr std::size_t records = std::size_t(q + GE + (dmma && !qreg ? GE : 0)) * sizeof(T);
    static constexpr std::size_t any = records + detail::StepRecords<T, W2 / 2>::kBytes;
    static constexpr std::size_t bytes = any + sizeof(int);
    static_assert(records % 16 == 0, "records aligned for their vector loads");
};

/// Shared memory of the pair kernel for block width nb (16 or 32).
template <class T> constexpr std::size_t blocked_pair_smem(int nb) {
    return nb == 16 ? PairSmem<T, 32>::bytes : PairSmem<T, 64>::bytes;
}

namespace detail {

/// Power-of-two scaling exponent of the matrix whose scan left state st.
template <class R> __device__ __forceinline__ int state_scale_exponent(const BlockedState& st) {
    return scale_exponent(max_abs_from_bits<R>(st.maxbits));
}

/// The squared norm of column x (M entries) by one warp: lane-strided sums, then the warp's
/// sum (the finalisations' norms, one-block and wide alike).
template <class T> __device__ __forceinline__ core::real_of_t<T> warp_column_norm2(const T* x, int M, int lane) {
    core::real_of_t<T> acc = 0;
    for (int r = lane; r < M; r += 32) acc += core::abs2(x[r]);
    return group_sum(acc, 32, 0xffffffffu);
}

/// The iteration's thresholds for the matrix whose scan left state st.
template <class T> __device__ __forceinline__ core::Tolerance<core::real_of_t<T>> blocked_tolerance(
    const JacobiParams<T>& q, const BlockedState& st) {
    using R = core::real_of_t<T>;
    const R amax = max_abs_from_bits<R>(st.maxbits);
    return {q.tol, core::negligible_norm(scalbn(amax, scale_exponent(amax)))};
}

}  // namespace detail

/// Pass 1: finiteness and the largest |entry| of each matrix. Grid (chunks, matrices).
template <class T>
__global__ void __launch_bounds__(kBlockedThreads) blocked_scan_kernel(const BlockedParams<T> p) {
    using R = core::real_of_t<T>;
    const JacobiParams<T>& q = p.out;
    const index_t total = index_t(q.m) * q.n;
    for (index_t b = blockIdx.y; b < q.batch; b += gridDim.y) {
        const T* a = q.a + b * q.stride_a;
        R amax = 0;
        bool bad = false;
        for (index_t idx = index_t(blockIdx.x) * blockDim.x + threadIdx.x; idx < total;
             idx += index_t(gridDim.x) * blockDim.x) {
            const T x = a[idx % q.m + (idx / q.m) * q.lda];
            bad = bad || !core::is_finite(x);
            const R ax = core::abs_of(x);
            amax = ax > amax ? ax : amax;
        }
        amax = detail::warp_max(amax);
        bad = __any_sync(0xffffffffu, bad);
        if ((threadIdx.x & 31) == 0) {
            if (bad) atomicOr(&p.state[b].nonfinite, 1);
            detail::atomic_max_abs(&p.state[b].maxbits, amax);
        }
    }
}

/// Pass 2: W = A or A^H, scaled by a power of two; V_W = I; finite matrices become active. A
/// matrix with a NaN or Inf gets W = 0 (it is never solved, but the preconditioner's batched
/// products read every matrix's W, and must not read memory nothing wrote).
template <class T>
__global__ void __launch_bounds__(kBlockedThreads) blocked_load_kernel(const BlockedParams<T> p) {
    const JacobiParams<T>& q = p.out;
    const int M = q.M, N = q.N;
    const index_t total = index_t(q.m) * q.n;
    for (index_t b = blockIdx.y; b < q.batch; b += gridDim.y) {
        const BlockedState st = p.state[b];
        const bool bad = st.nonfinite != 0;
        const int scale_e = bad ? 0 : detail::state_scale_exponent<core::real_of_t<T>>(st);
        const T* a = q.a + b * q.stride_a;
        T* W = p.W + b * index_t(M) * N;
        const index_t first = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
        const index_t step = index_t(gridDim.x) * blockDim.x;
        for (index_t idx = first; idx < total; idx += step) {
            const index_t r = idx % q.m, c = idx / q.m;
            T x = bad ? T(core::real_of_t<T>(0)) : a[r + c * q.lda];
            if (scale_e != 0) x = detail::scale_pow2(x, scale_e);
            if (q.transpose) W[c + r * M] = core::conj_of(x);
            else W[r + c * M] = x;
        }
        if (p.V) {
            T* V = p.V + b * index_t(N) * N;
            for (index_t idx = first; idx < index_t(N) * N; idx += step)
                V[idx] = T(core::real_of_t<T>(idx % N == idx / N ? 1 : 0));
        }
        if (!bad && blockIdx.x == 0 && threadIdx.x == 0) p.state[b].active = 1;
    }
}

namespace detail {

/// Column of the working matrix held in local slot l of a block pair (slots [0, NB) are block
/// i, [NB, 2NB) block j), or -1 for a padding slot.
struct PairColumns {
    int c0, wi, c1, wj, nb;
    __device__ __forceinline__ int operator()(int l) const {
        return l < nb ? (l < wi ? c0 + l : -1) : (l - nb < wj ? c1 + l - nb : -1);
    }
};

/// Rows [r0, r0 + TR) of the pair's 2NB columns of X into tile (column-major, ld TR + 1),
/// zero where a row or column does not exist.
template <class T, int W2>
__device__ __forceinline__ void load_pair_tile(const T* X, index_t ldx, int rows, int r0,
                                               const PairColumns& col, T* tile) {
    constexpr int TR = PairTiling<W2>::TR, TRP = PairTiling<W2>::TRP;
    for (int idx = threadIdx.x; idx < W2 * TR; idx += kBlockedThreads) {
        const int l = idx / TR, r = idx - l * TR;
        const int c = col(l);
        tile[l * TRP + r] = (c >= 0 && r0 + r < rows) ? X[r0 + r + index_t(c) * ldx] : T(core::real_of_t<T>(0));
    }
}

/// G = [Xi Xj]^H [Xi Xj] (ld slot_g_ld; the diagonal and the upper triangle stored, all the
/// eigensolver reads), streamed over row tiles (PairTiling).
template <class T, int W2>
__device__ void pair_gram(const T* X, index_t ldx, int rows, const PairColumns& col, T* tile, T* G) {
    using Tl = PairTiling<W2>;
    constexpr int TR = Tl::TR, TRP = Tl::TRP, LDG = detail::slot_g_ld<W2>, TI = Tl::TI, S = Tl::S, RS = TR / S;
    const int t = threadIdx.x % (TI * TI), s = threadIdx.x / (TI * TI);
    const int ti = t % TI, tj = t / TI;
    T acc[4][4];
#pragma unroll
    for (int a = 0; a < 4; ++a)
#pragma unroll
        for (int b = 0; b < 4; ++b) acc[a][b] = T(core::real_of_t<T>(0));
    for (int r0 = 0; r0 < rows; r0 += TR) {
        load_pair_tile<T, W2>(X, ldx, rows, r0, col, tile);
        __syncthreads();
        const T* base = tile + s * RS;
#pragma unroll 2
        for (int r = 0; r < RS; ++r) {
            T xi[4], xj[4];
#pragma unroll
            for (int a = 0; a < 4; ++a) xi[a] = base[(ti + TI * a) * TRP + r];
#pragma unroll
            for (int b = 0; b < 4; ++b) xj[b] = base[(tj + TI * b) * TRP + r];
#pragma unroll
            for (int a = 0; a < 4; ++a)
#pragma unroll
                for (int b = 0; b < 4; ++b) acc[a][b] = core::fma_conj(xi[a], xj[b], acc[a][b]);
        }
        __syncthreads();
    }
    if constexpr (S == 1) {
#pragma unroll
        for (int a = 0; a < 4; ++a)
#pragma unroll
            for (int b = 0; b < 4; ++b)
                if (ti + TI * a <= tj + TI * b) G[(ti + TI * a) + (tj + TI * b) * LDG] = acc[a][b];
    } else {
        T* part = tile;  // the S partial sums, W2 x W2 each (the tile is free now)
#pragma unroll
        for (int a = 0; a < 4; ++a)
#pragma unroll
            for (int b = 0; b < 4; ++b) part[s * W2 * W2 + (ti + TI * a) + (tj + TI * b) * W2] = acc[a][b];
        __syncthreads();
        for (int idx = threadIdx.x; idx < W2 * W2; idx += kBlockedThreads) {
            if (idx % W2 > idx / W2) continue;  // the lower triangle: not read
            T sum = part[idx];
#pragma unroll
            for (int g = 1; g < S; ++g) sum = add(sum, part[g * W2 * W2 + idx]);
            G[idx % W2 + (idx / W2) * LDG] = sum;
        }
    }
}

/// [Xi Xj] <- [Xi Xj] Q in place, one row tile at a time (PairTiling), the products kept in
/// registers until they are written back.
template <class T, int W2>
__device__ void pair_update(T* X, index_t ldx, int rows, const PairColumns& col, T* tile, const T* Q) {
    using Tl = PairTiling<W2>;
    constexpr int TR = Tl::TR, TRP = Tl::TRP, LDG = detail::slot_g_ld<W2>, KC = Tl::KC, RE = Tl::RE;
    const int lane = threadIdx.x % 32, k0 = (threadIdx.x / 32) * KC;
    for (int r0 = 0; r0 < rows; r0 += TR) {
        load_pair_tile<T, W2>(X, ldx, rows, r0, col, tile);
        __syncthreads();
        T acc[RE][KC];
#pragma unroll
        for (int e = 0; e < RE; ++e)
#pragma unroll
            for (int c = 0; c < KC; ++c) acc[e][c] = T(core::real_of_t<T>(0));
#pragma unroll 2
        for (int l = 0; l < W2; ++l) {
            T x[RE], q[KC];
#pragma unroll
            for (int e = 0; e < RE; ++e) x[e] = tile[l * TRP + lane + 32 * e];
#pragma unroll
            for (int c = 0; c < KC; ++c) q[c] = Q[l + (k0 + c) * LDG];
#pragma unroll
            for (int e = 0; e < RE; ++e)
#pragma unroll
                for (int c = 0; c < KC; ++c) acc[e][c] = core::axpy(q[c], x[e], acc[e][c]);
        }
#pragma unroll
        for (int e = 0; e < RE; ++e) {
            const int r = r0 + lane + 32 * e;
            if (r >= rows) continue;
#pragma unroll
            for (int c = 0; c < KC; ++c) {
                const int cc = col(k0 + c);
                if (cc >= 0) X[r + index_t(cc) * ldx] = acc[e][c];
            }
        }
        __syncthreads();
    }
}

/// Whether any pair (i < j) of this thread's share of G (ld slot_g_ld) fails the convergence test
/// of the eigensolver (gram_rotation); the block's verdict is the __syncthreads_or of it.
template <class T, int W2>
__device__ __forceinline__ bool pair_needs_rotation(const T* G, const core::Tolerance<core::real_of_t<T>>& tol) {
    using R = core::real_of_t<T>;
    constexpr int LDG = detail::slot_g_ld<W2>;
    bool need = false;
    for (int idx = threadIdx.x; idx < W2 * W2; idx += kBlockedThreads) {
        const int i = idx % W2, j = idx / W2;
        if (i >= j) continue;
        const R a = core::real_part(G[i + i * LDG]), b = core::real_part(G[j + j * LDG]);
        const R absc = core::abs_of(G[i + j * LDG]);
        need = need || (gram_pair_live(a, b, absc) && core::needs_rotation(absc, a, b, tol));
    }
    return need;
}

/// One sweep of the parallel two-sided Jacobi eigensolver on the Hermitian G (W2 x W2, ld
/// slot_g_ld; its diagonal and strict upper triangle are read, the lower triangle is not), its
/// rotations accumulated into Q (written to Q, ld slot_g_ld, at the end); *any is set when one
/// rotated. G is spent on return (its array and Gb hold the steps' buffers).
/// G is kept in slot order (slot_g.cuh) in two buffers, G's array for even steps and Gb for odd
/// ones, and Q in registers in slot order where that measured faster (SlotQ), else in shared
/// memory by column. Warp-specialised, one barrier per inner round-robin step s:
/// - warp 0, lane p < W2/2: the rotation lane of pair p. It holds the pair's diagonal and entry
///   in registers; it applies step s to the one 2x2 block that holds its pair's entry at step
///   s + 1 (next_pair_block: the same block at every step, its row and column pairs' rotations
///   taken from their lanes by shuffles), takes that entry from the block and the new diagonal
///   from its neighbours' rotations (shuffles), computes step s + 1's rotation and writes its
///   record (StepRecords, double-buffered by step parity);
/// - warps 1..: every other 2x2 block of slot pairs (pi < pj), each the same block at every step;
/// - Q <- Q J_s: every warp on its rows of Q in registers, or warps 1.. in shared memory.
/// So the rotations' chain of divisions and roots runs beside the application of the previous
/// step instead of before it. Warp 0 and the others meet at the same barriers from their own
/// loops: block_barrier_unaligned, not __syncthreads. The rotations are those of the sequential
/// order (each from G with the previous steps applied), bit for bit those of the earlier schemes
/// below: a pair taken in the other orientation negates cot(2 phi) and the tangent exactly.
/// At 1000 x 256^2 float64 on the H100 (2026-11-24 to 2026-11-25) the earlier schemes took
/// 232 ms at best (the rotations computed by 32 threads while the others waited at a barrier:
/// latency-bound), this scheme 201 ms with Q and G by column in shared memory, and 167 ms with
/// Q in registers (SlotQ), G in slot order (slot_g.cuh), padded records and 2 blocks an SM
/// when the batch fills the device. docs/paths/blocked.md has the schemes tried.

template <class T, int W2>
__device__ void pair_eigen_sweep(T* G, T* Gb, T* Q, void* records, int* any,
                                 const core::Tolerance<core::real_of_t<T>>& tol) {
    using R = core::real_of_t<T>;
    constexpr int LDG = detail::slot_g_ld<W2>, NP = W2 / 2, STEPS = W2 - 1;
    static_assert(NP >= 4 && NP <= 32, "one rotation lane per pair in warp 0");
    constexpr int APPLY = kBlockedThreads - 32;                          // threads of warps 1..
    constexpr int NOTHER = NP * (NP - 1) / 2 - NP;                       // blocks they rotate
    constexpr int BPT = (NOTHER + APPLY - 1) / APPLY;                    // per thread
    constexpr int QOPS = NP * W2, QPT = (QOPS + APPLY - 1) / APPLY;      // row rotations of Q
    constexpr bool qreg = eigen_q_in_registers<W2>();
    const StepRecords<T, NP> rec = StepRecords<T, NP>::at(records);
    const int tid = threadIdx.x;
    // The buffer of step s's G and of step s + 1's.
    const auto src = [&](int s) { return s & 1 ? Gb : G; };
    const auto dst = [&](int s) { return s & 1 ? G : Gb; };
    // Q = I: in registers, every warp holding rows of it; else in shared memory (set by the
    // caller), rotated by warps 1.. only.
    [[maybe_unused]] std::conditional_t<qreg, SlotQ<T, W2, kBlockedThreads>, NoSlotQ> qr(tid);
    if (tid < 32) {
        // ---- warp 0: the rotation lanes (lanes from NP on only take part in the shuffles) ------
        const int p = tid < NP ? tid : NP - 1;
        const bool lane = tid < NP;
        const int pp = slot_partner<W2>(p);
        // Pair p at step s: diagonal a, b (slots p, pp) and entry c = (p, pp).
        R a = core::real_part(G[p * (LDG + 1)]), b = core::real_part(G[pp * (LDG + 1)]);
        T c = G[p + pp * LDG];
        const core::IndexPair nb = next_pair_block<NP>(p);
        SlotBlock<T, W2, false> blk;
        blk.init(nb);
        // Where the pair's own entry goes for the next step (its rotation zeroes it).
        const SlotEntry<W2> own(slot_moved<W2>(p), slot_moved<W2>(pp));
        // The columns in slots p and pp (core::round_robin_slot), for a Q in shared memory.
        [[maybe_unused]] int ci = p, cj = pp;
        const auto publish = [&](int s, const GramRotation<T>& rot) {
            if (lane) {
                rec.buffer(s & 1)[StepRecords<T, NP>::slot(p)] = RotationRecord<T>{rot.tw, rot.cs};
                if constexpr (!qreg) {
                    rec.ij[(s & 1) * NP + p] = ci | cj << 8 | int(rot.on) << 16;
                    ci = p == 0 ? 0 : ci == W2 - 1 ? 1 : ci + 1;
                    cj = cj == W2 - 1 ? 1 : cj + 1;
                }
                if (rot.on) *any = 1;
            }
        };
        GramRotation<T> rot = gram_rotation<T>(a, b, c, tol);
        publish(0, rot);
        block_barrier_unaligned();
#pragma unroll 1
        for (int s = 0; s + 1 < STEPS; ++s) {
            // The block's row and column pairs' rotations, and the new diagonal (rot.na, rot.nb
            // are a and b when the pair did not rotate): slot p takes slot p + 1's column (pair
            // p + 1's first slot, or slot pp for the last pair), slot pp slot W2 - p's (pair
            // p - 1's second, or slot 1 for pair 0), slot 0 stays.
            const RotationRecord<T> rr{shfl_idx(rot.tw, nb.i), shfl_idx(rot.cs, nb.i)};
            const RotationRecord<T> rc{shfl_idx(rot.tw, nb.j), shfl_idx(rot.cs, nb.j)};
            const R na_next = shfl_idx(rot.na, p + 1 < NP ? p + 1 : p);
            const R nb_prev = shfl_idx(rot.nb, p > 0 ? p - 1 : 0), na_1 = shfl_idx(rot.na, 1);
            if (lane) {
                const Block2<T> g = blk.step(src(s), dst(s), rr, rc);
                const T cn = rot.on ? T(R(0)) : c;
                dst(s)[own.off] = own.conj ? core::conj_of(cn) : cn;
                c = p == 0 ? g.g00 : p == NP - 1 ? core::conj_of(g.g11) : core::conj_of(g.g10);
                a = p == 0 ? rot.na : p + 1 < NP ? na_next : rot.nb;
                b = p > 0 ? nb_prev : na_1;
            }
            rot = gram_rotation<T>(a, b, c, tol);
            publish(s + 1, rot);
            if constexpr (qreg) qr.apply_step(rec, s & 1);
            block_barrier_unaligned();
        }
        block_barrier_unaligned();  // the last step (G is not needed after the sweep: Q only)
        if constexpr (qreg) {
            qr.apply_step(rec, (STEPS - 1) & 1);
            qr.template store<LDG>(Q);
            block_barrier_unaligned();
        }
        return;
    }
    // ---- warps 1..: the other blocks of G and Q ----------------------------------------------
    const int at = tid - 32;
    SlotBlock<T, W2, true> blk[BPT];
#pragma unroll
    for (int k = 0; k < BPT; ++k) blk[k].init(slot_other_block<NP>(at + APPLY * k));
    block_barrier_unaligned();  // step 0's rotations
#pragma unroll 1
    for (int s = 0; s < STEPS; ++s) {
        const RotationRecord<T>* rs = rec.buffer(s & 1);
        if (s + 1 < STEPS) {
#pragma unroll
            for (int k = 0; k < BPT; ++k) {
                if (NOTHER % APPLY != 0 && k == BPT - 1 && !blk[k].valid()) continue;
                blk[k].step(src(s), dst(s), rs[blk[k].ri()], rs[blk[k].rj()]);
            }
        }
        if constexpr (qreg) {
            qr.apply_step(rec, s & 1);
        } else {  // Q <- Q J: consecutive threads take consecutive rows of a pair
#pragma unroll 2
            for (int e = 0; e < QPT; ++e) {
                const int idx = at + APPLY * e;
                if (QOPS % APPLY != 0 && idx >= QOPS) break;
                const int pr = idx / W2, k = rec.ij[(s & 1) * NP + pr];
                const RotationRecord<T>& r = rs[StepRecords<T, NP>::slot(pr)];
                if (k >> 16)
                    rotate_columns_at<T, LDG>(Q, idx % W2, core::IndexPair{k & 0xff, (k >> 8) & 0xff}, r.tw, r.cs);
            }
        }
        block_barrier_unaligned();
    }
    if constexpr (qreg) {
        qr.template store<LDG>(Q);
        block_barrier_unaligned();
    }
}

/// The Gram matrix of a pair whose rows are split over the `split` blocks of a cluster: each
/// block's G (diagonal and upper triangle, ld slot_g_ld) holds its rows' part; on return every
/// block's G holds the sum of all parts, added in rank order so that every block has the same
/// bits (and so computes the same rotations). P (same shape) is scratch; the second cluster
/// barrier keeps it until every block has read it.
template <class T, int W2> __device__ void cluster_sum_gram(T* G, T* P, int split) {
    constexpr int LDG = detail::slot_g_ld<W2>;
    namespace cg = cooperative_groups;
    cg::cluster_group cl = cg::this_cluster();
    for (int idx = threadIdx.x; idx < W2 * LDG; idx += kBlockedThreads) P[idx] = G[idx];
    cl.sync();
    for (int idx = threadIdx.x; idx < W2 * LDG; idx += kBlockedThreads) {
        const int i = idx % LDG, j = idx / LDG;
        if (i > j) continue;  // the lower triangle (and the padding row) is not read
        T sum = cl.map_shared_rank(P, 0)[idx];
        for (int r = 1; r < split; ++r) sum = add(sum, cl.map_shared_rank(P, r)[idx]);
        G[idx] = sum;
    }
    cl.sync();
}

/// Whether the pair (col's blocks, NB columns each) of matrix b is known to be converged at
/// `step` (BlockedParams::block_stamp): neither block has rotated since the pair's previous
/// visit, one sweep ago. Never in the first sweep; a phantom partner (col.wj == 0) never
/// rotates.
template <int NB, class T>
__device__ __forceinline__ bool pair_known_converged(const BlockedParams<T>& p, index_t b, int step, const PairColumns& col) {
    const int previous = p.stamp_base - core::round_robin_steps(p.nblk) + step;
    const index_t row = b * p.nblk;
    return previous >= 0 && p.block_stamp[row + col.c0 / NB] < previous &&
           (col.wj == 0 || p.block_stamp[row + col.c1 / NB] < previous);
}

/// One thread a pair, after its step: the sweep log's counts, and, when the pair rotated, its
/// blocks' stamps (read from later launches).
template <int NB, class T>
__device__ __forceinline__ void record_pair_step(const BlockedParams<T>& p, index_t b, int step, const PairColumns& col,
                                                 bool rotated) {
    if (p.pair_log) {
        if (p.phases & 1) atomicAdd(p.pair_log, 1);
        if (rotated) atomicAdd(p.pair_log + 1, 1);
    }
    if (!p.block_stamp || !rotated) return;
    const int stamp = p.stamp_base + step;
    p.block_stamp[b * p.nblk + col.c0 / NB] = stamp;
    if (col.wj > 0) p.block_stamp[b * p.nblk + col.c1 / NB] = stamp;
}

}  // namespace detail

/// One round-robin step of the blocked iteration: grid (block pairs of the step, matrices).
/// The body of the kernels below.
template <class T, int NB>
__device__ __forceinline__ void blocked_pair_step(const BlockedParams<T>& p, int step) {
    using R = core::real_of_t<T>;
    constexpr int W2 = 2 * NB, LDG = detail::slot_g_ld<W2>;
    using Smem = PairSmem<T, W2>;
    constexpr bool dmma = Smem::dmma, qreg = Smem::qreg;
    static_assert(!dmma || detail::DmmaGramSplit<W2, kBlockedThreads>::kScratch * detail::kPlanes<T> <=
                               2 * W2 * LDG * int(sizeof(T) / sizeof(double)));
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* const base = reinterpret_cast<T*>(smem_raw);
    T* tile = base + Smem::tile;
    T* G = base + Smem::g;
    T* Q = base + Smem::q;
    T* Gb = base + Smem::gb;  // the eigensolver's second buffer of G
    void* records = smem_raw + Smem::records;
    int* any = reinterpret_cast<int*>(smem_raw + Smem::any);

    const JacobiParams<T>& q = p.out;
    const int M = q.M, N = q.N;
    // The cluster's blocks (p.split, consecutive in x) share a pair: each does the Gram and the
    // update over its chunk of the rows of W and of V (multiples of 64 rows), and all of them
    // run the eigensolver on the same summed G.
    const int split = p.split, rank = int(blockIdx.x) % split, pair = int(blockIdx.x) / split;
    const core::IndexPair bp =
        p.pair_table ? core::IndexPair{p.pair_table[2 * (step * int(gridDim.x / split) + pair)],
                                       p.pair_table[2 * (step * int(gridDim.x / split) + pair) + 1]}
                     : core::round_robin_pair(p.nblk, step, pair);
    const auto chunk = [&](int rows, int& r0) {
        const int len = ((rows + split - 1) / split + 63) / 64 * 64;
        r0 = min(rows, rank * len);
        return min(rows, r0 + len) - r0;
    };
    int w0 = 0, v0 = 0;
    const int wrows = chunk(M, w0), vrows = chunk(p.v_rows, v0);  // (V_W: v_rows x N, leading dimension v_rows)
    detail::PairColumns col;
    col.nb = NB;
    col.c0 = bp.i * NB;
    col.wi = min(NB, N - col.c0);
    // A phantom partner (odd block count, or a single block) leaves block i alone: its own
    // columns are still orthogonalised.
    col.c1 = bp.j < p.nblk ? bp.j * NB : 0;
    col.wj = bp.j < p.nblk ? min(NB, N - col.c1) : 0;

    for (index_t b = blockIdx.y; b < q.batch; b += gridDim.y) {
        const BlockedState st = p.state[b];
        if (!st.active) continue;  // converged, non-finite or out of sweeps: masked
        if constexpr (kBlockedPairRecords<T>)
            if (p.block_stamp && detail::pair_known_converged<NB>(p, b, step, col)) continue;  // (uniform)
        const core::Tolerance<R> tol = detail::blocked_tolerance(q, st);
        T* X = p.W + b * index_t(M) * N + w0;
        if (p.phases & 1) {
            if constexpr (dmma)  // scratch: G and Q
                detail::pair_gram_dmma<W2, kBlockedThreads>(X, M, wrows, col, G, reinterpret_cast<double*>(G));
            else detail::pair_gram<T, W2>(X, M, wrows, col, tile, G);
            __syncthreads();
            if (split > 1) detail::cluster_sum_gram<T, W2>(G, Q, split);
        }
        // A pair none of whose column pairs fails the convergence test leaves the eigensolver
        // with nothing to do (a rotation is the only thing that changes G): skip it and the
        // update. Most pairs of the last sweeps, and every pair of the final, checking sweep.
        // *any (the eigensolver's "rotated") is zeroed first, ordered by the barrier of `need`:
        // it stays 0 for a pair that skips the eigensolver, and the end of the step reads it.
        if (threadIdx.x == 0) *any = 0;
        const bool need = (p.phases & 1) && __syncthreads_or(detail::pair_needs_rotation<T, W2>(G, tol));
        if ((p.phases & 2) && need) {
            if constexpr (!qreg) {
                for (int idx = threadIdx.x; idx < W2 * W2; idx += kBlockedThreads) {
                    const int i = idx % W2, j = idx / W2;
                    Q[i + j * LDG] = T(R(i == j ? 1 : 0));
                }
            }
            __syncthreads();
            detail::pair_eigen_sweep<T, W2>(G, Gb, Q, records, any, tol);
            if ((p.phases & 4) && *any) {  // read after the sweep's last barrier: uniform
                if constexpr (dmma) {
                    double* bq = reinterpret_cast<double*>(G);  // G is spent: Q's fragments there
                    detail::pack_update_fragments<W2, kBlockedThreads>(Q, bq);
                    __syncthreads();
                    // Streamed past the L2 cache (evict first): the stores of W (the next read of
                    // these columns is in another launch, long after), and V_W entirely (read
                    // once and written once a pair), so that the L2 keeps the columns this
                    // launch's Gram products read until their blocks' updates read them again.
                    // H100, 2026-11-25, against plain accesses: float64 1000 x 256^2
                    // 165.2 -> 156.8 ms, 50 x 512^2 92.1 -> 91.0, 1000 x 128^2 22.4 -> 21.9,
                    // one 4096^2 1500 -> 1455; complex128 1% faster; streaming V alone gave
                    // 158.2 at 256^2.
                    detail::pair_update_dmma<W2, kBlockedThreads, false, true>(X, M, wrows, col, bq);
                    if (p.V)
                        detail::pair_update_dmma<W2, kBlockedThreads, true, true>(p.V + b * index_t(p.v_rows) * N + v0, p.v_rows,
                                                                                  vrows, col, bq);
                } else {
                    detail::pair_update<T, W2>(X, M, wrows, col, tile, Q);
                    if (p.V) detail::pair_update<T, W2>(p.V + b * index_t(p.v_rows) * N + v0, p.v_rows, vrows, col, tile, Q);
                }
                if (threadIdx.x == 0) atomicExch(&p.state[b].rotated, 1);
            }
        }
        if constexpr (kBlockedPairRecords<T>)  // the sweep log and the stamps
            if (threadIdx.x == 0 && int(blockIdx.x) % p.split == 0 && (p.pair_log || p.block_stamp))
                detail::record_pair_step<NB>(p, b, step, col, (p.phases & 4) && *any);
        __syncthreads();  // shared memory is reused for the next matrix
    }
}

/// The pair kernel, and its variant held to a register budget for MinBlocks blocks of 256 per
/// SM (blocked_pair_min_blocks). Measured on the H100: float64 with 16-column blocks at 4
/// (64 registers; with the scalar products 1000 x 256^2 349 -> 334 ms), with 32 at 3 (80);
/// complex64 with 16 at 3 (80 registers: 1000 x 128^2 59.5 -> 50.1 ms, 256^2 434 -> 378);
/// complex128 with 16 at 3 (80 registers, 32 bytes of spills; on the tensor cores 1000 x
/// 128^2 86.2 ms at 2 blocks, 72.8 at 3, 256^2 617 against 525; one 1024^2 190 against 194).
/// float32 with 32 at 3 (80 registers; at 4, 64 registers, until its Q went to registers):
/// left to itself the compiler gave the warp-specialised eigensolver 123 registers, 2 blocks
/// per SM. complex64 with 32 at 2 (128 registers; uncapped, the slot-order eigensolver took
/// 196, one block per SM). An explicit minimum changes the compiler's register choices for
/// every instance, so the others keep the plain bounds.
template <class T, int NB>
__global__ void __launch_bounds__(kBlockedThreads) blocked_pair_kernel(const BlockedParams<T> p, int step) {
    blocked_pair_step<T, NB>(p, step);
}
template <class T, int NB, int MinBlocks>
__global__ void __launch_bounds__(kBlockedThreads, MinBlocks) blocked_pair_kernel_capped(const BlockedParams<T> p, int step) {
    blocked_pair_step<T, NB>(p, step);
}
/// Blocks per SM that (T, NB)'s pair kernel is compiled for (0: the plain bounds), when a pair
/// is split over a cluster (BlockedParams::split > 1) and when the batch fills the device alone
/// (Batch). They differ for float64 with 32 columns: at 3 blocks (80 registers) the slot-order
/// eigensolver spills its blocks' offsets (about 10 local loads a step, and the 3 blocks' spill
/// space overflows L1), at 2 it does not. Measured on the H100 (2026-11-25): 1000 x 256^2
/// 179 -> 169.5 ms and 50 x 512^2 112.8 -> 94.0 ms at 2, but one 2048^2 (split 8) 264.5 -> 288.
template <class T, int NB, bool Batch = false> constexpr int blocked_pair_min_blocks() {
    if constexpr (std::is_same_v<T, double>) return NB == 16 ? 4 : Batch ? 2 : 3;
    else if constexpr (std::is_same_v<T, dev_complex<float>>) return NB == 16 ? 3 : 2;
    else if constexpr (core::is_complex_v<T>) return NB == 16 ? 3 : 0;
    else return NB == 32 ? 3 : 0;
}

/// End of a sweep: a matrix none of whose pairs rotated has converged; one out of sweeps
/// stops unconverged. Counts the matrices still active.
__global__ void blocked_sweep_end_kernel(BlockedState* state, index_t batch, int max_sweeps,
                                         int* active_count);

/// Singular values, vectors and status of each matrix (one block of kBlockedThreads per
/// matrix), through the same finalisation as the fused kernel.
template <class T>
__global__ void __launch_bounds__(kBlockedThreads) blocked_finalize_kernel(const BlockedParams<T> p) {
    using R = core::real_of_t<T>;
    const JacobiParams<T>& q = p.out;
    const int M = q.M, N = q.N, tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32, warps = kBlockedThreads / 32;
    detail::TeamSync sync{0xffffffffu, false};
    for (index_t b = blockIdx.x; b < q.batch; b += gridDim.x) {
        const BlockedState st = p.state[b];
        if (st.nonfinite) {
            write_nonfinite(q, b, tid, kBlockedThreads);
            continue;
        }
        const int scale_e = detail::state_scale_exponent<R>(st);
        const core::Tolerance<R> tol = detail::blocked_tolerance(q, st);
        T* X = p.W + b * index_t(M) * N;
        const T* V = p.V ? p.V + b * index_t(N) * N : nullptr;
        R* norms = p.norms + b * index_t(N + 1);
        int* rank = p.ints + b * index_t(2 * N + 8);
        int* done = rank + N;
        int* flags = done + N;
        T* scratch = p.scratch + b * index_t(N);
        if (tid < 8) flags[tid] = 0;
        for (int c = warp; c < N; c += warps) {
            const R acc = detail::warp_column_norm2(X + index_t(c) * M, M, lane);
            if (lane == 0) norms[c] = acc;
        }
        __syncthreads();
        finalize_and_write<index_t>(q, b, X, std::size_t(M), V, std::size_t(N), norms, rank, done,
                                    scratch, flags, tol.negligible, scale_e,
                                    st.converged ? 0 : st.sweeps, st.sweeps, tid, kBlockedThreads, sync);
        __syncthreads();
    }
}

/// The same finalisation for a few large matrices, over the whole device: with fewer matrices
/// than multiprocessors, one block a matrix leaves most of them idle and reads every column
/// through one block's warps (1 x 16384^2 float64: 1.7 s). Four launches over (columns,
/// matrices), each step of blocked_finalize_kernel with the same arithmetic, so the outputs
/// are bitwise the same: the squared column norms, sigma, the ranks, then S, U and V written a
/// warp a column. A matrix with a zero column (the complement) or a NaN/Inf entry is left to
/// blocked_finalize_rest_kernel. Grids: (ceil(N / warps), batch) and (ceil(N / threads),
/// batch), batch below 65536.
namespace wide_final {

template <class T> struct View {
    using R = core::real_of_t<T>;
    BlockedState st;
    R* norms;
    int* rank;
    int* flags;
    __device__ View(const BlockedParams<T>& p, index_t b) : st(p.state[b]) {
        const int N = p.out.N;
        norms = p.norms + b * index_t(N + 1);
        rank = p.ints + b * index_t(2 * N + 8);
        flags = rank + 2 * N;
    }
};

template <class T>
__global__ void __launch_bounds__(kBlockedThreads) norms_kernel(const BlockedParams<T> p) {
    using R = core::real_of_t<T>;
    const index_t b = blockIdx.y;
    const View<T> w(p, b);
    if (w.st.nonfinite) return;
    if (blockIdx.x == 0 && threadIdx.x < 8) w.flags[threadIdx.x] = 0;
    const int M = p.out.M, N = p.out.N, lane = threadIdx.x % 32;
    const int c = int(blockIdx.x) * (kBlockedThreads / 32) + int(threadIdx.x / 32);
    if (c >= N) return;  // (a whole warp)
    const R acc = detail::warp_column_norm2(p.W + b * index_t(M) * N + index_t(c) * M, M, lane);
    if (lane == 0) w.norms[c] = acc;
}

template <class T>
__global__ void __launch_bounds__(kBlockedThreads) sigma_kernel(const BlockedParams<T> p) {
    const index_t b = blockIdx.y;
    const View<T> w(p, b);
    const int j = int(blockIdx.x) * kBlockedThreads + int(threadIdx.x);
    if (w.st.nonfinite || j >= p.out.N) return;
    w.norms[j] = final_sigma(w.norms[j], detail::blocked_tolerance(p.out, w.st).negligible);
}

template <class T>
__global__ void __launch_bounds__(kBlockedThreads) rank_kernel(const BlockedParams<T> p) {
    const index_t b = blockIdx.y;
    const View<T> w(p, b);
    const int N = p.out.N, j = int(blockIdx.x) * kBlockedThreads + int(threadIdx.x);
    if (w.st.nonfinite || j >= N) return;
    w.rank[j] = final_rank(w.norms, N, j);
    w.rank[N + j] = w.norms[j] > 0 ? 1 : 0;  // done
    if (!(w.norms[j] > 0)) atomicOr(&w.flags[3], 1);
}

template <class T>
__global__ void __launch_bounds__(kBlockedThreads) write_kernel(const BlockedParams<T> p) {
    using R = core::real_of_t<T>;
    const JacobiParams<T>& q = p.out;
    const index_t b = blockIdx.y;
    const View<T> w(p, b);
    if (w.st.nonfinite || w.flags[3]) return;
    const int M = q.M, N = q.N, lane = threadIdx.x % 32;
    const int c = int(blockIdx.x) * (kBlockedThreads / 32) + int(threadIdx.x / 32);
    if (c >= N) return;
    const R sc = w.norms[c];
    const index_t rc = w.rank[c];
    const FinalOutputs<T> out(q, b);
    if (lane == 0) q.s[b * q.s_stride + rc] = scalbn(sc, -detail::state_scale_exponent<R>(w.st));
    if (out.uw) {
        const T* x = p.W + b * index_t(M) * N + index_t(c) * M;
        for (int r = lane; r < M; r += 32) out.uw[r + rc * out.ld_uw] = core::scale(x[r], R(1) / sc);
    }
    if (out.vw) {
        const T* v = p.V + b * index_t(N) * N + index_t(c) * N;
        for (int r = lane; r < N; r += 32) out.vw[r + rc * out.ld_vw] = v[r];
    }
    if (c == 0 && lane == 0) {
        q.info[b] = w.st.converged ? 0 : w.st.sweeps;
        if (q.sweeps) q.sweeps[b] = w.st.sweeps;
    }
}

/// One block a matrix: a NaN/Inf matrix's NaN outputs, and the whole of blocked_finalize_kernel
/// after the sigma (from the steps above) for a matrix with a zero column.
template <class T>
__global__ void __launch_bounds__(kBlockedThreads) rest_kernel(const BlockedParams<T> p) {
    const JacobiParams<T>& q = p.out;
    const int M = q.M, N = q.N, tid = threadIdx.x;
    const index_t b = blockIdx.x;
    const View<T> w(p, b);
    if (w.st.nonfinite) {
        write_nonfinite(q, b, tid, kBlockedThreads);
        return;
    }
    if (!w.flags[3]) return;
    detail::TeamSync sync{0xffffffffu, false};
    const core::Tolerance<core::real_of_t<T>> tol = detail::blocked_tolerance(q, w.st);
    finalize_and_write<index_t>(q, b, p.W + b * index_t(M) * N, std::size_t(M),
                                p.V ? p.V + b * index_t(N) * N : nullptr, std::size_t(N), w.norms, w.rank,
                                w.rank + N, p.scratch + b * index_t(N), w.flags, tol.negligible,
                                detail::state_scale_exponent<core::real_of_t<T>>(w.st),
                                w.st.converged ? 0 : w.st.sweeps, w.st.sweeps, tid, kBlockedThreads, sync,
                                /*sigma_ready=*/true);
}

}  // namespace wide_final

}  // namespace batchsvd::cuda
