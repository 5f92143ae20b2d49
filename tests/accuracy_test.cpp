// SPDX-License-Identifier: BSD-3-Clause
// Accuracy of every backend on the six families of abfasi Table 1, in the four precisions,
// over square, tall, wide, vector and odd shapes, through both Jacobi variants and the QR
// path: e1-e4 < 30u, S sorted, info 0 (tests/svd_check.hpp).
#include <algorithm>
#include <complex>
#include <sstream>
#include <tuple>

#include "svd_check.hpp"

namespace batchsvd::test {
namespace {

struct Case {
    Backend backend;
    Dtype dtype;
    testing::Family family;
    index_t m, n, batch;
    JacobiVariant variant = JacobiVariant::automatic;
    QrMode qr = QrMode::automatic;
    int block_width = 0;
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
    const Case& c = info.param;
    std::ostringstream os;
    os << to_string(c.backend) << "_" << to_string(c.dtype) << "_" << testing::to_string(c.family)
       << "_" << c.m << "x" << c.n << "_b" << c.batch;
    if (c.variant == JacobiVariant::unblocked) os << "_unblocked";
    if (c.variant == JacobiVariant::blocked) os << "_blocked" << c.block_width;
    if (c.qr == QrMode::always) os << "_qr";
    if (c.qr == QrMode::never) os << "_noqr";
    return os.str();
}

struct Shape {
    index_t m, n, batch;
};
// 1 to 300 rows/columns: vectors, tiny, odd, not multiples of the block width, tall enough
// for QR pre-processing, wide through the transpose, and sizes on the blocked path.
constexpr Shape shapes[] = {{1, 1, 8},    {1, 9, 8},     {9, 1, 8},    {2, 2, 16},  {5, 3, 16},
                            {3, 5, 16},   {8, 8, 16},    {17, 17, 8},  {32, 32, 4}, {40, 25, 4},
                            {25, 40, 4},  {33, 33, 2},   {100, 13, 2}, {13, 100, 2},
                            {97, 97, 1},  {150, 131, 1}, {300, 300, 1}, {300, 40, 1}};

std::vector<Case> all_cases() {
    std::vector<Case> cases;
    for (Backend be : {Backend::cpu, Backend::cuda})
        for (Dtype d : {Dtype::f32, Dtype::f64, Dtype::c64, Dtype::c128})
            for (testing::Family f : testing::all_families) {
                for (const Shape& s : shapes) cases.push_back({be, d, f, s.m, s.n, s.batch});
                // Forced variants on the same family: blocked with a ragged last block and an
                // odd block count, unblocked above the automatic crossover, QR on and off.
                cases.push_back({be, d, f, 70, 61, 1, JacobiVariant::blocked, QrMode::automatic, 8});
                cases.push_back({be, d, f, 45, 45, 1, JacobiVariant::blocked, QrMode::automatic, 4});
                cases.push_back({be, d, f, 80, 80, 1, JacobiVariant::unblocked});
                cases.push_back({be, d, f, 30, 30, 2, JacobiVariant::automatic, QrMode::always});
                cases.push_back({be, d, f, 90, 20, 2, JacobiVariant::automatic, QrMode::never});
            }
    return cases;
}

class Accuracy : public ::testing::TestWithParam<Case> {};

TEST_P(Accuracy, ErrorsBelow30u) {
    const Case& c = GetParam();
    BATCHSVD_SKIP_UNLESS_BACKEND(c.backend);
    Options opts;
    opts.variant = c.variant;
    opts.qr = c.qr;
    opts.block_width = c.block_width;
    with_dtype(c.dtype, [&](auto zero) {
        using T = decltype(zero);
        check_accuracy<T>(c.backend, c.family, c.m, c.n, c.batch, opts);
    });
}

INSTANTIATE_TEST_SUITE_P(AllBackends, Accuracy, ::testing::ValuesIn(all_cases()), case_name);

/// Largest |u_i^H u_j| (i != j) over the k columns of each of the batch's U (m x k each).
template <class T> double largest_cosine(index_t m, index_t k, index_t batch, const std::vector<T>& u) {
    double worst = 0;
    for (index_t b = 0; b < batch; ++b)
        for (index_t i = 0; i < k; ++i)
            for (index_t j = i + 1; j < k; ++j) {
                std::complex<long double> d = 0;
                for (index_t r = 0; r < m; ++r) {
                    const std::complex<long double> x(std::real(u[(b * k + i) * m + r]), std::imag(u[(b * k + i) * m + r]));
                    const std::complex<long double> y(std::real(u[(b * k + j) * m + r]), std::imag(u[(b * k + j) * m + r]));
                    d += std::conj(x) * y;
                }
                worst = std::max(worst, double(std::abs(d)));
            }
    return worst;
}

/// Long columns (8192 rows, no QR: Jacobi on the columns themselves). The convergence
/// threshold is k u at any length, so no two columns of U are left with a cosine much above
/// it (a threshold of sqrt(m) u, LAPACK gesvj's, allows 90u here and took e2 to 30u at
/// 8192 x 8192 on the GPU).
class LongColumns : public ::testing::TestWithParam<std::tuple<Backend, Dtype>> {};
TEST_P(LongColumns, CosinesStayNearTheThreshold) {
    const auto [backend, dtype] = GetParam();
    BATCHSVD_SKIP_UNLESS_BACKEND(backend);
    const index_t m = 8192, n = 16, batch = 2;
    Options opts;
    opts.backend = backend;
    opts.qr = QrMode::never;
    with_dtype(dtype, [&](auto zero) {
        using T = decltype(zero);
        const double u = testing::unit_roundoff<T>();
        for (testing::Family f : {testing::Family::geo, testing::Family::random}) {
            const std::uint64_t seed = testing::fresh_seed();
            SCOPED_TRACE(std::string(testing::to_string(f)) + ", replay with BATCHSVD_TEST_SEED=" + std::to_string(seed));
            const std::vector<T> a = testing::generate_batch<T>(f, m, n, batch, seed);
            const Result<T> r = solve<T>(m, n, batch, a, opts);
            for (index_t b = 0; b < batch; ++b) ASSERT_EQ(r.info[b], 0) << "matrix " << b;
            // The test is on W's columns; U = W / sigma adds a rounding or two.
            EXPECT_LE(largest_cosine<T>(m, n, batch, r.u) / u, tolerance_factor + 2);
            const testing::Errors e = testing::measure_batch<T>(m, n, batch, a.data(), r.s.data(),
                                                                r.u.data(), r.v.data());
            EXPECT_TRUE(e.within(tolerance_factor * u)) << "e1 " << e.e1 / u << "u e2 " << e.e2 / u << "u e3 "
                                                         << e.e3 / u << "u e4 " << e.e4 / u << "u";
        }
    });
}
INSTANTIATE_TEST_SUITE_P(AllBackends, LongColumns,
                         ::testing::Combine(::testing::Values(Backend::cpu, Backend::cuda),
                                            ::testing::Values(Dtype::f32, Dtype::f64, Dtype::c64, Dtype::c128)),
                         [](const auto& info) {
                             return std::string(to_string(std::get<0>(info.param))) + "_" +
                                    to_string(std::get<1>(info.param));
                         });

}  // namespace
}  // namespace batchsvd::test
