// SPDX-License-Identifier: BSD-3-Clause
// The CPU backend's threads: Options::threads and OpenMP's default (omp_set_num_threads, as
// OMP_NUM_THREADS sets it) give bitwise the same results at any count, on each of its
// schedules (a matrix a thread; threads sharing one matrix's pairs, for a batch smaller than
// the thread count and for large matrices), preconditioned or not; a negative count is
// invalid_argument.
#include <omp.h>

#include <cstring>

#include "svd_check.hpp"

namespace batchsvd::test {
namespace {

class CpuThreads : public ::testing::TestWithParam<Dtype> {
protected:
    template <class F> void run(F&& f) { with_dtype(GetParam(), f); }
};

/// (m, n, batch): a matrix a thread; one matrix's pairs shared (a batch below the thread
/// count, from 64 columns; and from 288 columns); below the preconditioning order.
constexpr index_t kShapes[][3] = {{48, 48, 6}, {100, 90, 2}, {300, 290, 1}, {7, 5, 9}};

TEST_P(CpuThreads, OptionGivesTheSameResultsAtAnyCount) {
    run([&](auto zero) {
        using T = decltype(zero);
        for (const auto& sh : kShapes) {
            SCOPED_TRACE(std::to_string(sh[0]) + " x " + std::to_string(sh[1]) + " x " + std::to_string(sh[2]));
            const std::vector<T> a =
                testing::generate_batch<T>(testing::Family::geo, sh[0], sh[1], sh[2], testing::fresh_seed());
            Options o;
            o.backend = Backend::cpu;
            o.threads = 1;
            const Result<T> one = solve<T>(sh[0], sh[1], sh[2], a, o);
            for (index_t b = 0; b < sh[2]; ++b) ASSERT_EQ(one.info[b], 0);
            for (int t : {2, 3, 6}) {  // 6: several large matrices finished at once
                o.threads = t;
                expect_bitwise_equal(one, solve<T>(sh[0], sh[1], sh[2], a, o));
            }
            // OpenMP's default, as OMP_NUM_THREADS would set it.
            const int before = omp_get_max_threads();
            omp_set_num_threads(3);
            o.threads = 0;
            const Result<T> by_default = solve<T>(sh[0], sh[1], sh[2], a, o);
            omp_set_num_threads(before);
            expect_bitwise_equal(one, by_default);
        }
    });
}

TEST(CpuThreads, NegativeCountIsInvalid) {
    std::vector<double> a(16, 1.0), s(4), u(16), v(16);
    int info = 0;
    Options o;
    o.backend = Backend::cpu;
    o.threads = -1;
    try {
        gesvd<double>(4, 4, 1, a.data(), s.data(), u.data(), v.data(), &info, o);
        FAIL() << "threads = -1 was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
        EXPECT_NE(std::string(e.what()).find("threads"), std::string::npos) << e.what();
    }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CpuThreads, ::testing::Values(Dtype::f32, Dtype::f64, Dtype::c64, Dtype::c128),
                         [](const ::testing::TestParamInfo<Dtype>& i) { return std::string(to_string(i.param)); });

}  // namespace
}  // namespace batchsvd::test
