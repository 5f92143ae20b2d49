// SPDX-License-Identifier: BSD-3-Clause
// hsvd and eigh_indefinite on device memory: bitwise the results of the same call from host
// memory with Backend::cuda (whose accuracy hyperbolic_test.cpp checks), outputs poisoned
// first, the caller's padding between matrices untouched; eigh_indefinite past the GPU's
// orders (through host copies) bitwise the CPU backend's (hsvd goes there only past m n = 2^30,
// not tested here for the cost); mixed memory, the cpu backend with device pointers
// and a bad signature entry in device memory are invalid_argument. Skips without a CUDA device.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "batchsvd/hyperbolic.hpp"
#include "cuda_test_support.hpp"
#include "testing/generators.hpp"

namespace batchsvd::test {
namespace {

/// A device copy of a host vector, named x.
#define DEVICE_COPY(x, h)                                                       \
    DeviceArray<typename std::decay_t<decltype(h)>::value_type> x((h).size()); \
    to_device(x, h)
template <class F> void each_type(F&& f) {
    f(float{});
    f(double{});
    f(std::complex<float>{});
    f(std::complex<double>{});
}

/// Every output of one hsvd call in the caller's padded layout (poisoned).
template <class T> struct HsvdCall {
    std::vector<T> g, u, v;
    std::vector<real_t<T>> s;
    std::vector<int> j, jout, info, sweeps;
};

template <class T> HsvdCall<T> padded_problem(index_t m, index_t n, index_t batch, std::uint64_t seed) {
    using R = real_t<T>;
    const index_t ld = m + 2, st = ld * n + 5;
    const std::vector<T> packed = testing::generate_batch<T>(testing::Family::random, m, n, batch, seed);
    HsvdCall<T> c;
    c.g.assign(std::size_t(st * batch), T(R(-3)));
    for (index_t b = 0; b < batch; ++b)
        for (index_t q = 0; q < n; ++q)
            for (index_t i = 0; i < m; ++i) c.g[b * st + i + q * ld] = packed[b * m * n + i + q * m];
    c.g[2 * st + 1] = T(std::numeric_limits<R>::quiet_NaN());  // matrix 2: info -1
    std::mt19937_64 rng(seed);
    c.j.assign(std::size_t((n + 1) * batch), 1);
    for (index_t b = 0; b < batch; ++b) {
        for (index_t i = 0; i < n; ++i) c.j[b * (n + 1) + i] = (rng() & 1) ? 1 : -1;
        c.j[b * (n + 1)] = 1;
        if (n > 1) c.j[b * (n + 1) + n - 1] = -1;
    }
    const R q = std::numeric_limits<R>::quiet_NaN();
    c.s.assign(std::size_t((n + 1) * batch), q);
    c.jout.assign(std::size_t((n + 1) * batch), 9);
    c.u.assign(std::size_t((ld * n + 5) * batch), T(q));
    c.v.assign(std::size_t(((n + 1) * n + 3) * batch), T(q));
    c.info.assign(std::size_t(batch), 12345);
    c.sweeps.assign(std::size_t(batch), -7);
    return c;
}

template <class T> void call_hsvd(index_t m, index_t n, index_t batch, const T* g, const int* j, real_t<T>* s, int* jout, T* u,
                                  T* v, int* info, int* sweeps, Backend backend) {
    const index_t ld = m + 2, st = ld * n + 5, ldv = n + 1, stv = ldv * n + 3;
    Options o;
    o.backend = backend;
    o.sweeps = sweeps;
    hsvd<T>(m, n, batch, MatrixBatch<const T>{g, ld, st}, SignatureBatch{j, n + 1}, s, n + 1, jout, n + 1,
            MatrixBatch<T>{u, ld, st}, MatrixBatch<T>{v, ldv, stv}, info, o);
}

template <class T> void device_equals_host(index_t m, index_t n, Backend host_backend) {
    const index_t batch = 5;
    const std::uint64_t seed = testing::fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(m) + "x" + std::to_string(n));
    HsvdCall<T> h = padded_problem<T>(m, n, batch, seed);
    const HsvdCall<T> start = h;
    call_hsvd<T>(m, n, batch, h.g.data(), h.j.data(), h.s.data(), h.jout.data(), h.u.data(), h.v.data(), h.info.data(),
                 h.sweeps.data(), host_backend);
    EXPECT_EQ(h.info[2], info_nonfinite);
    for (index_t b = 0; b < batch; ++b)
        if (b != 2) EXPECT_EQ(h.info[b], 0) << "matrix " << b;
    DEVICE_COPY(dg, start.g);
    DEVICE_COPY(dj, start.j);
    DEVICE_COPY(ds, start.s);
    DEVICE_COPY(djo, start.jout);
    DEVICE_COPY(du, start.u);
    DEVICE_COPY(dv, start.v);
    DEVICE_COPY(di, start.info);
    DEVICE_COPY(dsw, start.sweeps);
    call_hsvd<T>(m, n, batch, dg.p, dj.p, ds.p, djo.p, du.p, dv.p, di.p, dsw.p, Backend::automatic);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_TRUE(same_bits(to_host(ds), h.s));
    EXPECT_TRUE(same_bits(to_host(djo), h.jout));
    EXPECT_TRUE(same_bits(to_host(du), h.u));  // the padding too
    EXPECT_TRUE(same_bits(to_host(dv), h.v));
    EXPECT_EQ(to_host(di), h.info);
    EXPECT_EQ(to_host(dsw), h.sweeps);
    // Unwritten outputs would still be NaN: every matrix but the NaN one has finite S.
    for (index_t b = 0; b < batch; ++b)
        for (index_t i = 0; i < n && b != 2; ++i) EXPECT_TRUE(std::isfinite(h.s[b * (n + 1) + i])) << b << ", " << i;
}

TEST(HyperbolicCuda, DeviceMemoryGivesTheHostCallsResult) {
    SKIP_WITHOUT_CUDA("hsvd on device memory");
    each_type([](auto zero) {
        using T = decltype(zero);
        // The warp kernel, the fused one, the blocked iteration (past shared memory).
        for (auto [m, n] : {std::pair<index_t, index_t>{9, 9}, {32, 16}, {20, 13}, {3, 2}, {40, 36}, {66, 33}, {200, 180}})
            device_equals_host<T>(m, n, Backend::cuda);
    });
}

TEST(HyperbolicCuda, EighDeviceMemoryGivesTheHostCallsResult) {
    SKIP_WITHOUT_CUDA("eigh_indefinite on device memory");
    each_type([](auto zero) {
        using T = decltype(zero);
        using R = real_t<T>;
        for (index_t n : {12, 40, 70}) {  // warp, fused, the CPU backend on host copies
            const index_t batch = 4, ld = n + 1, st = ld * n + 3;
            const std::uint64_t seed = testing::fresh_seed();
            SCOPED_TRACE("seed " + std::to_string(seed) + ", n " + std::to_string(n));
            const std::vector<T> g = testing::generate_batch<T>(testing::Family::random, n, n, batch, seed);
            std::vector<T> a(std::size_t(st * batch), T(R(-3)));
            for (index_t b = 0; b < batch; ++b)  // A = G^H diag(+-1) G, Hermitian indefinite
                for (index_t c = 0; c < n; ++c)
                    for (index_t i = 0; i < n; ++i) {
                        std::complex<double> x = 0;
                        for (index_t k = 0; k < n; ++k)
                            x += std::conj(std::complex<double>(g[b * n * n + k + i * n])) * double(k % 3 ? 1 : -1) *
                                 std::complex<double>(g[b * n * n + k + c * n]);
                        if constexpr (std::is_same_v<T, R>) a[b * st + i + c * ld] = R(x.real());
                        else a[b * st + i + c * ld] = T(R(x.real()), R(i == c ? 0 : x.imag()));
                    }
            const R q = std::numeric_limits<R>::quiet_NaN();
            std::vector<R> w(std::size_t((n + 2) * batch), q);
            std::vector<T> z(std::size_t(st * batch), T(q));
            std::vector<int> info(std::size_t(batch), 12345);
            const std::vector<R> w0 = w;
            const std::vector<T> z0 = z;
            Options o;
            o.backend = n <= 64 ? Backend::cuda : Backend::cpu;
            eigh_indefinite<T>(n, batch, MatrixBatch<const T>{a.data(), ld, st}, w.data(), n + 2,
                               MatrixBatch<T>{z.data(), ld, st}, info.data(), o);
            for (index_t b = 0; b < batch; ++b) EXPECT_EQ(info[b], 0) << "matrix " << b;
            DEVICE_COPY(da, a);
            DEVICE_COPY(dw, w0);
            DEVICE_COPY(dz, z0);
            DEVICE_COPY(di, std::vector<int>(std::size_t(batch), 12345));
            eigh_indefinite<T>(n, batch, MatrixBatch<const T>{da.p, ld, st}, dw.p, n + 2, MatrixBatch<T>{dz.p, ld, st},
                               di.p);
            ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
            EXPECT_TRUE(same_bits(to_host(dw), w));
            EXPECT_TRUE(same_bits(to_host(dz), z));
            EXPECT_EQ(to_host(di), info);
        }
    });
}

TEST(HyperbolicCuda, BadArgumentsOnDeviceAreInvalid) {
    SKIP_WITHOUT_CUDA("hsvd argument checks on device memory");
    const index_t m = 4, n = 3;
    std::vector<double> g = {1, 2, 3, 4, 0, 1, 0, 2, 5, 0, 1, 1};
    DEVICE_COPY(dg, g);
    const std::vector<int> bad_j{1, 0, -1}, good_j{1, 1, -1};  // 0: invalid
    DEVICE_COPY(dj, bad_j);
    DEVICE_COPY(dj_ok, good_j);
    DeviceArray<double> ds(3), du(12), dv(9);
    DeviceArray<int> di(1);
    std::vector<double> hs(3);
    auto code = [&](auto&& f) {
        try {
            f();
        } catch (const Error& e) {
            return e.code();
        }
        return ErrorCode::device_error;  // (no error thrown)
    };
    auto call = [&](const int* j, double* s, Backend backend) {
        Options o;
        o.backend = backend;
        hsvd<double>(m, n, 1, MatrixBatch<const double>{dg.p, m, m * n}, SignatureBatch{j, 0}, s, n, nullptr, 0,
                     MatrixBatch<double>{du.p, m, m * n}, MatrixBatch<double>{dv.p, n, n * n}, di.p, o);
    };
    EXPECT_EQ(code([&] { call(dj.p, ds.p, Backend::automatic); }), ErrorCode::invalid_argument);
    EXPECT_EQ(code([&] { call(dj_ok.p, hs.data(), Backend::automatic); }), ErrorCode::invalid_argument);  // mixed
    EXPECT_EQ(code([&] { call(dj_ok.p, ds.p, Backend::cpu); }), ErrorCode::invalid_argument);
    EXPECT_EQ(code([&] { call(dj_ok.p, ds.p, Backend::automatic); }), ErrorCode::device_error);  // (none)
    EXPECT_EQ(to_host(di)[0], 0);
}

}  // namespace
}  // namespace batchsvd::test
