// SPDX-License-Identifier: BSD-3-Clause
// The CPU backend's small real matrices, one a SIMD lane (src/cpu/lane_groups.hpp): accuracy
// on every family and every order and shape the lanes take; a matrix's result bitwise the
// same whatever it shares its group with (hostile neighbours included) and on every
// instruction set the processor has; the sweep limit and per-matrix sweeps as on the other
// paths.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "cpu/lane_groups.hpp"
#include "svd_check.hpp"

namespace batchsvd::test {
namespace {

class CpuLanes : public ::testing::TestWithParam<Dtype> {
protected:
    template <class F> void run(F&& f) {
        if (GetParam() == Dtype::c64 || GetParam() == Dtype::c128) GTEST_SKIP() << "the lanes take real types";
        with_dtype(GetParam(), [&](auto zero) {
            if constexpr (std::is_same_v<decltype(zero), real_t<decltype(zero)>>) f(zero);
        });
    }
};

/// Every square order the lanes take and one past, tall and wide up to their row limit (float64
/// 64 x 16 goes to the per-matrix iteration; 64 x 15 stays in the lanes).
TEST_P(CpuLanes, EveryFamilyOrderAndShape) {
    run([&](auto zero) {
        using T = decltype(zero);
        for (testing::Family f : testing::all_families) {
            for (index_t k = 2; k <= cpu::lanes_max_cols<T> + 1; ++k) {
                SCOPED_TRACE(std::string(testing::to_string(f)) + " " + std::to_string(k));
                check_accuracy<T>(Backend::cpu, f, k, k, 11);
            }
            for (auto [m, n] : {std::pair<index_t, index_t>{16, 4}, {4, 16}, {64, 16}, {16, 64}, {64, 15}, {15, 64},
                                {33, 7}, {7, 33}}) {
                SCOPED_TRACE(std::string(testing::to_string(f)) + " " + std::to_string(m) + "x" + std::to_string(n));
                check_accuracy<T>(Backend::cpu, f, m, n, 9);
            }
        }
    });
}

/// A batch whose groups mix ordinary, zero, rank-one, graded, NaN, huge and tiny matrices:
/// every matrix comes out bitwise as it does alone.
TEST_P(CpuLanes, ResultDoesNotDependOnTheGroup) {
    run([&](auto zero) {
        using T = decltype(zero);
        for (auto [m, n] : {std::pair<index_t, index_t>{5, 5}, {12, 7}, {3, 9}}) {
            SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
            const index_t batch = 2 * cpu::lane_count<T> + 3, k = std::min(m, n);
            std::vector<T> a = testing::generate_batch<T>(testing::Family::random, m, n, batch, testing::fresh_seed());
            const std::vector<T> geo = testing::generate_batch<T>(testing::Family::geo, m, n, 1, testing::fresh_seed());
            auto mat = [&](index_t b) { return a.data() + b * m * n; };
            std::fill_n(mat(1), m * n, T(0));                                       // zero
            for (index_t j = 0; j < n; ++j)                                           // rank one
                for (index_t i = 0; i < m; ++i) mat(4)[i + j * m] = T(i + 1) * T(j + 2);
            std::copy_n(geo.data(), m * n, mat(7));                                   // graded
            mat(9)[2] = std::numeric_limits<T>::quiet_NaN();                          // NaN
            for (index_t e = 0; e < m * n; ++e) mat(12)[e] *= T(1e30);                // huge: scaled
            for (index_t e = 0; e < m * n; ++e) mat(16)[e] *= T(1e-30);               // tiny: scaled
            Options o;
            o.backend = Backend::cpu;
            const Result<T> all = solve<T>(m, n, batch, a, o);
            for (index_t b = 0; b < batch; ++b) {
                SCOPED_TRACE("matrix " + std::to_string(b));
                const std::vector<T> one(mat(b), mat(b) + m * n);
                const Result<T> alone = solve<T>(m, n, 1, one, o);
                EXPECT_EQ(all.info[b], alone.info[0]);
                EXPECT_EQ(0, std::memcmp(all.s.data() + b * k, alone.s.data(), k * sizeof(T)));
                EXPECT_EQ(0, std::memcmp(all.u.data() + b * m * k, alone.u.data(), m * k * sizeof(T)));
                EXPECT_EQ(0, std::memcmp(all.v.data() + b * n * k, alone.v.data(), n * k * sizeof(T)));
            }
            EXPECT_EQ(all.info[9], info_nonfinite);
            EXPECT_TRUE(std::isnan(all.s[9 * k]));
            EXPECT_EQ(all.info[1], 0);
            EXPECT_EQ(all.s[k], T(0));
        }
    });
}

/// jacobi_lanes gives bitwise the same on every instruction set this processor has.
TEST_P(CpuLanes, SameOnEveryInstructionSet) {
    run([&](auto zero) {
        using T = decltype(zero);
        constexpr int L = cpu::lane_count<T>;
        const int rows = 9, cols = 6;
        const std::vector<T> a = testing::generate_batch<T>(testing::Family::logrand, rows, cols, L, testing::fresh_seed());
        std::vector<T> x0(std::size_t(rows * cols * L)), v0(std::size_t(cols * cols * L), T(0));
        for (int l = 0; l < L; ++l) {
            for (int e = 0; e < rows * cols; ++e) x0[std::size_t(e * L + l)] = a[std::size_t(l * rows * cols + e)];
            for (int j = 0; j < cols; ++j) v0[std::size_t((j * cols + j) * L + l)] = T(1);
        }
        auto iterate = [&](cpu::Isa isa, std::vector<T>& x, std::vector<T>& v, std::vector<int>& sweeps) {
            x = x0;
            v = v0;
            std::vector<T> negligible(L, T(0));
            bool converged[L];
            sweeps.assign(L, 0);
            cpu::LaneGroup<T> g;
            g.rows = rows;
            g.cols = cols;
            g.x = x.data();
            g.v = v.data();
            g.tol = T(30) * std::numeric_limits<T>::epsilon() / 2;
            g.negligible = negligible.data();
            g.max_sweeps = 100;
            g.sweeps = sweeps.data();
            g.converged = converged;
            cpu::jacobi_lanes(g, isa);
            for (int l = 0; l < L; ++l) EXPECT_TRUE(converged[l]);
        };
        std::vector<T> xb, vb;
        std::vector<int> sb;
        iterate(cpu::Isa::baseline, xb, vb, sb);
        int tried = 0;
        for (cpu::Isa isa : {cpu::Isa::avx2, cpu::Isa::avx512}) {
            if (!cpu::isa_available(isa)) continue;
            ++tried;
            std::vector<T> x, v;
            std::vector<int> s;
            iterate(isa, x, v, s);
            EXPECT_EQ(0, std::memcmp(x.data(), xb.data(), x.size() * sizeof(T)));
            EXPECT_EQ(0, std::memcmp(v.data(), vb.data(), v.size() * sizeof(T)));
            EXPECT_EQ(s, sb);
        }
        if (tried == 0) GTEST_SKIP() << "this processor has only the baseline instruction set: nothing to compare";
    });
}

/// Sweep limit: info is the sweeps run where a matrix did not converge, 0 where it did;
/// Options::sweeps gets each matrix's own count, whatever its neighbours needed.
TEST_P(CpuLanes, SweepLimitAndSweepsPerMatrix) {
    run([&](auto zero) {
        using T = decltype(zero);
        const index_t m = 8, n = 8, batch = 3;
        std::vector<T> a = testing::generate_batch<T>(testing::Family::random, m, n, batch, testing::fresh_seed());
        std::fill_n(a.data() + m * n, m * n, T(0));  // matrix 1: the identity, converged at once
        for (index_t i = 0; i < n; ++i) a[std::size_t(m * n + i + i * m)] = T(1);
        Options o;
        o.backend = Backend::cpu;
        std::vector<int> sweeps(batch, -1);
        o.sweeps = sweeps.data();
        o.max_sweeps = 2;
        const Result<T> limited = solve<T>(m, n, batch, a, o);
        EXPECT_EQ(limited.info[0], 2);
        EXPECT_EQ(sweeps[0], 2);
        EXPECT_EQ(limited.info[1], 0);
        EXPECT_EQ(sweeps[1], 1);
        o.max_sweeps = 100;
        const Result<T> full = solve<T>(m, n, batch, a, o);
        for (index_t b = 0; b < batch; ++b) EXPECT_EQ(full.info[b], 0);
        EXPECT_GT(sweeps[0], 2);
        EXPECT_LT(sweeps[0], 20);
        EXPECT_EQ(sweeps[1], 1);
    });
}

INSTANTIATE_TEST_SUITE_P(Real, CpuLanes, ::testing::Values(Dtype::f32, Dtype::f64),
                         [](const ::testing::TestParamInfo<Dtype>& i) { return std::string(to_string(i.param)); });

}  // namespace
}  // namespace batchsvd::test
