// SPDX-License-Identifier: BSD-3-Clause
// One pair's rotation in one-sided J-orthogonal Jacobi on the GPU (the hyperbolic SVD): the
// trigonometric rotation for columns of equal sign, the hyperbolic one for columns of opposite
// signs (the device forms of core::jacobi_rotation and core::hyperbolic_rotation, computed
// together), both in the one record form the appliers take: for real types the SVD's three
// shears (x -= h y, y += s x, x -= h y), for complex ones x' = cs (x + a1 y), y' = cs (y + a2 x).
// A real hyperbolic rotation x' = ch x + sh y, y' = sh x + ch y is three shears too: x += h y,
// y += sh x, x += h y with h = sh / (1 + ch) = tanh(phi / 2), |h| < 1.
#pragma once

#include "cuda/common/pair_rotation.cuh"

namespace batchsvd::cuda::detail {

/// x' = cs (x + a1 y), y' = cs (y + a2 x): a trigonometric rotation has a1 = -conj(tw),
/// a2 = tw, cs its cosine (rotate_pair); a hyperbolic one a1 = conj(tw), a2 = tw, cs = cosh
/// (core/hyperbolic_rotation.hpp); a pair that does not rotate a1 = a2 = 0, cs = 1 (exactly the
/// identity). Aligned for one or two vector loads.
template <class T> struct alignas(16) ScaledPairUpdate {
    T a1, a2;
    core::real_of_t<T> cs;
};
template <class T>
__device__ __forceinline__ void apply_scaled_pair(T& x, T& y, const ScaledPairUpdate<T>& r) {
    const T xo = x;
    x = core::scale(core::axpy(r.a1, y, xo), r.cs);
    y = core::scale(core::axpy(r.a2, xo, y), r.cs);
}

/// The record of a pair's rotation: the SVD's shears (AppliedRotation) for real T, a
/// ScaledPairUpdate for complex T.
template <class T>
using SignedRecord = std::conditional_t<core::is_complex_v<T>, ScaledPairUpdate<T>, AppliedRotation<T>>;

/// Applies a SignedRecord to a pair of values.
template <class T> __device__ __forceinline__ void apply_signed(T& x, T& y, const SignedRecord<T>& r) {
    if constexpr (core::is_complex_v<T>) apply_scaled_pair(x, y, r);
    else core::apply_shears(x, y, r.a, r.b);
}

/// The identity in either form (a pair that does not rotate).
template <class T> __device__ __forceinline__ SignedRecord<T> identity_record() {
    using R = core::real_of_t<T>;
    if constexpr (core::is_complex_v<T>) return {T(R(0)), T(R(0)), R(1)};
    else return {R(0), R(0)};
}

/// The partition of a signature js (n entries) by one thread: source[q] the caller's column of
/// working column q, the columns with j = +1 first, then the others, each in input order.
/// Returns their count npos.
__device__ __forceinline__ int partition_signature(const int* js, int n, int* source) {
    int k = 0;
    for (int c = 0; c < n; ++c)
        if (js[c] > 0) source[k++] = c;
    const int npos = k;
    for (int c = 0; c < n; ++c)
        if (js[c] <= 0) source[k++] = c;
    return npos;
}

/// The rotation of a pair with squared norms a, b and c = x^H y, of opposite signs when `mixed`:
/// the record, the pair's new squared norms (a, b when it does not rotate), whether it rotates,
/// whether the new norms are accurate to a few ulps (else they are summed again), and whether
/// a hyperbolic rotation was needed and does not exist (info_no_hyperbolic_rotation).
template <class T> struct SignedRotation {
    using R = core::real_of_t<T>;
    SignedRecord<T> up;
    R na, nb;
    bool on, reliable, undefined;
};
template <class T>
__device__ __forceinline__ SignedRotation<T> signed_rotation(core::real_of_t<T> a, core::real_of_t<T> b, const T& c,
                                                             bool mixed, const core::Tolerance<core::real_of_t<T>>& tol) {
    using R = core::real_of_t<T>;
    // Both kinds by one instruction stream (selects, not branches): the lanes of a warp whose
    // pairs are of both kinds would otherwise run the two chains of roots and quotients one
    // after the other. Trigonometric: core::jacobi_rotation's device form (x = cot(2 phi) =
    // (b - a) / 2|c|, t = tan(phi), cs = 1 / sqrt(1 + t^2)); hyperbolic:
    // core::hyperbolic_rotation's (x = |coth(2 phi)| = (a + b) / 2|c|, t = |tanh(phi)|,
    // ch = 1 / sqrt((1 - t)(1 + t))). On stand-ins where the pair cannot rotate (a zero
    // column or product, as for padding: the FP64 slow paths of 0 / 0 and sqrt(0)). As in
    // jacobi_rotation's device form the angle is good to about 2^-39 in double and cs (ch) is
    // computed to rounding from the t used, so that the rotation stays orthogonal (J-unitary);
    // IEEE divisions and roots in the hyperbolic rotation made the float64 10000 x 32^2 HSVD
    // 1.58x the SVD's time against 1.38x (H100, 2026-11-28). |coth(2 phi)| within 2^-10 of 1
    // is recomputed by IEEE division for the test of `defined`.
    constexpr R eps = 2 * core::precision<R>::unit_roundoff;
    const R small = sqrt(eps), large = sqrt(2 / eps);
    const R absc = core::abs_of(c);
    const bool live = gram_pair_live(a, b, absc);
    const R sa = live ? a : R(1), sb = live ? b : R(2), sc = live ? absc : R(1);
    R x = core::fast_divide(mixed ? sa + sb : sb - sa, 2 * sc);
    if (mixed && x < R(1) + R(1) / R(1024)) x = (sa + sb) / (2 * sc);  // the test of `defined`, as the host's
    const bool undefined = mixed && !(x > 1 + 4 * eps);
    const R ax = fabs(x);
    const R q = mixed ? (undefined ? R(1) : (ax - 1) * (ax + 1)) : fma(x, x, R(1));
    const R act = ax >= large ? 2 * ax : (!mixed && ax < small) ? ax + 1 : ax + core::fast_sqrt(q);
    const R t = core::fast_reciprocal(act);                 // |tan(phi)| or |tanh(phi)|
    const R cs = act >= large ? R(1) : core::full_rsqrt(mixed ? (R(1) - t) * (R(1) + t) : fma(t, t, R(1)));
    const R ts = mixed ? -t : copysign(t, x);               // tan(phi), or th = tanh(phi) < 0
    SignedRotation<T> r{identity_record<T>(), a, b, false, true, false};
    if (!live || !core::needs_rotation(absc, sa, sb, tol)) return r;
    if (undefined) {
        r.undefined = true;
        return r;
    }
    const T tw = core::rotation_twiddle(c, absc, ts);
    if constexpr (core::is_complex_v<T>) {
        const T ctw = core::conj_of(tw);
        r.up = {mixed ? ctw : core::scale(ctw, R(-1)), tw, cs};
    } else {
        const R sn = tw * cs;                                // sin(phi), or sh = tw ch
        const R h = sn * core::full_reciprocal(R(1) + cs);  // tan(phi / 2), or tanh(phi / 2)
        r.up = {mixed ? -h : h, sn};
    }
    // The new squared norms: a - t|c|, b + t|c| (trigonometric), a + th|c|, b + th|c|
    // (hyperbolic); summed again when one fell below an eighth (core::rotate_norms' rule).
    const R d = ts * absc;
    r.na = a - (mixed ? -d : d);
    r.nb = b + d;
    r.on = true;
    r.reliable = !(r.na < a * R(0.125) || r.nb < b * R(0.125) || r.na <= 0 || r.nb <= 0);
    return r;
}

}  // namespace batchsvd::cuda::detail
