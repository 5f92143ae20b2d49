// SPDX-License-Identifier: BSD-3-Clause
// The CUDA gebrd and bidiagonal route from device memory: bitwise the results of the same
// call from host memory (Backend::cuda, whose accuracy gebrd_test.cpp checks against LAPACK),
// outputs poisoned first, the caller's padding between matrices untouched; the route the
// values take (SvdMethod) named by cuda::solve_path; mixed host and device pointers and the
// cpu backend with device pointers are invalid_argument. Skips without a CUDA device.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "batchsvd/bidiagonal.hpp"
#include "cuda/bidiagonal/bidiagonal_path.hpp"
#include "cuda/fused/fused_plan.hpp"
#include "cuda_test_support.hpp"
#include "testing/error_measures.hpp"
#include "testing/generators.hpp"

namespace batchsvd::test {
namespace {

template <class T> void gebrd_device_equals_host(index_t m, index_t n) {
    using R = real_t<T>;
    const index_t batch = 5, k = std::min(m, n), lda = m + 3, stride = lda * n + 7, vst = k + 2;
    const std::uint64_t seed = testing::fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(m) + "x" + std::to_string(n));
    const std::vector<T> packed = testing::generate_batch<T>(testing::Family::random, m, n, batch, seed);
    // The caller's layout: padding (ld past the rows, gaps between matrices) holds a marker.
    std::vector<T> a(std::size_t(stride * batch), T(R(-3)));
    for (index_t b = 0; b < batch; ++b)
        for (index_t j = 0; j < n; ++j)
            for (index_t i = 0; i < m; ++i) a[b * stride + i + j * lda] = packed[b * m * n + i + j * m];
    a[2 * stride + 1] = T(std::numeric_limits<R>::quiet_NaN());  // matrix 2: info -1
    const R poison = std::numeric_limits<R>::quiet_NaN();
    std::vector<T> ha = a, htq(vst * batch, T(poison)), htp(vst * batch, T(poison));
    std::vector<R> hd(vst * batch, poison), he(vst * batch, poison);
    std::vector<int> hinfo(batch, 7);
    Options o;
    o.backend = Backend::cuda;
    gebrd<T>(m, n, batch, MatrixBatch<T>{ha.data(), lda, stride}, BidiagonalBatch<T>{hd.data(), he.data(), htq.data(), htp.data(), vst},
             hinfo.data(), o);
    for (index_t b = 0; b < batch; ++b) EXPECT_EQ(hinfo[b], b == 2 ? info_nonfinite : 0) << "matrix " << b;
    for (index_t b = 0; b < batch; ++b)
        for (index_t i = 0; i < k; ++i) {
            if (b != 2) EXPECT_FALSE(std::isnan(hd[b * vst + i])) << "d unwritten, matrix " << b;
            if (b != 2) EXPECT_FALSE(std::isnan(std::real(htq[b * vst + i]))) << "tauq unwritten, matrix " << b;
        }
    for (index_t b = 0; b < batch; ++b)  // padding untouched
        for (index_t j = 0; j < n; ++j)
            for (index_t i = m; i < lda; ++i) EXPECT_EQ(std::real(ha[b * stride + i + j * lda]), R(-3));

    DeviceArray<T> da(a.size()), dtq(htq.size()), dtp(htp.size());
    DeviceArray<R> dd(hd.size()), de(he.size());
    DeviceArray<int> dinfo{std::size_t(batch)};
    ASSERT_TRUE(da.p && dtq.p && dtp.p && dd.p && de.p && dinfo.p);
    to_device(da, a);
    to_device(dtq, std::vector<T>(htq.size(), T(poison)));
    to_device(dtp, std::vector<T>(htp.size(), T(poison)));
    to_device(dd, std::vector<R>(hd.size(), poison));
    to_device(de, std::vector<R>(he.size(), poison));
    gebrd<T>(m, n, batch, MatrixBatch<T>{da.p, lda, stride}, BidiagonalBatch<T>{dd.p, de.p, dtq.p, dtp.p, vst}, dinfo.p);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_TRUE(same_bits(to_host(da), ha));
    EXPECT_TRUE(same_bits(to_host(dd), hd));
    EXPECT_TRUE(same_bits(to_host(de), he));
    EXPECT_TRUE(same_bits(to_host(dtq), htq));
    EXPECT_TRUE(same_bits(to_host(dtp), htp));
    EXPECT_EQ(to_host(dinfo), hinfo);

    // Values alone by the bidiagonal route: device memory against host memory, bitwise.
    for (SvdMethod method : {SvdMethod::bidiagonal, SvdMethod::automatic}) {
        Options ov;
        ov.compute_u = ov.compute_v = false;
        ov.method = method;
        std::vector<R> hs(vst * batch, poison);
        std::vector<int> hi(batch, 7), hsw(batch, 7);
        ov.sweeps = hsw.data();
        ov.backend = Backend::cuda;
        gesvd<T>(m, n, batch, MatrixBatch<const T>{a.data(), lda, stride}, hs.data(), vst, MatrixBatch<T>{}, MatrixBatch<T>{},
                 hi.data(), ov);
        DeviceArray<R> ds(hs.size());
        DeviceArray<int> di{std::size_t(batch)}, dsw{std::size_t(batch)};
        to_device(da, a);
        to_device(ds, std::vector<R>(hs.size(), poison));
        ov.sweeps = dsw.p;
        ov.backend = Backend::automatic;
        gesvd<T>(m, n, batch, MatrixBatch<const T>{da.p, lda, stride}, ds.p, vst, MatrixBatch<T>{}, MatrixBatch<T>{}, di.p,
                 ov);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        EXPECT_TRUE(same_bits(to_host(ds), hs));
        EXPECT_EQ(to_host(di), hi);
        EXPECT_EQ(to_host(dsw), hsw);
        for (index_t b = 0; b < batch; ++b)
            for (index_t i = 0; i < k; ++i) EXPECT_EQ(std::isnan(hs[b * vst + i]), b == 2) << "matrix " << b << ", " << i;
        if (method == SvdMethod::bidiagonal) {
            for (index_t b = 0; b < batch; ++b) EXPECT_EQ(hsw[b], 0);
            EXPECT_EQ(cuda::solve_path<T>(m, n, batch, ov).rfind("bidiagonal", 0), 0u);
        }
    }
}

TEST(CudaBidiagonal, DeviceMemoryEqualsHostMemory) {
    SKIP_WITHOUT_CUDA("the CUDA gebrd from device memory");
    for (auto [m, n] : {std::pair<index_t, index_t>{24, 20}, {40, 33}, {17, 50}, {200, 170}, {130, 240}}) {
        gebrd_device_equals_host<float>(m, n);
        gebrd_device_equals_host<double>(m, n);
        gebrd_device_equals_host<std::complex<float>>(m, n);
        gebrd_device_equals_host<std::complex<double>>(m, n);
    }
}

TEST(CudaBidiagonal, MixedPointersAndCpuBackendAreInvalid) {
    SKIP_WITHOUT_CUDA("the CUDA gebrd's argument checks");
    DeviceArray<double> da(12);
    ASSERT_TRUE(da.p);
    std::vector<double> d(3), e(3), tq(3), tp(3);
    int info = 0;
    try {
        gebrd<double>(4, 3, 1, MatrixBatch<double>{da.p, 4, 12}, BidiagonalBatch<double>{d.data(), e.data(), tq.data(), tp.data(), 3},
                      &info);
        ADD_FAILURE() << "no error";
    } catch (const Error& err) {
        EXPECT_EQ(err.code(), ErrorCode::invalid_argument);
    }
    DeviceArray<double> dd(3), de(3);
    DeviceArray<int> di(1);
    Options o;
    o.backend = Backend::cpu;
    try {
        gebrd<double>(4, 3, 1, MatrixBatch<double>{da.p, 4, 12}, BidiagonalBatch<double>{dd.p, de.p, nullptr, nullptr, 3}, di.p, o);
        ADD_FAILURE() << "no error";
    } catch (const Error& err) {
        EXPECT_EQ(err.code(), ErrorCode::invalid_argument);
    }
}

/// float64 values alone of a batch large enough for dqds (the call's batch from
/// cuda::kDqdsFromBatch: a thread a matrix), from 17 columns where `automatic` takes the
/// bidiagonal route there (from cuda::kDqdsMethodFromBatch): the route named, e4 against LAPACK on a sample of the matrices
/// (random, and one of every family the harness has), descending, a NaN matrix's info
/// and values, and device memory bitwise host memory.
TEST(CudaBidiagonal, DqdsForLargeFloat64Batches) {
    SKIP_WITHOUT_CUDA("the CUDA values route by dqds");
    const index_t batch = std::max<index_t>(cuda::kDqdsFromBatch, cuda::kDqdsMethodFromBatch);
    for (auto [m, n] : {std::pair<index_t, index_t>{17, 17}, {24, 20}, {40, 40}}) {
        const index_t k = std::min(m, n);
        const std::uint64_t seed = testing::fresh_seed();
        SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(m) + "x" + std::to_string(n));
        std::vector<double> a = testing::generate_batch<double>(testing::Family::random, m, n, batch, seed);
        int j = 0;  // a sample of the other families among the random matrices
        for (testing::Family f : testing::all_families) {
            const std::vector<double> x = testing::generate_batch<double>(f, m, n, 1, seed + 1 + std::uint64_t(j));
            std::copy(x.begin(), x.end(), a.begin() + (100 + j++) * m * n);
        }
        a[7 * m * n + 3] = std::numeric_limits<double>::quiet_NaN();
        Options o;
        o.compute_u = o.compute_v = false;
        o.backend = Backend::cuda;
        EXPECT_EQ(cuda::solve_path<double>(m, n, batch, o).rfind("bidiagonal", 0), 0u);
        std::vector<double> s(std::size_t(k * batch), std::numeric_limits<double>::quiet_NaN());
        std::vector<int> info(std::size_t(batch), 5);
        gesvd<double>(m, n, batch, a.data(), s.data(), nullptr, nullptr, info.data(), o);
        const double u = testing::unit_roundoff<double>();
        for (index_t b = 0; b < batch; ++b) {
            if (b == 7) {
                EXPECT_EQ(info[b], info_nonfinite);
                for (index_t i = 0; i < k; ++i) EXPECT_TRUE(std::isnan(s[b * k + i]));
                continue;
            }
            ASSERT_EQ(info[b], 0) << "matrix " << b;
            for (index_t i = 0; i < k; ++i) ASSERT_FALSE(std::isnan(s[b * k + i])) << "matrix " << b << ", " << i;
            for (index_t i = 0; i + 1 < k; ++i) EXPECT_GE(s[b * k + i], s[b * k + i + 1]) << "matrix " << b;
            if (b % 97 != 0 && (b < 100 || b >= 100 + j)) continue;  // LAPACK on a sample
            const auto ref = testing::reference_singular_values<double>(m, n, a.data() + b * m * n, m);
            double e4 = 0;
            for (index_t i = 0; i < k; ++i) e4 += std::pow(s[b * k + i] - double(ref[i]), 2);
            e4 = std::sqrt(e4) / (double(k) * std::max(1.0, double(ref[0])));
            EXPECT_LT(e4, 30 * u) << "matrix " << b;
        }
        DeviceArray<double> da(a.size()), ds(s.size());
        DeviceArray<int> di{std::size_t(batch)};
        ASSERT_TRUE(da.p && ds.p && di.p);
        to_device(da, a);
        to_device(ds, std::vector<double>(s.size(), std::numeric_limits<double>::quiet_NaN()));
        o.backend = Backend::automatic;
        gesvd<double>(m, n, batch, MatrixBatch<const double>{da.p, m, m * n}, ds.p, k, MatrixBatch<double>{},
                      MatrixBatch<double>{}, di.p, o);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        EXPECT_TRUE(same_bits(to_host(ds), s));
        EXPECT_EQ(to_host(di), info);
    }
}

}  // namespace
}  // namespace batchsvd::test
