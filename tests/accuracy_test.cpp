// Accuracy of every backend on the six families of abfasi Table 1, in the four precisions,
// over square, tall, wide, vector and odd shapes, through both Jacobi variants and the QR
// path: e1-e4 < 30u, S sorted, info 0 (tests/svd_check.hpp).
#include <sstream>

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

}  // namespace
}  // namespace batchsvd::test
