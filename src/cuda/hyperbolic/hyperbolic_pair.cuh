// SPDX-License-Identifier: BSD-3-Clause
// One pair's rotation in one-sided J-orthogonal Jacobi on the GPU (the hyperbolic SVD): the
// trigonometric rotation (gram_rotation) for columns of equal sign, the hyperbolic one
// (core::hyperbolic_rotation) for columns of opposite signs, both in the one record form the
// appliers take: for real types the SVD's three shears (a hyperbolic rotation is three
// shears too, below), for complex ones x' = cs (x + a1 y), y' = cs (y + a2 x).
#pragma once

#include "core/hyperbolic_rotation.hpp"
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

/// The records of the trigonometric rotation (twiddle tw, cosine cs) and of the hyperbolic one
/// (tw = th c / |c|, cosh ch). Real hyperbolic: x' = ch x + sh y, y' = sh x + ch y with
/// sh = ch tw is the product of the shears x += h y, y += sh x, x += h y for
/// h = sh / (1 + ch) = tanh(phi / 2) (|h| < 1), which apply_shears takes as -h.
template <class T> __device__ __forceinline__ SignedRecord<T> trig_record(const T& tw, core::real_of_t<T> cs) {
    using R = core::real_of_t<T>;
    if constexpr (core::is_complex_v<T>) return {core::scale(core::conj_of(tw), R(-1)), tw, cs};
    else return applied_rotation(tw, cs);
}
template <class T> __device__ __forceinline__ SignedRecord<T> hyperbolic_record(const T& tw, core::real_of_t<T> ch) {
    using R = core::real_of_t<T>;
    if constexpr (core::is_complex_v<T>) {
        return {core::conj_of(tw), tw, ch};
    } else {
        const R sh = tw * ch;
        return {-sh * core::full_reciprocal(R(1) + ch), sh};
    }
}
/// The identity in either form (a pair that does not rotate).
template <class T> __device__ __forceinline__ SignedRecord<T> identity_record() {
    using R = core::real_of_t<T>;
    if constexpr (core::is_complex_v<T>) return {T(R(0)), T(R(0)), R(1)};
    else return {R(0), R(0)};
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
    SignedRotation<T> r{identity_record<T>(), a, b, false, true, false};
    if (!mixed) {
        const GramRotation<T> g = gram_rotation<T>(a, b, c, tol);
        if (g.on) {
            r.up = trig_record(g.tw, g.cs);
            r.na = g.na;
            r.nb = g.nb;
            r.on = true;
            r.reliable = g.reliable;
        }
        return r;
    }
    const R absc = core::abs_of(c);
    if (!gram_pair_live(a, b, absc) || !core::needs_rotation(absc, a, b, tol)) return r;
    const core::HyperbolicRotation<R> h = core::hyperbolic_rotation(a, b, absc);
    if (!h.defined) {
        r.undefined = true;
        return r;
    }
    const T tw = core::rotation_twiddle(c, absc, h.th);
    r.up = hyperbolic_record(tw, h.ch);
    // The new squared norms a + th|c|, b + th|c| (th < 0) cancel when cosh is large: the
    // same eighth rule as the trigonometric tracking (core::rotate_norms) says when they are
    // summed again instead.
    const R d = h.th * absc;
    r.na = a + d;
    r.nb = b + d;
    r.on = true;
    r.reliable = r.na >= a * R(0.125) && r.nb >= b * R(0.125) && r.na > 0 && r.nb > 0;
    return r;
}

}  // namespace batchsvd::cuda::detail
