// SPDX-License-Identifier: BSD-3-Clause
// The CPU backend's preconditioning (src/cpu/precondition.hpp): it runs where the rule says
// (fewer sweeps), keeps the Jacobi iteration's accuracy on every family and precision, and
// keeps the relative accuracy of the small singular values of graded matrices
// (tests/cpu_threads_test.cpp: results independent of the thread count). Skipped in a build
// without LAPACK, where it is off.
#include <cmath>
#include <complex>
#include <limits>
#include <random>

#include "cpu/symmetric_eigen.hpp"

#include "svd_check.hpp"

namespace batchsvd::test {
namespace {

#if BATCHSVD_TEST_CPU_PRECONDITION
#define SKIP_UNLESS_PRECONDITION() (void)0
#else
#define SKIP_UNLESS_PRECONDITION() GTEST_SKIP() << "built without LAPACK: the CPU backend does not precondition"
#endif

Options cpu_options(PreconditionMode mode) {
    Options o;
    o.backend = Backend::cpu;
    o.precondition = mode;
    return o;
}

class CpuPrecondition : public ::testing::TestWithParam<Dtype> {
protected:
    template <class F> void run(F&& f) { with_dtype(GetParam(), f); }
};

TEST_P(CpuPrecondition, FewerSweepsWhereTheRuleTakesIt) {
    SKIP_UNLESS_PRECONDITION();
    run([&](auto zero) {
        using T = decltype(zero);
        const index_t n = 64, batch = 3;
        const std::vector<T> a = testing::generate_batch<T>(testing::Family::random, n, n, batch, testing::fresh_seed());
        for (PreconditionMode mode : {PreconditionMode::automatic, PreconditionMode::never}) {
            std::vector<int> sweeps(batch, -1);
            Options o = cpu_options(mode);
            o.sweeps = sweeps.data();
            const Result<T> r = solve<T>(n, n, batch, a, o);
            for (index_t b = 0; b < batch; ++b) {
                ASSERT_EQ(r.info[b], 0);
                if (mode == PreconditionMode::automatic) EXPECT_LE(sweeps[b], 4) << "matrix " << b;
                else EXPECT_GE(sweeps[b], 6) << "matrix " << b;
            }
        }
    });
}

/// Every family, tall (through QR), wide and square, and orders below the rule's (always).
TEST_P(CpuPrecondition, AccurateOnEveryFamily) {
    SKIP_UNLESS_PRECONDITION();
    run([&](auto zero) {
        using T = decltype(zero);
        constexpr index_t shapes[][3] = {{2, 2, 8}, {5, 3, 8}, {9, 9, 4}, {40, 40, 2}, {30, 70, 2}, {130, 50, 1}};
        for (testing::Family f : testing::all_families)
            for (const auto& s : shapes) {
                SCOPED_TRACE(std::string(testing::to_string(f)) + " " + std::to_string(s[0]) + " x " +
                             std::to_string(s[1]));
                check_accuracy<T>(Backend::cpu, f, s[0], s[1], s[2], cpu_options(PreconditionMode::always));
            }
    });
}

/// W = B D, the columns of an orthogonal B (a Gaussian matrix's, by modified Gram-Schmidt
/// twice in double precision) scaled over twelve orders of magnitude (five in single
/// precision; and the rows, for W^H): one-sided Jacobi finds every singular value to about
/// n u kappa(B) = n u relative, the smallest included, where a normwise-accurate method errs
/// by u sigma_1 / sigma_min (10^5-10^12 u here). Preconditioned it must stay relatively
/// accurate: the two agree to 500u. (With a Gaussian B, whose kappa reaches 10^4, they
/// differed by up to 7000u in one draw in ten, as the bound allows.)
TEST_P(CpuPrecondition, GradedMatricesKeepRelativeAccuracy) {
    SKIP_UNLESS_PRECONDITION();
    run([&](auto zero) {
        using T = decltype(zero);
        using R = real_t<T>;
        using C = std::complex<double>;
        const index_t n = 40;
        const double span = sizeof(R) == 8 ? 12 : 5;
        std::mt19937_64 gen(testing::fresh_seed());
        std::normal_distribution<double> normal;
        std::vector<C> q(std::size_t(n * n));
        for (C& x : q) x = std::is_same_v<T, R> ? C(normal(gen), 0.0) : C(normal(gen), normal(gen));
        for (int pass = 0; pass < 2; ++pass)
            for (index_t j = 0; j < n; ++j) {
                for (index_t k = 0; k < j; ++k) {
                    C dot = 0;
                    for (index_t i = 0; i < n; ++i) dot += std::conj(q[std::size_t(i + k * n)]) * q[std::size_t(i + j * n)];
                    for (index_t i = 0; i < n; ++i) q[std::size_t(i + j * n)] -= dot * q[std::size_t(i + k * n)];
                }
                double norm = 0;
                for (index_t i = 0; i < n; ++i) norm += std::norm(q[std::size_t(i + j * n)]);
                for (index_t i = 0; i < n; ++i) q[std::size_t(i + j * n)] /= std::sqrt(norm);
            }
        for (bool columns : {true, false}) {
            std::vector<T> a(std::size_t(n * n));
            for (index_t j = 0; j < n; ++j)
                for (index_t i = 0; i < n; ++i) {
                    const double g = std::pow(10.0, -span * double(columns ? j : i) / double(n - 1));
                    const C x = q[std::size_t(i + j * n)] * g;
                    if constexpr (std::is_same_v<T, R>) a[std::size_t(i + j * n)] = T(x.real());
                    else a[std::size_t(i + j * n)] = T(R(x.real()), R(x.imag()));
                }
            const Result<T> plain = solve<T>(n, n, 1, a, cpu_options(PreconditionMode::never));
            const Result<T> pre = solve<T>(n, n, 1, a, cpu_options(PreconditionMode::always));
            ASSERT_EQ(plain.info[0], 0);
            ASSERT_EQ(pre.info[0], 0);
            double worst = 0;
            for (index_t i = 0; i < n; ++i)
                worst = std::max(worst, double(std::abs(pre.s[i] - plain.s[i]) / plain.s[i]));
            EXPECT_LT(worst, 500 * testing::unit_roundoff<T>())
                << (columns ? "graded columns" : "graded rows") << ", smallest " << plain.s[n - 1];
        }
    });
}

/// The library's own eigensolver for small real orders (cpu/symmetric_eigen.hpp): residual
/// |G v - lambda v|, orthogonality of V and the descending order, on random, diagonal,
/// zero, rank-one and repeated-eigenvalue matrices of orders 1-64. Needs no LAPACK.
template <class R> void check_own_eigensolver() {
    std::mt19937_64 gen(testing::fresh_seed());
    std::normal_distribution<double> normal;
    const double u = std::numeric_limits<R>::epsilon() / 2;
    for (index_t n : {1, 2, 3, 5, 17, 32, 48, 64})
        for (int kind = 0; kind < 5; ++kind) {
            SCOPED_TRACE("order " + std::to_string(n) + " kind " + std::to_string(kind));
            std::vector<double> x(std::size_t(n * n));
            for (double& e : x) e = normal(gen);
            std::vector<R> g(std::size_t(n * n), R(0));
            for (index_t j = 0; j < n; ++j)
                for (index_t i = j; i < n; ++i) {
                    double val = 0;
                    if (kind == 0) val = x[std::size_t(i + j * n)] + x[std::size_t(j + i * n)];  // random
                    if (kind == 1 && i == j) val = double(n - i) * (i % 2 ? -1 : 1);           // diagonal
                    if (kind == 3) val = x[std::size_t(i)] * x[std::size_t(j)];                  // rank one
                    if (kind == 4) val = (i == j ? 2.0 : 0.0) + (i < n / 2 && j < n / 2 ? 1.0 : 0.0);  // repeated
                    g[std::size_t(i + j * n)] = R(val);                                        // (kind 2: zero)
                }
            const std::vector<R> g0 = g;
            auto at = [&](index_t i, index_t j) { return double(i >= j ? g0[std::size_t(i + j * n)] : g0[std::size_t(j + i * n)]); };
            double norm = 0;
            for (index_t j = 0; j < n; ++j)
                for (index_t i = 0; i < n; ++i) norm = std::max(norm, std::fabs(at(i, j)));
            std::vector<R> v(std::size_t(n * n));
            cpu::SymmetricEigenWorkspace<R> ws;
            ASSERT_TRUE(cpu::symmetric_eigen_descending<R>(n, g.data(), v.data(), ws));
            double prev = std::numeric_limits<double>::infinity();
            for (index_t j = 0; j < n; ++j) {
                std::vector<double> gv(std::size_t(n), 0.0);
                for (index_t l = 0; l < n; ++l)
                    for (index_t i = 0; i < n; ++i) gv[std::size_t(i)] += at(i, l) * double(v[std::size_t(l + j * n)]);
                double lambda = 0;
                for (index_t i = 0; i < n; ++i) lambda += double(v[std::size_t(i + j * n)]) * gv[std::size_t(i)];
                EXPECT_LE(lambda, prev + 30 * n * u * std::max(norm, 1e-300)) << "not descending at " << j;
                prev = lambda;
                for (index_t i = 0; i < n; ++i)
                    EXPECT_LE(std::fabs(gv[std::size_t(i)] - lambda * double(v[std::size_t(i + j * n)])), 30 * n * u * norm)
                        << "residual, vector " << j;
                for (index_t k = 0; k <= j; ++k) {
                    double dot = 0;
                    for (index_t i = 0; i < n; ++i) dot += double(v[std::size_t(i + j * n)]) * double(v[std::size_t(i + k * n)]);
                    EXPECT_NEAR(dot, k == j ? 1.0 : 0.0, 30 * n * u) << "orthogonality " << j << ", " << k;
                }
            }
        }
}

TEST(CpuOwnEigensolver, ResidualOrthogonalityOrder) {
    check_own_eigensolver<double>();
    check_own_eigensolver<float>();
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CpuPrecondition, ::testing::Values(Dtype::f32, Dtype::f64, Dtype::c64, Dtype::c128),
                         [](const ::testing::TestParamInfo<Dtype>& i) { return std::string(to_string(i.param)); });

}  // namespace
}  // namespace batchsvd::test
