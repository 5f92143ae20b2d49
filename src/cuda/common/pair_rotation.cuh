// SPDX-License-Identifier: BSD-3-Clause
// The Jacobi rotation of one column pair on the GPU, from its Gram entries (squared norms a, b
// and dot product c: the warp kernel's columns, the blocked eigensolver's G), and its
// application: to two values (rotate_pair), to a row of two columns in memory, and to a 2x2
// block of a Hermitian G from both sides. Also the blocked eigensolver's step records and the
// block of its 2x2-block grid that holds each pair's next entry.
#pragma once

#include "cuda/common/kernel_common.cuh"

namespace batchsvd::cuda::detail {

/// Whether a pair of G with diagonal entries a, b and |off-diagonal| absc can rotate at all:
/// a zero column or an exactly zero product never does (padding slots). The eigensolver's test
/// and the pair kernel's pre-check are this and core::needs_rotation.
template <class R> __device__ __forceinline__ bool gram_pair_live(R a, R b, R absc) {
    return absc > R(0) && a > R(0) && b > R(0);
}

/// The rotation of an index pair (p < q) of G: twiddle, cosine, the pair's new diagonal
/// entries (core::rotate_norms; a and b when it does not rotate), whether it rotates at all,
/// and whether the new entries are accurate to a few ulps (core::TrackedNorms::reliable).
template <class T> struct GramRotation {
    using R = core::real_of_t<T>;
    T tw;
    R cs, na, nb;
    bool on, reliable;
};

/// Rotation of the pair with diagonal entries a = g_pp, b = g_qq and off-diagonal c = g_pq: the
/// same formulas and test as the one-sided iteration.
template <class T>
__device__ __forceinline__ GramRotation<T> gram_rotation(core::real_of_t<T> a, core::real_of_t<T> b, const T& c,
                                                         const core::Tolerance<core::real_of_t<T>>& tol) {
    using R = core::real_of_t<T>;
    const R absc = core::abs_of(c);
    // The rotation is computed before the test's outcome is known (pure arithmetic, unused
    // when no rotation is needed), so that the two chains of square roots and divisions run
    // side by side: this thread's latency holds up the whole block at the next barrier.
    // (On stand-ins where a column is zero or the dot product exactly zero, as for padding:
    // 0 / 0 and sqrt(0) take the FP64 slow paths. Such a pair never rotates.)
    const bool live = gram_pair_live(a, b, absc);
    // (core/rotation.hpp's device arithmetic, refined MUFU reciprocals and roots, shortens it.)
    const core::Rotation<R> rot = core::jacobi_rotation(live ? a : R(1), live ? b : R(2), live ? absc : R(1));
    GramRotation<T> g{T(R(0)), R(1), a, b, false, true};
    if (live && core::needs_rotation(absc, live ? a : R(1), live ? b : R(1), tol)) {
        g.tw = core::rotation_twiddle(c, absc, rot.t);
        g.cs = rot.cs;
        const core::TrackedNorms<R> tn = core::rotate_norms(a, b, absc, rot.t);
        g.na = tn.a;
        g.nb = tn.b;
        g.on = true;
        g.reliable = tn.reliable;
    }
    return g;
}

/// x' = cs (x - conj(tw) y), y' = cs (y + tw x): the rotation of every GPU path.
template <class T>
__device__ __forceinline__ void rotate_pair(T& x, T& y, const T& tw, core::real_of_t<T> cs) {
    using R = core::real_of_t<T>;
    const T xo = x, yo = y;
    x = core::scale(core::axpy(core::scale(core::conj_of(tw), R(-1)), yo, xo), cs);
    y = core::scale(core::axpy(tw, xo, yo), cs);
}

/// One pair's rotation in the form its appliers take (apply_rotation): for real T the shears
/// (a, b) = (h, s) of core::rotation_shears, three FMAs a row in place; for complex T
/// (a, b) = (tw, cs) of rotate_pair. tw = 0, cs = 1 (a pair that does not rotate) gives
/// exactly the identity in both. Aligned to 16 bytes: the warp kernel's shared-memory record
/// of a step's rotation (WarpRotation) is this, one vector load.
template <class T> struct alignas(16) AppliedRotation {
    T a;
    core::real_of_t<T> b;
};
template <class T>
__device__ __forceinline__ AppliedRotation<T> applied_rotation(const T& tw, core::real_of_t<T> cs) {
    if constexpr (core::is_complex_v<T>) {
        return {tw, cs};
    } else {
        const core::Shears<T> sh = core::rotation_shears(tw, cs);
        return {sh.h, sh.s};
    }
}
template <class T> __device__ __forceinline__ void apply_rotation(T& x, T& y, const T& a, core::real_of_t<T> b) {
    if constexpr (core::is_complex_v<T>) rotate_pair(x, y, a, b);
    else core::apply_shears(x, y, a, b);
}

/// The 2x2 block (rows r, r', columns c, c') of a Hermitian G rotated from the right by the
/// columns' pair and from the left by the rows' pair: J_i^H G J_j entry by entry. Columns:
/// rotate_pair with twj; rows: p' = cs (p - tw q), q' = cs (q + conj(tw) p), rotate_pair with
/// conj(twi). A pair that does not rotate has tw = 0, cs = 1: the identity, exactly.
template <class T>
__device__ __forceinline__ void rotate_gram_block(T& g00, T& g01, T& g10, T& g11, const T& twi,
                                                  core::real_of_t<T> csi, const T& twj, core::real_of_t<T> csj) {
    rotate_pair(g00, g01, twj, csj);
    rotate_pair(g10, g11, twj, csj);
    const T twc = core::conj_of(twi);
    rotate_pair(g00, g10, twc, csi);
    rotate_pair(g01, g11, twc, csi);
}

/// Row k of columns pq.i, pq.j of Mx (leading dimension LD) rotated from the right (rotate_pair).
template <class T, int LD>
__device__ __forceinline__ void rotate_columns_at(T* Mx, int k, core::IndexPair pq, T tw, core::real_of_t<T> cs) {
    rotate_pair(Mx[k + pq.i * LD], Mx[k + pq.j * LD], tw, cs);
}

/// Block (row pair, column pair) of the steps' 2x2-block grid that holds the entry of pair p of
/// the next step (core::round_robin_pair): slots p + 1 and w - p of a step are slots p and
/// w - 1 - p of the next, so it is (p - 1, p + 1), and (0, 1) and (NP - 2, NP - 1) at the ends.
/// The same NP blocks at every step (docs/paths/blocked.md).
template <int NP> __device__ __forceinline__ core::IndexPair next_pair_block(int p) {
    return p == 0 ? core::IndexPair{0, 1} : p == NP - 1 ? core::IndexPair{NP - 2, NP - 1} : core::IndexPair{p - 1, p + 1};
}

/// The rotation of one pair of an inner step as its rotation lane leaves it for the others:
/// twiddle and cosine, in the pair's slot orientation (slot p's column is the first). Aligned so
/// that one record is one or two vector loads.
template <class T> constexpr std::size_t rotation_record_align() {
    const std::size_t n = sizeof(T) + sizeof(core::real_of_t<T>);
    return n <= 8 ? 8 : 16;
}
template <class T> struct alignas(rotation_record_align<T>()) RotationRecord {
    T tw;
    core::real_of_t<T> cs;
};

/// The records of two consecutive inner steps (buffer = step parity): the rotations by pair
/// (RotationRecord), and the pairs' columns in natural order with the rotate flag
/// (i | j << 8 | on << 16; i is slot p's column), which only a Q kept in shared memory reads.
/// Pair p's rotation is record p + p / 8 of its buffer (slot): a gap after every 8 records,
/// so that the 8 threads of a row of Q in registers (SlotQ with RT = 2, each reading 4
/// consecutive records) read 8 different bank groups (16-byte records: without the gap, 64
/// bytes apart, they would share 2, a 4-way conflict of the kind ncu found on the H100).
template <class T, int NP> struct StepRecords {
    static constexpr int kStride = NP + NP / 8;
    RotationRecord<T>* rot;
    int* ij;
    __device__ static StepRecords at(void* base) {
        StepRecords r;
        r.rot = static_cast<RotationRecord<T>*>(base);
        r.ij = reinterpret_cast<int*>(r.rot + 2 * kStride);
        return r;
    }
    static constexpr std::size_t kBytes = 2 * (kStride * sizeof(RotationRecord<T>) + NP * sizeof(int));
    /// Where pair p's record sits in a buffer, and the buffer.
    __device__ static int slot(int p) { return p + p / 8; }
    __device__ RotationRecord<T>* buffer(int buf) const { return rot + buf * kStride; }
};

/// The four entries of a 2x2 block of G.
template <class T> struct Block2 {
    T g00, g01, g10, g11;
};

}  // namespace batchsvd::cuda::detail
