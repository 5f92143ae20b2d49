// SPDX-License-Identifier: BSD-3-Clause
// The public API's argument checking and conventions (backend-independent).
#include <gtest/gtest.h>

#include <complex>
#include <vector>

#include "batchsvd/batchsvd.hpp"
#include "testing/generators.hpp"

namespace batchsvd::test {
namespace {

struct Buffers {
    index_t m = 6, n = 4, batch = 3, k = 4;
    std::vector<double> a = testing::generate_batch<double>(testing::Family::random, 6, 4, 3, 1);
    std::vector<double> s = std::vector<double>(12), u = std::vector<double>(72), v = std::vector<double>(48);
    std::vector<int> info = std::vector<int>(3);
};

ErrorCode code_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("batchsvd"), std::string::npos) << e.what();
        return e.code();
    }
    ADD_FAILURE() << "no batchsvd::Error thrown";
    return ErrorCode::device_error;
}

TEST(Api, InvalidArgumentsThrowClearErrors) {
    Buffers b;
    Options cpu;
    cpu.backend = Backend::cpu;
    auto call = [&](index_t m, index_t n, index_t batch, MatrixBatch<const double> a, double* s,
                    index_t ss, MatrixBatch<double> u, MatrixBatch<double> v, int* info, Options o) {
        return [=] { gesvd<double>(m, n, batch, a, s, ss, u, v, info, o); };
    };
    const MatrixBatch<const double> A{b.a.data(), 6, 24};
    const MatrixBatch<double> U{b.u.data(), 6, 24}, V{b.v.data(), 4, 16};
    EXPECT_EQ(code_of(call(-1, 4, 3, A, b.s.data(), 4, U, V, b.info.data(), cpu)), ErrorCode::invalid_argument);
    EXPECT_EQ(code_of(call(6, -4, 3, A, b.s.data(), 4, U, V, b.info.data(), cpu)), ErrorCode::invalid_argument);
    EXPECT_EQ(code_of(call(6, 4, -3, A, b.s.data(), 4, U, V, b.info.data(), cpu)), ErrorCode::invalid_argument);
    EXPECT_EQ(code_of(call(6, 4, 3, {b.a.data(), 5, 24}, b.s.data(), 4, U, V, b.info.data(), cpu)), ErrorCode::invalid_argument);
    EXPECT_EQ(code_of(call(6, 4, 3, {b.a.data(), 6, 20}, b.s.data(), 4, U, V, b.info.data(), cpu)), ErrorCode::invalid_argument);
    EXPECT_EQ(code_of(call(6, 4, 3, {nullptr, 6, 24}, b.s.data(), 4, U, V, b.info.data(), cpu)), ErrorCode::invalid_argument);
    EXPECT_EQ(code_of(call(6, 4, 3, A, nullptr, 4, U, V, b.info.data(), cpu)), ErrorCode::invalid_argument);
    EXPECT_EQ(code_of(call(6, 4, 3, A, b.s.data(), 3, U, V, b.info.data(), cpu)), ErrorCode::invalid_argument);
    EXPECT_EQ(code_of(call(6, 4, 3, A, b.s.data(), 4, {nullptr, 6, 24}, V, b.info.data(), cpu)), ErrorCode::invalid_argument);
    EXPECT_EQ(code_of(call(6, 4, 3, A, b.s.data(), 4, {b.u.data(), 4, 24}, V, b.info.data(), cpu)), ErrorCode::invalid_argument);
    EXPECT_EQ(code_of(call(6, 4, 3, A, b.s.data(), 4, U, {b.v.data(), 3, 16}, b.info.data(), cpu)), ErrorCode::invalid_argument);
    EXPECT_EQ(code_of(call(6, 4, 3, A, b.s.data(), 4, U, V, nullptr, cpu)), ErrorCode::invalid_argument);
    Options bad = cpu;
    bad.tol_factor = 0;
    EXPECT_EQ(code_of(call(6, 4, 3, A, b.s.data(), 4, U, V, b.info.data(), bad)), ErrorCode::invalid_argument);
    bad = cpu;
    bad.max_sweeps = 0;
    EXPECT_EQ(code_of(call(6, 4, 3, A, b.s.data(), 4, U, V, b.info.data(), bad)), ErrorCode::invalid_argument);
    bad = cpu;
    bad.block_width = -2;
    EXPECT_EQ(code_of(call(6, 4, 3, A, b.s.data(), 4, U, V, b.info.data(), bad)), ErrorCode::invalid_argument);
    // null U and V are fine when they are not asked for
    Options values = cpu;
    values.compute_u = values.compute_v = false;
    EXPECT_NO_THROW(gesvd<double>(6, 4, 3, A, b.s.data(), 4, {nullptr, 0, 0}, {nullptr, 0, 0}, b.info.data(), values));
}

TEST(Api, EmptyProblemsAreNoOps) {
    Options cpu;
    cpu.backend = Backend::cpu;
    std::vector<int> info(2, 7);
    EXPECT_NO_THROW(gesvd<float>(3, 3, 0, nullptr, nullptr, nullptr, nullptr, nullptr, cpu));
    EXPECT_NO_THROW(gesvd<float>(0, 5, 2, nullptr, nullptr, nullptr, nullptr, info.data(), cpu));
    EXPECT_EQ(info[0], 0);
    EXPECT_EQ(info[1], 0);
}

TEST(Api, CudaBackendWithoutDeviceIsReported) {
    if (cuda_available()) GTEST_SKIP() << "a CUDA device is present: nothing to report";
    Buffers b;
    Options o;
    o.backend = Backend::cuda;
    EXPECT_EQ(code_of([&] { gesvd<double>(6, 4, 3, b.a.data(), b.s.data(), b.u.data(), b.v.data(), b.info.data(), o); }),
              ErrorCode::backend_unavailable);
    EXPECT_STREQ(default_backend_name(), "cpu");
}

TEST(Api, DevicesWithoutDeviceAreReported) {
    if (cuda_available()) GTEST_SKIP() << "a CUDA device is present: CudaMultiGpuApi checks device lists";
    Buffers b;
    Options o;
    o.devices = {0};
    EXPECT_TRUE(cuda_devices().empty());
    EXPECT_EQ(code_of([&] { gesvd<double>(6, 4, 3, b.a.data(), b.s.data(), b.u.data(), b.v.data(), b.info.data(), o); }),
              ErrorCode::backend_unavailable);
    o.backend = Backend::cpu;  // devices name CUDA devices: never the cpu backend's
    EXPECT_EQ(code_of([&] { gesvd<double>(6, 4, 3, b.a.data(), b.s.data(), b.u.data(), b.v.data(), b.info.data(), o); }),
              BATCHSVD_WITH_CUDA ? ErrorCode::invalid_argument : ErrorCode::backend_unavailable);
}

TEST(Api, StridedLayoutMatchesPackedLayout) {
    // the same matrices, packed and embedded in larger strided buffers, give the same result
    const index_t m = 7, n = 5, k = 5, batch = 4, lda = 9, lu = 8, lv = 6, sa = 60, su = 50, sv = 40, ss = 7;
    const auto packed = testing::generate_batch<std::complex<double>>(testing::Family::geo, m, n, batch, testing::fresh_seed());
    std::vector<std::complex<double>> a(sa * batch, {-1, 1});
    for (index_t b = 0; b < batch; ++b)
        for (index_t j = 0; j < n; ++j)
            for (index_t i = 0; i < m; ++i) a[b * sa + i + j * lda] = packed[b * m * n + i + j * m];
    Options cpu;
    cpu.backend = Backend::cpu;
    std::vector<double> s1(k * batch), s2(ss * batch, -7);
    std::vector<std::complex<double>> u1(m * k * batch), v1(n * k * batch), u2(su * batch, {-7, 0}), v2(sv * batch, {-7, 0});
    std::vector<int> i1(batch), i2(batch);
    gesvd<std::complex<double>>(m, n, batch, packed.data(), s1.data(), u1.data(), v1.data(), i1.data(), cpu);
    gesvd<std::complex<double>>(m, n, batch, {a.data(), lda, sa}, s2.data(), ss, {u2.data(), lu, su}, {v2.data(), lv, sv}, i2.data(), cpu);
    for (index_t b = 0; b < batch; ++b) {
        EXPECT_EQ(i1[b], 0);
        EXPECT_EQ(i2[b], 0);
        for (index_t r = 0; r < k; ++r) EXPECT_EQ(s1[b * k + r], s2[b * ss + r]);
        for (index_t r = 0; r < k; ++r) {
            for (index_t i = 0; i < m; ++i) EXPECT_EQ(u1[b * m * k + i + r * m], u2[b * su + i + r * lu]);
            for (index_t i = 0; i < n; ++i) EXPECT_EQ(v1[b * n * k + i + r * n], v2[b * sv + i + r * lv]);
        }
        // padding between matrices and below the leading dimension is left alone
        EXPECT_EQ(u2[b * su + m], std::complex<double>(-7, 0));
        EXPECT_EQ(s2[b * ss + k], -7);
    }
}

TEST(Api, VersionIsReported) { EXPECT_STREQ(version(), BATCHSVD_VERSION_STRING); }

}  // namespace
}  // namespace batchsvd::test
