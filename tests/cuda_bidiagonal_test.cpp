// SPDX-License-Identifier: BSD-3-Clause
// The CUDA gebrd and bidiagonal route from device memory: bitwise the results of the same
// call from host memory (Backend::cuda, whose accuracy gebrd_test.cpp checks against LAPACK),
// outputs poisoned first, the caller's padding between matrices untouched; the route the
// values take (SvdMethod) named by cuda::solve_path; mixed host and device pointers and the
// cpu backend with device pointers are invalid_argument. Skips without a CUDA device.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "batchsvd/bidiagonal.hpp"
#include "cuda/fused/fused_plan.hpp"
#include "cuda_test_support.hpp"
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

}  // namespace
}  // namespace batchsvd::test
