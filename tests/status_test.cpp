// SPDX-License-Identifier: BSD-3-Clause
// Per-matrix status and special matrices, on every backend and precision: a NaN or Inf
// matrix in the middle of a batch, zero and rank-deficient matrices, U/V switched off, and
// the sweep limit.
#include <cmath>
#include <cstring>

#include "svd_check.hpp"

namespace batchsvd::test {
namespace {


class Status : public ::testing::TestWithParam<Param> {
protected:
    void SetUp() override { BATCHSVD_SKIP_UNLESS_BACKEND(GetParam().backend); }
    Options opts() const {
        Options o;
        o.backend = GetParam().backend;
        return o;
    }
    template <class F> void run(F&& f) { with_dtype(GetParam().dtype, f); }
};

template <class T> bool bitwise_equal(const T* x, const T* y, size_t count) {
    return std::memcmp(x, y, count * sizeof(T)) == 0;
}

TEST_P(Status, NonFiniteMatrixMidBatchIsFlaggedAndIsolated) {
    run([&](auto zero) {
        using T = decltype(zero);
        using R = real_t<T>;
        const index_t m = 12, n = 9, k = 9, batch = 7, bad = 3;
        for (R badval : {std::numeric_limits<R>::quiet_NaN(), std::numeric_limits<R>::infinity(),
                         -std::numeric_limits<R>::infinity()}) {
            const std::uint64_t seed = testing::fresh_seed();
            SCOPED_TRACE("seed " + std::to_string(seed) + ", bad value " + std::to_string(badval));
            std::vector<T> a = testing::generate_batch<T>(testing::Family::random, m, n, batch, seed);
            const Result<T> clean = solve<T>(m, n, batch, a, opts());
            a[bad * m * n + 5 + 4 * m] = T(badval);
            const Result<T> r = solve<T>(m, n, batch, a, opts());
            for (index_t b = 0; b < batch; ++b) {
                if (b == bad) {
                    EXPECT_EQ(r.info[b], info_nonfinite);
                    for (index_t i = 0; i < k; ++i) EXPECT_TRUE(std::isnan(r.s[b * k + i]));
                    for (index_t i = 0; i < m * k; ++i) EXPECT_TRUE(std::isnan(std::real(r.u[b * m * k + i])));
                    for (index_t i = 0; i < n * k; ++i) EXPECT_TRUE(std::isnan(std::real(r.v[b * n * k + i])));
                } else {
                    EXPECT_EQ(r.info[b], 0);
                    // the rest of the batch is bit for bit what it was without the bad matrix
                    EXPECT_TRUE(bitwise_equal(&r.s[b * k], &clean.s[b * k], k)) << "matrix " << b;
                    EXPECT_TRUE(bitwise_equal(&r.u[b * m * k], &clean.u[b * m * k], m * k)) << "matrix " << b;
                    EXPECT_TRUE(bitwise_equal(&r.v[b * n * k], &clean.v[b * n * k], n * k)) << "matrix " << b;
                }
            }
        }
    });
}

TEST_P(Status, ZeroMatrixGivesZeroSigmaAndOrthonormalVectors) {
    run([&](auto zero) {
        using T = decltype(zero);
        for (auto [m, n] : {std::pair<index_t, index_t>{6, 6}, {10, 4}, {4, 10}, {70, 70}}) {
            const index_t k = std::min(m, n);
            const std::vector<T> a(m * n * 2, T(0));
            const Result<T> r = solve<T>(m, n, 2, a, opts());
            const double limit = tolerance_factor * testing::unit_roundoff<T>();
            for (index_t b = 0; b < 2; ++b) {
                EXPECT_EQ(r.info[b], 0);
                for (index_t i = 0; i < k; ++i) EXPECT_EQ(r.s[b * k + i], 0);
                const testing::Errors e = testing::measure<T>(m, n, &a[b * m * n], m, &r.s[b * k],
                                                              &r.u[b * m * k], m, &r.v[b * n * k], n, nullptr);
                EXPECT_TRUE(e.within(limit)) << m << "x" << n << ": e1 " << e.e1 << " e2 " << e.e2 << " e3 " << e.e3;
            }
        }
    });
}

TEST_P(Status, RankDeficientMatricesAreAccurate) {
    run([&](auto zero) {
        using T = decltype(zero);
        const index_t m = 20, n = 12;
        const std::uint64_t seed = testing::fresh_seed();
        SCOPED_TRACE("seed " + std::to_string(seed));
        std::vector<T> a = testing::generate_batch<T>(testing::Family::random, m, n, 3, seed);
        // matrix 0: rank 1 (every column a multiple of the first)
        for (index_t j = 1; j < n; ++j)
            for (index_t i = 0; i < m; ++i) a[i + j * m] = a[i] * real_t<T>(j + 1);
        // matrix 1: exactly repeated columns
        for (index_t j = 1; j < n; j += 2)
            for (index_t i = 0; i < m; ++i) a[m * n + i + j * m] = a[m * n + i + (j - 1) * m];
        // matrix 2: a single non-zero entry
        std::fill(a.begin() + 2 * m * n, a.end(), T(0));
        a[2 * m * n + 7 + 5 * m] = T(3);
        const Result<T> r = solve<T>(m, n, 3, a, opts());
        for (int b = 0; b < 3; ++b) EXPECT_EQ(r.info[b], 0);
        const testing::Errors e = testing::measure_batch<T>(m, n, 3, a.data(), r.s.data(), r.u.data(), r.v.data());
        const double limit = tolerance_factor * testing::unit_roundoff<T>();
        EXPECT_TRUE(e.within(limit)) << "e1 " << e.e1 << " e2 " << e.e2 << " e3 " << e.e3 << " e4 " << e.e4;
        EXPECT_EQ(r.s[2 * n], real_t<T>(3));
    });
}

TEST_P(Status, VectorsOffLeavesOutputsUntouchedAndValuesUnchanged) {
    run([&](auto zero) {
        using T = decltype(zero);
        for (auto [m, n] : {std::pair<index_t, index_t>{15, 11}, {11, 15}}) {
            const index_t k = std::min(m, n), batch = 5;
            const std::vector<T> a = testing::generate_batch<T>(testing::Family::geo, m, n, batch, testing::fresh_seed());
            const Result<T> full = solve<T>(m, n, batch, a, opts());
            for (auto [cu, cv] : {std::pair{false, true}, {true, false}, {false, false}}) {
                Options o = opts();
                o.compute_u = cu;
                o.compute_v = cv;
                const Result<T> r = solve<T>(m, n, batch, a, o);
                for (index_t b = 0; b < batch; ++b) EXPECT_EQ(r.info[b], 0);
                // singular values do not depend on whether vectors are accumulated
                const double limit = tolerance_factor * testing::unit_roundoff<T>();
                for (index_t i = 0; i < k * batch; ++i) EXPECT_NEAR(r.s[i], full.s[i], limit * full.s[0]);
                if (!cu) for (const T& x : r.u) EXPECT_TRUE(std::isnan(std::real(x))) << "U written with compute_u off";
                if (!cv) for (const T& x : r.v) EXPECT_TRUE(std::isnan(std::real(x))) << "V written with compute_v off";
                if (cu) EXPECT_TRUE(bitwise_equal(r.u.data(), full.u.data(), r.u.size()) ||
                                    testing::measure_batch<T>(m, n, batch, a.data(), r.s.data(), r.u.data(), nullptr).within(limit));
                if (cv) EXPECT_TRUE(bitwise_equal(r.v.data(), full.v.data(), r.v.size()) ||
                                    testing::measure_batch<T>(m, n, batch, a.data(), r.s.data(), nullptr, r.v.data()).within(limit));
            }
        }
    });
}

TEST_P(Status, SweepLimitReportsSweepsAndKeepsBestResult) {
    run([&](auto zero) {
        using T = decltype(zero);
        const index_t m = 30, n = 30, batch = 4;
        const std::vector<T> a = testing::generate_batch<T>(testing::Family::random, m, n, batch, testing::fresh_seed());
        Options o = opts();
        o.max_sweeps = 1;
        const Result<T> r = solve<T>(m, n, batch, a, o);
        for (index_t b = 0; b < batch; ++b) EXPECT_EQ(r.info[b], 1) << "one sweep cannot converge on random 30x30";
        for (const auto& x : r.s) EXPECT_TRUE(std::isfinite(x));
        for (const auto& x : r.u) EXPECT_TRUE(std::isfinite(std::real(x)));
        // one sweep already gets the values roughly right
        const auto ref = testing::reference_singular_values<T>(m, n, a.data(), m);
        EXPECT_NEAR(r.s[0], ref[0], 1e-2 * ref[0]);
    });
}

// Entries near overflow, near underflow and subnormal: the power-of-two scaling keeps the
// sums of squares in range, and S scales with the input.
TEST_P(Status, ExtremeScalesAreHandled) {
    run([&](auto zero) {
        using T = decltype(zero);
        using R = real_t<T>;
        const index_t m = 12, n = 9, k = 9, batch = 3;
        const auto a = testing::generate_batch<T>(testing::Family::arith, m, n, batch,
                                                  testing::fresh_seed());
        const Result<T> base = solve<T>(m, n, batch, a, opts());
        const int top = std::numeric_limits<R>::max_exponent - 4;     // ~1e300 / ~1e37
        const int low = std::numeric_limits<R>::min_exponent + 2;     // ~1e-300 / ~1e-37
        const int sub = std::numeric_limits<R>::min_exponent - 8;     // subnormal entries
        for (int e : {top, low, sub}) {
            SCOPED_TRACE("entries scaled by 2^" + std::to_string(e));
            std::vector<T> x(a);
            for (T& v : x) v *= std::ldexp(R(1), e);
            const Result<T> r = solve<T>(m, n, batch, x, opts());
            const testing::Errors err = testing::measure_batch<T>(m, n, batch, x.data(), r.s.data(),
                                                                  r.u.data(), r.v.data());
            const double lim = tolerance_factor * testing::unit_roundoff<T>();
            EXPECT_LT(err.e1, lim);
            EXPECT_LT(err.e2, lim);
            EXPECT_LT(err.e3, lim);
            for (index_t b = 0; b < batch; ++b) {
                ASSERT_EQ(r.info[b], 0);
                // Subnormal inputs lose their low bits: compare with the input's own SVD.
                const auto ref = testing::reference_singular_values<T>(m, n, x.data() + b * m * n, m);
                // A subnormal sigma itself is quantised to denorm_min: allow that rounding.
                const double q = e == sub ? 2.0 * std::numeric_limits<R>::denorm_min() / ref[0] : 0;
                for (index_t j = 0; j < k; ++j) {
                    EXPECT_NEAR(r.s[b * k + j] / ref[0], ref[j] / ref[0], lim + q) << b << " " << j;
                    if (e != sub)  // exact powers of two: S scales exactly with the input
                        EXPECT_NEAR(std::ldexp(r.s[b * k + j], -e), base.s[b * k + j],
                                    lim * base.s[b * k]);
                }
            }
        }
    });
}

// Identity, a diagonal, orthogonal columns, a single non-zero entry: already orthogonal, so
// one sweep (which finds nothing to rotate) converges; exactly repeated columns are exact.
TEST_P(Status, StructuredMatricesConvergeAtOnce) {
    run([&](auto zero) {
        using T = decltype(zero);
        using R = real_t<T>;
        const index_t m = 10, n = 7, k = 7, batch = 4;
        std::vector<T> a(m * n * batch, T(0));
        // Exactly orthogonal columns, not along the axes: e_j + e_j+1 and e_j - e_j+1 for even j
        // (every dot product is exactly 0). The left factor of an SVD was used before, but its
        // rounding-level orthogonality (up to ~30u by the accuracy bar) sometimes needed a
        // rotation (about 1 run in 100 failed on the CPU).
        auto orthogonal = [](index_t i, index_t j) {
            const index_t base = j - (j % 2);
            if (i == base) return R(1);
            if (i == base + 1) return j % 2 ? R(-1) : R(1);
            return R(0);
        };
        for (index_t j = 0; j < n; ++j)
            for (index_t i = 0; i < m; ++i) {
                a[0 * m * n + i + j * m] = T(R(i == j ? 1 : 0));                  // identity
                a[1 * m * n + i + j * m] = T(R(i == j ? (j * 37 % 7) + 1 : 0));   // diagonal
                a[2 * m * n + i + j * m] = T(orthogonal(i, j) * R(j + 1));        // orthogonal
            }
        a[3 * m * n + 5 + 2 * m] = T(R(-3));                                      // one entry
        Options o = opts();
        o.max_sweeps = 1;
        const Result<T> r = solve<T>(m, n, batch, a, o);
        for (index_t b = 0; b < batch; ++b) EXPECT_EQ(r.info[b], 0) << "matrix " << b;
        const testing::Errors e = testing::measure_batch<T>(m, n, batch, a.data(), r.s.data(),
                                                            r.u.data(), r.v.data());
        EXPECT_TRUE(e.within(tolerance_factor * testing::unit_roundoff<T>()))
            << "e1 " << e.e1 << " e2 " << e.e2 << " e3 " << e.e3 << " e4 " << e.e4;
        EXPECT_EQ(r.s[0], R(1));
        EXPECT_EQ(r.s[1 * k], R(7));
        EXPECT_EQ(r.s[3 * k], R(3));
        // Exactly repeated columns: rank n - 1, accurate.
        std::vector<T> rep = testing::generate_batch<T>(testing::Family::random, m, n, 2, testing::fresh_seed());
        for (index_t i = 0; i < m; ++i) rep[i + 4 * m] = rep[i + 1 * m];
        const Result<T> rr = solve<T>(m, n, 2, rep, opts());
        EXPECT_EQ(rr.info[0], 0);
        const testing::Errors er = testing::measure_batch<T>(m, n, 2, rep.data(), rr.s.data(),
                                                             rr.u.data(), rr.v.data());
        EXPECT_TRUE(er.within(tolerance_factor * testing::unit_roundoff<T>()))
            << "e1 " << er.e1 << " e2 " << er.e2 << " e3 " << er.e3 << " e4 " << er.e4;
        EXPECT_LE(rr.s[k - 1], 30 * testing::unit_roundoff<T>() * rr.s[0]);
    });
}

// The same input twice gives bitwise the same outputs.
TEST_P(Status, RepeatedRunsAreBitwiseIdentical) {
    run([&](auto zero) {
        using T = decltype(zero);
        for (auto [m, n] : {std::pair<index_t, index_t>{3, 3}, {16, 16}, {40, 25}, {90, 70}}) {
            const index_t batch = 5;
            const auto a = testing::generate_batch<T>(testing::Family::logrand, m, n, batch,
                                                      testing::fresh_seed());
            const Result<T> r1 = solve<T>(m, n, batch, a, opts());
            const Result<T> r2 = solve<T>(m, n, batch, a, opts());
            EXPECT_TRUE(bitwise_equal(r1.s.data(), r2.s.data(), r1.s.size())) << m << "x" << n;
            EXPECT_TRUE(bitwise_equal(r1.u.data(), r2.u.data(), r1.u.size())) << m << "x" << n;
            EXPECT_TRUE(bitwise_equal(r1.v.data(), r2.v.data(), r1.v.size())) << m << "x" << n;
            EXPECT_EQ(r1.info, r2.info);
        }
    });
}

// A matrix gets bitwise the same results alone as inside a larger batch: on the CPU a batch
// smaller than the thread count shares each step's pairs among the threads instead. (On CUDA
// this holds where the plan does not depend on the batch: at 90 x 80 it does not; from order
// 112 the blocked path's block width does, cuda::solve_path.)
TEST_P(Status, ResultsDoNotDependOnTheBatch) {
    run([&](auto zero) {
        using T = decltype(zero);
        const index_t m = 90, n = 80, k = 80, batch = 6;
        const auto a = testing::generate_batch<T>(testing::Family::geo, m, n, batch,
                                                  testing::fresh_seed());
        const Result<T> all = solve<T>(m, n, batch, a, opts());
        const std::vector<T> first(a.begin() + 2 * m * n, a.begin() + 3 * m * n);
        const Result<T> one = solve<T>(m, n, 1, first, opts());
        EXPECT_EQ(one.info[0], all.info[2]);
        EXPECT_TRUE(bitwise_equal(one.s.data(), all.s.data() + 2 * k, k));
        EXPECT_TRUE(bitwise_equal(one.u.data(), all.u.data() + 2 * m * k, m * k));
        EXPECT_TRUE(bitwise_equal(one.v.data(), all.v.data() + 2 * n * k, n * k));
    });
}

INSTANTIATE_TEST_SUITE_P(AllBackends, Status, ::testing::ValuesIn(all_params()), param_name);

}  // namespace
}  // namespace batchsvd::test
