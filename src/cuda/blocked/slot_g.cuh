// SPDX-License-Identifier: BSD-3-Clause
// The blocked eigensolver's G (W2 x W2, Hermitian) kept in the circle method's slot order, as
// its Q is (slot_q.cuh): pair p of every inner step is slots p and W2 - 1 - p, so a thread that
// owns the 2x2 block of slot pairs (pi, pj) owns it at every step, with fixed addresses and no
// ordering arithmetic; the entries move to their next step's slots as they are written back,
// into the other of two buffers. Before 80b92eb the block's columns were named by the
// step's records and every entry was found through them (about 100 instructions a block and
// step against about 35 now). This is Brent and Luk's systolic ordering with shared memory as
// the systolic array's links.
#pragma once

#include <tuple>
#include <type_traits>

#include "cuda/common/pair_rotation.cuh"

namespace batchsvd::cuda::detail {

/// The other slot of slot x's pair, and the slot that x's column takes at the next step
/// (core::round_robin_slot: slot q takes slot q + 1's column, slot W2 - 1 slot 1's, slot 0 stays).
template <int W2> __device__ __forceinline__ int slot_partner(int x) { return W2 - 1 - x; }
template <int W2> __device__ __forceinline__ int slot_moved(int x) { return x == 0 ? 0 : x == 1 ? W2 - 1 : x - 1; }

/// Leading dimension of the pair kernel's G (and Q) in shared memory. The eigensolver's warps
/// walk G's columns and rows (the appliers' blocks) and both diagonals (the rotation lanes'
/// blocks (p - 1, p + 1)): with W2 + 1 the anti-diagonal's stride, 64 doubles, put the 32 lanes
/// of a warp on one bank (ncu, H100: 30 wavefronts for 2); W2 + 2 leaves the rows 2-way
/// and the rest conflict-free (bank model over a whole step: 373 + 27 wavefronts against
/// 395 + 164 for float64).
template <int W2> inline constexpr int slot_g_ld = W2 + 2;

/// Where entry (x, y), x != y, of G in slot order is kept in a buffer: the upper triangle of a
/// W2 x W2 array with leading dimension slot_g_ld (element offset), conjugated when x > y. The
/// buffer of step 0 is the Gram matrix itself (slot q holds column q at step 0).
template <int W2> struct SlotEntry {
    static constexpr int LD = slot_g_ld<W2>;
    int off;
    bool conj;
    __device__ __forceinline__ SlotEntry(int x, int y) : off(x < y ? x + y * LD : y + x * LD), conj(x > y) {}
};

/// Block (pi, pj), pi < pj, of the grid of slot pairs: rows slots pi and pi' = W2 - 1 - pi,
/// columns pj and pj'. Its entries g00 = (pi, pj), g01 = (pi, pj'), g10 = (pi', pj) and
/// g11 = (pi', pj') are read where this step keeps them (the last two conjugated: pi' > pj),
/// rotated, J_pi^H G J_pj (rotate_gram_block: the column pair's rotation, then the row pair's),
/// and written where the next step's slots put them (conjugated where their order flips).
template <class T, int W2> __device__ __forceinline__ Block2<T> slot_block_step(
    const T* src, T* dst, const int (&rd)[4], const int (&wr)[4], unsigned wconj, const RotationRecord<T>& r,
    const RotationRecord<T>& c) {
    Block2<T> g{src[rd[0]], src[rd[1]], core::conj_of(src[rd[2]]), core::conj_of(src[rd[3]])};
    rotate_gram_block(g.g00, g.g01, g.g10, g.g11, r.tw, r.cs, c.tw, c.cs);
    const T v[4] = {g.g00, g.g01, g.g10, g.g11};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        if constexpr (core::is_complex_v<T>) dst[wr[k]] = (wconj >> k) & 1 ? core::conj_of(v[k]) : v[k];
        else dst[wr[k]] = v[k];
    }
    return g;
}

/// A block's element offsets in the buffers and the conjugation of its writes.
template <int W2> struct SlotBlockOffsets {
    int rd[4], wr[4];
    unsigned wconj;
    __device__ __forceinline__ explicit SlotBlockOffsets(core::IndexPair b) : wconj(0) {
        const int x[2] = {b.i, slot_partner<W2>(b.i)}, y[2] = {b.j, slot_partner<W2>(b.j)};
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            const int r = x[k >> 1], c = y[k & 1];
            rd[k] = SlotEntry<W2>(r, c).off;
            const SlotEntry<W2> w(slot_moved<W2>(r), slot_moved<W2>(c));
            wr[k] = w.off;
            wconj |= unsigned(w.conj) << k;
        }
    }
};

/// A block of G held by one thread for a whole sweep, packed into a few registers (the appliers
/// hold up to three blocks beside their rows of Q; unpacked, the compiler recomputed or spilled
/// the offsets). Offsets take 16 bits each. Every slot but 0 and 1 moves to the slot below it,
/// so when pj >= 2 (Derived: the appliers' blocks, slot_other_block) entries 2 and 3 (rows
/// pi' >= 2) go one row and one column down and only entries 0 and 1 need their own offsets;
/// those are conjugated when pi = 1 (the row goes to slot W2 - 1).
template <class T, int W2, bool Derived> struct SlotBlock {
    unsigned rd01, rd23, wr01;
    /// The row and column pairs' records (StepRecords::slot) | write conjugation bits << 16;
    /// 0xff: no block.
    unsigned pij;
    [[no_unique_address]] std::conditional_t<Derived, std::tuple<>, unsigned> wr23;

    __device__ __forceinline__ void init(core::IndexPair b) {
        if (b.i < 0) {
            pij = 0xff;
            return;
        }
        const SlotBlockOffsets<W2> f(b);
        rd01 = unsigned(f.rd[0]) | unsigned(f.rd[1]) << 16;
        rd23 = unsigned(f.rd[2]) | unsigned(f.rd[3]) << 16;
        wr01 = unsigned(f.wr[0]) | unsigned(f.wr[1]) << 16;
        if constexpr (!Derived) wr23 = unsigned(f.wr[2]) | unsigned(f.wr[3]) << 16;
        using Records = StepRecords<T, W2 / 2>;
        pij = unsigned(Records::slot(b.i)) | unsigned(Records::slot(b.j)) << 8 | f.wconj << 16;
    }
    __device__ __forceinline__ bool valid() const { return (pij & 0xff) != 0xff; }
    __device__ __forceinline__ int ri() const { return pij & 0xff; }
    __device__ __forceinline__ int rj() const { return (pij >> 8) & 0xff; }
    __device__ __forceinline__ Block2<T> step(const T* src, T* dst, const RotationRecord<T>& r,
                                              const RotationRecord<T>& c) const {
        const int rd[4] = {int(rd01 & 0xffff), int(rd01 >> 16), int(rd23 & 0xffff), int(rd23 >> 16)};
        int wr[4];
        wr[0] = int(wr01 & 0xffff);
        wr[1] = int(wr01 >> 16);
        if constexpr (Derived) {
            wr[2] = rd[2] - (slot_g_ld<W2> + 1);
            wr[3] = rd[3] - (slot_g_ld<W2> + 1);
        } else {
            wr[2] = int(wr23 & 0xffff);
            wr[3] = int(wr23 >> 16);
        }
        return slot_block_step<T, W2>(src, dst, rd, wr, pij >> 16, r, c);
    }
};

/// Block t of the blocks (pi < pj) of the NP x NP grid of slot pairs that are not a pair's next
/// block (next_pair_block: (pj - 2, pj) in column pj, and also (NP - 2, NP - 1) and (0, 1)),
/// numbered column by column, so that consecutive threads take consecutive rows (consecutive
/// addresses); pi = -1 past the last one.
template <int NP> __device__ __forceinline__ core::IndexPair slot_other_block(int t) {
    for (int pj = 2; pj < NP; ++pj) {
        const int n = pj == NP - 1 ? pj - 2 : pj - 1;
        if (t < n) return {t < pj - 2 ? t : t + 1, pj};
        t -= n;
    }
    return {-1, 0};
}

}  // namespace batchsvd::cuda::detail
