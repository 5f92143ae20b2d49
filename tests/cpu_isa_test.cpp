// SPDX-License-Identifier: BSD-3-Clause
// The CPU backend's copies for each instruction set (src/cpu/isa.hpp) give bitwise the same
// results as the baseline copy, on every schedule: the lanes, a matrix a thread, QR, the
// preconditioning (own eigensolver and LAPACK's), the threads sharing one matrix, the blocked
// variant, wide matrices, both real precisions (complex types always take the baseline copy:
// src/cpu/entry.cpp). Copies this processor cannot run are skipped.
#include <cstring>
#include <string>

#include "cpu/isa.hpp"
#include "cpu/lanes/jacobi_lanes.hpp"
#include "cpu/svd_cpu.hpp"
#include "svd_check.hpp"

namespace batchsvd::test {
namespace {

class CpuIsa : public ::testing::TestWithParam<Dtype> {};

template <class T, class Copy>
Result<T> solve_with(Copy&& copy, index_t m, index_t n, index_t batch, const std::vector<T>& a, const Options& o) {
    const index_t k = std::min(m, n);
    Result<T> r = poisoned_result<T>(m, n, batch);
    copy(m, n, batch, MatrixBatch<const T>{a.data(), m, m * n}, r.s.data(), k, MatrixBatch<T>{r.u.data(), m, m * k},
         MatrixBatch<T>{r.v.data(), n, n * k}, r.info.data(), o);
    return r;
}

template <class T> void compare_copies() {
    struct Shape {
        index_t m, n, batch;
        JacobiVariant variant;
    };
    const Shape shapes[] = {{7, 5, 9, JacobiVariant::automatic},    {5, 7, 3, JacobiVariant::automatic},
                            {30, 30, 5, JacobiVariant::automatic},  {100, 20, 3, JacobiVariant::automatic},
                            {80, 80, 3, JacobiVariant::automatic},  {20, 90, 2, JacobiVariant::automatic},
                            {300, 290, 1, JacobiVariant::automatic}, {70, 61, 1, JacobiVariant::blocked}};
    for (const Shape& sh : shapes) {
        SCOPED_TRACE(std::to_string(sh.m) + " x " + std::to_string(sh.n) + " x " + std::to_string(sh.batch));
        const std::vector<T> a =
            testing::generate_batch<T>(testing::Family::geo, sh.m, sh.n, sh.batch, testing::fresh_seed());
        Options o;
        o.variant = sh.variant;
        o.threads = 2;
        const Result<T> base = solve_with<T>(cpu::isa_baseline::gesvd<T>, sh.m, sh.n, sh.batch, a, o);
        for (index_t b = 0; b < sh.batch; ++b) ASSERT_EQ(base.info[b], 0);
        auto expect_same = [&](const Result<T>& r, const char* name) {
            SCOPED_TRACE(name);
            expect_bitwise_equal(r, base);
        };
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
        if (cpu::isa_available(cpu::Isa::avx2))
            expect_same(solve_with<T>(cpu::isa_avx2::gesvd<T>, sh.m, sh.n, sh.batch, a, o), "avx2");
        if (cpu::isa_available(cpu::Isa::avx512))
            expect_same(solve_with<T>(cpu::isa_avx512::gesvd<T>, sh.m, sh.n, sh.batch, a, o), "avx512");
#endif
    }
}

TEST_P(CpuIsa, EveryCopyGivesTheBaselineResults) {
    int copies = 0;
    for (cpu::Isa isa : {cpu::Isa::avx2, cpu::Isa::avx512}) copies += cpu::isa_available(isa);
    if (copies == 0) GTEST_SKIP() << "only the baseline copy runs on this processor (or was built): nothing to compare";
    with_dtype(GetParam(), [&](auto zero) {
        using T = decltype(zero);
        if constexpr (std::is_same_v<T, real_t<T>>) compare_copies<T>();
    });
}

/// The lanes kernel's hyperbolic iteration (LaneGroup::npos, hsvd's small real matrices):
/// every copy gives the baseline's columns, V, sweeps and stops bitwise.
template <class R> void compare_hyperbolic_lanes() {
    constexpr int L = cpu::lane_count<R>;
    const int rows = 12, cols = 9;
    const std::vector<R> a = testing::generate_batch<R>(testing::Family::random, rows, cols, L, testing::fresh_seed());
    std::vector<R> x0(std::size_t(rows * cols * L)), v0(std::size_t(cols * cols * L), R(0));
    for (int l = 0; l < L; ++l)
        for (int e = 0; e < rows * cols; ++e) x0[std::size_t(e * L + l)] = a[std::size_t(l * rows * cols + e)];
    for (int i = 0; i < rows; ++i) x0[std::size_t((4 * rows + i) * L + 3)] = 0;  // lane 3: a zero column
    for (int c = 0; c < cols; ++c)
        for (int l = 0; l < L; ++l) v0[std::size_t((c * cols + c) * L + l)] = 1;
    R negligible[L];
    int npos[L];
    for (int l = 0; l < L; ++l) {
        negligible[l] = R(1e-30);
        npos[l] = 1 + l % (cols - 1);
    }
    struct Out {
        std::vector<R> x, v;
        int sweeps[L], status[L];
        bool converged[L];
    };
    auto run = [&](cpu::Isa isa) {
        Out o;
        o.x = x0;
        o.v = v0;
        cpu::LaneGroup<R> g;
        g.rows = rows;
        g.cols = cols;
        g.x = o.x.data();
        g.v = o.v.data();
        g.tol = R(30) * std::numeric_limits<R>::epsilon() / 2;
        g.negligible = negligible;
        g.max_sweeps = 100;
        g.sweeps = o.sweeps;
        g.converged = o.converged;
        g.npos = npos;
        g.status = o.status;
        cpu::jacobi_lanes(g, isa);
        return o;
    };
    const Out base = run(cpu::Isa::baseline);
    EXPECT_EQ(base.status[3], info_rank_deficient);
    for (int l = 0; l < L; ++l)
        if (l != 3) EXPECT_TRUE(base.converged[l] && base.status[l] == 0) << "lane " << l;
    for (cpu::Isa isa : {cpu::Isa::avx2, cpu::Isa::avx512}) {
        if (!cpu::isa_available(isa)) continue;
        const Out o = run(isa);
        EXPECT_EQ(0, std::memcmp(o.x.data(), base.x.data(), o.x.size() * sizeof(R)));
        EXPECT_EQ(0, std::memcmp(o.v.data(), base.v.data(), o.v.size() * sizeof(R)));
        EXPECT_EQ(0, std::memcmp(o.sweeps, base.sweeps, sizeof o.sweeps));
        EXPECT_EQ(0, std::memcmp(o.status, base.status, sizeof o.status));
    }
}

TEST_P(CpuIsa, HyperbolicLanesGiveTheBaselineResults) {
    int copies = 0;
    for (cpu::Isa isa : {cpu::Isa::avx2, cpu::Isa::avx512}) copies += cpu::isa_available(isa);
    if (copies == 0) GTEST_SKIP() << "only the baseline copy runs on this processor (or was built): nothing to compare";
    with_dtype(GetParam(), [&](auto zero) {
        using T = decltype(zero);
        if constexpr (std::is_same_v<T, real_t<T>>) compare_hyperbolic_lanes<T>();
    });
}

INSTANTIATE_TEST_SUITE_P(Real, CpuIsa, ::testing::Values(Dtype::f32, Dtype::f64),
                         [](const ::testing::TestParamInfo<Dtype>& i) { return std::string(to_string(i.param)); });

}  // namespace
}  // namespace batchsvd::test
