// SPDX-License-Identifier: BSD-3-Clause
// Singular values of a real upper bidiagonal matrix by the dqds algorithm (Fernando & Parlett
// 1994, "Accurate singular values and differential qd algorithms"; Parlett & Marques 2000, "An
// implementation of the dqds algorithm (positive case)"; LAPACK ?lasq1-?lasq6 implement it).
// One thread, O(n^2): about 3.5 n^2 divisions a matrix on random bidiagonals (6 to 9
// transforms a value, as LAPACK's dlasq1 takes), where the bisection of
// bidiagonal_values.hpp takes some 50 counts of n divisions a value. Always in double
// arithmetic (float matrices too), and a block whose values span more than double's squares
// can hold goes to the bisection (kTrustedRangeExp).
//
// The qd array holds q_i = d_i^2 and e_i = e_i^2 (of the block scaled by a power of two) and
// represents B^T B = L U; a dqds transform with shift tau < lambda_min gives the qd array of
// B^T B - tau I, every quantity positive, so that each eigenvalue is kept to high relative
// accuracy (mixed stability, Fernando & Parlett). Eigenvalues deflate at the bottom as in
// ?lasq3 (one, or the two of the trailing 2 x 2 block, when the superdiagonal above them is
// below tol^2 = (100 eps)^2 of their size or of the entry above), to lambda = q + sigma, sigma the
// accumulated shift. What differs from LAPACK: one qd array and its transform's (no
// ping-pong layout), a flip of the block at the start only, and a shorter shift strategy:
// ?lasq4's case 4 (the Rayleigh quotient residual bound, where the transform's smallest d is its
// last) for every deflation count up to two, a quarter of the smallest d otherwise (growing
// towards it while no better estimate comes), no shift after more than two deflations; a
// failed transform (a d < 0) is retried with the shift less the failing d where only the last
// failed, else a quarter of the shift, and after two failures with none (dqd never fails on a
// positive array). A block with an exactly zero diagonal entry, or one that does not converge
// within 32 transforms a row, goes to the bisection (exact zeros, same relative accuracy).
#pragma once

#include <cmath>

#include "core/bidiagonal_values.hpp"
#include "core/host_device.hpp"
#include "core/precision.hpp"

namespace batchsvd::core {

namespace dqds_detail {

/// An array of doubles `stride` apart: the GPU keeps the work of a warp's matrices
/// interleaved (matrix b's entry i at b + i * batch), so that threads at the same step of
/// their transforms read consecutive addresses.
struct Strided {
    double* p;
    int stride;
    BATCHSVD_HD double& operator[](int i) const { return p[(long long)i * stride]; }
};

/// The power of two, 2^485, that a block's largest entry is scaled to (?lasq1's
/// sqrt(eps / safe minimum) in double, sqrt(2^-52 / 2^-1022)): its square is far from
/// overflow, and the entries down to about 2^-996 of the largest stay normal when squared.
inline constexpr int kScaleExp = 485;

/// What a transform leaves for the next shift: the smallest d and the last d of the array, and
/// of the array without its last one and two entries (for after a deflation: the d's of a
/// leading part are the part's own).
template <class R> struct TransformStats {
    R dmin[3];
    R dn[3];
};

/// One dqds transform of the qd array (q, e) of rows [0, n0] into (qq, ee) with shift tau.
/// False (the output incomplete) where a d comes out negative or a q-hat not positive.
/// failed_last: the first failure is at the last d (every other positive), which is then dlast.
template <class R>
BATCHSVD_HD bool transform(int n0, Strided q, Strided e, Strided qq, Strided ee, R tau, TransformStats<R>& st,
                           bool& failed_last, R& dlast) {
    failed_last = false;
    R d = q[0] - tau;
    if (!(d >= R(0))) return false;
    R dmin = d;
    // The next step's q and e are read a step ahead (two ahead of their use for q, e's pair),
    // off the chain of divisions: on the GPU they come from L2.
    R qa = q[1], ea = e[0], qb = n0 > 1 ? q[2] : R(0), eb = n0 > 1 ? e[1] : R(0);
    for (int j = 0; j < n0; ++j) {
        if (j == n0 - 2) { st.dmin[2] = dmin; st.dn[2] = d; }
        if (j == n0 - 1) { st.dmin[1] = dmin; st.dn[1] = d; }
        const R qj1 = qa, ej = ea;
        qa = qb;
        ea = eb;
        if (j + 2 < n0) {
            qb = q[j + 3];
            eb = e[j + 2];
        }
        const R qh = d + ej;
        if (!(qh > R(0))) return false;
        const R t = qj1 / qh;
        qq[j] = qh;
        ee[j] = ej * t;
        d = d * t - tau;
        if (!(d >= R(0))) {
            failed_last = j + 1 == n0 && d < R(0);
            dlast = d;
            return false;
        }
        dmin = d < dmin ? d : dmin;
    }
    qq[n0] = d;
    st.dmin[0] = dmin;
    st.dn[0] = d;
    return true;
}

/// ?lasq4's case 4, the smallest d the last one (gam): the Rayleigh quotient residual bound from
/// the products of e_j / q_j up the array, below gam.
template <class R> BATCHSVD_HD R rayleigh_shift(int n0, Strided q, Strided e, R gam) {
    constexpr R cnst1 = R(0.563), cnst3 = R(1.05);
    R b2 = e[n0 - 1] / q[n0 - 1], a2 = b2;
    for (int j = n0 - 2; j >= 0; --j) {
        const R b1 = b2;
        b2 = b2 * (e[j] / q[j]);
        a2 += b2;
        if (R(100) * (b2 > b1 ? b2 : b1) < a2 || cnst1 < a2) break;
    }
    a2 *= cnst3;
    return a2 < cnst1 ? gam * (R(1) - std::sqrt(a2)) / (R(1) + a2) : R(0.25) * gam;
}

/// The eigenvalues of the 2 x 2 qd block (a, b, c) (sum a + b + c, product a c), larger first, as ?lasq3.
template <class R> BATCHSVD_HD void deflate_two(R a, R b, R c, R tol2, R& hi, R& lo) {
    if (c > a) { const R x = a; a = c; c = x; }
    R t = R(0.5) * ((a - c) + b);
    if (b > c * tol2 && t != R(0)) {
        R s = c * (b / t);
        s = s <= t ? c * (b / (t * (R(1) + std::sqrt(R(1) + s / t)))) : c * (b / (t + std::sqrt(t) * std::sqrt(t + s)));
        t = a + (s + b);
        c = c * (a / t);
        a = t;
    }
    hi = a;
    lo = c;
}

/// Where a block's dqds is not trusted: its smallest eigenvalue (scaled) below 2^-900 of the
/// largest, about (2^-450)^2 in singular values. A transform divides q's, so a ratio of them
/// below the smallest normal (2^-1022) underflows, and the block's smallest values are then
/// lost at about that level (float arithmetic, 2^-126: the values of a float bidiagonal of
/// 0.29 and 2.7e-24 gave 1e-19 for the smaller); 2^-900 leaves a margin of 2^122 above it.
inline constexpr int kTrustedRangeExp = 900;

/// dqds on one unreduced block of m >= 2 rows (e[0..m-1) nonzero, d nonzero), in double
/// arithmetic whatever R (float's range would confine it to values above about 2^-60 of the
/// largest; in double every float value is within kTrustedRangeExp): its values into
/// s[0..m), in no particular order. work: 5m doubles. Returns the number of transforms, or -1
/// where the block did not converge or its values span more than kTrustedRangeExp (s then undefined).
template <class Rin> BATCHSVD_HD int block_values(int m, const Rin* d, const Rin* e, Rin* s, double* work, int ws) {
    using R = double;
    constexpr R eps = 2 * precision<R>::unit_roundoff, tol = 100 * eps, tol2 = tol * tol;
    R amax = 0;
    for (int i = 0; i < m; ++i) {
        amax = std::fmax(amax, std::fabs(d[i]));
        if (i + 1 < m) amax = std::fmax(amax, std::fabs(e[i]));
    }
    const int k = kScaleExp - (std::ilogb(amax) + 1);
    const long long block = (long long)m * ws;
    Strided q{work, ws}, ee{work + block, ws}, q2{work + 2 * block, ws}, e2{work + 3 * block, ws};
    const Strided w{work + 4 * block, ws};  // the eigenvalues of B^T B (scaled), as they deflate
    // Largest eigenvalues at the top (?lasq2's flip): the reversed bidiagonal has the same values.
    const R first = std::ldexp(R(std::fabs(d[0])), k), last = std::ldexp(R(std::fabs(d[m - 1])), k);
    const bool flip = R(1.5) * first * first < last * last;
    R qmax = 0;
    for (int i = 0; i < m; ++i) {
        const R x = std::ldexp(R(std::fabs(d[flip ? m - 1 - i : i])), k);
        q[i] = x * x;
        if (i + 1 < m) {
            const R y = std::ldexp(R(std::fabs(e[flip ? m - 2 - i : i])), k);
            ee[i] = y * y;
        }
        qmax = std::fmax(qmax, q[i] + (i + 1 < m ? ee[i] : R(0)) + (i > 0 ? ee[i - 1] : R(0)));
    }
    int n0 = m - 1, deflated = 0, transforms = 0, blind = 0;
    R sigma = 0, g = R(0.25);
    TransformStats<R> st{};
    bool have_stats = false;
    const int limit = 32 * m;
    for (;;) {
        // Deflation at the bottom: one value, or the two of the trailing 2 x 2 block.
        for (;;) {
            if (n0 < 0) break;
            if (n0 == 0) {
                w[0] = q[0] + sigma;
                n0 = -1;
                break;
            }
            // (q2, e2: the last transform's input, as ?lasq3's other half of the ping-pong array)
            const R en = ee[n0 - 1];
            if (en <= tol2 * (sigma + q[n0]) || (have_stats && e2[n0 - 1] <= tol2 * q[n0 - 1])) {
                w[n0] = q[n0] + sigma;
                --n0;
                ++deflated;
                continue;
            }
            if (n0 == 1 || ee[n0 - 2] <= tol2 * sigma || (have_stats && e2[n0 - 2] <= tol2 * q[n0 - 2])) {
                R hi, lo;
                deflate_two(q[n0 - 1], en, q[n0], tol2, hi, lo);
                w[n0 - 1] = hi + sigma;
                w[n0] = lo + sigma;
                n0 -= 2;
                deflated += 2;
                continue;
            }
            break;
        }
        if (n0 < 0) break;
        if (transforms >= limit) return -1;
        // The shift, from the last transform's d's of what is left (n0 >= 2 here).
        R tau = 0;
        if (have_stats && deflated <= 2) {
            const R dmin = st.dmin[deflated], dn = st.dn[deflated];
            if (dmin == dn && dn > R(0)) {
                tau = rayleigh_shift(n0, q, ee, dn);
                blind = 0;
            } else {
                g = blind > 0 ? g + (R(1) - g) / R(3) : R(0.25);
                ++blind;
                tau = g * dmin;
            }
        }
        // The transform; a failure leaves (q, ee) intact, to retry with a smaller shift.
        for (int fails = 0;; ++fails) {
            bool failed_last = false;
            R dlast = 0;
            if (transform(n0, q, ee, q2, e2, tau, st, failed_last, dlast)) break;
            if (tau == R(0)) return -1;  // only where an underflow made a positive array singular
            if (fails >= 2) tau = 0;
            else if (failed_last && tau + dlast > R(0)) tau = (tau + dlast) * (R(1) - 2 * eps);
            else tau *= R(0.25);
            ++transforms;
        }
        Strided t = q;
        q = q2;
        q2 = t;
        t = ee;
        ee = e2;
        e2 = t;
        sigma += tau;
        have_stats = true;
        deflated = 0;
        ++transforms;
    }
    // (the values in double, in s's type: scaled back first, so that a float result is rounded once)
    const R lmin = std::ldexp(qmax, -kTrustedRangeExp);
    for (int i = 0; i < m; ++i) {
        const R lambda = w[i];
        if (!(lambda >= lmin)) return -1;
        s[i] = Rin(std::ldexp(std::sqrt(lambda), -k));
    }
    return transforms;
}

}  // namespace dqds_detail

/// Singular values, in descending order, of the n x n upper bidiagonal matrix with diagonal
/// d[0..n) and superdiagonal e[0..n-1) (real, finite, any signs), written to s[0..n), by dqds:
/// each to high relative accuracy (a few ulps for every value down to about 2^-1000 (double) or
/// 2^-100 (float) times the largest entry, below which the squares of the entries underflow).
/// The matrix is split where e is exactly zero; 1 x 1 blocks give |d_i| exactly; a block with
/// an exactly zero diagonal entry, or one whose dqds does not converge, takes the bisection
/// (bidiagonal_values.hpp). work: 5n doubles (dqds runs in double for float matrices too),
/// work_stride apart (the GPU interleaves the work of a warp's matrices).
/// Returns the number of dqds transforms. No heap allocation, no recursion: usable in a GPU thread.
template <class R>
BATCHSVD_HD int bidiagonal_singular_values_dqds(int n, const R* d, const R* e, R* s, double* work, int work_stride = 1) {
    static_assert(sizeof(R) == 4 || sizeof(R) == 8, "R: float or double");
    int transforms = 0, start = 0;
    bool zero = false;
    for (int i = 0; i < n; ++i) {
        zero = zero || d[i] == R(0);
        if (i + 1 < n && e[i] != R(0)) continue;
        const int m = i + 1 - start;  // the unreduced block of rows [start, i]
        if (m == 1) {
            s[start] = std::fabs(d[start]);
        } else {
            const int t = zero ? -1 : dqds_detail::block_values(m, d + start, e + start, s + start, work, work_stride);
            if (t < 0)
                bidiagonal_detail::block_singular_values<bidiagonal_detail::points>(m, d + start, e + start, s + start);
            else transforms += t;
        }
        start = i + 1;
        zero = false;
    }
    bidiagonal_detail::sort_descending(n, s);
    return transforms;
}

}  // namespace batchsvd::core
