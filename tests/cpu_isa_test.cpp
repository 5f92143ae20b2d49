// SPDX-License-Identifier: BSD-3-Clause
// The CPU backend's copies for each instruction set (src/cpu/isa.hpp) give bitwise the same
// results as the baseline copy, on every schedule: the lanes, a matrix a thread, QR, the
// preconditioning (own eigensolver and LAPACK's), the threads sharing one matrix, the blocked
// variant, wide matrices, both real precisions (complex types always take the baseline copy:
// src/cpu/entry.cpp). Copies this processor cannot run are skipped.
#include <cstring>
#include <string>

#include "cpu/isa.hpp"
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

INSTANTIATE_TEST_SUITE_P(Real, CpuIsa, ::testing::Values(Dtype::f32, Dtype::f64),
                         [](const ::testing::TestParamInfo<Dtype>& i) { return std::string(to_string(i.param)); });

}  // namespace
}  // namespace batchsvd::test
