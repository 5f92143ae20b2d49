// SPDX-License-Identifier: BSD-3-Clause
// Scalar helpers that treat real and complex values alike. The complex overloads take any
// type with real(), imag() and a (re, im) constructor: std::complex on the CPU,
// cuda::std::complex in kernels.
#pragma once

#include <cmath>
#include <type_traits>

#include "core/host_device.hpp"

namespace batchsvd::core {

template <class T> struct is_complex : std::false_type {};
template <template <class> class C, class R>
struct is_complex<C<R>> : std::bool_constant<std::is_floating_point_v<R>> {};
template <class T> inline constexpr bool is_complex_v = is_complex<T>::value;

template <class T> struct real_of { using type = T; };
template <template <class> class C, class R> struct real_of<C<R>> { using type = R; };
template <class T> using real_of_t = typename real_of<T>::type;

template <class T> BATCHSVD_HD real_of_t<T> real_part(const T& x) {
    if constexpr (is_complex_v<T>) return x.real(); else return x;
}
template <class T> BATCHSVD_HD real_of_t<T> imag_part(const T& x) {
    if constexpr (is_complex_v<T>) return x.imag(); else return real_of_t<T>(0);
}
template <class T> BATCHSVD_HD T conj_of(const T& x) {
    if constexpr (is_complex_v<T>) return T(x.real(), -x.imag()); else return x;
}
/// |x|^2 without a square root
template <class T> BATCHSVD_HD real_of_t<T> abs2(const T& x) {
    if constexpr (is_complex_v<T>) return x.real() * x.real() + x.imag() * x.imag();
    else return x * x;
}
/// |x|, overflow-safe for complex
template <class T> BATCHSVD_HD real_of_t<T> abs_of(const T& x) {
    if constexpr (is_complex_v<T>) return std::hypot(x.real(), x.imag());
    else return std::fabs(x);
}
/// conj(x) * y accumulated: acc += conj(x) * y, with fma for real parts
template <class T> BATCHSVD_HD T fma_conj(const T& x, const T& y, const T& acc) {
    if constexpr (is_complex_v<T>) {
        using R = real_of_t<T>;
        R re = std::fma(x.real(), y.real(), std::fma(x.imag(), y.imag(), acc.real()));
        R im = std::fma(x.real(), y.imag(), std::fma(-x.imag(), y.real(), acc.imag()));
        return T(re, im);
    } else {
        return std::fma(x, y, acc);
    }
}
/// x * s for a real s
template <class T> BATCHSVD_HD T scale(const T& x, real_of_t<T> s) {
    if constexpr (is_complex_v<T>) return T(x.real() * s, x.imag() * s); else return x * s;
}
/// y + a * x (complex a, x, y), with fma
template <class T> BATCHSVD_HD T axpy(const T& a, const T& x, const T& y) {
    if constexpr (is_complex_v<T>) {
        using R = real_of_t<T>;
        R re = std::fma(a.real(), x.real(), std::fma(-a.imag(), x.imag(), y.real()));
        R im = std::fma(a.real(), x.imag(), std::fma(a.imag(), x.real(), y.imag()));
        return T(re, im);
    } else {
        return std::fma(a, x, y);
    }
}
template <class T> BATCHSVD_HD bool is_finite(const T& x) {
    if constexpr (is_complex_v<T>) return std::isfinite(x.real()) && std::isfinite(x.imag());
    else return std::isfinite(x);
}

}  // namespace batchsvd::core
