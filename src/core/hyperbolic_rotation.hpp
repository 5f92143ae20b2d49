// SPDX-License-Identifier: BSD-3-Clause
// The hyperbolic rotation of one-sided J-orthogonal Jacobi (the hyperbolic SVD), the
// counterpart of core::jacobi_rotation for a column pair of opposite signs.
//
// For columns (x, y) with j_x = -j_y and Gram entries a = x^H x, b = y^H y, c = x^H y, the
// J-unitary transformation
//     x' = ch * (x + conj(tw) * y),   y' = ch * (y + tw * x),   tw = th * c / |c|
// makes x' and y' orthogonal when th = tanh(phi) solves tanh(2 phi) = -2|c| / (a + b); its
// matrix ch [[1, tw], [conj(tw), 1]] satisfies R^H diag(1, -1) R = diag(1, -1) because
// ch^2 (1 - th^2) = 1. The new squared norms are a + th|c| and b + th|c| (th < 0): both fall,
// their difference a - b stays, their product becomes ab - |c|^2.
//
// th and ch follow the hierarchical-blocked paper (Novakovic, eqs. 15-18 with t = -1, the
// cosine by cs2, as the trigonometric rotation does), with its shortcut for a large
// |coth(2 phi)|: coth(2 phi) = -(a + b) / (2|c|), |coth(phi)| = |coth(2 phi)| +
// sqrt(coth(2 phi)^2 - 1), th = sign(coth(2 phi)) / |coth(phi)|, ch = |coth(phi)| /
// sqrt(coth(phi)^2 - 1). Since |c| <= sqrt(ab) <= (a + b) / 2, |coth(2 phi)| >= 1 in exact
// arithmetic, with equality only for parallel columns of equal norms, where G J G^H loses rank
// and no rotation exists. Where the paper substitutes 5/4 for a |coth(2 phi)| that rounds to
// 1, this library reports the pair instead (info_no_hyperbolic_rotation): within a few
// roundings of 1 the rotation's cosh exceeds 1 / sqrt(8u), and V's condition number, which
// bounds the relative accuracy of the result (the paper's Proposition 4.4 reference), with it.
#pragma once

#include <cmath>

#include "core/host_device.hpp"
#include "core/precision.hpp"

namespace batchsvd::core {

template <class R> struct HyperbolicRotation {
    R ch;          ///< cosh(phi) >= 1
    R th;          ///< tanh(phi), in (-1, 0]
    bool defined;  ///< false: |coth(2 phi)| is within 4 roundings of 1 (no usable rotation)
};

/// Rotation orthogonalising columns of opposite signs with squared norms a, b and |x^H y| = c > 0.
template <class R> BATCHSVD_HD HyperbolicRotation<R> hyperbolic_rotation(R a, R b, R c) {
    constexpr R eps = 2 * precision<R>::unit_roundoff;
    const R large = std::sqrt(2 / eps);
    const R act2 = (a + b) / (2 * c);  // |coth(2 phi)|, eq. 15 (coth(2 phi) itself is negative)
    HyperbolicRotation<R> r{R(1), R(0), true};
    if (!(act2 > 1 + 4 * eps)) {
        r.defined = false;
        return r;
    }
    R act;  // |coth(phi)|, eq. 16
    if (act2 >= large) act = 2 * act2;
    else act = act2 + std::sqrt((act2 - 1) * (act2 + 1));  // fma(ct2, ct2, -1) without its cancellation
    r.th = -1 / act;  // eq. 17
    // eq. 18, cs2: |coth(phi)| / sqrt(coth(phi)^2 - 1), with coth(phi)^2 - 1 as (act - 1)(act + 1)
    r.ch = act >= large ? R(1) : act / std::sqrt((act - 1) * (act + 1));
    return r;
}

}  // namespace batchsvd::core
