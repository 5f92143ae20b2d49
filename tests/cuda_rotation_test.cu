// SPDX-License-Identifier: BSD-3-Clause
// The GPU's rotation arithmetic (core/rotation.hpp on the device: MUFU approximations refined
// by Newton steps) against long-double references on the host. What every GPU path's accuracy
// rests on: cosines and the shears' (h, s) to rounding, so that each rotation is orthogonal to
// rounding, whatever the accuracy of the angle. Why this needs its own test (H100, 2026-11-25):
// the double MUFU reads and writes only the high word and is far less accurate than a
// refinement step assumes; a cosine one Newton step short left V's orthogonality at 30-48u on
// 300 x 300 graded matrices, the rotations' only symptom. Skips where no CUDA device exists.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "batchsvd/batchsvd.hpp"
#include "core/rotation.hpp"
#include "cuda_test_support.hpp"

namespace batchsvd::test {
namespace {

/// Per input x > 0: the refined roots and reciprocals, and the bare approximations.
enum Arith { kFullRsqrt, kFastSqrt, kFullRcp, kFastRcp, kRawRsqrt, kRawRcp, kArith };

template <class R> __global__ void arithmetic_kernel(const R* x, R* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const R v = x[i];
    R* o = out + std::size_t(i) * kArith;
    o[kFullRsqrt] = core::full_rsqrt(v);
    o[kFastSqrt] = core::fast_sqrt(v);
    o[kFullRcp] = core::full_reciprocal(v);
    o[kFastRcp] = core::fast_reciprocal(v);
    o[kRawRsqrt] = core::rsqrt_mufu(v);
    o[kRawRcp] = core::rcp_approx(v);
}

/// Per Gram pair (a, b, c): the rotation's t and cs and its shears' h and s.
template <class R> __global__ void rotation_kernel(const R* abc, R* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const core::Rotation<R> r = core::jacobi_rotation(abc[3 * i], abc[3 * i + 1], abc[3 * i + 2]);
    const core::Shears<R> sh = core::rotation_shears(r.t, r.cs);
    out[4 * i] = r.t;
    out[4 * i + 1] = r.cs;
    out[4 * i + 2] = sh.h;
    out[4 * i + 3] = sh.s;
}

template <class R> std::vector<R> run_on_device(const std::vector<R>& in, std::size_t out_per_item, int items,
                                                bool rotation) {
    DeviceArray<R> din(in.size()), dout(out_per_item * std::size_t(items));
    EXPECT_NE(din.p, nullptr);
    EXPECT_NE(dout.p, nullptr);
    std::vector<R> out(out_per_item * std::size_t(items));
    if (!din.p || !dout.p) return out;
    EXPECT_EQ(cudaMemcpy(din.p, in.data(), in.size() * sizeof(R), cudaMemcpyHostToDevice), cudaSuccess);
    const int threads = 128, blocks = (items + threads - 1) / threads;
    if (rotation) rotation_kernel<R><<<blocks, threads>>>(din.p, dout.p, items);
    else arithmetic_kernel<R><<<blocks, threads>>>(din.p, dout.p, items);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(out.data(), dout.p, out.size() * sizeof(R), cudaMemcpyDeviceToHost), cudaSuccess);
    return out;
}

/// |got / want - 1| in units of u.
template <class R> double rel_u(R got, long double want) {
    return double(std::fabs((static_cast<long double>(got) - want) / want)) / (std::numeric_limits<R>::epsilon() / 2);
}

/// Fresh inputs each run: uniform draws on [0, 1), n of them a case.
template <class R> class CudaRotationArithmetic : public ::testing::Test {
  protected:
    static constexpr int n = 1 << 16;
    std::mt19937_64 gen{std::random_device{}()};
    double unit() { return std::uniform_real_distribution<double>(0.0, 1.0)(gen); }
};
using Reals = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CudaRotationArithmetic, Reals);

// Roots and reciprocals over the arguments the rotations take: 1 + x^2 in [1, 2] and squared
// norms over many binades.
TYPED_TEST(CudaRotationArithmetic, RootsAndReciprocals) {
    SKIP_WITHOUT_CUDA("device arithmetic test");
    using R = TypeParam;
    const int n = this->n;
    const auto unit = [this] { return this->unit(); };
    std::vector<R> x(n);
    for (int i = 0; i < n; ++i)
        x[i] = i % 2 ? R(1 + unit()) : R(std::ldexp(1 + unit(), int(unit() * 120) - 60));
    const std::vector<R> out = run_on_device(x, kArith, n, false);
    double worst[kArith] = {};
    for (int i = 0; i < n; ++i) {
        const long double v = x[i], rs = 1.0L / std::sqrt(v);
        const long double want[kArith] = {rs, v * rs, 1.0L / v, 1.0L / v, rs, 1.0L / v};
        for (int k = 0; k < kArith; ++k) worst[k] = std::max(worst[k], rel_u(out[std::size_t(i) * kArith + k], want[k]));
    }
    const double u = std::numeric_limits<R>::epsilon() / 2;
    std::cout << "  worst relative errors (u): full_rsqrt " << worst[kFullRsqrt] << ", fast_sqrt "
              << worst[kFastSqrt] << ", full_reciprocal " << worst[kFullRcp] << ", fast_reciprocal "
              << worst[kFastRcp] << "; bare MUFU rsqrt 2^" << std::log2(worst[kRawRsqrt] * u) << ", rcp 2^"
              << std::log2(worst[kRawRcp] * u) << "\n";
    // To rounding: what the cosines (and the shears' h) need.
    EXPECT_LE(worst[kFullRsqrt], 2.0);
    EXPECT_LE(worst[kFullRcp], 2.0);
    // The angles' and tests' arithmetic, as documented. Roots to an ulp or two (measured on an
    // H100: 1.5u double, 1.9u float). Reciprocals to about 2^-39 in double (one Newton step
    // from the MUFU's 2^-20 squares its error: 8047-8763u = 2^-39.9 measured), bounded here at
    // 2^-38, and to an ulp in float.
    EXPECT_LE(worst[kFastSqrt], 3.0);
    EXPECT_LE(worst[kFastRcp], sizeof(R) == 8 ? std::ldexp(1.0, -38) / u : 2.0);
}

// Every rotation orthogonal to rounding: cs^2 (1 + t^2) = 1 and the shears' s = 2 h / (1 + h^2)
// (their composite's orthogonality) and no bias in the first, over chosen angles and random
// Gram pairs.
TYPED_TEST(CudaRotationArithmetic, RotationsAreOrthogonal) {
    SKIP_WITHOUT_CUDA("device arithmetic test");
    using R = TypeParam;
    const int n = this->n;
    const auto unit = [this] { return this->unit(); };
    std::vector<R> abc(3 * std::size_t(n));
    for (int i = 0; i < n; ++i) {
        double a, b, c;
        const int scale = int(unit() * 40) - 20;
        if (i % 4) {  // a chosen angle: t log-uniform over [1e-8, 1], cot(2 phi) = (b - a) / (2 c)
            const double t = std::pow(10.0, -8 * unit()), ct2 = (1 - t * t) / (2 * t);
            const double lambda = 1 + 4 * unit();  // a b >= c^2 = 1
            a = lambda;
            b = lambda + 2 * ct2;
            c = 1;
            if (i % 2) std::swap(a, b);  // negative angles too
        } else {      // a random Gram pair: diagonals over 40 binades, cosines over 30
            a = std::ldexp(1 + unit(), int(unit() * 40) - 20);
            b = std::ldexp(1 + unit(), int(unit() * 40) - 20);
            c = std::max(std::ldexp(unit(), -int(unit() * 30)) * std::sqrt(a * b), 1e-30);
        }
        abc[3 * i] = R(std::ldexp(a, scale));
        abc[3 * i + 1] = R(std::ldexp(b, scale));
        abc[3 * i + 2] = R(std::ldexp(c, scale));
    }
    const std::vector<R> out = run_on_device(abc, 4, n, true);
    double worst_cs = 0, worst_shear = 0, worst_angle = 0, mean_cs = 0;
    for (int i = 0; i < n; ++i) {
        const long double t = out[4 * i], cs = out[4 * i + 1], h = out[4 * i + 2], s = out[4 * i + 3];
        const double d = double(cs * cs * (1 + t * t) - 1);
        worst_cs = std::max(worst_cs, std::fabs(d));
        mean_cs += d / n;
        if (s != 0) worst_shear = std::max(worst_shear, double(std::fabs(2 * h / (1 + h * h) / s - 1)));
        // The angle against the exact one of the rounded inputs: tan(2 phi) = 2 c / (b - a),
        // |phi| <= pi / 4 (a = b gives 2 c / 0 = inf, phi = pi / 4).
        const long double a = abc[3 * i], b = abc[3 * i + 1], c = abc[3 * i + 2];
        const long double phi = 0.5L * std::atan(2 * c / (b - a)), phi_got = std::atan(t);
        worst_angle = std::max(worst_angle, double(std::fabs(phi_got / phi - 1)));
    }
    const double u = std::numeric_limits<R>::epsilon() / 2;
    std::cout << "  worst |cs^2 (1 + t^2) - 1| " << worst_cs / u << " u (mean " << mean_cs / u
              << " u), |2h / (1 + h^2) / s - 1| " << worst_shear / u << " u, angle 2^"
              << std::log2(std::max(worst_angle, 1e-300)) << "\n";
    EXPECT_LE(worst_cs, 4 * u);
    // No bias: a product-form rotation scales its pair's area by cs^2 (1 + t^2), and a mean
    // above rounding noise (here sd / sqrt(n) ~ 0.003u) adds up over a solve's rotations.
    EXPECT_LE(std::fabs(mean_cs), 0.1 * u);
    EXPECT_LE(worst_shear, 4 * u);
    EXPECT_LE(worst_angle, sizeof(R) == 8 ? std::ldexp(1.0, -36) : 64 * u);  // 2^-39.9, 2^-22.2 measured
}

}  // namespace
}  // namespace batchsvd::test
