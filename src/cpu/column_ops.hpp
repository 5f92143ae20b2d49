// SPDX-License-Identifier: BSD-3-Clause
// Column kernels of the CPU backend: dot products, norms and the pair rotation, written as
// plain loops over real components so that the compiler vectorises them (std::complex
// multiplication would call the slow NaN-checking __muldc3).
#pragma once

#include <cmath>
#include <complex>
#include <limits>

#include "cpu/isa.hpp"
#include "batchsvd/batchsvd.hpp"
#include "core/precision.hpp"

BATCHSVD_CPU_BEGIN

template <class T> struct is_cplx : std::false_type {};
template <class R> struct is_cplx<std::complex<R>> : std::true_type {};

/// Width of the independent partial sums in the reductions below. Without reassociation the
/// compiler runs a single sum as one dependent chain (one fma latency per element); eight
/// partial sums vectorise and overlap, and their fixed order keeps results deterministic.
inline constexpr int kLanes = 8;

/// Sum of the partial sums, in a fixed pairwise order.
template <class R> R fold(R (&acc)[kLanes]) {
    for (int w = kLanes / 2; w > 0; w /= 2)
        for (int k = 0; k < w; ++k) acc[k] += acc[k + w];
    return acc[0];
}

/// x^H y over len entries
template <class T> T dot_conj(index_t len, const T* x, const T* y) {
    using R = real_t<T>;
    if constexpr (is_cplx<T>::value) {
        const R* xr = reinterpret_cast<const R*>(x);
        const R* yr = reinterpret_cast<const R*>(y);
        R re[kLanes] = {}, im[kLanes] = {};
        index_t i = 0;
        for (; i + kLanes <= len; i += kLanes)
            for (int k = 0; k < kLanes; ++k) {
                const R a = xr[2 * (i + k)], b = xr[2 * (i + k) + 1];
                const R c = yr[2 * (i + k)], d = yr[2 * (i + k) + 1];
                re[k] += a * c + b * d;
                im[k] += a * d - b * c;
            }
        for (; i < len; ++i) {
            re[0] += xr[2 * i] * yr[2 * i] + xr[2 * i + 1] * yr[2 * i + 1];
            im[0] += xr[2 * i] * yr[2 * i + 1] - xr[2 * i + 1] * yr[2 * i];
        }
        return T(fold(re), fold(im));
    } else {
        R acc[kLanes] = {};
        index_t i = 0;
        for (; i + kLanes <= len; i += kLanes)
            for (int k = 0; k < kLanes; ++k) acc[k] += x[i + k] * y[i + k];
        for (; i < len; ++i) acc[0] += x[i] * y[i];
        return fold(acc);
    }
}

/// ||x||^2 (the matrix is pre-scaled so that this neither overflows nor underflows)
template <class T> real_t<T> norm_sq(index_t len, const T* x) {
    using R = real_t<T>;
    const R* xr = reinterpret_cast<const R*>(x);
    const index_t n = is_cplx<T>::value ? 2 * len : len;
    return dot_conj<R>(n, xr, xr);  // the real components' dot product with themselves
}

/// x <- k (x + sg conj(tw) y),  y <- k (y + tw x), sg = -1 or +1: a trigonometric rotation
/// (core/rotation.hpp's pair update, k = cs) or a hyperbolic one (core/hyperbolic_rotation.hpp's,
/// k = ch). (In real arithmetic: std::complex products do not vectorise, each checks for NaN.)
template <int Sg, class T> void pair_update(index_t len, T* x, T* y, real_t<T> k, T tw) {
    static_assert(Sg == 1 || Sg == -1);
    using R = real_t<T>;
    auto add = [](R u, R v) { if constexpr (Sg > 0) return u + v; else return u - v; };
    if constexpr (is_cplx<T>::value) {
        R* xr = reinterpret_cast<R*>(x);
        R* yr = reinterpret_cast<R*>(y);
        const R a = tw.real(), b = tw.imag();
        for (index_t i = 0; i < len; ++i) {
            const R x0 = xr[2 * i], x1 = xr[2 * i + 1], y0 = yr[2 * i], y1 = yr[2 * i + 1];
            // conj(tw) * y = (a y0 + b y1) + i (a y1 - b y0);  tw * x = (a x0 - b x1) + i (a x1 + b x0)
            xr[2 * i] = k * add(x0, a * y0 + b * y1);
            xr[2 * i + 1] = k * add(x1, a * y1 - b * y0);
            yr[2 * i] = k * (y0 + (a * x0 - b * x1));
            yr[2 * i + 1] = k * (y1 + (a * x1 + b * x0));
        }
    } else {
        for (index_t i = 0; i < len; ++i) {
            const R x0 = x[i], y0 = y[i];
            x[i] = k * add(x0, tw * y0);
            y[i] = k * (y0 + tw * x0);
        }
    }
}

/// x <- cs (x - conj(tw) y),  y <- cs (y + tw x)   (core/rotation.hpp's pair update)
template <class T> void rotate_pair(index_t len, T* x, T* y, real_t<T> cs, T tw) { pair_update<-1>(len, x, y, cs, tw); }

/// x <- x * s for a real s
template <class T> void scale_col(index_t len, T* x, real_t<T> s) {
    using R = real_t<T>;
    R* xr = reinterpret_cast<R*>(x);
    const index_t n = is_cplx<T>::value ? 2 * len : len;
    for (index_t i = 0; i < n; ++i) xr[i] *= s;
}

/// Every entry of X (rows x cols, ld) NaN (the outputs of a matrix with a bad status).
template <class T> void fill_nan(index_t rows, index_t cols, T* x, index_t ld) {
    if (!x) return;
    const real_t<T> q = std::numeric_limits<real_t<T>>::quiet_NaN();
    T nan;
    if constexpr (is_cplx<T>::value) nan = T(q, q); else nan = q;
    for (index_t j = 0; j < cols; ++j)
        for (index_t i = 0; i < rows; ++i) x[i + j * ld] = nan;
}

/// The power of two that brings a matrix of largest magnitude maxabs into the range where sums
/// of squares neither overflow nor underflow (0: none needed). Exact; undone on S at the end.
template <class R> int scale_exponent(R maxabs) {
    const int hi = core::precision<R>::scale_exp, lo = core::precision<R>::scale_exp_low;
    if (maxabs > std::ldexp(R(1), hi) || (maxabs > 0 && maxabs < std::ldexp(R(1), -lo))) return -std::ilogb(maxabs);
    return 0;
}

BATCHSVD_CPU_END
