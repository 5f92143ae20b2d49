// The Jacobi rotation of one column pair on the GPU, from its Gram entries (squared norms a, b
// and dot product c: the warp kernel's columns, the blocked eigensolver's G), and its
// application: to two values (rotate_pair), to a row of two columns in memory, and to a 2x2
// block of a Hermitian G from both sides. Also the blocked eigensolver's step records, its
// 2x2-block grid and the access to the upper triangle of G it keeps.
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

/// One pair (i < j) of an inner step of the eigensolver, as its rotation lane leaves it for
/// the others (StepRecords below): the rotation and the pair's indices, so that no other thread
/// recomputes the ordering.
template <class T> struct StepPair {
    T tw;
    core::real_of_t<T> cs;
    int i, j, on;
};

/// Block (row pair, column pair) of the steps' 2x2-block grid that holds the entry of pair p of
/// the next step (core::round_robin_pair): slots p + 1 and w - p of a step are slots p and
/// w - 1 - p of the next, so it is (p - 1, p + 1), and (0, 1) and (NP - 2, NP - 1) at the ends.
/// The same NP blocks at every step (bench/NOTES.md, session 10).
template <int NP> __device__ __forceinline__ core::IndexPair next_pair_block(int p) {
    return p == 0 ? core::IndexPair{0, 1} : p == NP - 1 ? core::IndexPair{NP - 2, NP - 1} : core::IndexPair{p - 1, p + 1};
}
template <int NP> __device__ __forceinline__ bool is_next_pair_block(int pi, int pj) {
    return pj == pi + 2 || (pj == pi + 1 && (pi == 0 || pi == NP - 2));
}

/// Block t of the strict upper triangle of the NP x NP grid of 2x2 blocks without the
/// next-pair blocks, numbered row by row; pi = -1 past the last one.
template <int NP> __device__ __forceinline__ core::IndexPair other_upper_block(int t) {
    for (int pi = 0; pi < NP - 1; ++pi) {
        const int n = NP - 1 - pi - (pi + 2 < NP ? 1 : 0) - (pi == 0 || pi == NP - 2 ? 1 : 0);
        if (t >= n) {
            t -= n;
            continue;
        }
        for (int pj = pi + 1;; ++pj) {
            if (is_next_pair_block<NP>(pi, pj)) continue;
            if (t-- == 0) return {pi, pj};
        }
    }
    return {-1, 0};
}

/// The records of two consecutive inner steps (buffer = step parity) as arrays by field, so that
/// the threads of a warp reading the records of consecutive pairs read consecutive words:
/// twiddles, cosines, and indices with the rotate flag packed (i | j << 8 | on << 16).
template <class T, int NP> struct StepRecords {
    using R = core::real_of_t<T>;
    T* tw;
    R* cs;
    int* ij;
    __device__ static StepRecords at(void* base) {
        StepRecords r;
        r.tw = static_cast<T*>(base);
        r.cs = reinterpret_cast<R*>(r.tw + 2 * NP);
        r.ij = reinterpret_cast<int*>(r.cs + 2 * NP);
        return r;
    }
    static constexpr std::size_t kBytes = 2 * NP * (sizeof(T) + sizeof(R) + sizeof(int));
    __device__ void put(int buf, int p, const T& t, R c, int i, int j, bool on) const {
        tw[buf * NP + p] = t;
        cs[buf * NP + p] = c;
        ij[buf * NP + p] = i | j << 8 | int(on) << 16;
    }
    __device__ StepPair<T> get(int buf, int p) const {
        StepPair<T> r;
        r.tw = tw[buf * NP + p];
        r.cs = cs[buf * NP + p];
        const int k = ij[buf * NP + p];
        r.i = k & 0xff;
        r.j = (k >> 8) & 0xff;
        r.on = k >> 16;
        return r;
    }
};

/// Entry (x, y), x != y, of the Hermitian G of which the eigensolver keeps the strict upper
/// triangle only (ld LD), and its store.
template <class T, int LD> __device__ __forceinline__ T upper_load(const T* G, int x, int y) {
    return x < y ? G[x + y * LD] : core::conj_of(G[y + x * LD]);
}
template <class T, int LD> __device__ __forceinline__ void upper_store(T* G, int x, int y, const T& v) {
    if (x < y) G[x + y * LD] = v;
    else G[y + x * LD] = core::conj_of(v);
}

/// The 2x2 block of G at rows r.i, r.j and columns c.i, c.j (distinct pairs) rotated by both
/// pairs' rotations of the step (rotate_gram_block); returns its four new entries.
template <class T> struct Block2 {
    T g00, g01, g10, g11;
};
template <class T, int LD>
__device__ __forceinline__ Block2<T> rotate_upper_block(T* G, const StepPair<T>& r, const StepPair<T>& c) {
    Block2<T> g{upper_load<T, LD>(G, r.i, c.i), upper_load<T, LD>(G, r.i, c.j), upper_load<T, LD>(G, r.j, c.i),
                    upper_load<T, LD>(G, r.j, c.j)};
    if (r.on || c.on) {
        rotate_gram_block(g.g00, g.g01, g.g10, g.g11, r.on != 0, r.tw, r.cs, c.on != 0, c.tw, c.cs);
        upper_store<T, LD>(G, r.i, c.i, g.g00);
        upper_store<T, LD>(G, r.i, c.j, g.g01);
        upper_store<T, LD>(G, r.j, c.i, g.g10);
        upper_store<T, LD>(G, r.j, c.j, g.g11);
    }
    return g;
}

}  // namespace batchsvd::cuda::detail
