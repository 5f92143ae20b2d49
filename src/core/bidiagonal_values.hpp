// SPDX-License-Identifier: BSD-3-Clause
// Singular values of a real upper bidiagonal matrix B to high relative accuracy, by bisection
// on its Golub-Kahan tridiagonal TGK (Demmel & Kahan 1990, "Accurate singular values of
// bidiagonal matrices"; LAPACK ?bdsvdx bisects the same matrix through ?stebz). TGK is the
// 2n x 2n symmetric tridiagonal with zero diagonal and off-diagonal d1, e1, d2, e2, ..., dn,
// whose eigenvalues are +-sigma_i. Its Sturm count (the number of negative pivots of the LDL^T
// of TGK - x I) computed in floating point is the exact count of a TGK whose off-diagonal
// entries are perturbed by a few ulps each, relatively, and x exact: the diagonal is zero, so
// there is no diagonal entry to perturb absolutely. Relative perturbations of a bidiagonal's
// entries move every singular value, large or tiny, by a relative amount of the same order,
// so bisection on this count finds each singular value to a few ulps, relatively, however
// graded the matrix is (down to the underflow threshold of the scaled block).
//
// The matrix is split where a superdiagonal entry is exactly zero; 1 x 1 blocks give |d_i|
// exactly, and an unreduced block with an exactly zero diagonal entry is singular with exactly
// one zero singular value (its superdiagonal forms a nonsingular (m-1) x (m-1) triangle), which
// is set to 0 exactly. Each remaining block is scaled by a power of two (largest entry in
// [1/2, 1), exact) for its recurrence, which never squares an entry (q_i = -x - b (b / q_{i-1})),
// so that nothing overflows and no entry of a graded block is lost to underflow as b^2 would be.
// The blocks' values are merged by an insertion sort (no allocation, no recursion).
#pragma once

#include <cmath>

#include "core/host_device.hpp"
#include "core/precision.hpp"

namespace batchsvd::core {

namespace bidiagonal_detail {

/// Points counted per bisection step: 3 (the bracket quartered per pass). The three pivot
/// recurrences share the divider's pipeline: n = 256 double, random entries, 21 ms instead of
/// 33 ms with one point (7 points: 19 ms, 15: 40 ms; one AMD EPYC core, GCC 12 -O2, 2026).
inline constexpr int points = 3;

template <class R> struct range;
template <> struct range<float> {
    static constexpr float safe_min = 1.17549435082228750797e-38f;  // 2^-126, smallest normal
    static constexpr int max_pow2 = 127;                             // 2^127, largest power of two
};
template <> struct range<double> {
    static constexpr double safe_min = 2.2250738585072014e-308;  // 2^-1022
    static constexpr int max_pow2 = 1023;
};

/// Smallest pivot magnitude of the scaled recurrence (LAPACK dlaebz's pivmin): a pivot below it
/// is replaced by -pivmin, which moves the count's x by at most pivmin, absolutely. The scaled
/// entries are below 2 (below 1 unless the block's largest entry is 2^1023 or more), so
/// b (b / pivmin) < 2^(max_pow2 - 1): no overflow.
template <class R> BATCHSVD_HD R tgk_pivmin() { return 4 * range<R>::safe_min; }

/// One step of the pivot recurrence, b scaled.
template <class R> BATCHSVD_HD void tgk_step(R& q, int& neg, R b, R x, R pivmin) {
    q = -x - b * (b / q);
    if (!(std::fabs(q) >= pivmin)) q = -pivmin;
    neg += q < 0 ? 1 : 0;
}

/// c[p] = the number of singular values below x[p] (x[p] > 0, scaled units), p < P, of the
/// unreduced block of m rows: the negative pivots of TGK - x I, minus the m eigenvalues
/// -sigma_i < x. The P recurrences run interleaved: each is a chain of dependent divisions,
/// so P of them cost about as much time as one where the divider is pipelined.
template <int P, class R>
BATCHSVD_HD void tgk_counts_below(int m, const R* d, const R* e, R f, const R* x, int* c, R pivmin) {
    R q[P];
    int neg[P];
    for (int p = 0; p < P; ++p) {
        q[p] = x[p] >= pivmin ? -x[p] : -pivmin;  // q_1 = -x < 0
        neg[p] = 1;
    }
    for (int i = 0; i + 1 < m; ++i) {
        const R bd = d[i] * f, be = e[i] * f;
        for (int p = 0; p < P; ++p) {
            tgk_step(q[p], neg[p], bd, x[p], pivmin);
            tgk_step(q[p], neg[p], be, x[p], pivmin);
        }
    }
    const R bd = d[m - 1] * f;
    for (int p = 0; p < P; ++p) {
        tgk_step(q[p], neg[p], bd, x[p], pivmin);
        c[p] = neg[p] - m;
    }
}

/// The counts of tgk_counts_below, two pivots a division (the GPU's form): with t = q_j q_{j+1}
/// = -x q_j - d_i^2 (one fma), 1 / q_{j+1} = q_j / t gives q_{j+1}'s sign and size, and
/// q_{j+2} = -x - e_i (e_i / q_{j+1}) as before. Each step is still one rounding per operation
/// (fma's t is q_{j+1} q_j to one rounding), so the count is again the exact count of a TGK
/// with off-diagonal entries perturbed by a few ulps relatively (measured against a long
/// double reference: as close as the form above); what differs is the square d_i^2,
/// which underflows for entries below about the square root of the smallest normal (of the
/// scaled matrix): a value below about sqrt(smallest normal / u), relatively to the largest
/// entry, is only absolutely accurate. Half the divisions of the form above, which the GPU's divider bounds.
template <int P, class R>
BATCHSVD_HD void tgk_counts_below_paired(int m, const R* d, const R* e, R f, const R* x, int* c, R pivmin) {
    R q[P];
    int neg[P];
    for (int p = 0; p < P; ++p) {
        q[p] = x[p] >= pivmin ? -x[p] : -pivmin;  // q_1 = -x < 0
        neg[p] = 1;
    }
    const R inv_pivmin = R(1) / pivmin;  // a power of two
    for (int i = 0; i < m; ++i) {
        const R bd = d[i] * f, bd2 = bd * bd;
        const bool last = i + 1 == m;
        const R be = last ? R(0) : e[i] * f;
        for (int p = 0; p < P; ++p) {
            // 1 / q_{j+1} = q_j / t; q_{j+1} is -pivmin where |q_{j+1}| <= pivmin (t = 0
            // included): then 1 / q_{j+1} = -1 / pivmin. At most 1 / pivmin in magnitude, so
            // no intermediate below underflows where the result does not.
            R inv = q[p] / std::fma(-x[p], q[p], -bd2);
            const bool tiny = !(std::fabs(inv) < inv_pivmin);
            neg[p] += int(tiny | (inv < 0));
            if (last) continue;
            if (tiny) inv = -inv_pivmin;
            R qn = -x[p] - be * (be * inv);
            if (!(std::fabs(qn) >= pivmin)) qn = -pivmin;
            neg[p] += int(qn < 0);
            q[p] = qn;
        }
    }
    for (int p = 0; p < P; ++p) c[p] = neg[p] - m;
}

/// The P points of one bisection step, x[1..P] between x[0] = lo (or pivmin) and x[P + 1] = hi,
/// filled by midpoints: geometric means (they reach tiny values in O(log(log range)) steps)
/// while the bracket spans more than a factor 8, then arithmetic. False when the bracket is
/// done: within 2u relatively, below pivmin, or too narrow for its midpoint to fall inside.
template <int P, class R> BATCHSVD_HD bool split_bracket(R lo, R hi, R pivmin, R* x) {
    constexpr R u = precision<R>::unit_roundoff;
    if (hi - lo <= 2 * u * hi || hi <= pivmin) return false;
    x[0] = std::fmax(lo, pivmin);
    x[P + 1] = hi;
    const bool geometric = hi > 8 * x[0];
    if (!geometric) x[0] = lo;
    for (int step = (P + 1) / 2; step >= 1; step /= 2)
        for (int i = step; i <= P; i += 2 * step) {
            const R a = x[i - step], b = x[i + step];
            x[i] = geometric ? std::sqrt(a) * std::sqrt(b) : a + (b - a) / 2;
        }
    const R mid = x[(P + 1) / 2];
    return mid > lo && mid < hi;
}

/// The new bracket from the counts c[p] below x[p + 1]: the first point whose count exceeds
/// target (sigma >= x <=> count(x) <= target), and the one before.
template <int P, class R> BATCHSVD_HD void narrow_bracket(const R* x, const int* c, int target, R& lo, R& hi) {
    int j = 0;
    while (j < P && c[j] <= target) ++j;
    if (j > 0) lo = std::fmax(lo, x[j]);
    if (j < P) hi = std::fmin(hi, x[j + 1]);
}

/// s[0..n) in descending order: insertion sort (no allocation; the blocks' values come nearly
/// sorted, so about O(n)).
template <class R> BATCHSVD_HD void sort_descending(int n, R* s) {
    for (int i = 1; i < n; ++i) {
        const R v = s[i];
        int j = i;
        for (; j > 0 && s[j - 1] < v; --j) s[j] = s[j - 1];
        s[j] = v;
    }
}

}  // namespace bidiagonal_detail

/// Where the bisection of an n x n bidiagonal (or of one unreduced block of it) starts: the
/// power of two 2^k that scales its largest entry to [1/2, 1) (clamped to the normal powers of
/// two: a largest entry >= 2^max_pow2 lands in [1, 2), a subnormal one below 1/2), the
/// Gershgorin bound of its scaled TGK, and how many singular values are exactly zero (one for
/// each unreduced block with an exactly zero diagonal entry, 1 x 1 blocks included).
/// block_singular_values takes it of one block, bidiagonal_value_at of the whole matrix.
template <class R> struct BidiagonalBracket {
    int k = 0;
    R bound = 0;
    int zeros = 0;
};

template <class R> BATCHSVD_HD BidiagonalBracket<R> bidiagonal_bracket(int n, const R* d, const R* e) {
    BidiagonalBracket<R> b;
    R amax = 0;
    bool singular = false;  // the current unreduced block has a zero diagonal entry
    for (int i = 0; i < n; ++i) {
        amax = std::fmax(amax, std::fabs(d[i]));
        if (i + 1 < n) amax = std::fmax(amax, std::fabs(e[i]));
        singular = singular || d[i] == R(0);
        if (i + 1 == n || e[i] == R(0)) {  // the block ends at row i
            b.zeros += singular ? 1 : 0;
            singular = false;
        }
    }
    if (amax == R(0)) return b;
    int k = -(std::ilogb(amax) + 1);
    constexpr int top = bidiagonal_detail::range<R>::max_pow2;
    b.k = k > top ? top : k < -top ? -top : k;
    const R f = std::ldexp(R(1), b.k);
    R prev = 0;
    for (int i = 0; i < n; ++i) {
        const R bd = std::fabs(d[i]) * f;
        const R be = i + 1 < n ? std::fabs(e[i]) * f : R(0);
        b.bound = std::fmax(b.bound, std::fmax(prev + bd, bd + be));
        prev = be;
    }
    return b;
}

namespace bidiagonal_detail {

/// Values, descending up to ties within the final intervals, of the unreduced block of m >= 2
/// rows (e[0..m-1) nonzero), written to s[0..m); s also holds lower bounds meanwhile. Each step
/// counts at P = 2^L - 1 points splitting the bracket into P + 1 equal parts (geometrically
/// where it spans more than a factor 8), so a step narrows it by P + 1 for one pass.
template <int P, class R> BATCHSVD_HD void block_singular_values(int m, const R* d, const R* e, R* s) {
    static_assert(P >= 1 && ((P + 1) & P) == 0, "P = 2^L - 1");
    const R pivmin = tgk_pivmin<R>();
    // Scaled by 2^k so that the largest entry is in [1/2, 1); bound: Gershgorin on the scaled TGK.
    const BidiagonalBracket<R> br = bidiagonal_bracket<R>(m, d, e);
    const bool singular = br.zeros > 0;
    const int k = br.k;
    const R f = std::ldexp(R(1), k), bound = br.bound;
    for (int j = 0; j < m; ++j) s[j] = 0;  // lower bounds of the values not yet found
    const int found = singular ? m - 1 : m;  // a singular block's last value is exactly 0
    R hi_next = 2 * bound;                   // every value is below it
    for (int r = 0; r < found; ++r) {
        // sigma_r >= x  <=>  count(x) <= target
        const int target = m - 1 - r;
        R lo = s[r], hi = hi_next;
        hi_next = hi;  // an upper bound of sigma_{r+1}: the least x seen with count(x) >= target
        for (;;) {
            R x[P + 2];
            if (!split_bracket<P>(lo, hi, pivmin, x)) break;
            int c[P];
            tgk_counts_below<P>(m, d, e, f, x + 1, c, pivmin);
            narrow_bracket<P>(x, c, target, lo, hi);
            for (int p = 0; p < P; ++p) {
                const R xp = x[p + 1];
                if (c[p] >= target) hi_next = std::fmin(hi_next, xp);
                // sigma_i >= xp for i <= m - 1 - c: lower bounds of the later values
                // (nonincreasing in i, so the scan stops at the first that is already as large).
                for (int i = (c[p] < 0 ? m - 1 : m - 1 - c[p]); i > r && s[i] < xp; --i) s[i] = xp;
            }
        }
        s[r] = lo + (hi - lo) / 2;
    }
    if (singular) s[m - 1] = 0;
    for (int j = 0; j < m; ++j) s[j] = std::ldexp(s[j], -k);
}

}  // namespace bidiagonal_detail

/// Singular values, in descending order, of the n x n upper bidiagonal matrix with diagonal d[0..n)
/// and superdiagonal e[0..n-1) (real, any signs, finite), written to s[0..n). Each to a relative
/// accuracy of a few ulps (bisection until the interval is within 4u relative or below the
/// underflow threshold; exact zeros stay exact). No heap allocation, no recursion: usable in a
/// GPU thread. R: float or double.
///
/// Details: the bisection of each value stops when hi - lo <= 2u hi (the midpoint is then
/// within u of both ends) or hi <= 4 x (smallest normal) times 2^-k, where 2^k scales the
/// value's unreduced block to a largest entry in [1/2, 1); values below about that threshold
/// over u are only absolutely accurate, to that order. Each step counts at 3 points (the
/// bracket quartered); the counts of earlier values' steps narrow the brackets of later ones.
/// About 24 steps of O(n) per value (double): O(n^2) per matrix.
template <class R> BATCHSVD_HD void bidiagonal_singular_values(int n, const R* d, const R* e, R* s) {
    static_assert(sizeof(R) == 4 || sizeof(R) == 8, "R: float or double");
    if (n <= 0) return;
    int start = 0;
    for (int i = 0; i < n; ++i) {
        if (i + 1 < n && e[i] != R(0)) continue;
        const int m = i + 1 - start;  // the unreduced block of rows [start, i]
        if (m == 1) s[start] = std::fabs(d[start]);
        else bidiagonal_detail::block_singular_values<bidiagonal_detail::points>(m, d + start, e + start, s + start);
        start = i + 1;
    }
    // Merge the blocks' values (and ties a block left out of order).
    bidiagonal_detail::sort_descending(n, s);
}

/// The singular value of index r (0: the largest) of the n x n upper bidiagonal matrix (d, e),
/// alone, by bisection on the Sturm count of the whole matrix's TGK: the GPU's form, one
/// value a thread. The same steps, points and stopping rule as bidiagonal_singular_values,
/// with three differences: the count takes two pivots a division (tgk_counts_below_paired),
/// which squares the entries; the matrix is scaled as a whole (br.k) rather than block by
/// block, so a value below about the square root of (the underflow threshold over u), relatively
/// to the largest entry (double 1e-146, float 5e-16), is only absolutely accurate, to that
/// order; and an exact zero diagonal entry's zero value comes from br.zeros (the last br.zeros values are exactly 0), since the count of the unsplit
/// matrix sees it only to within the pivot threshold.
///
/// lo0 and hi0, where given, bracket the value in the scaled units of br (2^br.k times the
/// value): lo0 <= sigma_r <= hi0, from counts taken elsewhere (the GPU's first step counts at a
/// point a thread and shares them); by default [0, 2 br.bound].
template <int P, class R, bool Paired = true>
BATCHSVD_HD R bidiagonal_value_at(int n, const R* d, const R* e, int r, const BidiagonalBracket<R>& br, R lo0 = R(0),
                                  R hi0 = R(-1)) {
    static_assert(P >= 1 && ((P + 1) & P) == 0, "P = 2^L - 1");
    if (r >= n - br.zeros || br.bound == R(0)) return R(0);
    const R pivmin = bidiagonal_detail::tgk_pivmin<R>();
    const R f = std::ldexp(R(1), br.k);
    const int target = n - 1 - r;  // sigma_r >= x  <=>  count(x) <= target
    R lo = lo0, hi = hi0 < R(0) ? 2 * br.bound : hi0;
    for (;;) {
        R x[P + 2];
        if (!bidiagonal_detail::split_bracket<P>(lo, hi, pivmin, x)) break;
        int c[P];
        if constexpr (Paired) bidiagonal_detail::tgk_counts_below_paired<P>(n, d, e, f, x + 1, c, pivmin);
        else bidiagonal_detail::tgk_counts_below<P>(n, d, e, f, x + 1, c, pivmin);
        bidiagonal_detail::narrow_bracket<P>(x, c, target, lo, hi);
    }
    return std::ldexp(lo + (hi - lo) / 2, -br.k);
}

}  // namespace batchsvd::core
