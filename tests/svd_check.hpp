// SPDX-License-Identifier: BSD-3-Clause
// The shared harness every backend's tests go through: generate a batch of a family, poison
// the outputs (NaN), run batchsvd::gesvd on the backend, and check e1-e4 < 30u, sorted S and
// info == 0 for every matrix. GPU cases skip, with a message, where no CUDA device exists.
#pragma once

#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "batchsvd/batchsvd.hpp"
#include "testing/error_measures.hpp"
#include "testing/generators.hpp"

namespace batchsvd::test {

enum class Dtype { f32, f64, c64, c128 };
inline const char* to_string(Dtype d) {
    switch (d) {
        case Dtype::f32: return "float32";
        case Dtype::f64: return "float64";
        case Dtype::c64: return "complex64";
        case Dtype::c128: return "complex128";
    }
    return "?";
}

/// Calls f(T{}) with the scalar type of d.
template <class F> decltype(auto) with_dtype(Dtype d, F&& f) {
    switch (d) {
        case Dtype::f32: return f(float{});
        case Dtype::f64: return f(double{});
        case Dtype::c64: return f(std::complex<float>{});
        default: return f(std::complex<double>{});
    }
}

/// A test parameter of the suites run on every backend and precision.
struct Param {
    Backend backend;
    Dtype dtype;
};
inline std::string param_name(const ::testing::TestParamInfo<Param>& i) {
    return std::string(to_string(i.param.backend)) + "_" + to_string(i.param.dtype);
}
inline std::vector<Param> all_params() {
    std::vector<Param> p;
    for (Backend b : {Backend::cpu, Backend::cuda})
        for (Dtype d : {Dtype::f32, Dtype::f64, Dtype::c64, Dtype::c128}) p.push_back({b, d});
    return p;
}

inline constexpr double tolerance_factor = 30;  // the paper's k: every measure below k*u

/// GTEST_SKIP-style guard: true (after recording the skip) when the backend cannot run here.
#define BATCHSVD_SKIP_UNLESS_BACKEND(backend)                                                  \
    do {                                                                                       \
        if ((backend) == ::batchsvd::Backend::cuda && !::batchsvd::cuda_available())          \
            GTEST_SKIP() << "no CUDA device on this machine: GPU case not run (it runs on a "  \
                            "machine with a GPU, see scripts/gpu_check.sh)";                   \
    } while (0)

template <class T> T poison() {
    const real_t<T> q = std::numeric_limits<real_t<T>>::quiet_NaN();
    if constexpr (std::is_same_v<T, real_t<T>>) return q; else return T(q, q);
}

/// Outputs of one packed-batch solve.
template <class T> struct Result {
    std::vector<real_t<T>> s;
    std::vector<T> u, v;
    std::vector<int> info;
};

/// Outputs for a packed batch of m x n matrices, poisoned (NaN, info 12345), so that an
/// unwritten element fails.
template <class T> Result<T> poisoned_result(index_t m, index_t n, index_t batch) {
    const index_t k = std::min(m, n);
    Result<T> r;
    r.s.assign(k * batch, std::numeric_limits<real_t<T>>::quiet_NaN());
    r.u.assign(m * k * batch, poison<T>());
    r.v.assign(n * k * batch, poison<T>());
    r.info.assign(batch, 12345);
    return r;
}

/// Solves a packed batch with poisoned outputs.
template <class T>
Result<T> solve(index_t m, index_t n, index_t batch, const std::vector<T>& a, const Options& opts) {
    Result<T> r = poisoned_result<T>(m, n, batch);
    gesvd<T>(m, n, batch, a.data(), r.s.data(), r.u.data(), r.v.data(), r.info.data(), opts);
    return r;
}

/// Two solves' outputs bitwise equal (S, U, V) and the same info.
template <class T> void expect_bitwise_equal(const Result<T>& x, const Result<T>& y) {
    EXPECT_EQ(0, std::memcmp(x.s.data(), y.s.data(), x.s.size() * sizeof(x.s[0])));
    EXPECT_EQ(0, std::memcmp(x.u.data(), y.u.data(), x.u.size() * sizeof(T)));
    EXPECT_EQ(0, std::memcmp(x.v.data(), y.v.data(), x.v.size() * sizeof(T)));
    EXPECT_EQ(x.info, y.info);
}

/// Generates, solves and checks one batch; failures name the seed for a replay.
template <class T>
void check_accuracy(Backend backend, testing::Family family, index_t m, index_t n, index_t batch,
                    Options opts = {}) {
    opts.backend = backend;
    const std::uint64_t seed = testing::fresh_seed();
    SCOPED_TRACE("replay with BATCHSVD_TEST_SEED=" + std::to_string(seed));
    const std::vector<T> a = testing::generate_batch<T>(family, m, n, batch, seed);
    const Result<T> r = solve<T>(m, n, batch, a, opts);
    for (index_t b = 0; b < batch; ++b) ASSERT_EQ(r.info[b], 0) << "matrix " << b;
    const testing::Errors e = testing::measure_batch<T>(m, n, batch, a.data(), r.s.data(),
                                                        r.u.data(), r.v.data());
    const double limit = tolerance_factor * testing::unit_roundoff<T>();
    EXPECT_TRUE(e.within(limit)) << "limit " << limit << ": e1 " << e.e1 << " e2 " << e.e2
                                 << " e3 " << e.e3 << " e4 " << e.e4 << " sorted " << e.sorted;
}

}  // namespace batchsvd::test
