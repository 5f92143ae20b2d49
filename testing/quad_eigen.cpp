// SPDX-License-Identifier: BSD-3-Clause
// Cyclic two-sided Jacobi in binary128 for the reference eigenvalues of quad_eigen.hpp.
// Everything here is GCC's builtin __float128 and libgcc's soft-float routines; nothing from
// libquadmath (it is not installed everywhere), hence the own sqrt and complex type.
#include "testing/quad_eigen.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <vector>

#if !defined(__SIZEOF_FLOAT128__)
#error "testing/quad_eigen.cpp needs the __float128 type (GCC or Clang on x86-64)"
#endif

namespace batchsvd::testing {
namespace {

using quad = __float128;

/// A complex number as a pair of binary128 (std::complex<__float128> is unspecified, and its
/// operations would need libquadmath).
struct cquad {
    quad re, im;
};

quad qabs(quad x) { return x < 0 ? -x : x; }

/// sqrt in binary128: double's sqrt as the first guess (53 bits), then three Newton steps
/// (each doubles the correct bits: 106, then past binary128's 113). Values outside double's
/// range are first brought into it by even powers of two, which are exact and halve exactly.
quad qsqrt(quad v) {
    if (v != v) return v;                 // NaN
    if (v * 2 == v) return v;             // 0 and +inf (and -0)
    if (v < 0) return (v - v) / (v - v);  // NaN for negative finite values
    quad scale = 1;
    while (v > quad(0x1p1000)) { v *= quad(0x1p-1000); scale *= quad(0x1p500); }
    while (v < quad(0x1p-1000)) { v *= quad(0x1p1000); scale *= quad(0x1p-500); }
    quad x = std::sqrt(static_cast<double>(v));
    for (int i = 0; i < 3; ++i) x = (x + v / x) * quad(0.5);
    return x * scale;
}

// The element operations the sweep needs, for real (quad) and complex (cquad) entries.
quad conj(quad x) { return x; }
cquad conj(cquad x) { return {x.re, -x.im}; }
quad norm2(quad x) { return x * x; }
quad norm2(cquad x) { return x.re * x.re + x.im * x.im; }
quad scale(quad x, quad f) { return x * f; }
cquad scale(cquad x, quad f) { return {x.re * f, x.im * f}; }
bool finite(quad x) { return x - x == 0; }
bool finite(cquad x) { return finite(x.re) && finite(x.im); }
quad real_part(quad x) { return x; }
quad real_part(cquad x) { return x.re; }
void set_real(quad& e, quad x) { e = x; }
void set_real(cquad& e, quad x) { e = {x, 0}; }
/// c x - conj(s) y and s x + c y: one column pair of the rotation J = [c, s; -conj(s), c]
void rot(quad c, quad s, quad& x, quad& y) {
    const quad nx = c * x - s * y, ny = s * x + c * y;
    x = nx;
    y = ny;
}
void rot(quad c, cquad s, cquad& x, cquad& y) {
    const cquad nx{c * x.re - (s.re * y.re + s.im * y.im), c * x.im - (s.re * y.im - s.im * y.re)};
    const cquad ny{s.re * x.re - s.im * x.im + c * y.re, s.re * x.im + s.im * x.re + c * y.im};
    x = nx;
    y = ny;
}

template <class T> auto to_quad(const T& x) {
    if constexpr (std::is_floating_point_v<T>) return quad(x);
    else return cquad{quad(x.real()), quad(x.imag())};
}

/// Eigenvalues (unsorted) of the Hermitian matrix in w (n x n, column-major, both triangles),
/// which the sweeps overwrite.
template <class E> std::vector<quad> jacobi(index_t n, std::vector<E>& w) {
    // |a_pq| <= tol sqrt(|a_pp a_qq|) is tested squared (no sqrt per pair); the relative
    // form keeps the small eigenvalues of graded matrices accurate (Demmel-Veselic).
    const quad tol = quad(1e-33);
    const quad tol2 = tol * tol;
    const int max_sweeps = 60;
    auto at = [&](index_t i, index_t j) -> E& { return w[std::size_t(i + j * n)]; };
    bool converged = n <= 1;
    for (int sweep = 0; sweep < max_sweeps && !converged; ++sweep) {
        converged = true;
        for (index_t p = 0; p + 1 < n; ++p)
            for (index_t q = p + 1; q < n; ++q) {
                const E g = at(p, q);
                const quad g2 = norm2(g);
                const quad app = real_part(at(p, p)), aqq = real_part(at(q, q));
                // Already small enough (or zero): skipping it saves most of the late sweeps.
                if (g2 == 0 || g2 <= tol2 * qabs(app * aqq)) continue;
                converged = false;
                // Take the phase out, g = r e^{i phi}; then Rutishauser's real rotation.
                const quad r = qsqrt(g2);
                const quad theta = (aqq - app) / (2 * r);
                quad t;
                if (qabs(theta) > quad(1e100)) t = quad(0.5) / theta;  // (theta^2 could overflow; 1/(2 theta) is exact to 1e-200 here)
                else t = (theta < 0 ? -1 : 1) / (qabs(theta) + qsqrt(theta * theta + 1));
                const quad c = 1 / qsqrt(1 + t * t), s = t * c;
                // J = [c, sigma; -conj(sigma), c] with sigma = s e^{i phi}.
                const E sigma = scale(g, s / r);
                // Columns p and q of every other row; rows p and q are their conjugates, which
                // keeps the working copy exactly Hermitian.
                for (index_t k = 0; k < n; ++k) {
                    if (k == p || k == q) continue;
                    E& xp = at(k, p);
                    E& xq = at(k, q);
                    rot(c, sigma, xp, xq);
                    at(p, k) = conj(xp);
                    at(q, k) = conj(xq);
                }
                set_real(at(p, p), app - t * r);
                set_real(at(q, q), aqq + t * r);
                set_real(at(p, q), 0);
                set_real(at(q, p), 0);
            }
    }
    if (!converged) {
        std::fprintf(stderr,
                     "batchsvd::testing::reference_eigenvalues_quad: cyclic Jacobi did not converge in %d sweeps "
                     "(n = %lld); aborting rather than returning a wrong reference\n",
                     max_sweeps, static_cast<long long>(n));
        std::abort();
    }
    std::vector<quad> lambda(static_cast<std::size_t>(n));
    for (index_t i = 0; i < n; ++i) lambda[std::size_t(i)] = real_part(at(i, i));
    return lambda;
}

}  // namespace

template <class T>
std::vector<__float128> reference_eigenvalues_binary128(index_t n, const T* a, index_t lda) {
    if (n <= 0) return {};
    using E = decltype(to_quad(T{}));
    std::vector<E> w(std::size_t(n * n));
    for (index_t j = 0; j < n; ++j) {
        E d = to_quad(a[j + j * lda]);
        if constexpr (std::is_same_v<E, cquad>) d.im = 0;  // the diagonal's imaginary part is ignored
        w[std::size_t(j + j * n)] = d;
        for (index_t i = j + 1; i < n; ++i) {
            const E x = to_quad(a[i + j * lda]);
            w[std::size_t(i + j * n)] = x;
            w[std::size_t(j + i * n)] = conj(x);
        }
    }
    for (const E& x : w)
        if (!finite(x)) {
            std::fprintf(stderr, "batchsvd::testing::reference_eigenvalues_quad: non-finite input; aborting\n");
            std::abort();
        }
    std::vector<quad> lambda = jacobi(n, w);
    std::sort(lambda.begin(), lambda.end());
    return lambda;
}

template <class T> std::vector<long double> reference_eigenvalues_quad(index_t n, const T* a, index_t lda) {
    const std::vector<quad> q = reference_eigenvalues_binary128(n, a, lda);
    // (rounding is monotone, so the result stays sorted)
    return std::vector<long double>(q.begin(), q.end());
}

#define BATCHSVD_QUAD_EIGEN_INSTANTIATE(T)                                                          \
    template std::vector<long double> reference_eigenvalues_quad<T>(index_t, const T*, index_t); \
    template std::vector<__float128> reference_eigenvalues_binary128<T>(index_t, const T*, index_t);
BATCHSVD_QUAD_EIGEN_INSTANTIATE(float)
BATCHSVD_QUAD_EIGEN_INSTANTIATE(double)
BATCHSVD_QUAD_EIGEN_INSTANTIATE(std::complex<float>)
BATCHSVD_QUAD_EIGEN_INSTANTIATE(std::complex<double>)
#undef BATCHSVD_QUAD_EIGEN_INSTANTIATE

}  // namespace batchsvd::testing
