// SPDX-License-Identifier: BSD-3-Clause
// Accuracy measures e1-e4 (see error_measures.hpp), accumulated in a wider type than T.
#include "testing/error_measures.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "testing/lapack.hpp"

namespace batchsvd::testing {
namespace {

/// complex conjugate that keeps real types real (std::conj would return a complex)
template <class X> X cj(const X& x) {
    if constexpr (std::is_floating_point_v<X>) return x; else return std::conj(x);
}

template <class T> constexpr bool is_cplx_v = !std::is_same_v<T, real_t<T>>;
/// the wider real type the measures are computed in
template <class R> using wide_real_t = std::conditional_t<std::is_same_v<R, float>, double, long double>;
template <class T>
using wide_t = std::conditional_t<is_cplx_v<T>, std::complex<wide_real_t<real_t<T>>>, wide_real_t<real_t<T>>>;

template <class W, class T> W widen(const T& x) {
    if constexpr (is_cplx_v<T>) return W(x.real(), x.imag()); else return W(x);
}

double nan_max(double a, double b) { return (std::isnan(a) || std::isnan(b)) ? std::numeric_limits<double>::quiet_NaN() : std::max(a, b); }

/// ||I - Q^H Q||_1 for Q rows x k
template <class T> double orthogonality(index_t rows, index_t k, const T* q, index_t ldq) {
    using W = wide_t<T>;
    using WR = wide_real_t<real_t<T>>;
    WR worst = 0;
    bool nan = false;
    for (index_t j = 0; j < k; ++j) {
        WR col = 0;
        for (index_t i = 0; i < k; ++i) {
            W acc = i == j ? W(1) : W(0);
            for (index_t r = 0; r < rows; ++r)
                acc -= cj(widen<W>(q[r + i * ldq])) * widen<W>(q[r + j * ldq]);
            col += std::abs(acc);
        }
        nan = nan || std::isnan(static_cast<double>(col));
        worst = std::max(worst, col);
    }
    return nan ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(worst);
}

}  // namespace

void Errors::merge(const Errors& o) {
    e1 = nan_max(e1, o.e1);
    e2 = nan_max(e2, o.e2);
    e3 = nan_max(e3, o.e3);
    e4 = nan_max(e4, o.e4);
    sorted = sorted && o.sorted;
}

bool Errors::within(double limit) const {
    return e1 < limit && e2 < limit && e3 < limit && e4 < limit && sorted;  // NaN fails
}

template <class T> double unit_roundoff() {
    return std::numeric_limits<real_t<T>>::epsilon() / 2;
}

template <class T>
std::vector<real_t<T>> reference_singular_values(index_t m, index_t n, const T* a, index_t lda) {
    const index_t k = std::min(m, n);
    std::vector<real_t<T>> s(k);
    if (k == 0) return s;
    std::vector<T> copy(static_cast<size_t>(m) * n);
    for (index_t j = 0; j < n; ++j) std::copy_n(a + j * lda, m, copy.data() + j * m);
    if (lapack::gesvd_values<T>(int(m), int(n), copy.data(), int(m), s.data()) != 0)
        std::fill(s.begin(), s.end(), std::numeric_limits<real_t<T>>::quiet_NaN());
    return s;
}

template <class T>
Errors measure(index_t m, index_t n, const T* a, index_t lda, const real_t<T>* s, const T* u,
               index_t ldu, const T* v, index_t ldv, const real_t<T>* s_ref) {
    using W = wide_t<T>;
    using WR = wide_real_t<real_t<T>>;
    const index_t k = std::min(m, n);
    Errors e;
    for (index_t r = 0; r + 1 < k; ++r)
        if (!(s[r] >= s[r + 1])) e.sorted = false;
    for (index_t r = 0; r < k; ++r)
        if (std::isnan(s[r]) || s[r] < 0) e.sorted = false;
    if (u && v) {
        WR norm_a = 0, norm_d = 0;
        std::vector<W> vs(k);
        for (index_t j = 0; j < n; ++j) {
            for (index_t r = 0; r < k; ++r) vs[r] = WR(s[r]) * cj(widen<W>(v[j + r * ldv]));
            WR col_a = 0, col_d = 0;
            for (index_t i = 0; i < m; ++i) {
                W acc = widen<W>(a[i + j * lda]);
                col_a += std::abs(acc);
                for (index_t r = 0; r < k; ++r) acc -= widen<W>(u[i + r * ldu]) * vs[r];
                col_d += std::abs(acc);
            }
            norm_a = std::max(norm_a, col_a);
            norm_d = std::isnan(static_cast<double>(col_d)) ? col_d : std::max(norm_d, col_d);
        }
        const WR denom = WR(n) * (norm_a > 0 ? norm_a : WR(1));
        e.e1 = static_cast<double>(norm_d / denom);
    }
    if (u) e.e2 = orthogonality(m, k, u, ldu) / double(std::max<index_t>(m, 1));
    if (v) e.e3 = orthogonality(n, k, v, ldv) / double(std::max<index_t>(n, 1));
    if (s_ref) {
        WR acc = 0;
        for (index_t r = 0; r < k; ++r) {
            const WR d = WR(s[r]) - WR(s_ref[r]);
            acc += d * d;
        }
        // Divided by max(1, sigma_1): the paper's measure for its five prescribed families
        // (sigma_1 = 1), made scale-invariant for `random`, whose norm grows with n.
        const WR scale = k && WR(s_ref[0]) > 1 ? WR(s_ref[0]) : WR(1);
        e.e4 = k ? static_cast<double>(std::sqrt(acc) / (WR(k) * scale)) : 0.0;
    }
    return e;
}

template <class T>
Errors measure_batch(index_t m, index_t n, index_t batch, const T* a, const real_t<T>* s,
                     const T* u, const T* v) {
    const index_t k = std::min(m, n);
    Errors worst;
    // LAPACK's references one at a time, then the measures in parallel: OpenBLAS 0.3.21's
    // complex gemv kernels (under ?gesvd) crashed when two OpenMP threads called ?gesvd at once,
    // about one run in a hundred of the complex CPU tests under load (ctest -j2), its own
    // threads held to one or not.
    std::vector<std::vector<real_t<T>>> refs(static_cast<std::size_t>(batch));
    for (index_t b = 0; b < batch; ++b) refs[std::size_t(b)] = reference_singular_values<T>(m, n, a + b * m * n, m);
#pragma omp parallel
    {
        Errors mine;
#pragma omp for schedule(dynamic, 4)
        for (index_t b = 0; b < batch; ++b) {
            const T* ab = a + b * m * n;
            mine.merge(measure<T>(m, n, ab, m, s + b * k, u ? u + b * m * k : nullptr, m,
                                  v ? v + b * n * k : nullptr, n, refs[std::size_t(b)].data()));
        }
#pragma omp critical
        worst.merge(mine);
    }
    return worst;
}

#define BATCHSVD_INSTANTIATE_(T)                                                                \
    template double unit_roundoff<T>();                                                        \
    template std::vector<real_t<T>> reference_singular_values<T>(index_t, index_t, const T*,   \
                                                                 index_t);                     \
    template Errors measure<T>(index_t, index_t, const T*, index_t, const real_t<T>*,          \
                               const T*, index_t, const T*, index_t, const real_t<T>*);        \
    template Errors measure_batch<T>(index_t, index_t, index_t, const T*, const real_t<T>*,    \
                                     const T*, const T*);
BATCHSVD_INSTANTIATE_(float)
BATCHSVD_INSTANTIATE_(double)
BATCHSVD_INSTANTIATE_(std::complex<float>)
BATCHSVD_INSTANTIATE_(std::complex<double>)
#undef BATCHSVD_INSTANTIATE_

}  // namespace batchsvd::testing
