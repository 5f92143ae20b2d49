// SPDX-License-Identifier: BSD-3-Clause
// The CUDA backend through device pointers: cudaMalloc'd inputs and outputs, a non-default
// stream, outputs poisoned with NaN before each call (an unwritten element fails the check),
// NaN matrices inside a batch, U and V switched off, tall and wide shapes, values only, rank
// deficiency, scaling, and the largest size that the fused kernel takes per precision.
// Every case skips, with a message, where no CUDA device exists.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <complex>
#include <cstring>
#include <iostream>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "batchsvd/batchsvd.hpp"
#include "cuda_test_support.hpp"
#include "core/scalar.hpp"
#include "cuda/fused/fused_plan.hpp"
#include "testing/error_measures.hpp"
#include "testing/generators.hpp"

namespace batchsvd::test {
namespace {

#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call

template <class T> T nan_value() {
    const real_t<T> q = std::numeric_limits<real_t<T>>::quiet_NaN();
    if constexpr (std::is_same_v<T, real_t<T>>) return q; else return T(q, q);
}
template <class T> bool is_nan(const T& x) {
    if constexpr (std::is_same_v<T, real_t<T>>) return std::isnan(x);
    else return std::isnan(x.real()) && std::isnan(x.imag());
}

struct Stream {
    cudaStream_t s = nullptr;
    Stream() { cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); }
    ~Stream() { if (s) cudaStreamDestroy(s); }
};

/// Host copies of the outputs of one device-pointer solve.
template <class T> struct DeviceResult {
    std::vector<real_t<T>> s;
    std::vector<T> u, v;
    std::vector<int> info;
};

/// Packed batch in, packed outputs out, all through device memory on a non-default stream;
/// the outputs are NaN before the call.
template <class T>
DeviceResult<T> solve_on_device(index_t m, index_t n, index_t batch, const std::vector<T>& a,
                                Options opts) {
    const index_t k = std::min(m, n);
    DeviceResult<T> r;
    r.s.assign(k * batch, std::numeric_limits<real_t<T>>::quiet_NaN());
    r.u.assign(m * k * batch, nan_value<T>());
    r.v.assign(n * k * batch, nan_value<T>());
    r.info.assign(batch, 12345);
    DeviceArray<T> da(a.size()), du(r.u.size()), dv(r.v.size());
    DeviceArray<real_t<T>> ds(r.s.size());
    DeviceArray<int> dinfo(batch);
    Stream stream;
    EXPECT_TRUE(da.p && du.p && dv.p && ds.p && dinfo.p && stream.s);
    cudaMemcpy(da.p, a.data(), a.size() * sizeof(T), cudaMemcpyHostToDevice);
    cudaMemcpy(du.p, r.u.data(), r.u.size() * sizeof(T), cudaMemcpyHostToDevice);
    cudaMemcpy(dv.p, r.v.data(), r.v.size() * sizeof(T), cudaMemcpyHostToDevice);
    cudaMemcpy(ds.p, r.s.data(), r.s.size() * sizeof(real_t<T>), cudaMemcpyHostToDevice);
    cudaMemcpy(dinfo.p, r.info.data(), batch * sizeof(int), cudaMemcpyHostToDevice);
    opts.stream = stream.s;
    gesvd<T>(m, n, batch, da.p, ds.p, du.p, dv.p, dinfo.p, opts);
    EXPECT_EQ(cudaStreamSynchronize(stream.s), cudaSuccess);
    cudaMemcpy(r.u.data(), du.p, r.u.size() * sizeof(T), cudaMemcpyDeviceToHost);
    cudaMemcpy(r.v.data(), dv.p, r.v.size() * sizeof(T), cudaMemcpyDeviceToHost);
    cudaMemcpy(r.s.data(), ds.p, r.s.size() * sizeof(real_t<T>), cudaMemcpyDeviceToHost);
    cudaMemcpy(r.info.data(), dinfo.p, batch * sizeof(int), cudaMemcpyDeviceToHost);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    return r;
}

template <class T> double limit() { return 30 * testing::unit_roundoff<T>(); }

/// Sets an environment variable for its lifetime (the CUDA backend's test and experiment
/// switches), and removes it after.
struct ScopedEnv {
    const char* name;
    ScopedEnv(const char* n, const std::string& value) : name(n) { setenv(name, value.c_str(), 1); }
    ~ScopedEnv() { unsetenv(name); }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;
};


template <class T>
void expect_accurate(index_t m, index_t n, index_t batch, const std::vector<T>& a,
                     const DeviceResult<T>& r, bool with_u = true, bool with_v = true) {
    for (index_t b = 0; b < batch; ++b) ASSERT_EQ(r.info[b], 0) << "matrix " << b;
    const testing::Errors e = testing::measure_batch<T>(
        m, n, batch, a.data(), r.s.data(), with_u ? r.u.data() : nullptr,
        with_v ? r.v.data() : nullptr);
    EXPECT_TRUE(e.within(limit<T>())) << m << "x" << n << " batch " << batch << ": limit "
                                      << limit<T>() << " e1 " << e.e1 << " e2 " << e.e2 << " e3 "
                                      << e.e3 << " e4 " << e.e4 << " sorted " << e.sorted;
}

/// Matrix b of a device result, e1-e4 below 30u against `one` (m x n, column-major), with its
/// singular values `s` (r's, or r's rescaled by the caller).
template <class T>
void expect_matrix_accurate(index_t m, index_t n, const std::vector<T>& one, const real_t<T>* s,
                            const DeviceResult<T>& r, index_t b) {
    const index_t k = std::min(m, n);
    const testing::Errors e = testing::measure<T>(
        m, n, one.data(), m, s, r.u.data() + b * m * k, m, r.v.data() + b * n * k, n,
        testing::reference_singular_values<T>(m, n, one.data(), m).data());
    EXPECT_TRUE(e.within(limit<T>())) << "matrix " << b << " e1 " << e.e1 << " e2 " << e.e2 << " e3 " << e.e3
                                      << " e4 " << e.e4;
}

/// A fresh batch of family f solved on the device, every measure below 30u.
template <class T>
void expect_family_accurate(testing::Family f, index_t m, index_t n, index_t batch,
                            const Options& o = {}) {
    const std::uint64_t seed = testing::fresh_seed();
    SCOPED_TRACE(std::string(testing::to_string(f)) + " " + std::to_string(m) + "x" +
                 std::to_string(n) + " seed " + std::to_string(seed));
    const auto a = testing::generate_batch<T>(f, m, n, batch, seed);
    expect_accurate<T>(m, n, batch, a, solve_on_device<T>(m, n, batch, a, o));
}

/// The fused kernel (automatic), the blocked path, the blocked path preconditioned and QR
/// pre-processing, for tests that run every path.
const std::vector<std::pair<const char*, Options>>& all_paths() {
    static const std::vector<std::pair<const char*, Options>> v{
        {"fused", Options{}}, {"blocked", blocked_path()}, {"preconditioned", preconditioned()}, {"qr", qr_always()}};
    return v;
}

template <class T> class CudaDevice : public ::testing::Test {};
using Types = ::testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(CudaDevice, Types);

TYPED_TEST(CudaDevice, DevicePointersStreamFamilies) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    for (testing::Family f : testing::all_families)
        for (auto [m, n, batch] : {std::tuple<index_t, index_t, index_t>{32, 32, 40}, {17, 17, 33},
                                   {8, 8, 100}, {3, 3, 50}, {1, 1, 5}})
            expect_family_accurate<T>(f, m, n, batch);
}

TYPED_TEST(CudaDevice, TallAndWideShapes) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    for (auto [m, n] : {std::pair<index_t, index_t>{40, 25}, {25, 40}, {1, 9}, {9, 1}, {100, 13},
                        {13, 100}, {64, 2}, {2, 64}, {33, 31}, {31, 33}, {300, 20}}) {
        const std::uint64_t seed = testing::fresh_seed();
        SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + " seed " + std::to_string(seed));
        const index_t batch = 7;
        const auto a = testing::generate_batch<T>(testing::Family::logrand, m, n, batch, seed);
        expect_accurate<T>(m, n, batch, a, solve_on_device<T>(m, n, batch, a, {}));
    }
}

TYPED_TEST(CudaDevice, NanMatrixMidBatch) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    for (const auto& [path, o] : all_paths())
    for (auto [m, n] : {std::pair<index_t, index_t>{12, 12}, {20, 6}, {6, 20}, {40, 40}}) {
        SCOPED_TRACE(path);
        const index_t batch = 9, bad = 4, k = std::min(m, n);
        auto a = testing::generate_batch<T>(testing::Family::random, m, n, batch,
                                            testing::fresh_seed());
        a[bad * m * n + 3 % (m * n)] = nan_value<T>();
        a[(bad + 2) * m * n + m * n - 1] = T(std::numeric_limits<real_t<T>>::infinity());
        const auto r = solve_on_device<T>(m, n, batch, a, o);
        for (index_t b = 0; b < batch; ++b) {
            const bool nonfinite = b == bad || b == bad + 2;
            EXPECT_EQ(r.info[b], nonfinite ? info_nonfinite : 0) << "matrix " << b;
            if (!nonfinite) continue;
            for (index_t j = 0; j < k; ++j) EXPECT_TRUE(std::isnan(r.s[b * k + j]));
            for (index_t i = 0; i < m * k; ++i) EXPECT_TRUE(is_nan(r.u[b * m * k + i]));
            for (index_t i = 0; i < n * k; ++i) EXPECT_TRUE(is_nan(r.v[b * n * k + i]));
        }
        // The others are unaffected.
        for (index_t b : {index_t(0), bad - 1, bad + 1, batch - 1}) {
            const std::vector<T> one(a.begin() + b * m * n, a.begin() + (b + 1) * m * n);
            expect_matrix_accurate<T>(m, n, one, r.s.data() + b * k, r, b);
        }
    }
}

/// o with U off (which = 0), V off (1) or both (2).
Options outputs_off(Options o, int which) {
    o.compute_u = which != 0 && which != 2;
    o.compute_v = which != 1 && which != 2;
    return o;
}

/// A solve with o: e1-e4 of what was asked below 30u, and the outputs not asked for not
/// touched (still NaN).
template <class T>
void expect_outputs_asked(index_t m, index_t n, index_t batch, const std::vector<T>& a, const Options& o) {
    const auto r = solve_on_device<T>(m, n, batch, a, o);
    expect_accurate<T>(m, n, batch, a, r, o.compute_u, o.compute_v);
    if (!o.compute_u) for (const T& x : r.u) ASSERT_TRUE(is_nan(x));
    if (!o.compute_v) for (const T& x : r.v) ASSERT_TRUE(is_nan(x));
}

TYPED_TEST(CudaDevice, UOrVOffAndValuesOnly) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    // (3x3, 4x3, 2x3: the tiny kernel; the others: the fused one)
    for (auto [m, n] : {std::pair<index_t, index_t>{24, 24}, {30, 11}, {11, 30}, {3, 3}, {4, 3},
                        {2, 3}}) {
        const index_t batch = 150;
        const auto a = testing::generate_batch<T>(testing::Family::geo, m, n, batch,
                                                  testing::fresh_seed());
        for (int mode = 0; mode < 12; ++mode) {
            const Options o = outputs_off(
                mode < 3 ? Options{} : mode < 6 ? blocked_path() : mode < 9 ? qr_always() : preconditioned(), mode % 3);
            SCOPED_TRACE(std::string(mode < 3 ? "fused " : mode < 6 ? "blocked " : mode < 9 ? "qr " : "preconditioned ") +
                         std::to_string(m) + "x" + std::to_string(n) + " U " + std::to_string(o.compute_u) + " V " +
                         std::to_string(o.compute_v));
            expect_outputs_asked<T>(m, n, batch, a, o);
        }
    }
}

TYPED_TEST(CudaDevice, RankDeficientAndZero) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    for (const auto& [path, o] : all_paths())
    for (auto [m, n] : {std::pair<index_t, index_t>{10, 6}, {6, 10}, {16, 16}, {40, 37}}) {
        SCOPED_TRACE(path);
        const index_t batch = 3;
        auto a = testing::generate_batch<T>(testing::Family::random, m, n, batch,
                                            testing::fresh_seed());
        // matrix 0: two zero columns and one repeated; matrix 1: all zero; matrix 2: rank 1
        for (index_t i = 0; i < m; ++i) {
            a[i + 1 * m] = T(0);
            a[i + 3 * m] = T(0);
            a[i + 4 * m] = a[i + 0 * m];
        }
        for (index_t i = 0; i < m * n; ++i) a[m * n + i] = T(0);
        for (index_t j = 0; j < n; ++j)
            for (index_t i = 0; i < m; ++i)
                a[2 * m * n + i + j * m] = T(real_t<T>(i + 1) * real_t<T>(j % 3 + 1));
        const auto r = solve_on_device<T>(m, n, batch, a, o);
        expect_accurate<T>(m, n, batch, a, r);
    }
}

TYPED_TEST(CudaDevice, ScalingOfHugeAndTinyEntries) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    using R = real_t<T>;
    const index_t m = 20, n = 14, k = 14, batch = 4;
    const auto a = testing::generate_batch<T>(testing::Family::arith, m, n, batch,
                                              testing::fresh_seed());
    for (const auto& [path, o] : all_paths()) {
    SCOPED_TRACE(path);
    const auto base = solve_on_device<T>(m, n, batch, a, o);
    expect_accurate<T>(m, n, batch, a, base);
    // Entries near overflow, and entries whose squares overflow or underflow unless scaled.
    const int big = std::numeric_limits<R>::max_exponent - 3;
    const int mid = std::numeric_limits<R>::max_exponent * 6 / 10;
    for (int se : {big, mid, -mid}) {
        SCOPED_TRACE("scaled by 2^" + std::to_string(se));
        std::vector<T> scaled(a);
        for (T& x : scaled) x *= std::ldexp(R(1), se);
        const auto r = solve_on_device<T>(m, n, batch, scaled, o);
        for (index_t b = 0; b < batch; ++b) {
            ASSERT_EQ(r.info[b], 0);
            for (index_t j = 0; j < k; ++j) {
                const R s = std::ldexp(r.s[b * k + j], -se);
                EXPECT_NEAR(s, base.s[b * k + j], 30 * limit<T>() * base.s[b * k]) << j;
            }
        }
    }
    }
}

TYPED_TEST(CudaDevice, MaxSweepsReported) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    const index_t m = 32, n = 32, batch = 5;
    const auto a = testing::generate_batch<T>(testing::Family::random, m, n, batch,
                                              testing::fresh_seed());
    // (Not preconditioned: a start orthogonal to single precision can converge within two
    // sweeps; PreconditionedNeedsFewerSweeps checks its sweep counts.)
    for (Options o : {Options{}, blocked_path(), qr_always()}) {
        o.max_sweeps = 2;
        const auto r = solve_on_device<T>(m, n, batch, a, o);
        for (int x : r.info) EXPECT_EQ(x, 2);
    }
}

TYPED_TEST(CudaDevice, LargestFusedSquareAndBeyond) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    const index_t n = cuda::largest_fused_square<T>(true);
    std::cout << "largest square in the fused kernel (U and V): " << n << " x " << n << "\n";
    ASSERT_GE(n, 32);
    EXPECT_TRUE(cuda::fits_fused_kernel<T>(n, n, true));
    EXPECT_FALSE(cuda::fits_fused_kernel<T>(n + 1, n + 1, true));
    for (index_t size : {n, n + 1}) {  // n + 1: the blocked path
        const index_t batch = size == n ? 3 : 1;
        const auto a = testing::generate_batch<T>(testing::Family::logrand, size, size, batch,
                                                  testing::fresh_seed());
        SCOPED_TRACE(std::to_string(size));
        // At its largest size the fused kernel is forced (the automatic choice may prefer the
        // blocked path there, cuda::solve_path).
        Options o;
        if (size == n) o.variant = JacobiVariant::unblocked;
        EXPECT_EQ(cuda::solve_path<T>(size, size, batch, o).rfind(size == n ? "fused" : "blocked", 0), 0u);
        expect_accurate<T>(size, size, batch, a, solve_on_device<T>(size, size, batch, a, o));
    }
}

// ---- the blocked path (matrices beyond the fused kernel; forced here for smaller ones) ------

/// The six families through the blocked path: square, tall and wide, block counts odd and
/// even, ragged last blocks, prime orders, both block widths.
TYPED_TEST(CudaDevice, BlockedFamiliesAndShapes) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    for (testing::Family f : testing::all_families)
        for (auto [m, n, batch, nb] : {std::tuple<index_t, index_t, index_t, int>{33, 33, 5, 16},
                                       {48, 48, 3, 16}, {97, 61, 3, 16}, {61, 97, 3, 16},
                                       {200, 37, 2, 16}, {131, 131, 2, 32}, {16, 16, 4, 16},
                                       {7, 5, 3, 16}})
            expect_family_accurate<T>(f, m, n, batch, blocked_path(nb));
}

/// The blocked path is deterministic: a race between the threads that share G, Q and a row
/// tile in shared memory would show as results that differ between two runs on one input.
TYPED_TEST(CudaDevice, BlockedPathIsDeterministic) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    const index_t m = 100, n = 80, batch = 4;
    const auto a = testing::generate_batch<T>(testing::Family::geo, m, n, batch, testing::fresh_seed());
    for (int nb : {16, 32}) {
        const auto first = solve_on_device<T>(m, n, batch, a, blocked_path(nb));
        expect_accurate<T>(m, n, batch, a, first);
        const auto again = solve_on_device<T>(m, n, batch, a, blocked_path(nb));
        EXPECT_EQ(again.info, first.info) << nb;
        EXPECT_TRUE(again.s == first.s && again.u == first.u && again.v == first.v) << nb;
    }
}

// ---- the warp kernel (N <= 32: W and V_W in registers, a team of lanes per matrix) ---------

/// The warp kernel on a few shapes of every kind, the six families: square, tall and wide,
/// with and without a padding column, batches that leave the last block part-empty; where a
/// type's registers cannot hold a shape the fused kernel solves it (also checked).
TYPED_TEST(CudaDevice, WarpKernelFamiliesAndShapes) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    for (testing::Family f : testing::all_families)
        for (auto [m, n] : {std::pair<index_t, index_t>{7, 7}, {16, 8}, {8, 16}, {15, 14}, {32, 16},
                            {16, 32}, {30, 28}, {31, 29}, {32, 32}, {64, 32}, {48, 30}, {9, 9},
                            {24, 24}, {33, 2}, {5, 5}, {40, 20}, {20, 40}, {64, 16}, {45, 11}})
            expect_family_accurate<T>(f, m, n, 37);
    // Teams of every even size: the order rounded up to even (complex double only up to 16
    // columns: its registers), more rows a lane for tall matrices.
    const bool wide_ok = !std::is_same_v<T, std::complex<double>>;
    EXPECT_EQ(cuda::solve_path<T>(32, 32, 10, {}).rfind("warp", 0) == 0, wide_ok);
    EXPECT_EQ(cuda::solve_path<T>(16, 16, 10, {}).rfind("warp nc16 rpl1", 0), 0u);
    EXPECT_EQ(cuda::solve_path<T>(7, 8, 10, {}).rfind("warp nc8 rpl1", 0), 0u);
    EXPECT_EQ(cuda::solve_path<T>(9, 9, 10, {}).rfind("warp nc10 rpl1", 0), 0u);
    EXPECT_EQ(cuda::solve_path<T>(5, 5, 10, {}).rfind("warp nc6 rpl1", 0), 0u);
    EXPECT_EQ(cuda::solve_path<T>(20, 20, 10, {}).rfind(wide_ok ? "warp nc20 rpl1" : "rows nc20", 0), 0u);
    EXPECT_EQ(cuda::solve_path<T>(23, 22, 10, {}).rfind(wide_ok ? "warp nc24 rpl1" : "rows nc22", 0), 0u);
    if constexpr (!core::is_complex_v<T>)  // (complex 3:1 takes QR first)
        EXPECT_EQ(cuda::solve_path<T>(30, 8, 10, {}).rfind("warp nc8 rpl4", 0), 0u);
}

/// Every team size (6 to 32 lanes) and rows a lane (1 to 4) the plan chooses, over square
/// orders 5-32 and tall shapes to 4:1 (at most 64 rows), and their wide transposes: each
/// shape's own path, every matrix checked (e1-e4 < 30u, the harness's families in turn).
TYPED_TEST(CudaDevice, WarpKernelEveryTeamSize) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    std::set<std::string> paths;
    int i = 0;
    for (index_t n = 5; n <= 32; ++n)
        for (index_t m : {n, n + 1, 2 * n - 1, 2 * n, 3 * n, 4 * n}) {
            if (m > 64) continue;
            const std::string path = cuda::solve_path<T>(m, n, 10, {});
            if (path.rfind("warp", 0) != 0) continue;
            paths.insert(path);
            const testing::Family f = testing::all_families[i++ % std::size(testing::all_families)];
            expect_family_accurate<T>(f, m, n, 13);
            if (m != n && i % 3 == 0) expect_family_accurate<T>(f, n, m, 13);
        }
    std::string seen;
    for (const auto& p : paths) seen += p + "; ";
    SCOPED_TRACE(seen);
    // every even team from 6 to 16 lanes (to 32 where the type's registers hold a row of 32;
    // warp_plan passes over 30 lanes, and 26 and 28 in float32, for 32)
    for (int nc = 6; nc <= (std::is_same_v<T, std::complex<double>> ? 16 : 32); nc += 2)
        if (nc != 30 && !(std::is_same_v<T, float> && (nc == 26 || nc == 28)))
            EXPECT_TRUE(paths.count("warp nc" + std::to_string(nc) + " rpl1")) << nc;
    if constexpr (!core::is_complex_v<T>) EXPECT_TRUE(paths.count("warp nc8 rpl4")) << "four rows a lane";
}

/// Pairs of nearly parallel columns (column 2i + 1 = column 2i + delta * noise, delta from
/// 1e-1 to 1e-13 by matrix): a rotation takes one column of each pair down to delta times
/// its norm, which the warp kernel's tracked squared norms (a - t|c|) cannot follow to full
/// accuracy; they must be summed again (core::rotate_norms' `reliable`). Every team size:
/// 32 lanes track the norms (and complex64's 16), the others sum them at every step.
TYPED_TEST(CudaDevice, WarpKernelNearlyParallelColumns) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    using R = real_t<T>;
    for (auto [m, n] : {std::pair<index_t, index_t>{32, 32}, {30, 28}, {64, 32}, {16, 16}, {8, 8}}) {
        const index_t batch = 5;
        const std::uint64_t seed = testing::fresh_seed();
        SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + " seed " + std::to_string(seed));
        auto a = testing::generate_batch<T>(testing::Family::random, m, n, batch, seed);
        for (index_t b = 0; b < batch; ++b) {
            const R delta = R(std::pow(10.0, -1.0 - 3.0 * double(b)));
            T* x = &a[b * m * n];
            for (index_t j = 1; j < n; j += 2)
                for (index_t i = 0; i < m; ++i) x[i + j * m] = x[i + (j - 1) * m] + delta * x[i + j * m];
        }
        expect_accurate<T>(m, n, batch, a, solve_on_device<T>(m, n, batch, a, {}));
    }
}

// ---- the rows kernel (8 to 48 columns: one row of [W; V_W] a thread, a block a matrix) ----

/// The rows kernel on shapes of every kind, the six families: square orders 33-48 (odd ones
/// with a padding column), real 2:1 shapes to 40 columns and wide ones, shapes of at most 32
/// columns the warp kernel's registers do not hold (tall real ones, complex ones), batches of
/// several matrices; the path checked (complex128 has instances to 32 columns only), and the
/// sizes past the rule going elsewhere.
TYPED_TEST(CudaDevice, RowsKernelFamiliesAndShapes) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    constexpr bool c128 = std::is_same_v<T, std::complex<double>>;
    for (testing::Family f : testing::all_families)
        for (auto [m, n] : {std::pair<index_t, index_t>{33, 33}, {34, 34}, {41, 40}, {47, 47}, {48, 48},
                            {66, 33}, {33, 66}, {72, 36}, {80, 40}, {60, 35}, {45, 39}, {68, 17}, {96, 24},
                            {48, 24}, {20, 20}, {24, 12}})
            expect_family_accurate<T>(f, m, n, 11);
    EXPECT_EQ(cuda::solve_path<T>(33, 33, 10, {}).rfind("rows nc34 threads96", 0) == 0, !c128);
    EXPECT_EQ(cuda::solve_path<T>(47, 48, 10, {}).rfind("rows nc48 threads96", 0) == 0, !c128);
    EXPECT_EQ(cuda::solve_path<T>(66, 33, 10, {}).rfind("rows nc34 threads128", 0) == 0,
              !core::is_complex_v<T>);
    EXPECT_EQ(cuda::solve_path<T>(68, 17, 10, {}).rfind("rows nc18 threads96", 0) == 0, !core::is_complex_v<T>);
    EXPECT_EQ(cuda::solve_path<T>(48, 24, 10, {}).rfind("rows nc24 threads96", 0) == 0, core::is_complex_v<T>);
    EXPECT_EQ(cuda::solve_path<T>(20, 20, 10, {}).rfind("rows nc20 threads64", 0) == 0, c128);
    EXPECT_EQ(cuda::solve_path<T>(49, 49, 10, {}).rfind("rows", 0), std::string::npos);
    EXPECT_EQ(cuda::solve_path<T>(132, 33, 10, {}).rfind("rows", 0), std::string::npos);
    // (up to 32 columns the preconditioned blocked path keeps what it takes)
    EXPECT_EQ(cuda::solve_path<T>(64, 28, 1000, {}).rfind("rows", 0) == 0, core::is_complex_v<T>);
    Options blocked;
    blocked.variant = JacobiVariant::blocked;
    EXPECT_EQ(cuda::solve_path<T>(40, 40, 10, blocked).rfind("rows", 0), std::string::npos);
}

/// Every order the rows kernel takes (8 to 48 columns), square, a little taller, 2:1 and 4:1,
/// and their transposes, in turn over the families: each instance of the type, every matrix
/// checked.
TYPED_TEST(CudaDevice, RowsKernelEveryOrder) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    std::set<std::string> paths;
    int i = 0;
    for (index_t n = 8; n <= 48; ++n)
        for (index_t m : {n, n + 5, 2 * n, 4 * n}) {
            const std::string path = cuda::solve_path<T>(m, n, 7, {});
            if (path.rfind("rows", 0) != 0) continue;
            paths.insert(path.substr(0, path.find(" threads")));
            const testing::Family f = testing::all_families[i++ % std::size(testing::all_families)];
            expect_family_accurate<T>(f, m, n, 7);
            if (m != n && i % 4 == 0) expect_family_accurate<T>(f, n, m, 7);
        }
    std::string seen;
    for (const auto& p : paths) seen += p + "; ";
    SCOPED_TRACE(seen);
    // float64: 18 to 48 columns; float32: 18 to 26 (4:1 shapes; its warp teams hold 2:1 ones to
    // 32 columns) and 34 to 48; complex64: from 22 (its warp teams hold 2:1 shapes to 20);
    // complex128: 12 to 32
    const int lo = std::is_same_v<T, std::complex<double>> ? 12 : std::is_same_v<T, std::complex<float>> ? 22 : 18;
    const int hi = std::is_same_v<T, std::complex<double>> ? 32 : 48;
    for (int nc = lo; nc <= hi; nc += 2)
        if (!(std::is_same_v<T, float> && nc > 26 && nc < 34))
            EXPECT_TRUE(paths.count("rows nc" + std::to_string(nc))) << nc;
}

/// The rows kernel without V_W (values only, U only of a tall matrix, V only of a wide one:
/// fewer rows a block) and with it; outputs not asked for stay untouched.
TYPED_TEST(CudaDevice, RowsKernelOutputsAsked) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    for (auto [m, n] : {std::pair<index_t, index_t>{48, 48}, {70, 35}, {35, 70}, {90, 45}}) {
        const index_t batch = 20;
        const auto a = testing::generate_batch<T>(testing::Family::geo, m, n, batch, testing::fresh_seed());
        for (int mode = 0; mode < 3; ++mode) {
            const Options o = outputs_off(Options{}, mode);
            SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + " U " + std::to_string(o.compute_u) + " V " +
                         std::to_string(o.compute_v) + " " + cuda::solve_path<T>(m, n, batch, o));
            expect_outputs_asked<T>(m, n, batch, a, o);
        }
    }
}

/// Pairs of nearly parallel columns (as WarpKernelNearlyParallelColumns) in the rows kernel,
/// whose tracked norms must be summed again when a rotation cancels them, and a matrix with
/// a non-finite entry among finite ones (its own status, the others unaffected).
TYPED_TEST(CudaDevice, RowsKernelNearlyParallelColumnsAndNaN) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    using R = real_t<T>;
    for (auto [m, n] : {std::pair<index_t, index_t>{48, 48}, {37, 33}, {72, 36}}) {
        const index_t batch = 5;
        const std::uint64_t seed = testing::fresh_seed();
        SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + " seed " + std::to_string(seed));
        auto a = testing::generate_batch<T>(testing::Family::random, m, n, batch, seed);
        for (index_t b = 0; b < batch; ++b) {
            const R delta = R(std::pow(10.0, -1.0 - 3.0 * double(b)));
            T* x = &a[b * m * n];
            for (index_t j = 1; j < n; j += 2)
                for (index_t i = 0; i < m; ++i) x[i + j * m] = x[i + (j - 1) * m] + delta * x[i + j * m];
        }
        expect_accurate<T>(m, n, batch, a, solve_on_device<T>(m, n, batch, a, {}));
        a[2 * m * n + 5] = nan_value<T>();
        const auto r = solve_on_device<T>(m, n, batch, a, {});
        EXPECT_EQ(r.info[2], -1);
        for (index_t b : {0, 1, 3, 4}) EXPECT_EQ(r.info[b], 0) << b;
    }
}

/// The fused shared-memory kernel on the sizes the warp kernel takes by default
/// (BATCHSVD_CUDA_NO_WARP and BATCHSVD_CUDA_NO_ROWS send them to it): the six families,
/// square, tall and wide.
TYPED_TEST(CudaDevice, FusedKernelOnWarpSizes) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    ScopedEnv no_warp("BATCHSVD_CUDA_NO_WARP", "1");
    ScopedEnv no_rows("BATCHSVD_CUDA_NO_ROWS", "1");
    EXPECT_EQ(cuda::solve_path<T>(32, 32, 10, {}).rfind("fused", 0), 0u);
    for (testing::Family f : testing::all_families)
        for (auto [m, n] : {std::pair<index_t, index_t>{32, 32}, {17, 17}, {8, 8}, {40, 25}, {25, 40}})
            expect_family_accurate<T>(f, m, n, 21);
}

/// Every path once, on a few small matrices: the tiny, warp and fused kernels, the blocked
/// path (both block widths), QR pre-processing (panel in shared memory) and the chunked
/// workspace. Fast enough for compute-sanitizer's racecheck (scripts/gpu_sanitize.sh), which
/// slows the other tests 100-fold.
TYPED_TEST(CudaDevice, EveryPathOnASmallBatch) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    const testing::Family f = testing::Family::logrand;
    expect_family_accurate<T>(f, 3, 3, 40);            // tiny
    expect_family_accurate<T>(f, 16, 14, 5);           // warp (16 lanes, two padding columns)
    expect_family_accurate<T>(f, 32, 30, 2);           // warp (32 lanes) or fused (complex128)
    {
        ScopedEnv no_warp("BATCHSVD_CUDA_NO_WARP", "1");
        expect_family_accurate<T>(f, 12, 9, 5);        // fused
    }
    expect_family_accurate<T>(f, 40, 23, 2, blocked_path(16));
    expect_family_accurate<T>(f, 23, 40, 1, blocked_path(32));
    expect_family_accurate<T>(f, 150, 20, 2, qr_always());
    ScopedEnv chunks("BATCHSVD_CUDA_CHUNK", "1");
    expect_family_accurate<T>(f, 40, 23, 2, blocked_path(16));
}

/// The tiny, warp and fused kernels are deterministic: one input solved twice gives bitwise
/// the same outputs (a race on the shared rotations or the finalisation would not).
TYPED_TEST(CudaDevice, SmallKernelsAreDeterministic) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    for (bool no_warp : {false, true})
        for (auto [m, n] : {std::pair<index_t, index_t>{3, 3}, {16, 14}, {32, 32}, {60, 50}}) {
            std::optional<ScopedEnv> env;
            if (no_warp) env.emplace("BATCHSVD_CUDA_NO_WARP", "1");
            const index_t batch = 50;
            const auto a = testing::generate_batch<T>(testing::Family::geo, m, n, batch, testing::fresh_seed());
            const auto first = solve_on_device<T>(m, n, batch, a, {});
            expect_accurate<T>(m, n, batch, a, first);
            const auto again = solve_on_device<T>(m, n, batch, a, {});
            EXPECT_EQ(again.info, first.info) << m << "x" << n;
            EXPECT_TRUE(again.s == first.s && again.u == first.u && again.v == first.v) << m << "x" << n;
        }
}

/// Orders well past the fused kernel, chosen automatically: a prime, a wide and a tall one.
TYPED_TEST(CudaDevice, BlockedLargeOrders) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    for (auto [m, n, batch] : {std::tuple<index_t, index_t, index_t>{257, 257, 3}, {521, 521, 1},
                               {300, 700, 1}, {1200, 150, 1}})
        expect_family_accurate<T>(testing::Family::logrand, m, n, batch);
}

/// A block pair split over the blocks of a cluster (BlockedParams::split: partial Gram matrices
/// summed through distributed shared memory, every block running the same eigensolver, each
/// updating its chunk of rows), forced to each cluster size: accurate, with chunks that are
/// ragged or empty (8 blocks over 300 rows), square, tall and wide, both block widths, and the
/// same bits on a second run.
TYPED_TEST(CudaDevice, BlockedPairSplitOverCluster) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    for (const char* split : {"1", "2", "4", "8"}) {
        const ScopedEnv env("BATCHSVD_CUDA_BLOCKED_SPLIT", split);
        SCOPED_TRACE(std::string("split ") + split);
        for (testing::Family f : {testing::Family::random, testing::Family::geo, testing::Family::cluster1})
            for (auto [m, n, batch, nb] : {std::tuple<index_t, index_t, index_t, int>{300, 200, 2, 16},
                                           {200, 300, 1, 32}, {523, 97, 1, 16}, {130, 130, 3, 32}})
                expect_family_accurate<T>(f, m, n, batch, blocked_path(nb));
        const index_t m = 300, n = 190, batch = 2;
        const auto a = testing::generate_batch<T>(testing::Family::logrand, m, n, batch, testing::fresh_seed());
        const auto first = solve_on_device<T>(m, n, batch, a, blocked_path(32));
        const auto again = solve_on_device<T>(m, n, batch, a, blocked_path(32));
        EXPECT_EQ(again.info, first.info);
        EXPECT_TRUE(again.s == first.s && again.u == first.u && again.v == first.v);
    }
}

/// A batch mixing matrices that are orthogonal already (diagonal: no rotation in the first
/// sweep, so they are masked from then on) with hard ones: all accurate, and the masked ones
/// report convergence after one sweep's check.
TYPED_TEST(CudaDevice, BlockedMaskedBatchMixesEasyAndHard) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    const index_t m = 90, n = 70, batch = 12;
    auto a = testing::generate_batch<T>(testing::Family::geo, m, n, batch, testing::fresh_seed());
    for (index_t b = 0; b < batch; b += 3)  // every third matrix: diagonal, distinct values
        for (index_t j = 0; j < n; ++j)
            for (index_t i = 0; i < m; ++i) a[b * m * n + i + j * m] = T(real_t<T>(i == j ? 1 + j : 0));
    const auto r = solve_on_device<T>(m, n, batch, a, blocked_path());
    expect_accurate<T>(m, n, batch, a, r);
    for (index_t b = 0; b < batch; b += 3)
        for (index_t j = 0; j < n; ++j) EXPECT_EQ(r.s[b * n + j], real_t<T>(n - j)) << b << " " << j;
}

// ---- the blocked path's preconditioning (Options::precondition) -----------------------------

/// Sweeps from W V0, V0 a single-precision eigenbasis of W^H W made orthogonal in the working
/// precision (precondition.hpp): the six families, square, tall, wide, both block widths, odd
/// and prime orders, in every precision (float and complex64 take it only when asked); the
/// eigensolve in each of its forms (precondition.cu's eigensolver_form: the fused one at orders
/// 33 and 61 and real 131 and 150; the split one at 181, real 257 and complex 131 and 150; the
/// bisection form at complex 257, 401 and 347 (wide); cuSOLVER's at 523).
TYPED_TEST(CudaDevice, PreconditionedFamiliesAndShapes) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    for (testing::Family f : testing::all_families)
        for (auto [m, n, batch, nb] : {std::tuple<index_t, index_t, index_t, int>{33, 33, 4, 16},
                                       {97, 61, 3, 16}, {61, 97, 3, 32}, {131, 131, 3, 32},
                                       {211, 150, 2, 16}, {150, 211, 2, 32}, {181, 181, 2, 32},
                                       {257, 257, 1, 32}, {401, 401, 1, 32}, {347, 600, 1, 16},
                                       {523, 523, 1, 32}})
            expect_family_accurate<T>(f, m, n, batch, preconditioned(nb));
}

/// The preconditioner's safeguard (precondition.cu's newton_schulz_check_kernel): a basis that
/// the Newton-Schulz steps cannot make orthogonal (the first matrix's, zeroed by the test hook
/// BATCHSVD_CUDA_PRECONDITION_FAULT; W V0 would be zero) is replaced by the identity, and every
/// matrix of the batch is still accurate.
TYPED_TEST(CudaDevice, PreconditionSafeguardDropsABadBasis) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    const ScopedEnv fault("BATCHSVD_CUDA_PRECONDITION_FAULT", "1");
    for (testing::Family f : {testing::Family::random, testing::Family::geo})
        for (auto [m, n, batch] : {std::tuple<index_t, index_t, index_t>{90, 70, 3}, {401, 401, 1}})
            expect_family_accurate<T>(f, m, n, batch, preconditioned());
}

/// Preconditioning changes only the start of the iteration: a preconditioned solve converges in
/// fewer sweeps than a plain one on the same random matrices (in float64 at 128^2, plain solves
/// take about 10 sweeps and preconditioned ones 4, measured on the H100), and is deterministic.
TYPED_TEST(CudaDevice, PreconditionedNeedsFewerSweeps) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    const index_t m = 128, n = 128, batch = 4;
    const auto a = testing::generate_batch<T>(testing::Family::random, m, n, batch, testing::fresh_seed());
    // The sweeps each matrix needs: the smallest max_sweeps that lets it converge (info 0).
    const auto sweeps = [&](Options o) {
        std::vector<int> first(batch, 0);
        for (int s = 1; s <= 30; ++s) {
            o.max_sweeps = s;
            const auto r = solve_on_device<T>(m, n, batch, a, o);
            for (index_t b = 0; b < batch; ++b)
                if (r.info[b] == 0 && first[b] == 0) first[b] = s;
        }
        return first;
    };
    const std::vector<int> plain = sweeps(blocked_path()), pre = sweeps(preconditioned());
    for (index_t b = 0; b < batch; ++b) {
        EXPECT_GT(pre[b], 0) << "matrix " << b;
        EXPECT_LT(pre[b], plain[b]) << "matrix " << b;
    }
    const auto first = solve_on_device<T>(m, n, batch, a, preconditioned());
    expect_accurate<T>(m, n, batch, a, first);
    const auto again = solve_on_device<T>(m, n, batch, a, preconditioned());
    EXPECT_EQ(again.info, first.info);
    EXPECT_TRUE(again.s == first.s && again.u == first.u && again.v == first.v);
}

/// The refinement step of the preconditioner (precondition.cu's refine_kernel; by itself in
/// single precision from order 256, here forced in every precision at small orders): the six families, NaN and Inf neighbours, zero and
/// rank-deficient matrices, and entries near overflow or with squares that underflow, in every
/// precision.
TYPED_TEST(CudaDevice, PreconditionRefinementEdgeCases) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    using R = real_t<T>;
    const ScopedEnv refine("BATCHSVD_CUDA_PRECONDITION_REFINE", "1");
    for (testing::Family f : testing::all_families)
        for (auto [m, n, batch] : {std::tuple<index_t, index_t, index_t>{40, 37, 3}, {61, 97, 2}})
            expect_family_accurate<T>(f, m, n, batch, preconditioned());
    const index_t m = 48, n = 40, k = 40, batch = 7;
    auto a = testing::generate_batch<T>(testing::Family::random, m, n, batch, testing::fresh_seed());
    a[1 * m * n + 5] = nan_value<T>();                                        // matrix 1: NaN
    a[2 * m * n + 7] = T(std::numeric_limits<R>::infinity());                 // matrix 2: Inf
    for (index_t i = 0; i < m * n; ++i) a[3 * m * n + i] = T(0);             // matrix 3: zero
    for (index_t j = 0; j < n; ++j)                                           // matrix 4: rank 1
        for (index_t i = 0; i < m; ++i) a[4 * m * n + i + j * m] = T(R(i + 1) * R(j % 3 + 1));
    // Matrix 5: entries within 2^-12 of overflow (its largest singular value, under 50 times
    // the largest entry, still fits; its 1-norm does not, so it is measured scaled back down);
    // matrix 6: entries whose squares underflow (measured scaled back up).
    const int exponent[2] = {std::numeric_limits<R>::max_exponent - 12,
                             -std::numeric_limits<R>::max_exponent * 6 / 10};
    std::vector<T> unscaled[2];
    for (int t = 0; t < 2; ++t) {
        unscaled[t].assign(a.begin() + (5 + t) * m * n, a.begin() + (6 + t) * m * n);
        for (index_t i = 0; i < m * n; ++i) a[(5 + t) * m * n + i] *= std::ldexp(R(1), exponent[t]);
    }
    const auto r = solve_on_device<T>(m, n, batch, a, preconditioned());
    for (index_t b = 0; b < batch; ++b) {
        const bool nonfinite = b == 1 || b == 2;
        EXPECT_EQ(r.info[b], nonfinite ? info_nonfinite : 0) << "matrix " << b;
        if (nonfinite) continue;
        std::vector<T> one(a.begin() + b * m * n, a.begin() + (b + 1) * m * n);
        std::vector<R> s(r.s.begin() + b * k, r.s.begin() + (b + 1) * k);
        if (b >= 5) {
            one = unscaled[b - 5];
            for (R& x : s) x = std::ldexp(x, -exponent[b - 5]);
        }
        expect_matrix_accurate<T>(m, n, one, s.data(), r, b);
    }
}

/// Skipping the block pairs known to be converged (a pair neither of whose blocks rotated since
/// a check found nothing to rotate) is exact: the same bits as without it (BATCHSVD_CUDA_BLOCKED_SKIP
/// =0), with both block widths, a pair split over a cluster, and preconditioned. (float64's
/// kernel does not skip, kBlockedPairRecords: there both runs take the same path.)
TYPED_TEST(CudaDevice, BlockedSkippingIsExact) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    for (auto [m, n, batch, o] : {std::tuple<index_t, index_t, index_t, Options>{131, 131, 3, blocked_path(16)},
                                  {150, 97, 3, blocked_path(32)}, {640, 200, 1, blocked_path(32)},
                                  {200, 200, 2, preconditioned(32)}}) {
        SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
        const auto a = testing::generate_batch<T>(testing::Family::logrand, m, n, batch, testing::fresh_seed());
        const auto skipping = solve_on_device<T>(m, n, batch, a, o);
        expect_accurate<T>(m, n, batch, a, skipping);
        const ScopedEnv off("BATCHSVD_CUDA_BLOCKED_SKIP", "0");
        const auto plain = solve_on_device<T>(m, n, batch, a, o);
        EXPECT_EQ(plain.info, skipping.info);
        EXPECT_TRUE(plain.s == skipping.s && plain.u == skipping.u && plain.v == skipping.v);
    }
}

/// A preconditioned batch run as two interleaved halves on two streams (blocked_path.cu's
/// run_blocked, dispatch.cu's blocked_halves; forced, as a batch this small does not take them by itself): every matrix accurate
/// and its info where it belongs (a NaN matrix in each half), the singular values those of one
/// stream (BATCHSVD_CUDA_BLOCKED_SLICES=1), tall and wide, an odd batch.
TYPED_TEST(CudaDevice, BlockedHalvesMatchOneStream) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    using R = real_t<T>;
    for (auto [m, n] : {std::pair<index_t, index_t>{131, 128}, {128, 150}}) {
        SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
        const index_t batch = 41, k = std::min(m, n);
        const std::string path = cuda::solve_path<T>(m, n, batch, Options{});
        EXPECT_EQ(path.substr(path.size() - 4), " pre") << path;
        auto a = testing::generate_batch<T>(testing::Family::logrand, m, n, batch, testing::fresh_seed());
        a[3 * m * n + 7] = nan_value<T>();
        a[30 * m * n + 1] = nan_value<T>();
        const auto halves = [&] {
            const ScopedEnv two("BATCHSVD_CUDA_BLOCKED_SLICES", "2");
            return solve_on_device<T>(m, n, batch, a, Options{});
        }();
        const ScopedEnv one("BATCHSVD_CUDA_BLOCKED_SLICES", "1");
        const auto whole = solve_on_device<T>(m, n, batch, a, Options{});
        for (index_t b = 0; b < batch; ++b) {
            const bool nonfinite = b == 3 || b == 30;
            EXPECT_EQ(halves.info[b], nonfinite ? info_nonfinite : 0) << "matrix " << b;
            EXPECT_EQ(whole.info[b], halves.info[b]) << "matrix " << b;
            if (nonfinite) continue;
            const std::vector<T> one_a(a.begin() + b * m * n, a.begin() + (b + 1) * m * n);
            expect_matrix_accurate<T>(m, n, one_a, halves.s.data() + b * k, halves, b);
            for (index_t j = 0; j < k; ++j)
                EXPECT_NEAR(halves.s[b * k + j], whole.s[b * k + j], R(limit<T>()) * whole.s[b * k]) << b << " " << j;
        }
    }
}

/// The blocked path's finalisation over the whole device (fewer matrices than multiprocessors)
/// gives the bits of the one-block-a-matrix finalisation: tall, wide and square, U or V alone,
/// a matrix with zero columns (its complement), a NaN matrix; both forced
/// (BATCHSVD_CUDA_WIDE_FINAL).
TYPED_TEST(CudaDevice, BlockedWideFinalisationMatchesOneBlock) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    for (auto [m, n] : {std::pair<index_t, index_t>{300, 200}, {150, 260}, {256, 256}})
    for (int outputs = 0; outputs < 3; ++outputs) {  // U and V, U only, V only
        SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + " outputs " + std::to_string(outputs));
        const index_t batch = 5;
        Options o = blocked_path();
        o.compute_v = outputs != 1;
        o.compute_u = outputs != 2;
        auto a = testing::generate_batch<T>(testing::Family::geo, m, n, batch, testing::fresh_seed());
        for (index_t i = 0; i < m; ++i) a[m * n + i + 2 * m] = a[m * n + i + 5 * m] = T(0);  // matrix 1
        a[3 * m * n + 11] = nan_value<T>();                                                  // matrix 3
        const auto wide = [&] {
            const ScopedEnv on("BATCHSVD_CUDA_WIDE_FINAL", "1");
            return solve_on_device<T>(m, n, batch, a, o);
        }();
        const ScopedEnv off("BATCHSVD_CUDA_WIDE_FINAL", "0");
        const auto block = solve_on_device<T>(m, n, batch, a, o);
        EXPECT_EQ(wide.info, block.info);
        EXPECT_EQ(wide.info[3], info_nonfinite);
        EXPECT_TRUE(std::memcmp(wide.s.data(), block.s.data(), wide.s.size() * sizeof(wide.s[0])) == 0);
        EXPECT_TRUE(std::memcmp(wide.u.data(), block.u.data(), wide.u.size() * sizeof(T)) == 0);
        EXPECT_TRUE(std::memcmp(wide.v.data(), block.v.data(), wide.v.size() * sizeof(T)) == 0);
        for (index_t b : {0, 1, 2, 4}) {
            EXPECT_EQ(wide.info[b], 0) << "matrix " << b;
            const std::vector<T> one(a.begin() + b * m * n, a.begin() + (b + 1) * m * n);
            if (outputs == 0) expect_matrix_accurate<T>(m, n, one, wide.s.data() + b * std::min(m, n), wide, b);
        }
    }
}

/// The path's name says " pre" exactly when the rule (CudaPreconditionRule below) takes the
/// preconditioning, and only on the blocked path; always and never as asked.
TYPED_TEST(CudaDevice, PreconditionAutomaticChoice) {
    SKIP_WITHOUT_CUDA("solve_path reads the device");
    using T = TypeParam;
    const auto pre = [](const std::string& path) { return path.size() > 4 && path.substr(path.size() - 4) == " pre"; };
    Options never;
    never.precondition = PreconditionMode::never;
    for (auto [m, n, batch] : {std::tuple<index_t, index_t, index_t>{256, 256, 1000}, {128, 128, 50}, {512, 450, 50},
                               {450, 512, 50}, {256, 256, 49}, {96, 96, 1000}, {600, 600, 100}, {400, 256, 1000},
                               {200, 200, 1000}, {32, 32, 1000}})
        for (const Options& o : {Options{}, never, preconditioned()}) {
            const std::string path = cuda::solve_path<T>(m, n, batch, o);
            SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + " batch " + std::to_string(batch) + ": " + path);
            EXPECT_EQ(pre(path), path.rfind("blocked", 0) == 0 && cuda::preconditions<T>(m, n, batch, o));
        }
    EXPECT_TRUE(pre(cuda::solve_path<T>(256, 256, 1000, preconditioned())));
    EXPECT_TRUE(pre(cuda::solve_path<T>(40, 33, 3, preconditioned())));
    EXPECT_TRUE(pre(cuda::solve_path<T>(700, 200, 1, preconditioned())));
    EXPECT_FALSE(pre(cuda::solve_path<T>(256, 256, 1000, never)));
    // The preconditioned blocked path goes before the fused kernel where the rule
    // preconditions, and before QR up to 4:1 (dispatch.cu's blocked_beats_fused, use_qr).
    EXPECT_TRUE(pre(cuda::solve_path<T>(64, 64, 1000, {})));
    EXPECT_EQ(cuda::solve_path<T>(64, 64, 10, {}).find(" pre"), std::string::npos);
    EXPECT_TRUE(pre(cuda::solve_path<T>(256, 64, 1000, {})));
    EXPECT_TRUE(pre(cuda::solve_path<T>(64, 256, 1000, {})));
    // Only the automatic rule moves matrices onto the blocked path; `always` preconditions the
    // blocked path where the other rules send a matrix (at 40^2 not there, as without it).
    Options always;
    always.precondition = PreconditionMode::always;
    EXPECT_TRUE(pre(cuda::solve_path<T>(56, 56, 1000, {})));
    EXPECT_EQ(cuda::solve_path<T>(40, 40, 1000, always), cuda::solve_path<T>(40, 40, 1000, never));
    EXPECT_FALSE(pre(cuda::solve_path<T>(40, 40, 1000, always)));
    if constexpr (std::is_same_v<T, double>) {
        EXPECT_EQ(cuda::solve_path<T>(256, 64, 10, {}), "qr");
        EXPECT_EQ(cuda::solve_path<T>(320, 64, 1000, {}), "qr");
    }
}

/// The automatic rule by precision, order, shape and batch (dispatch.cu's use_precondition,
/// the wins measured on the H100), and the option's always and never. Host logic: runs without a
/// device.
TEST(CudaPreconditionRule, AutomaticChoiceByPrecisionOrderAndBatch) {
    const Options a{};
    Options always, never;
    always.precondition = PreconditionMode::always;
    never.precondition = PreconditionMode::never;
    // float64: from order 40 (33 in large batches, 25 tall) to 4096, up to 8:1 (wide too); below 128 in batches of 100 or
    // more; orders 257-1023 not in batches of 2-19, except where the eigensolve is the
    // bisection form (real orders 337-512 on an H100 or H200): not in batches of 2-3
    EXPECT_TRUE(cuda::preconditions<double>(256, 256, 1000, a));
    EXPECT_TRUE(cuda::preconditions<double>(40, 40, 1000, a));
    EXPECT_TRUE(cuda::preconditions<double>(64, 64, 1000, a));
    EXPECT_TRUE(cuda::preconditions<double>(96, 96, 100, a));
    EXPECT_FALSE(cuda::preconditions<double>(96, 96, 99, a));
    EXPECT_FALSE(cuda::preconditions<double>(39, 39, 1000, a));
    EXPECT_TRUE(cuda::preconditions<double>(128, 128, 1, a));
    EXPECT_TRUE(cuda::preconditions<double>(256, 256, 10, a));
    EXPECT_TRUE(cuda::preconditions<double>(512, 512, 1, a));
    EXPECT_FALSE(cuda::preconditions<double>(512, 512, 2, a));
    EXPECT_FALSE(cuda::preconditions<double>(512, 512, 3, a));
    EXPECT_TRUE(cuda::preconditions<double>(512, 512, 4, a));
    EXPECT_TRUE(cuda::preconditions<double>(512, 512, 20, a));
    EXPECT_FALSE(cuda::preconditions<double>(300, 300, 5, a));
    EXPECT_FALSE(cuda::preconditions<double>(300, 300, 19, a));
    EXPECT_TRUE(cuda::preconditions<double>(300, 300, 20, a));
    EXPECT_FALSE(cuda::preconditions<double>(600, 600, 10, a));
    EXPECT_TRUE(cuda::preconditions<double>(600, 600, 20, a));
    EXPECT_TRUE(cuda::preconditions<double>(1024, 1024, 10, a));
    EXPECT_TRUE(cuda::preconditions<double>(4096, 4096, 1, a));
    EXPECT_FALSE(cuda::preconditions<double>(4097, 4097, 1, a));
    EXPECT_TRUE(cuda::preconditions<double>(4096, 512, 100, a));
    EXPECT_TRUE(cuda::preconditions<double>(512, 4096, 100, a));
    EXPECT_FALSE(cuda::preconditions<double>(4104, 512, 100, a));
    EXPECT_FALSE(cuda::preconditions<double>(256, 256, 1000, never));
    // float64 from 33 in batches of 4000 and more; real tall shapes (2:1 to 4:1) from 25
    EXPECT_TRUE(cuda::preconditions<double>(33, 33, 4000, a));
    EXPECT_FALSE(cuda::preconditions<double>(32, 32, 10000, a));
    EXPECT_FALSE(cuda::preconditions<double>(33, 33, 3999, a));
    EXPECT_TRUE(cuda::preconditions<double>(50, 25, 1000, a));
    EXPECT_TRUE(cuda::preconditions<double>(25, 100, 1000, a));
    EXPECT_FALSE(cuda::preconditions<double>(48, 24, 1000, a));
    EXPECT_FALSE(cuda::preconditions<double>(49, 25, 1000, a));
    // complex from order 33 at any batch of 100 or more
    EXPECT_TRUE(cuda::preconditions<std::complex<double>>(33, 33, 1000, a));
    EXPECT_FALSE(cuda::preconditions<std::complex<double>>(32, 32, 1000, a));
    EXPECT_FALSE(cuda::preconditions<std::complex<double>>(50, 25, 1000, a));
    EXPECT_TRUE(cuda::preconditions<std::complex<double>>(1024, 1024, 20, a));
    EXPECT_TRUE(cuda::preconditions<std::complex<float>>(33, 33, 1000, a));
    EXPECT_FALSE(cuda::preconditions<std::complex<float>>(32, 32, 10000, a));
    EXPECT_TRUE(cuda::preconditions<std::complex<float>>(384, 384, 10, a));
    EXPECT_FALSE(cuda::preconditions<std::complex<float>>(384, 384, 3, a));
    EXPECT_FALSE(cuda::preconditions<std::complex<float>>(600, 600, 10, a));
    // float32 from 41, from 33 in batches of 4000 and more
    EXPECT_TRUE(cuda::preconditions<float>(41, 41, 1000, a));
    EXPECT_FALSE(cuda::preconditions<float>(40, 40, 1000, a));
    EXPECT_TRUE(cuda::preconditions<float>(33, 33, 10000, a));
    EXPECT_TRUE(cuda::preconditions<float>(100, 25, 1000, a));
    EXPECT_TRUE(cuda::preconditions<float>(2048, 2048, 20, a));
    // asked for: any order, shape and batch
    EXPECT_TRUE(cuda::preconditions<float>(40, 33, 3, always));
    EXPECT_TRUE(cuda::preconditions<std::complex<double>>(700, 200, 1, always));
    EXPECT_FALSE(cuda::preconditions<std::complex<float>>(256, 256, 1000, never));
}

// ---- QR pre-processing (Options::qr = always) ------------------------------------------------

/// W = QR, the SVD of R by the tiny, fused or blocked path, U_W = Q [U_R; 0]: the six families,
/// tall, wide and square, R small and large.
TYPED_TEST(CudaDevice, QrAlwaysFamiliesAndShapes) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    for (testing::Family f : testing::all_families)
        for (auto [m, n, batch] : {std::tuple<index_t, index_t, index_t>{100, 13, 5}, {13, 100, 5},
                                   {1000, 16, 4}, {300, 40, 3}, {64, 64, 3}, {40, 1, 3},
                                   {3, 2, 20}, {400, 150, 2}})
            expect_family_accurate<T>(f, m, n, batch, qr_always());
}

/// qr = automatic takes QR pre-processing for tall panels, tall or wide: every type from
/// M >= 2N, M >= 128 where the panel fits in shared memory, complex types also from M >= 3N
/// (at 16 columns also where it does not fit); not for square or forced-variant problems, nor with
/// qr = never. The six families through the automatic choice, tall and wide.
TYPED_TEST(CudaDevice, QrAutomaticChoice) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    Options never;
    never.qr = QrMode::never;
    // (Panels up to 160 KB here: within an H100's or H200's shared memory in every type.)
    EXPECT_EQ(cuda::solve_path<T>(600, 16, 10, {}), "qr");
    EXPECT_EQ(cuda::solve_path<T>(16, 600, 10, {}), "qr");
    EXPECT_EQ(cuda::solve_path<T>(160, 64, 10, {}), "qr");
    constexpr bool cplx = !std::is_same_v<T, real_t<T>>;
    EXPECT_EQ(cuda::solve_path<T>(100, 13, 10, {}) == "qr", cplx);  // under 128 rows: complex only
    EXPECT_NE(cuda::solve_path<T>(40, 16, 10, {}), "qr");           // under 3N
    EXPECT_NE(cuda::solve_path<T>(200, 120, 10, {}), "qr");
    EXPECT_NE(cuda::solve_path<T>(600, 16, 10, never), "qr");
    EXPECT_NE(cuda::solve_path<T>(600, 16, 10, blocked_path()), "qr");
    // A panel beyond shared memory: QR in global memory for complex 16-column panels only
    EXPECT_EQ(cuda::solve_path<T>(100000, 16, 10, {}) == "qr", cplx);
    EXPECT_NE(cuda::solve_path<T>(100000, 40, 10, {}), "qr");
    for (testing::Family f : testing::all_families)
        for (auto [m, n] : {std::pair<index_t, index_t>{600, 20}, {20, 600}, {60, 16}, {16, 60}, {3000, 16}})
            expect_family_accurate<T>(f, m, n, 7);
}

// ---- batches in chunks (workspace or host staging beyond the device's memory) --------------

/// The blocked path and QR pre-processing over workspace chunks of 3 matrices: bitwise the
/// results of the whole batch at once (every matrix is solved on its own).
TYPED_TEST(CudaDevice, WorkspaceChunksMatchWholeBatch) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    const index_t m = 70, n = 50, batch = 10;
    const auto a = testing::generate_batch<T>(testing::Family::logrand, m, n, batch, testing::fresh_seed());
    for (const Options& o : {blocked_path(), qr_always()}) {
        const auto whole = solve_on_device<T>(m, n, batch, a, o);
        expect_accurate<T>(m, n, batch, a, whole);
        ScopedEnv chunk("BATCHSVD_CUDA_CHUNK", "3");  // chunked paths on a batch that fits
        const auto parts = solve_on_device<T>(m, n, batch, a, o);
        EXPECT_EQ(parts.info, whole.info);
        EXPECT_TRUE(parts.s == whole.s && parts.u == whole.u && parts.v == whole.v);
    }
}

/// Host input through the CUDA backend, streamed in chunks of 4 matrices through pinned
/// buffers on two streams: bitwise the single-shot results, for the fused and blocked paths.
TYPED_TEST(CudaDevice, HostStreamedChunksMatchWholeBatch) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    for (auto [m, n, o] : {std::tuple<index_t, index_t, Options>{24, 20, Options{}},
                           {20, 24, Options{}}, {90, 70, blocked_path()}}) {
        const index_t batch = 25, k = std::min(m, n);
        const auto a = testing::generate_batch<T>(testing::Family::random, m, n, batch, testing::fresh_seed());
        o.backend = Backend::cuda;
        auto solve = [&] {
            DeviceResult<T> r;
            r.s.assign(k * batch, std::numeric_limits<real_t<T>>::quiet_NaN());
            r.u.assign(m * k * batch, nan_value<T>());
            r.v.assign(n * k * batch, nan_value<T>());
            r.info.assign(batch, 12345);
            gesvd<T>(m, n, batch, a.data(), r.s.data(), r.u.data(), r.v.data(), r.info.data(), o);
            return r;
        };
        const auto whole = solve();
        expect_accurate<T>(m, n, batch, a, whole);
        ScopedEnv chunk("BATCHSVD_CUDA_CHUNK", "4");
        const auto parts = solve();
        EXPECT_EQ(parts.info, whole.info) << m << "x" << n;
        EXPECT_TRUE(parts.s == whole.s && parts.u == whole.u && parts.v == whole.v) << m << "x" << n;
    }
}

/// Host operands in pageable memory (std::vector) are copied through the library's pinned
/// pieces (copy_async): the same bits as the driver's own copies (BATCHSVD_CUDA_STAGING=0),
/// with pieces that do not divide the operands, leading dimensions past the rows (the gaps
/// survive), U or V alone, at once and streamed in chunks.
TYPED_TEST(CudaDevice, HostStagedCopiesMatchDriverCopies) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    using R = real_t<T>;
    const index_t m = 40, n = 24, k = std::min(m, n), lda = 43, ldu = 41, ldv = 29, batch = 2000;
    const auto packed = testing::generate_batch<T>(testing::Family::random, m, n, batch, testing::fresh_seed());
    std::vector<T> a(std::size_t(lda * n * batch), T(R(7)));
    for (index_t b = 0; b < batch; ++b)
        for (index_t j = 0; j < n; ++j)
            for (index_t i = 0; i < m; ++i) a[std::size_t(b * lda * n + i + j * lda)] = packed[std::size_t(b * m * n + i + j * m)];
    for (int outputs = 0; outputs < 3; ++outputs)  // U and V, U only, V only
    for (const char* chunk : {"", "1100"}) {
        SCOPED_TRACE(std::string("outputs ") + std::to_string(outputs) + " chunk " + chunk);
        Options o;
        o.backend = Backend::cuda;
        o.compute_u = outputs != 2;
        o.compute_v = outputs != 1;
        auto solve = [&] {
            DeviceResult<T> r;
            r.s.assign(std::size_t(k * batch), std::numeric_limits<R>::quiet_NaN());
            r.u.assign(std::size_t(ldu * k * batch), nan_value<T>());
            r.v.assign(std::size_t(ldv * k * batch), nan_value<T>());
            r.info.assign(std::size_t(batch), 12345);
            gesvd<T>(m, n, batch, MatrixBatch<const T>{a.data(), lda, lda * n}, r.s.data(), k,
                     MatrixBatch<T>{r.u.data(), ldu, ldu * k}, MatrixBatch<T>{r.v.data(), ldv, ldv * k},
                     r.info.data(), o);
            return r;
        };
        std::optional<ScopedEnv> chunks;
        if (*chunk) chunks.emplace("BATCHSVD_CUDA_CHUNK", chunk);
        const auto driver = [&] {
            const ScopedEnv off("BATCHSVD_CUDA_STAGING", "0");
            return solve();
        }();
        const ScopedEnv piece("BATCHSVD_CUDA_STAGING_PIECE", "1000064");
        const auto staged = solve();
        EXPECT_EQ(staged.info, driver.info);
        EXPECT_TRUE(std::memcmp(staged.s.data(), driver.s.data(), staged.s.size() * sizeof(R)) == 0);
        EXPECT_TRUE(std::memcmp(staged.u.data(), driver.u.data(), staged.u.size() * sizeof(T)) == 0);
        EXPECT_TRUE(std::memcmp(staged.v.data(), driver.v.data(), staged.v.size() * sizeof(T)) == 0);
        for (index_t b : {index_t(0), batch - 1}) {
            EXPECT_EQ(staged.info[std::size_t(b)], 0);
            if (o.compute_u) EXPECT_TRUE(std::isnan(std::real(staged.u[std::size_t(b * ldu * k + m)]))) << "U's gap";
            if (o.compute_v) EXPECT_TRUE(std::isnan(std::real(staged.v[std::size_t(b * ldv * k + n)]))) << "V's gap";
        }
    }
}


/// Every order from 1 to the tiny cap, square, tall and wide, the six families; batches
/// that end in a partial block of 128 matrices.
// ---- the tiny-matrix kernel (max(m, n) <= 4, one thread per matrix) -------------------------

TYPED_TEST(CudaDevice, TinyEveryShapeAndFamily) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    for (testing::Family f : testing::all_families)
        for (index_t m = 1; m <= 4; ++m)
            for (index_t n = 1; n <= 4; ++n) expect_family_accurate<T>(f, m, n, 300);
}

/// The known traps of tiny SVDs: rank 1, repeated singular values, zero, entries that
/// differ by 1e-8, rotations and reflections (det = -1), a single non-zero entry.
TYPED_TEST(CudaDevice, TinyTraps) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    using R = real_t<T>;
    std::mt19937_64 rng(testing::fresh_seed());
    std::uniform_real_distribution<double> ud(-1, 1);
    for (index_t m = 2; m <= 4; ++m)
        for (index_t n = 2; n <= 4; ++n) {
            const index_t k = std::min(m, n), batch = 7 * 20;
            std::vector<T> a(m * n * batch);
            for (index_t b = 0; b < batch; ++b) {
                T* x = a.data() + b * m * n;
                const int kind = int(b % 7);
                const double th = 3.14159 * ud(rng);
                for (index_t j = 0; j < n; ++j)
                    for (index_t i = 0; i < m; ++i) {
                        double v = 0;
                        switch (kind) {
                            case 0: v = (i + 1) * (0.5 + j); break;                 // rank 1
                            case 1: v = i == j ? 2.5 : 0; break;                     // repeated sigma
                            case 2: v = 0; break;                                    // zero
                            case 3: v = 1 + 1e-8 * ud(rng); break;                   // nearly equal
                            case 4: v = i == j ? (i < 2 ? std::cos(th) : 1) : 0;     // rotation
                                    if (i < 2 && j < 2 && i != j) v = (i == 0 ? -1 : 1) * std::sin(th);
                                    break;
                            case 5: v = i == j ? (i == 0 ? -1 : 1) : 0; break;       // reflection
                            default: v = (i == m - 1 && j == 0) ? 3e-3 : 0; break;   // one entry
                        }
                        x[i + j * m] = T(R(v));
                    }
            }
            SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
            const auto r = solve_on_device<T>(m, n, batch, a, {});
            expect_accurate<T>(m, n, batch, a, r);
            for (index_t b = 0; b < batch; ++b) {
                const int kind = int(b % 7);
                const R* sv = r.s.data() + b * k;
                if (kind == 1 || kind == 4 || kind == 5)  // orthogonal times a scalar
                    for (index_t j = 0; j < k; ++j)
                        EXPECT_NEAR(sv[j], kind == 1 ? 2.5 : 1.0, 4 * limit<T>()) << b << " " << j;
                if (kind == 2)
                    for (index_t j = 0; j < k; ++j) EXPECT_EQ(sv[j], R(0)) << b;
                if (kind == 0 || kind == 6)  // rank 1: one non-zero sigma
                    for (index_t j = 1; j < k; ++j) EXPECT_LE(sv[j], 4 * limit<T>() * sv[0]) << b;
            }
        }
}

/// A NaN or Inf matrix among tiny ones: flagged, NaN outputs, the others bit-identical to a
/// run without it.
TYPED_TEST(CudaDevice, TinyNonFiniteIsolated) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    using T = TypeParam;
    for (auto [m, n] : {std::pair<index_t, index_t>{3, 3}, {4, 2}, {2, 4}}) {
        const index_t batch = 260, k = std::min(m, n);
        const auto clean = testing::generate_batch<T>(testing::Family::random, m, n, batch,
                                                      testing::fresh_seed());
        auto a = clean;
        a[129 * m * n] = nan_value<T>();
        a[130 * m * n + 1] = T(std::numeric_limits<real_t<T>>::infinity());
        const auto r0 = solve_on_device<T>(m, n, batch, clean, {});
        const auto r = solve_on_device<T>(m, n, batch, a, {});
        for (index_t b = 0; b < batch; ++b) {
            const bool bad = b == 129 || b == 130;
            ASSERT_EQ(r.info[b], bad ? info_nonfinite : 0) << b;
            for (index_t j = 0; j < k; ++j) {
                if (bad) EXPECT_TRUE(std::isnan(r.s[b * k + j]));
                else EXPECT_EQ(r.s[b * k + j], r0.s[b * k + j]);
            }
            for (index_t i = 0; i < m * k; ++i) {
                if (bad) EXPECT_TRUE(is_nan(r.u[b * m * k + i]));
                else EXPECT_EQ(r.u[b * m * k + i], r0.u[b * m * k + i]);
            }
            for (index_t i = 0; i < n * k; ++i) {
                if (bad) EXPECT_TRUE(is_nan(r.v[b * n * k + i]));
                else EXPECT_EQ(r.v[b * n * k + i], r0.v[b * n * k + i]);
            }
        }
    }
}

TEST(CudaDeviceApi, HostPointersThroughCudaBackendAndErrors) {
    SKIP_WITHOUT_CUDA("device-pointer case");
    const index_t m = 9, n = 7, batch = 5;
    const auto a = testing::generate_batch<double>(testing::Family::random, m, n, batch,
                                                   testing::fresh_seed());
    std::vector<double> s(n * batch), u(m * n * batch), v(n * n * batch);
    std::vector<int> info(batch, 7);
    Options o;
    o.backend = Backend::cuda;
    gesvd<double>(m, n, batch, a.data(), s.data(), u.data(), v.data(), info.data(), o);
    for (int x : info) EXPECT_EQ(x, 0);
    const auto e = testing::measure_batch<double>(m, n, batch, a.data(), s.data(), u.data(), v.data());
    EXPECT_TRUE(e.within(limit<double>()));
    // Host and device pointers mixed: an invalid argument, not a crash.
    DeviceArray<double> da(a.size());
    ASSERT_TRUE(da.p);
    try {
        gesvd<double>(m, n, batch, da.p, s.data(), u.data(), v.data(), info.data(), o);
        ADD_FAILURE() << "mixed pointers accepted";
    } catch (const Error& err) {
        EXPECT_EQ(err.code(), ErrorCode::invalid_argument);
    }
}

}  // namespace
}  // namespace batchsvd::test
