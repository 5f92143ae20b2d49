// SPDX-License-Identifier: BSD-3-Clause
// core::bidiagonal_singular_values (bisection on the Golub-Kahan tridiagonal) and
// core::bidiagonal_singular_values_dqds (dqds, the GPU's fast form), each: agreement with
// LAPACK on random bidiagonals (normwise), relative accuracy on graded bidiagonals against a
// binary128 reference (every value above the reference's own accuracy floor), exact zeros and
// splits, and exact equivariance under scaling by 2^+-1000 (double) / 2^+-120 (float).
// Failures print the seed; BATCHSVD_TEST_SEED=<seed> replays them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/bidiagonal_dqds.hpp"
#include "core/bidiagonal_values.hpp"
#include "core/precision.hpp"
#include "testing/generators.hpp"
#include "testing/lapack.hpp"
#include "testing/quad_eigen.hpp"

namespace batchsvd::test {
namespace {

using core::bidiagonal_singular_values;

template <class R> constexpr R unit_roundoff = core::precision<R>::unit_roundoff;

template <class R> const char* type_name() { return sizeof(R) == 8 ? "double" : "float"; }

struct Bidiagonal {
    std::vector<double> d, e;  // e has n - 1 entries (none for n <= 1)
};

/// Entries uniform in [-1, 1).
Bidiagonal random_bidiagonal(int n, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Bidiagonal b;
    for (int i = 0; i < n; ++i) b.d.push_back(u(rng));
    for (int i = 0; i + 1 < n; ++i) b.e.push_back(u(rng));
    return b;
}

template <class R> std::vector<R> to(const std::vector<double>& x) { return std::vector<R>(x.begin(), x.end()); }

enum class Method { bisection, dqds };

const char* method_name(Method m) { return m == Method::dqds ? "dqds" : "bisection"; }

template <Method M = Method::bisection, class R> std::vector<R> values(const std::vector<R>& d, const std::vector<R>& e) {
    const int n = int(d.size());
    std::vector<R> s(d.size(), R(-1));
    if constexpr (M == Method::dqds) {
        std::vector<double> work(5 * d.size() + 1, std::nan(""));
        EXPECT_GE(core::bidiagonal_singular_values_dqds<R>(n, d.data(), e.data(), s.data(), work.data()), 0);
    } else {
        bidiagonal_singular_values<R>(n, d.data(), e.data(), s.data());
    }
    return s;
}

/// Runs test<R, M> for both element types and both methods.
#define BATCHSVD_BOTH_METHODS(test)                                   \
    do {                                                              \
        {                                                             \
            SCOPED_TRACE("bisection");                                \
            test<float, Method::bisection>();                         \
            test<double, Method::bisection>();                        \
        }                                                             \
        {                                                             \
            SCOPED_TRACE("dqds");                                     \
            test<float, Method::dqds>();                              \
            test<double, Method::dqds>();                             \
        }                                                             \
    } while (0)

/// LAPACK's ?gesvd on the dense n x n bidiagonal.
template <class R> std::vector<R> lapack_values(const std::vector<R>& d, const std::vector<R>& e) {
    const int n = int(d.size());
    std::vector<R> a(std::size_t(n) * std::size_t(n), R(0));
    std::vector<R> s(std::size_t(n), R(0));
    for (int i = 0; i < n; ++i) a[std::size_t(i + i * n)] = d[std::size_t(i)];
    for (int i = 0; i + 1 < n; ++i) a[std::size_t(i + (i + 1) * n)] = e[std::size_t(i)];
    EXPECT_EQ(testing::lapack::gesvd_values<R>(n, n, a.data(), n, s.data()), 0);
    return s;
}

template <class R> void expect_descending(const std::vector<R>& s) {
    for (std::size_t i = 1; i < s.size(); ++i) EXPECT_GE(s[i - 1], s[i]) << "not descending at " << i;
}

template <class R> void expect_close_normwise(const std::vector<R>& got, const std::vector<R>& ref, double tol) {
    ASSERT_EQ(got.size(), ref.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        EXPECT_LE(std::fabs(double(got[i]) - double(ref[i])), tol) << "i = " << i << ": " << got[i] << " vs " << ref[i];
}

// ---- 1. random bidiagonals against LAPACK ----------------------------------------------------

template <class R, Method M> void random_against_lapack() {
    for (int n : {1, 2, 3, 10, 64, 300}) {
        for (int rep = 0; rep < 3; ++rep) {
            const std::uint64_t seed = testing::fresh_seed();
            SCOPED_TRACE(std::string(type_name<R>()) + " n = " + std::to_string(n) + ", seed " + std::to_string(seed));
            std::mt19937_64 rng(seed);
            const Bidiagonal b = random_bidiagonal(n, rng);
            const std::vector<R> d = to<R>(b.d), e = to<R>(b.e);
            const std::vector<R> s = values<M>(d, e), ref = lapack_values(d, e);
            expect_descending(s);
            EXPECT_GT(s[0], R(0));
            expect_close_normwise(s, ref, 30.0 * n * unit_roundoff<R> * double(ref[0]));
        }
    }
}

TEST(BidiagonalValues, RandomAgreeWithLapack) {
    BATCHSVD_BOTH_METHODS(random_against_lapack);
}

// ---- 2. graded bidiagonals, relatively, against binary128 ----------------------------------

/// Entries +-10^-k, k uniform in [0, decades]; monotone: the interleaved sequence d1, e1, d2,
/// ..., dn of magnitudes decreasing (a graded TGK).
Bidiagonal graded_bidiagonal(int n, double decades, bool monotone, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> k(0.0, decades);
    std::bernoulli_distribution sign(0.5);
    std::vector<double> b(std::size_t(2 * n - 1));
    for (double& x : b) x = std::pow(10.0, -k(rng));
    if (monotone) std::sort(b.begin(), b.end(), [](double x, double y) { return x > y; });
    for (double& x : b) x = sign(rng) ? -x : x;
    Bidiagonal r;
    for (int i = 0; i < n; ++i) r.d.push_back(b[std::size_t(2 * i)]);
    for (int i = 0; i + 1 < n; ++i) r.e.push_back(b[std::size_t(2 * i + 1)]);
    return r;
}

/// The n positive eigenvalues of the 2n x 2n TGK (built in double: its entries are exactly the
/// bidiagonal's, float ones included), descending, from the binary128 Jacobi reference.
template <class R> std::vector<long double> tgk_reference(const std::vector<R>& d, const std::vector<R>& e) {
    const int n = int(d.size()), nn = 2 * n;
    std::vector<double> a(std::size_t(nn) * std::size_t(nn), 0.0);
    for (int i = 0; i < n; ++i) a[std::size_t((2 * i + 1) + (2 * i) * nn)] = double(d[std::size_t(i)]);
    for (int i = 0; i + 1 < n; ++i) a[std::size_t((2 * i + 2) + (2 * i + 1) * nn)] = double(e[std::size_t(i)]);
    const std::vector<long double> w = testing::reference_eigenvalues_quad<double>(nn, a.data(), nn);
    std::vector<long double> s;
    for (int j = 0; j < n; ++j) s.push_back(w[std::size_t(nn - 1 - j)]);
    return s;
}

// The reference's error is normwise, about 1e-34 s_max (binary128 Jacobi on the indefinite
// TGK), so a value is compared only above floor * s_max. Measured (60 graded bidiagonals of
// each type, n = 5..40): in double the values agree with the reference to 0.4 n u down to
// 1e-19 s_max, and the disagreement then grows as 1e-34 s_max / sigma (18 n u at 1e-20 s_max,
// 1e6 n u at 1e-25 s_max, the reference's error, not ours: BidiagonalValues.
// GradedReversalAgrees checks those values without it), so floor = 1e-18 in double (the
// reference's error is then at most about u, relatively). In float the values agree to 2 n u
// down to 1e-29 s_max; floor = 1e-24 (the reference's error at most 1e-10, relatively, and the
// scaled block's underflow threshold over float's u, 1e-30, is below).
template <class R, Method M> void graded_relative() {
    const double decades = sizeof(R) == 8 ? 30.0 : 15.0;
    const long double floor = sizeof(R) == 8 ? 1e-18L : 1e-24L;
    for (bool monotone : {false, true}) {
        for (int rep = 0; rep < 4; ++rep) {
            const std::uint64_t seed = testing::fresh_seed();
            std::mt19937_64 rng(seed);
            const int n = std::uniform_int_distribution<int>(5, 40)(rng);
            SCOPED_TRACE(std::string(type_name<R>()) + (monotone ? " monotone" : " random order") +
                         " n = " + std::to_string(n) + ", seed " + std::to_string(seed));
            const Bidiagonal b = graded_bidiagonal(n, decades, monotone, rng);
            const std::vector<R> d = to<R>(b.d), e = to<R>(b.e);
            const std::vector<R> s = values<M>(d, e);
            const std::vector<long double> ref = tgk_reference(d, e);
            expect_descending(s);
            const long double tol = 30.0L * n * unit_roundoff<R>;
            int compared = 0;
            for (int j = 0; j < n; ++j) {
                const long double r = ref[std::size_t(j)];
                if (r <= floor * ref[0]) continue;
                ++compared;
                EXPECT_LE(std::fabs((long double)s[std::size_t(j)] - r), tol * r)
                    << "j = " << j << ": " << s[std::size_t(j)] << " vs " << double(r);
            }
            EXPECT_GE(compared, 2);
        }
    }
}

TEST(BidiagonalValues, GradedRelativelyAccurate) {
    BATCHSVD_BOTH_METHODS(graded_relative);
}

/// Reversal: P B^T P (P the exchange matrix) is upper bidiagonal with d and e reversed and has
/// B's singular values; its pivot recurrence runs through the entries in the other order, so
/// agreement relatively checks even the values far below the binary128 reference's floor
/// above. Entries down to 1e-200 (double; their squares would underflow) or 1e-20 (float); every value above 1e-280 s_max
/// (double) or 1e-28 s_max (float) is compared: there the absolute error left by the
/// underflow guard (4 x the smallest normal, in units where the largest entry is in
/// [1/2, 1)) is below 1e-25 (double) or 1e-9 (float) relatively. (Measured: agreement within
/// 0.75 n u down to 1e-290 s_max in double and 1e-31 s_max in float, then it breaks down.)
template <class R, Method M> void graded_reversal() {
    const double decades = sizeof(R) == 8 ? 200.0 : 20.0;
    const double floor = sizeof(R) == 8 ? 1e-280 : 1e-28;
    for (bool monotone : {false, true}) {
        for (int rep = 0; rep < 20; ++rep) {
            const std::uint64_t seed = testing::fresh_seed();
            std::mt19937_64 rng(seed);
            const int n = std::uniform_int_distribution<int>(5, 40)(rng);
            SCOPED_TRACE(std::string(type_name<R>()) + (monotone ? " monotone" : " random order") +
                         " n = " + std::to_string(n) + ", seed " + std::to_string(seed));
            const Bidiagonal b = graded_bidiagonal(n, decades, monotone, rng);
            const std::vector<R> d = to<R>(b.d), e = to<R>(b.e);
            const std::vector<R> dr(d.rbegin(), d.rend()), er(e.rbegin(), e.rend());
            const std::vector<R> s = values<M>(d, e), sr = values<M>(dr, er);
            expect_descending(s);
            expect_descending(sr);
            const double tol = 30.0 * n * unit_roundoff<R>;
            int compared = 0;
            for (int j = 0; j < n; ++j) {
                const double x = double(s[std::size_t(j)]), y = double(sr[std::size_t(j)]);
                if (x <= floor * double(s[0])) continue;
                ++compared;
                EXPECT_LE(std::fabs(x - y), tol * x) << "j = " << j << ": " << x << " vs " << y;
            }
            EXPECT_GE(compared, 2);
        }
    }
}

TEST(BidiagonalValues, GradedReversalAgrees) {
    BATCHSVD_BOTH_METHODS(graded_reversal);
}

/// Entries whose squares underflow: B = [[f, t g_1 e_1^T], [0, t C]], t = 2^-700 (double) or
/// 2^-80 (float), C an (n-1) x (n-1) bidiagonal with diagonal g_2.. in +-[1, 2) and
/// superdiagonal +-[1/4, 1/2) (well conditioned). The coupling changes the values only
/// by relative O(t^2), so B's values are |f| and t times C's (computed separately, at unit
/// scale, and scaled exactly). A recurrence that squared the entries would lose t C entirely.
template <class R, Method M> void tiny_entries() {
    const int p = sizeof(R) == 8 ? -700 : -80;
    for (int n : {2, 3, 8, 30}) {
        const std::uint64_t seed = testing::fresh_seed();
        SCOPED_TRACE(std::string(type_name<R>()) + " n = " + std::to_string(n) + ", seed " + std::to_string(seed));
        std::mt19937_64 rng(seed);
        std::uniform_real_distribution<double> u01(0.0, 1.0);
        std::bernoulli_distribution sign(0.5);
        auto draw = [&](double lo, double hi) { const double x = lo + (hi - lo) * u01(rng); return R(sign(rng) ? -x : x); };
        const R f = draw(1.0, 2.0);
        std::vector<R> dc, ec;  // C
        for (int i = 0; i + 1 < n; ++i) dc.push_back(draw(1.0, 2.0));
        for (int i = 0; i + 2 < n; ++i) ec.push_back(draw(0.25, 0.5));
        std::vector<R> d = {f}, e = {std::ldexp(draw(0.25, 0.5), p)};
        for (R x : dc) d.push_back(std::ldexp(x, p));
        for (R x : ec) e.push_back(std::ldexp(x, p));
        const std::vector<R> s = values<M>(d, e), sc = values<M>(dc, ec);
        expect_descending(s);
        EXPECT_LE(std::fabs(s[0] - std::fabs(f)), 2 * unit_roundoff<R> * std::fabs(f));
        const double tol = 30.0 * n * unit_roundoff<R>;
        for (int j = 1; j < n; ++j) {
            const double want = std::ldexp(double(sc[std::size_t(j - 1)]), p);
            EXPECT_LE(std::fabs(double(s[std::size_t(j)]) - want), tol * want) << "j = " << j << ": " << s[std::size_t(j)] << " vs " << want;
        }
    }
}

TEST(BidiagonalValues, TinyEntriesKeepRelativeAccuracy) {
    BATCHSVD_BOTH_METHODS(tiny_entries);
}

// ---- 3. zeros and splits ---------------------------------------------------------------------

template <class R, Method M> void zeros_and_splits() {
    constexpr R u = unit_roundoff<R>;
    const std::uint64_t seed = testing::fresh_seed();
    SCOPED_TRACE(std::string(type_name<R>()) + ", seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    // An exact zero on the diagonal: singular, smallest value exactly 0 (the others as LAPACK's).
    for (int n : {2, 3, 7, 20}) {
        const Bidiagonal b = random_bidiagonal(n, rng);
        std::vector<R> d = to<R>(b.d), e = to<R>(b.e);
        d[std::size_t(n / 2)] = 0;
        const std::vector<R> s = values<M>(d, e), ref = lapack_values(d, e);
        expect_descending(s);
        EXPECT_EQ(s[std::size_t(n - 1)], R(0)) << "n = " << n;
        EXPECT_LE(s[std::size_t(n - 1)], u * s[0]);
        EXPECT_GT(s[std::size_t(n - 2)], R(0));
        expect_close_normwise(s, ref, 30.0 * n * u * double(ref[0]));
    }
    // A zero diagonal: B is a shift times diag(e), values |e_i| (to rounding) and one 0.
    {
        const int n = 9;
        const Bidiagonal b = random_bidiagonal(n, rng);
        std::vector<R> d(std::size_t(n), R(0)), e = to<R>(b.e);
        const std::vector<R> s = values<M>(d, e);
        std::vector<R> want;
        for (R x : e) want.push_back(std::fabs(x));
        std::sort(want.begin(), want.end(), [](R x, R y) { return x > y; });
        want.push_back(0);
        EXPECT_EQ(s[std::size_t(n - 1)], R(0));
        for (int j = 0; j < n; ++j)
            EXPECT_LE(std::fabs(s[std::size_t(j)] - want[std::size_t(j)]), 2 * u * want[std::size_t(j)]) << "j = " << j;
    }
    // e all zero: the values are the sorted |d_i|, exactly (zeros and -0 included).
    {
        std::vector<R> d = {R(0.5), R(-3), R(0), R(1e-3), R(-0.0), R(2.25), R(-1e-3), R(7)};
        std::vector<R> e(d.size() - 1, R(0));
        e[2] = R(-0.0);
        const std::vector<R> s = values<M>(d, e);
        std::vector<R> want;
        for (R x : d) want.push_back(std::fabs(x));
        std::sort(want.begin(), want.end(), [](R x, R y) { return x > y; });
        for (std::size_t j = 0; j < d.size(); ++j) {
            EXPECT_EQ(s[j], want[j]) << "j = " << j;
            EXPECT_FALSE(std::signbit(s[j])) << "j = " << j;
        }
    }
    // Some zero superdiagonal entries (blocks of sizes 1 to 5), with a zero diagonal entry too.
    for (int rep = 0; rep < 5; ++rep) {
        const int n = 23;
        const Bidiagonal b = random_bidiagonal(n, rng);
        std::vector<R> d = to<R>(b.d), e = to<R>(b.e);
        for (int i : {0, 3, 4, 9, 14, 21}) e[std::size_t(i)] = 0;
        d[std::size_t(7 + rep)] = 0;  // in the block of rows 5..9 or 10..14
        const std::vector<R> s = values<M>(d, e), ref = lapack_values(d, e);
        expect_descending(s);
        EXPECT_EQ(s[std::size_t(n - 1)], R(0));
        expect_close_normwise(s, ref, 30.0 * n * u * double(ref[0]));
    }
    // n = 0: nothing read, nothing written.
    {
        R sentinel = R(42);
        if constexpr (M == Method::dqds) EXPECT_EQ(core::bidiagonal_singular_values_dqds<R>(0, nullptr, nullptr, &sentinel, nullptr), 0);
        else bidiagonal_singular_values<R>(0, nullptr, nullptr, &sentinel);
        EXPECT_EQ(sentinel, R(42));
    }
    // 1 x 1: |d|.
    for (R x : {R(-2.5), R(3e-30), R(-0.0), R(1e30)}) {
        R s = R(-1);
        double work[5];
        if constexpr (M == Method::dqds) core::bidiagonal_singular_values_dqds<R>(1, &x, nullptr, &s, work);
        else bidiagonal_singular_values<R>(1, &x, nullptr, &s);
        EXPECT_EQ(s, std::fabs(x));
        EXPECT_FALSE(std::signbit(s));
    }
    // 2 x 2 of known values: [[1, 1], [0, 1]] has the golden ratio and its inverse.
    {
        const std::vector<R> d = {R(1), R(-1)}, e = {R(1)};
        const std::vector<R> s = values<M>(d, e);
        const double phi = (1 + std::sqrt(5.0)) / 2;
        EXPECT_LE(std::fabs(double(s[0]) - phi), 2 * u * phi);
        EXPECT_LE(std::fabs(double(s[1]) - 1 / phi), 2 * u / phi);
    }
}

TEST(BidiagonalValues, ZerosAndSplits) {
    BATCHSVD_BOTH_METHODS(zeros_and_splits);
}

// ---- 4. extreme scaling ----------------------------------------------------------------------

/// Entries of magnitude in [1/2, 2), random signs: scaled by 2^+-p they stay normal.
template <class R, Method M> void scaling_exact() {
    const int p = sizeof(R) == 8 ? 1000 : 120;
    for (int n : {1, 2, 5, 40, 200}) {
        const std::uint64_t seed = testing::fresh_seed();
        SCOPED_TRACE(std::string(type_name<R>()) + " n = " + std::to_string(n) + ", seed " + std::to_string(seed));
        std::mt19937_64 rng(seed);
        std::uniform_real_distribution<double> mag(0.5, 2.0);
        std::bernoulli_distribution sign(0.5);
        std::vector<R> d, e;
        for (int i = 0; i < n; ++i) d.push_back(R(sign(rng) ? -mag(rng) : mag(rng)));
        for (int i = 0; i + 1 < n; ++i) e.push_back(R(sign(rng) ? -mag(rng) : mag(rng)));
        const std::vector<R> s = values<M>(d, e);
        expect_descending(s);
        for (int sp : {p, -p}) {
            std::vector<R> ds = d, es = e;
            for (R& x : ds) x = std::ldexp(x, sp);
            for (R& x : es) x = std::ldexp(x, sp);
            for (R x : ds) ASSERT_TRUE(std::isnormal(x));
            const std::vector<R> ss = values<M>(ds, es);
            // Bitwise: the same block scaled by a power of two runs the same recurrence, and
            // the scaled value's rounding (where it is subnormal) is the one ldexp gives. dqds
            // of a float matrix runs in double and rounds a subnormal value once, from double,
            // where ldexp of its float result rounds twice: within one subnormal step there.
            for (int j = 0; j < n; ++j) {
                const R want = std::ldexp(s[std::size_t(j)], sp);
                if (M == Method::dqds && !std::isnormal(want))
                    EXPECT_LE(std::fabs(ss[std::size_t(j)] - want), std::numeric_limits<R>::denorm_min())
                        << "2^" << sp << ", j = " << j;
                else EXPECT_EQ(ss[std::size_t(j)], want) << "2^" << sp << ", j = " << j;
            }
        }
    }
}

TEST(BidiagonalValues, ScalingByPowersOfTwoIsExact) {
    BATCHSVD_BOTH_METHODS(scaling_exact);
}

/// dqds runs in double for float matrices: a float bidiagonal with values 0.29 and 2.7e-24
/// (their squares' ratio below float's range) gave 0 for the smaller in float arithmetic.
TEST(BidiagonalValues, DqdsOfFloatBeyondFloatSquares) {
    const std::vector<float> d = {1.555e-07f, -4.020e-10f, 6.263e-09f, 1.445e-08f, -2.543e-06f},
                             e = {-1.083e-01f, -6.561e-08f, -2.907e-01f, 2.306e-08f};
    const std::vector<float> s = values<Method::dqds>(d, e), ref = values<Method::bisection>(d, e);
    ASSERT_GT(ref[4], 1e-24f);
    for (int j = 0; j < 5; ++j) EXPECT_LE(std::fabs(s[std::size_t(j)] - ref[std::size_t(j)]), 8 * unit_roundoff<float> * ref[std::size_t(j)]) << "j = " << j;
}

/// The GPU interleaves the dqds work of its matrices (work_stride = batch): the same values,
/// bitwise, as contiguous work, the other matrices' entries between untouched.
TEST(BidiagonalValues, DqdsInterleavedWorkGivesTheSameValues) {
    const std::uint64_t seed = testing::fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    for (int n : {2, 7, 40}) {
        const int stride = 5;
        const Bidiagonal b = random_bidiagonal(n, rng);
        const std::vector<double> d = b.d, e = b.e;
        const std::vector<double> want = values<Method::dqds>(d, e);
        std::vector<double> work(std::size_t(5 * n * stride), -7.0), s(std::size_t(n), -1.0);
        core::bidiagonal_singular_values_dqds<double>(n, d.data(), e.data(), s.data(), work.data() + 2, stride);
        for (int j = 0; j < n; ++j) EXPECT_EQ(s[std::size_t(j)], want[std::size_t(j)]) << "n = " << n << ", j = " << j;
        for (std::size_t i = 0; i < work.size(); ++i)
            if (int(i % stride) != 2) EXPECT_EQ(work[i], -7.0) << "n = " << n << ", entry " << i;
    }
}

// ---- 5. one value by its index (the GPU's form) ---------------------------------------------

/// Every value by its index, P points a bisection step (the GPU takes 1; 3 and 7 are selectable).
template <int P, class R> std::vector<R> values_by_index(const std::vector<R>& d, const std::vector<R>& e) {
    const int n = int(d.size());
    const core::BidiagonalBracket<R> br = core::bidiagonal_bracket<R>(n, d.data(), e.data());
    std::vector<R> s;
    for (int r = 0; r < n; ++r) s.push_back(core::bidiagonal_value_at<P, R>(n, d.data(), e.data(), r, br));
    return s;
}

/// Both forms stop when the bracket is within 2u relatively and each is within about 15u of a
/// long double reference at orders to 118, so they agree to 30u on every
/// value above the index form's floor, sqrt(smallest normal / u) in units of the largest entry
/// (its count squares the entries; graded entries down to 1e-100 in double, 1e-12 in float;
/// values below 1e-140 (double) or 1e-14 (float) of the largest are not compared), and exactly
/// on exact zeros.
template <int P, class R> void value_at_agrees() {
    constexpr R u = unit_roundoff<R>;
    for (int rep = 0; rep < 6; ++rep) {
        const std::uint64_t seed = testing::fresh_seed();
        std::mt19937_64 rng(seed);
        const int n = std::uniform_int_distribution<int>(1, 70)(rng);
        SCOPED_TRACE(std::string(type_name<R>()) + " n = " + std::to_string(n) + ", " + std::to_string(P) +
                     " points, seed " + std::to_string(seed));
        const Bidiagonal b = rep % 2 ? graded_bidiagonal(n, sizeof(R) == 8 ? 100.0 : 12.0, rep % 3 == 0, rng)
                                     : random_bidiagonal(n, rng);
        std::vector<R> d = to<R>(b.d), e = to<R>(b.e);
        if (rep == 4 && n > 3) {  // splits and a zero diagonal entry
            e[std::size_t(n / 3)] = 0;
            d[std::size_t(n / 2)] = 0;
        }
        const std::vector<R> whole = values(d, e), one = values_by_index<P>(d, e);
        expect_descending(one);
        const R floor = R(sizeof(R) == 8 ? 1e-140 : 1e-14) * whole[0];
        for (int j = 0; j < n; ++j) {
            const R w = whole[std::size_t(j)];
            if (w == R(0)) EXPECT_EQ(one[std::size_t(j)], R(0)) << "j = " << j;
            else if (w > floor) EXPECT_LE(std::fabs(one[std::size_t(j)] - w), 30 * u * w) << "j = " << j;
        }
    }
    // Diagonal matrices (e = 0): the sorted |d_i|, zeros exact.
    const std::vector<R> d = {R(0.5), R(-3), R(0), R(1e-3), R(2.25), R(0), R(7)};
    const std::vector<R> e(d.size() - 1, R(0));
    const std::vector<R> s = values_by_index<P>(d, e);
    std::vector<R> want;
    for (R x : d) want.push_back(std::fabs(x));
    std::sort(want.begin(), want.end(), [](R x, R y) { return x > y; });
    for (std::size_t j = 0; j < d.size(); ++j) EXPECT_LE(std::fabs(s[j] - want[j]), 2 * u * want[j]) << "j = " << j;
    EXPECT_EQ(s[d.size() - 1], R(0));
    EXPECT_EQ(s[d.size() - 2], R(0));
    // All zero: every value 0.
    const std::vector<R> z(4, R(0)), ze(3, R(0));
    for (R x : values_by_index<P>(z, ze)) EXPECT_EQ(x, R(0));
}

TEST(BidiagonalValues, OneValueByItsIndexAgrees) {
    value_at_agrees<1, float>();
    value_at_agrees<1, double>();
    value_at_agrees<3, float>();
    value_at_agrees<3, double>();
    value_at_agrees<7, double>();
}

}  // namespace
}  // namespace batchsvd::test
