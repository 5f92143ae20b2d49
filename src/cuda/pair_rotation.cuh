// The Jacobi rotation of one column pair on the GPU, from its Gram entries (squared norms a, b
// and dot product c: the warp kernel's columns, the blocked eigensolver's G), and its
// application: to two values (rotate_pair), to a row of two columns in memory, and to a 2x2
// block of a Hermitian G from both sides. Also the blocked eigensolver's record of a pair.
#pragma once

#include "cuda/kernel_common.cuh"

namespace batchsvd::cuda::detail {

/// Whether a pair of G with diagonal entries a, b and |off-diagonal| absc can rotate at all:
/// a zero column or an exactly zero product never does (padding slots). The eigensolver's test
/// and the pair kernel's pre-check are this and core::needs_rotation.
template <class R> __device__ __forceinline__ bool gram_pair_live(R a, R b, R absc) {
    return absc > R(0) && a > R(0) && b > R(0);
}

/// The rotation of an index pair (p < q) of G: twiddle, cosine, the pair's new diagonal
/// entries, and whether it rotates at all.
template <class T> struct GramRotation {
    using R = core::real_of_t<T>;
    T tw;
    R cs, na, nb;
    bool on;
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
    GramRotation<T> g{T(R(0)), R(1), a, b, false};
    if (live && core::needs_rotation(absc, live ? a : R(1), live ? b : R(1), tol)) {
        g.tw = core::rotation_twiddle(c, absc, rot.t);
        g.cs = rot.cs;
        const core::TrackedNorms<R> tn = core::rotate_norms(a, b, absc, rot.t);
        g.na = tn.a;
        g.nb = tn.b;
        g.on = true;
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

/// The 2x2 block (rows r, r', columns c, c') of a Hermitian G rotated from the right by the
/// columns' pair (when oj) and from the left by the rows' pair (when oi): J_i^H G J_j entry by
/// entry. Columns: rotate_pair with twj; rows: p' = cs (p - tw q), q' = cs (q + conj(tw) p),
/// rotate_pair with conj(twi).
template <class T>
__device__ __forceinline__ void rotate_gram_block(T& g00, T& g01, T& g10, T& g11, bool oi, const T& twi,
                                                  core::real_of_t<T> csi, bool oj, const T& twj,
                                                  core::real_of_t<T> csj) {
    if (oj) {
        rotate_pair(g00, g01, twj, csj);
        rotate_pair(g10, g11, twj, csj);
    }
    if (oi) {
        const T twc = core::conj_of(twi);
        rotate_pair(g00, g10, twc, csi);
        rotate_pair(g01, g11, twc, csi);
    }
}

/// Row k of columns pq.i, pq.j of Mx (leading dimension LD) rotated from the right (rotate_pair).
template <class T, int LD>
__device__ __forceinline__ void rotate_columns_at(T* Mx, int k, core::IndexPair pq, T tw, core::real_of_t<T> cs) {
    rotate_pair(Mx[k + pq.i * LD], Mx[k + pq.j * LD], tw, cs);
}

/// Row pair and column pair (pi < pj) of block t of the strict upper triangle of an NP x NP
/// grid of 2x2 blocks, numbered row by row; pi = -1 past the last block.
template <int NP> __device__ __forceinline__ core::IndexPair strict_upper_block(int t) {
    int pi = 0;
    while (pi < NP - 1 && t >= NP - 1 - pi) t -= NP - 1 - pi++;
    return pi < NP - 1 ? core::IndexPair{pi, pi + 1 + t} : core::IndexPair{-1, 0};
}

/// One pair (i < j) of an inner step of the eigensolver, as its rotation thread leaves it for
/// the others: the rotation and the pair's indices, so that no other thread recomputes the
/// ordering (one record of 32 bytes, 48 for complex double, read with vector loads).
template <class T> struct alignas(16) StepPair {
    T tw;
    core::real_of_t<T> cs;
    int i, j, on;
};

}  // namespace batchsvd::cuda::detail
