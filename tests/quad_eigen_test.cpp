// SPDX-License-Identifier: BSD-3-Clause
// Self-checks of the binary128 reference eigensolver (testing/quad_eigen.hpp): exact answers
// for diagonal, 2 x 2 and all-ones matrices (upper triangle and the diagonal's imaginary part
// unread); exact scaling by 2^+-1000; random 20 x 20 symmetric and Hermitian matrices of a known
// spectrum (and LAPACK's ?syevd / ?heevd); and graded indefinite matrices D B D, whose
// eigenvalues span 15 decades, against the trace, the determinant (LU in binary128) and a
// symmetric permutation of the same matrix -- the last two test the small eigenvalues
// relatively, which a solver only normwise accurate would fail.
// Failures print the seed; BATCHSVD_TEST_SEED=<seed> replays them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "testing/generators.hpp"
#include "testing/lapack.hpp"
#include "testing/quad_eigen.hpp"

namespace batchsvd::test {
namespace {

using testing::reference_eigenvalues_binary128;
using testing::reference_eigenvalues_quad;
using quad = __float128;
using cf = std::complex<float>;
using cd = std::complex<double>;

quad qabs(quad x) { return x < 0 ? -x : x; }
template <class T> T cj(const T& x) {
    if constexpr (std::is_same_v<T, real_t<T>>) return x; else return std::conj(x);
}

/// Writes NaN into the strict upper triangle: the solver must not read it.
template <class T> void poison_upper(index_t n, std::vector<T>& a, index_t lda) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (index_t j = 1; j < n; ++j)
        for (index_t i = 0; i < j; ++i) a[std::size_t(i + j * lda)] = T(real_t<T>(nan));
}

template <class T> void diagonal_sorted() {
    const std::vector<double> d = {3.0, -1e-10, 0.0, 2.5, -7.0, 1e-30, 0.125, -0.0, 1e20, 3.0};
    const index_t n = index_t(d.size()), lda = n + 2;
    std::vector<T> a(static_cast<std::size_t>(lda * n), T(0));
    for (index_t i = 0; i < n; ++i) {
        a[std::size_t(i + i * lda)] = T(real_t<T>(d[std::size_t(i)]));
        if constexpr (!std::is_same_v<T, real_t<T>>) a[std::size_t(i + i * lda)].imag(5);  // ignored
    }
    poison_upper(n, a, lda);
    std::vector<long double> expect;
    for (double x : d) expect.push_back(static_cast<long double>(real_t<T>(x)));
    std::sort(expect.begin(), expect.end());
    const std::vector<long double> got = reference_eigenvalues_quad(n, a.data(), lda);
    ASSERT_EQ(got.size(), expect.size());
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], expect[i]) << "i = " << i;
}

TEST(QuadEigen, DiagonalReturnsItsDiagonalSorted) {
    diagonal_sorted<float>();
    diagonal_sorted<double>();
    diagonal_sorted<cf>();
    diagonal_sorted<cd>();
    EXPECT_TRUE(reference_eigenvalues_quad<double>(0, nullptr, 1).empty());
}

TEST(QuadEigen, TwoByTwoExact) {
    // [2 1; 1 2] and [2 i; -i 2] (lower triangle given): eigenvalues 1 and 3, exactly.
    std::vector<double> r = {2, 1, std::nan(""), 2};
    std::vector<cd> c = {2, cd(0, -1), std::nan(""), cd(2, 9)};
    for (const auto& got : {reference_eigenvalues_quad(2, r.data(), 2), reference_eigenvalues_quad(2, c.data(), 2)}) {
        ASSERT_EQ(got.size(), 2u);
        EXPECT_EQ(got[0], 1.0L);
        EXPECT_EQ(got[1], 3.0L);
    }
    // |a_21| = 1e-300 against a diagonal 1, -1: far below the threshold, left as is.
    std::vector<double> tiny = {1, 1e-300, 0, -1};
    const auto got = reference_eigenvalues_quad(2, tiny.data(), 2);
    EXPECT_EQ(got[0], -1.0L);
    EXPECT_EQ(got[1], 1.0L);
}

TEST(QuadEigen, ExactlySingularConverges) {
    // ones(n): eigenvalues 0 (n - 1 times) and n. The relative stopping test can only be met
    // by exact zeros next to a zero eigenvalue; the sweeps must still end (not abort).
    for (index_t n : {index_t(2), index_t(7), index_t(16)}) {
        std::vector<double> a(static_cast<std::size_t>(n * n), 1.0);
        const std::vector<long double> got = reference_eigenvalues_quad(n, a.data(), n);
        ASSERT_EQ(got.size(), std::size_t(n));
        EXPECT_LE(std::fabs(got.back() - n), 1e-30L * n) << "n = " << n;
        for (index_t i = 0; i + 1 < n; ++i) EXPECT_LE(std::fabs(got[std::size_t(i)]), 1e-30L * n) << "n = " << n;
    }
}

TEST(QuadEigen, ScaleEquivariantAcrossDoublesRange) {
    // Scaling by 2^e is exact, and so is every step of the sweeps on the scaled matrix
    // (binary128's exponent range holds the squares; the sqrt normalises by powers of two):
    // the eigenvalues scale bit for bit, also near double's overflow and underflow thresholds.
    const std::uint64_t seed = testing::fresh_seed();
    std::mt19937_64 gen(seed);
    std::normal_distribution<double> normal;
    const index_t n = 10;
    std::vector<cd> a(static_cast<std::size_t>(n * n));
    for (cd& x : a) x = cd(normal(gen), normal(gen));
    const std::vector<long double> base = reference_eigenvalues_quad(n, a.data(), n);
    for (int e : {1000, -1000, 60}) {
        std::vector<cd> b(a);
        for (cd& x : b) x *= std::ldexp(1.0, e);
        const std::vector<long double> got = reference_eigenvalues_quad(n, b.data(), n);
        for (index_t i = 0; i < n; ++i)
            EXPECT_EQ(got[std::size_t(i)], std::ldexp(base[std::size_t(i)], e)) << "2^" << e << ", seed " << seed;
    }
}

TEST(QuadEigen, NonFiniteInputAborts) {
    // A NaN in the lower triangle must not give a (wrong) reference silently.
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    std::vector<double> a = {1, std::nan(""), 0, 2};
    EXPECT_DEATH(reference_eigenvalues_quad(2, a.data(), 2), "non-finite input");
}

/// M <- H M H for the Hermitian reflector H = I - 2 v v^H / (v^H v), M n x n column-major.
void reflect_two_sided(index_t n, std::vector<std::complex<long double>>& m, const std::vector<std::complex<long double>>& v) {
    using C = std::complex<long double>;
    long double vv = 0;
    for (const C& x : v) vv += std::norm(x);
    for (index_t j = 0; j < n; ++j) {  // H M: column j -= 2 v (v^H m_j) / vv
        C dot = 0;
        for (index_t i = 0; i < n; ++i) dot += std::conj(v[std::size_t(i)]) * m[std::size_t(i + j * n)];
        for (index_t i = 0; i < n; ++i) m[std::size_t(i + j * n)] -= 2.0L * v[std::size_t(i)] * dot / vv;
    }
    for (index_t i = 0; i < n; ++i) {  // M H: row i -= 2 (m_i v) v^H / vv
        C dot = 0;
        for (index_t j = 0; j < n; ++j) dot += m[std::size_t(i + j * n)] * v[std::size_t(j)];
        for (index_t j = 0; j < n; ++j) m[std::size_t(i + j * n)] -= 2.0L * dot * std::conj(v[std::size_t(j)]) / vv;
    }
}

/// A = H2 H1 diag(lambda) H1 H2 (two random reflectors) for a random lambda of multiples of
/// 1/8 in [-10, 10] (exact in every precision), built in long double and rounded to double.
template <class T> void known_spectrum(std::uint64_t seed) {
    using C = std::complex<long double>;
    constexpr bool cplx = !std::is_same_v<T, real_t<T>>;
    const index_t n = 20;
    std::mt19937_64 gen(seed);
    std::normal_distribution<double> normal;
    std::uniform_int_distribution<int> eighths(-80, 80);
    std::vector<long double> lambda(static_cast<std::size_t>(n));
    for (long double& l : lambda) l = eighths(gen) / 8.0L;
    std::vector<C> m(static_cast<std::size_t>(n * n), C(0));
    for (index_t i = 0; i < n; ++i) m[std::size_t(i + i * n)] = lambda[std::size_t(i)];
    for (int r = 0; r < 2; ++r) {
        std::vector<C> v(static_cast<std::size_t>(n));
        for (C& x : v) x = C(normal(gen), cplx ? normal(gen) : 0.0);
        reflect_two_sided(n, m, v);
    }
    std::vector<T> a(static_cast<std::size_t>(n * n));
    for (std::size_t k = 0; k < a.size(); ++k) {
        if constexpr (cplx) a[k] = T(double(m[k].real()), double(m[k].imag()));
        else a[k] = T(double(m[k].real()));
    }
    poison_upper(n, a, n);
    std::sort(lambda.begin(), lambda.end());
    long double norm = 0;
    for (long double l : lambda) norm = std::max(norm, std::fabs(l));
    const std::vector<long double> got = reference_eigenvalues_quad(n, a.data(), n);
    ASSERT_EQ(got.size(), lambda.size());
    long double worst = 0;
    for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::fabs(got[i] - lambda[i]));
    // (the rounding of A to double moves the eigenvalues by about n u ||A|| = 4e-15 ||A||)
    EXPECT_LE(double(worst / norm), 1e-13) << (cplx ? "Hermitian" : "symmetric") << ", seed " << seed;

    // And LAPACK's ?syevd / ?heevd on the same (double) matrix, normwise accurate to ~n u ||A||.
    std::vector<T> work(a);
    std::vector<double> w(static_cast<std::size_t>(n));
    ASSERT_EQ(testing::lapack::syevd_values<T>(int(n), work.data(), int(n), w.data()), 0) << "seed " << seed;
    long double worst_lapack = 0;
    for (std::size_t i = 0; i < got.size(); ++i) worst_lapack = std::max(worst_lapack, std::fabs(got[i] - w[i]));
    EXPECT_LE(double(worst_lapack / norm), 1e-13) << "vs LAPACK, " << (cplx ? "Hermitian" : "symmetric") << ", seed " << seed;
}

TEST(QuadEigen, RandomSymmetricAndHermitianOfKnownSpectrumAndLapack) {
    for (int rep = 0; rep < 3; ++rep) {
        known_spectrum<double>(testing::fresh_seed());
        known_spectrum<cd>(testing::fresh_seed());
    }
}

TEST(QuadEigen, SinglePrecisionInputsGiveTheSameAsTheirDoubleWidening) {
    // The float instantiations widen exactly, so they must agree bit for bit with the double
    // ones on the widened matrix.
    const std::uint64_t seed = testing::fresh_seed();
    std::mt19937_64 gen(seed);
    std::normal_distribution<float> normal;
    const index_t n = 12;
    std::vector<float> rf(static_cast<std::size_t>(n * n));
    std::vector<cf> cff(static_cast<std::size_t>(n * n));
    for (float& x : rf) x = normal(gen);
    for (cf& x : cff) x = cf(normal(gen), normal(gen));
    const std::vector<double> rd(rf.begin(), rf.end());
    const std::vector<cd> cdd(cff.begin(), cff.end());
    EXPECT_EQ(reference_eigenvalues_quad(n, rf.data(), n), reference_eigenvalues_quad(n, rd.data(), n)) << "seed " << seed;
    EXPECT_EQ(reference_eigenvalues_quad(n, cff.data(), n), reference_eigenvalues_quad(n, cdd.data(), n)) << "seed " << seed;
}

/// A complex number in binary128 for the determinant (the real case keeps im = 0).
struct cq {
    quad re = 0, im = 0;
};
cq operator-(cq a, cq b) { return {a.re - b.re, a.im - b.im}; }
cq operator*(cq a, cq b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
cq operator/(cq a, cq b) {
    const quad d = b.re * b.re + b.im * b.im;
    return {(a.re * b.re + a.im * b.im) / d, (a.im * b.re - a.re * b.im) / d};
}
quad abs1(cq a) { return qabs(a.re) + qabs(a.im); }

/// det(A) of the full n x n matrix m (column-major) by LU with partial pivoting in binary128.
cq determinant(index_t n, std::vector<cq> m) {
    auto at = [&](index_t i, index_t j) -> cq& { return m[std::size_t(i + j * n)]; };
    cq det{1, 0};
    for (index_t k = 0; k < n; ++k) {
        index_t piv = k;
        for (index_t i = k + 1; i < n; ++i)
            if (abs1(at(i, k)) > abs1(at(piv, k))) piv = i;
        if (piv != k) {
            for (index_t j = 0; j < n; ++j) std::swap(at(k, j), at(piv, j));
            det = cq{} - det;
        }
        det = det * at(k, k);
        for (index_t i = k + 1; i < n; ++i) {
            const cq l = at(i, k) / at(k, k);
            for (index_t j = k + 1; j < n; ++j) at(i, j) = at(i, j) - l * at(k, j);
        }
    }
    return det;
}

/// A = D B D: B random Hermitian with diagonal +-1 (random signs: indefinite) and off-diagonal
/// entries up to 1/2 in modulus, D = diag(10^(-k/2)), k = 0..15: entries from 1 to 1e-15,
/// |lambda| from about 1 to 1e-15.
template <class T> void graded(std::uint64_t seed) {
    constexpr bool cplx = !std::is_same_v<T, real_t<T>>;
    const index_t n = 16;
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> uniform(-0.5, 0.5);
    std::bernoulli_distribution coin;
    std::vector<cq> full(static_cast<std::size_t>(n * n));  // the exact (stored) A, both triangles, for the checks
    std::vector<T> a(static_cast<std::size_t>(n * n));
    std::vector<T> a_reversed(static_cast<std::size_t>(n * n));  // P A P^T, P the reversal: grading upside down
    auto d = [](index_t k) { return std::pow(10.0, -0.5 * double(k)); };
    for (index_t j = 0; j < n; ++j)
        for (index_t i = j; i < n; ++i) {
            T x;
            if (i == j) x = T(coin(gen) ? 1.0 : -1.0);
            else if constexpr (cplx) x = T(uniform(gen) / std::sqrt(2.0), uniform(gen) / std::sqrt(2.0));
            else x = T(uniform(gen));
            x *= d(i) * d(j);
            a[std::size_t(i + j * n)] = x;
            a_reversed[std::size_t((n - 1 - j) + (n - 1 - i) * n)] = cj(x);  // (lower triangle)
            const cq xq{quad(std::real(x)), quad(std::imag(x))};
            full[std::size_t(i + j * n)] = xq;
            full[std::size_t(j + i * n)] = cq{xq.re, -xq.im};
        }
    poison_upper(n, a, n);
    poison_upper(n, a_reversed, n);
    const std::vector<quad> lambda = reference_eigenvalues_binary128(n, a.data(), n);
    ASSERT_EQ(lambda.size(), std::size_t(n));

    // The long double result is the binary128 one, rounded.
    const std::vector<long double> rounded = reference_eigenvalues_quad(n, a.data(), n);
    for (index_t i = 0; i < n; ++i) EXPECT_EQ(rounded[std::size_t(i)], static_cast<long double>(lambda[std::size_t(i)]));

    // Sorted, and really graded and indefinite (else the checks below would test less).
    EXPECT_TRUE(std::is_sorted(lambda.begin(), lambda.end())) << "seed " << seed;
    quad smallest = qabs(lambda[0]), largest = 0;
    for (quad l : lambda) smallest = std::min(smallest, qabs(l)), largest = std::max(largest, qabs(l));
    EXPECT_LT(double(smallest / largest), 1e-12) << "seed " << seed;
    EXPECT_LT(double(lambda.front()), 0.0) << "seed " << seed;
    EXPECT_GT(double(lambda.back()), 0.0) << "seed " << seed;

    // Trace: sum(lambda) = trace(A). Every rotation keeps the trace to a few u_128 (a_pp + a_qq).
    quad sum = 0, sum_abs = 0, trace = 0;
    for (quad l : lambda) sum += l, sum_abs += qabs(l);
    for (index_t i = 0; i < n; ++i) trace += full[std::size_t(i + i * n)].re;
    EXPECT_LE(double(qabs(sum - trace) / sum_abs), 1e-25) << "seed " << seed;

    // Determinant: prod(lambda) = det(A) to 1e-20 relative. The product is ~1e-120 and its
    // small factors (1e-15) come from the smallest eigenvalues, so this is a relative check of
    // those: a normwise error of u_128 ||A|| = 1e-34 would be 1e-19 of lambda = 1e-15.
    const cq det = determinant(n, full);
    quad prod = 1;
    for (quad l : lambda) prod *= l;
    const quad det_abs = qabs(det.re) + qabs(det.im);
    EXPECT_LE(double(qabs(det.im) / det_abs), 1e-25) << "det of a Hermitian matrix is real; seed " << seed;
    EXPECT_LE(double(qabs(prod - det.re) / qabs(det.re)), 1e-20)
        << (cplx ? "Hermitian" : "symmetric") << ", seed " << seed << ", det " << double(det.re) << ", prod "
        << double(prod);

    // P A P^T with the grading reversed takes another path through the sweeps; its eigenvalues
    // agree with these one by one, relatively (each |lambda_i| on its own scale). Seen: up to
    // 4e-27; a solver only normwise accurate to u_128 ||A|| would differ by ~1e-19 at 1e-15.
    const std::vector<quad> lambda_rev = reference_eigenvalues_binary128(n, a_reversed.data(), n);
    quad worst = 0;
    for (index_t i = 0; i < n; ++i)
        worst = std::max(worst, qabs(lambda_rev[std::size_t(i)] - lambda[std::size_t(i)]) / qabs(lambda[std::size_t(i)]));
    EXPECT_LE(double(worst), 1e-22) << (cplx ? "Hermitian" : "symmetric") << ", seed " << seed;
}

TEST(QuadEigen, GradedIndefiniteTraceDeterminantAndPermutation) {
    for (int rep = 0; rep < 4; ++rep) {
        graded<double>(testing::fresh_seed());
        graded<cd>(testing::fresh_seed());
    }
}

}  // namespace
}  // namespace batchsvd::test
