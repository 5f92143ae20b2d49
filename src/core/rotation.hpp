// SPDX-License-Identifier: BSD-3-Clause
// Jacobi rotation formulas shared by every backend.
//
// For a column pair (x, y) with Gram entries a = x^H x, b = y^H y, c = x^H y, the rotation
//     x' = cs * (x - conj(tw) * y),   y' = cs * (y + tw * x),   tw = t * c / |c|
// makes x' and y' orthogonal (abfasi, eqs. 6 and 9: the phase e^{i phi} of c is folded into
// tw, so complex pairs need one real rotation). The new squared norms are a - t|c| and
// b + t|c|. cs and t = tan(phi) follow Rutishauser's formulas in the fma form of the
// hierarchical-blocked paper (Novakovic, eqs. 15-18, trigonometric case, cosine by cs2),
// with its shortcuts that avoid squaring large cotangents.
#pragma once

#include <cmath>

#include "core/host_device.hpp"
#include "core/precision.hpp"
#include "core/scalar.hpp"

namespace batchsvd::core {

// ---- the rotations' arithmetic on the GPU ---------------------------------------------------
// The device's approximate reciprocal and reciprocal square root (one MUFU instruction each)
// refined by Newton steps, instead of the IEEE division and square root sequences (each a
// dozen dependent instructions with a special-case branch): every GPU kernel's steps wait on
// this chain (H100, 2026-11-24: 1-11% faster, same sweeps). In double the MUFU reads and
// writes only the high word of its operand and result, so it is the start of a refinement,
// not a result: rsqrt.approx.f64 is ptxas's MUFU, one third-order step and a branch to a
// subnormal slow path (in its SASS); here it is the .ftz form's bare MUFU and the same
// third-order step in code, without the branch (the arguments are sums 1 + x^2 and squared
// column norms, far above the subnormal range: negligible_norm). The accuracies quoted below
// are the ones the device test CudaRotationArithmetic measures on the GPU. On the host these
// are the exact operations.
#if defined(__CUDACC__)  // both nvcc passes: kernels outside the library (the device test) name them
template <class R> __device__ __forceinline__ R rcp_approx(R x) {
    R r;
    if constexpr (sizeof(R) == 8) asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
    else asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}
/// The bare MUFU 1 / sqrt(x): in double 2^-20 (the high word only), in float about an ulp.
template <class R> __device__ __forceinline__ R rsqrt_mufu(R x) {
    R y;
    if constexpr (sizeof(R) == 8) asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(x));
    else asm("rsqrt.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
/// 1 / sqrt(x): in double the MUFU and one third-order step y (1 + r / 2 + 3 r^2 / 8),
/// r = 1 - x y^2; in float the MUFU.
template <class R> __device__ __forceinline__ R rsqrt_approx(R x) {
    const R y = rsqrt_mufu(x);
    if constexpr (sizeof(R) == 8) {
        const R r = std::fma(x, -(y * y), R(1));
        return std::fma(std::fma(r, R(0.375), R(0.5)), y * r, y);
    } else {
        return y;
    }
}
#endif
/// 1 / x, x normal and positive, to about 2^-39 (double: one Newton step from the MUFU's
/// 2^-20) or an ulp (float).
template <class R> BATCHSVD_HD R fast_reciprocal(R x) {
#if defined(__CUDA_ARCH__)
    const R y = rcp_approx(x);
    return std::fma(y, std::fma(-x, y, R(1)), y);
#else
    return R(1) / x;
#endif
}
/// 1 / x, x normal and positive, to rounding (one more Newton step in double).
template <class R> BATCHSVD_HD R full_reciprocal(R x) {
#if defined(__CUDA_ARCH__)
    const R y = fast_reciprocal(x);
    return sizeof(R) == 8 ? std::fma(y, std::fma(-x, y, R(1)), y) : y;
#else
    return R(1) / x;
#endif
}
/// a / b, b normal: a times fast_reciprocal(b) on the GPU, the IEEE division on the host.
template <class R> BATCHSVD_HD R fast_divide(R a, R b) {
#if defined(__CUDA_ARCH__)
    return a * fast_reciprocal(b);
#else
    return a / b;
#endif
}
/// One Newton step for y ~ 1 / sqrt(x).
template <class R> BATCHSVD_HD R rsqrt_step(R x, R y) { return std::fma(y * R(0.5), std::fma(-x * y, y, R(1)), y); }
/// sqrt(x), x > 0, to an ulp or two on the GPU (double: the MUFU and the third-order step,
/// 2^-57 before the last rounding; float: one Newton step): for angles and tests.
template <class R> BATCHSVD_HD R fast_sqrt(R x) {
#if defined(__CUDA_ARCH__)
    return sizeof(R) == 8 ? x * rsqrt_approx(x) : x * rsqrt_step(x, rsqrt_approx(x));
#else
    return std::sqrt(x);
#endif
}
/// 1 / sqrt(x), x > 0, to rounding and without bias: for cosines. A product-form rotation
/// with cs^2 (1 + t^2) = 1 + d multiplies the area of its column pair by 1 + d, so a bias in d
/// adds up over every rotation of every column into V's column norms. A plain Newton step
/// (residual 1 - (x y) y, the product x y rounded first) leaves d = +0.45u on average in
/// double, +0.38u in float (a model with the hardware's first approximation); in double it
/// took 1000 x 256^2's e1 from 1.1e-16 to 9.0e-16 and e3 of 300 x 300 graded matrices past
/// 30u (the blocked path, H100, 2026-11-25; docs/paths/blocked.md). Here the step's residual
/// is computed from y^2 split exactly into p + e (fma), 1 - x p - x e, which leaves only the
/// final rounding: mean d within 0.02u in the model; the device test CudaRotationArithmetic
/// measures it.
template <class R> BATCHSVD_HD R full_rsqrt(R x) {
#if defined(__CUDA_ARCH__)
    const R y = rsqrt_approx(x);
    const R p = y * y, e = std::fma(y, y, -p);
    const R r = std::fma(-x, e, std::fma(-x, p, R(1)));
    return std::fma(y * R(0.5), r, y);
#else
    return R(1) / std::sqrt(x);
#endif
}

template <class R> struct Rotation {
    R cs;  ///< cos(phi)
    R t;   ///< tan(phi), signed
};

/// The rotation diagonalising [[a, c], [c, b]] by IEEE operations (eq. 15-18, cs2), on either
/// side: jacobi_rotation on the host, and on the device where the angle itself is used, not
/// only the rotation's orthogonality. The eigenvalues of a 2 x 2 pivot of the
/// J-factorisation, a - t c and b + t c, are exact only for the exact t; the device form's
/// t (to about 2^-39) left eigenvalues of graded matrices off by 1e-12 (H100, 2026-11-28).
template <class R> BATCHSVD_HD Rotation<R> jacobi_rotation_ieee(R a, R b, R c) {
    constexpr R eps = 2 * precision<R>::unit_roundoff;
    const R small = std::sqrt(eps);
    const R large = std::sqrt(2 / eps);
    const R ct2 = (b - a) / (2 * c);
    const R act2 = std::fabs(ct2);
    const R act = act2 >= large ? 2 * act2 : act2 < small ? act2 + 1 : act2 + std::sqrt(std::fma(ct2, ct2, R(1)));
    Rotation<R> r;
    r.t = std::copysign(R(1) / act, ct2);
    r.cs = act >= large ? R(1) : act * (R(1) / std::sqrt(std::fma(act, act, R(1))));
    return r;
}

/// Rotation diagonalising the real symmetric 2x2 [[a, c], [c, b]], a, b >= 0, c > 0.
/// On the GPU cot(2 phi), its root and t come from the refined approximations above, exact to
/// about 2^-39 in double, which changes the angle by as much and leaves the rotation
/// orthogonal, because cs is then computed to rounding from the t actually used
/// (cs^2 (1 + t^2) = 1). On the host: jacobi_rotation_ieee.
template <class R> BATCHSVD_HD Rotation<R> jacobi_rotation(R a, R b, R c) {
#if defined(__CUDA_ARCH__)
    constexpr R eps = 2 * precision<R>::unit_roundoff;  // machine epsilon
    // Thresholds of eq. 16's simplifications: sqrt(eps) and sqrt(2/eps), as exact constants.
    const R small = std::sqrt(eps);
    const R large = std::sqrt(2 / eps);
    const R ct2 = fast_divide(b - a, 2 * c);  // cot(2 phi), eq. 15
    const R act2 = std::fabs(ct2);
    R act;  // |cot(phi)|, eq. 16
    if (act2 >= large) {
        act = 2 * act2;
    } else if (act2 < small) {
        act = act2 + 1;
    } else {
        act = act2 + fast_sqrt(std::fma(ct2, ct2, R(1)));
    }
    Rotation<R> r;
    r.t = std::copysign(fast_reciprocal(act), ct2);  // eq. 17
    r.cs = act >= large ? R(1) : full_rsqrt(std::fma(r.t, r.t, R(1)));
    return r;
#else
    return jacobi_rotation_ieee(a, b, c);
#endif
}

/// The real rotation x' = cs (x - t y), y' = cs (y + t x) as three shears (Paeth):
///     x -= h y,   y += s x,   x -= h y,   s = t cs = sin(phi),   h = s / (1 + cs) = tan(phi / 2),
/// three FMAs in place where the product form takes two FMAs, two products and a temporary.
/// The composite is orthogonal when s = 2 h / (1 + h^2), which holds to rounding because cs
/// is exact to rounding for the t used (jacobi_rotation) and h is a full-precision quotient;
/// shears have determinant 1 whatever the rounding. t = 0, cs = 1 gives h = s = 0, the
/// identity exactly. (Complex rotations keep the product form: three complex FMAs cost the
/// same as it.)
template <class R> struct Shears {
    R h;  ///< tan(phi / 2)
    R s;  ///< sin(phi)
};
template <class R> BATCHSVD_HD Shears<R> rotation_shears(R t, R cs) {
    const R s = t * cs;
    return {s * full_reciprocal(R(1) + cs), s};
}
template <class R> BATCHSVD_HD void apply_shears(R& x, R& y, R h, R s) {
    x = std::fma(-h, y, x);
    y = std::fma(s, x, y);
    x = std::fma(-h, y, x);
}

/// tw = t * c / |c| of the pair update above (|c| > 0): the phase of c folded into the real
/// rotation. For real c that is t * sign(c), exactly (t keeps its own sign). The GPU kernels
/// share this; the CPU backend computes c * (t / |c|) on std::complex / real values.
template <class T, class R> BATCHSVD_HD T rotation_twiddle(const T& c, R abs_c, R t) {
    if constexpr (is_complex_v<T>) {
        const R f = t / abs_c;
        return T(c.real() * f, c.imag() * f);
    } else {
        return c < 0 ? -t : t;
    }
}

/// One-sided convergence test: the pair (i, j) needs a rotation when
/// |a_i^H a_j| > tol * ||a_i|| * ||a_j||  (abfasi Algorithm 2, line 11).
/// a and b are squared norms; their roots are taken separately so that a*b cannot overflow.
template <class R> BATCHSVD_HD bool needs_rotation(R abs_c, R a, R b, R tol) {
    return abs_c > tol * std::sqrt(a) * std::sqrt(b);
}

/// Thresholds of the Jacobi iteration on one matrix.
template <class R> struct Tolerance {
    R tol;         ///< k u: a pair is orthogonal when |a_i^H a_j| <= tol ||a_i|| ||a_j||
    R negligible;  ///< a column with norm <= this is rounding noise (negligible_norm)
};

/// Column norms at or below u^2 times the largest entry of the (scaled) matrix are rounding
/// noise: rank deficiency leaves such columns behind, their dot products are noise too, and
/// rotating against them can cycle for ever once they reach the underflow range. They are
/// skipped by the iteration and end as sigma = 0 with a completed orthonormal U column, an
/// error far below u ||A||.
template <class R> BATCHSVD_HD R negligible_norm(R max_abs_entry) {
    constexpr R u = precision<R>::unit_roundoff;
    return max_abs_entry * u * u;
}

/// The convergence test with the noise guard, on column norms (not squared).
template <class R> BATCHSVD_HD bool needs_rotation_norms(R abs_c, R ra, R rb, const Tolerance<R>& t) {
    return ra > t.negligible && rb > t.negligible && abs_c > t.tol * ra * rb;
}
/// The same on squared norms a, b (on the GPU roots to an ulp or two, fast_sqrt).
template <class R> BATCHSVD_HD bool needs_rotation(R abs_c, R a, R b, const Tolerance<R>& t) {
    return needs_rotation_norms(abs_c, fast_sqrt(a), fast_sqrt(b), t);
}

/// The convergence threshold k*u, whatever the column length m. LAPACK's gesvj raises it to
/// sqrt(m) eps for long columns, and so did this library before bd1a926, but the cosines
/// the sweeps leave between columns may then reach sqrt(m) u, and U's orthogonality error e2
/// (their mean over a column) followed: 30.1u at 8192 x 8192 float64 (geo, kappa 1e10; H100,
/// 2026-11-24). For nearly orthogonal columns the rounding error of the
/// computed dot product is about u |x| |y|, not sqrt(m) u (the partial sums stay small), so
/// k u with k = 30 still stops the sweeps (measured on the CPU up to 32768-row columns).
template <class R> BATCHSVD_HD R convergence_tolerance(double tol_factor) {
    return R(tol_factor * precision<R>::unit_roundoff);
}

/// Squared norms after the rotation: tracked instead of recomputed (W-cycle eq. 6).
/// The smaller one loses accuracy by cancellation when it drops far below its old value;
/// `reliable` says when it should be recomputed instead.
template <class R> struct TrackedNorms {
    R a, b;
    bool reliable;
};
template <class R> BATCHSVD_HD TrackedNorms<R> rotate_norms(R a, R b, R abs_c, R t) {
    const R tc = t * abs_c;
    TrackedNorms<R> r{a - tc, b + tc, true};
    // The rounding error of a - t|c| is about u * a; once a norm has fallen below an eighth
    // of its old value that error exceeds 8u relative, so it is recomputed instead.
    if (r.a < a * R(0.125) || r.b < b * R(0.125) || r.a <= 0 || r.b <= 0) r.reliable = false;
    return r;
}

}  // namespace batchsvd::core
