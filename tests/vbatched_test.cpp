// SPDX-License-Identifier: BSD-3-Clause
// gesvd_vbatched: random mixes of sizes (0 to 48, shapes 4:1 to 1:4, the harness's families)
// in four precisions, on the CPU backend and, where a GPU exists, on the CUDA backend from host
// and from device memory. Every matrix: e1-e4 < 30u against LAPACK and S sorted, outputs
// poisoned first and padding (ld past the rows) untouched; on the CPU bitwise what gesvd gives
// it alone. A NaN matrix mid-list gets info -1 and no other matrix changes; bad sizes, null
// pointers and short leading dimensions are invalid_argument naming the matrix.
#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "batchsvd/batchsvd.hpp"
#include "testing/error_measures.hpp"
#include "testing/generators.hpp"

#if BATCHSVD_WITH_CUDA
#include <cuda_runtime.h>
#endif

namespace batchsvd::test {
namespace {

/// One list of matrices with its outputs, each matrix with padding rows (ld = rows + 2).
template <class T> struct List {
    using R = real_t<T>;
    std::vector<index_t> m, n, lda, ldu, ldv;
    std::vector<std::vector<T>> a, u, v;
    std::vector<std::vector<R>> s;
    std::vector<int> info;
    std::uint64_t seed;

    List(index_t batch, std::uint64_t seed_, index_t nan_matrix = -1) : seed(seed_) {
        std::mt19937_64 g(seed);
        std::uniform_int_distribution<index_t> size(0, 48);
        for (index_t b = 0; b < batch; ++b) {
            index_t mm = b % 17 == 5 ? 0 : size(g), nn = size(g);
            if (mm > 4 * nn + 3) mm = 4 * nn + 3;  // shapes from 4:1 to 1:4
            if (nn > 4 * mm + 3) nn = 4 * mm + 3;
            m.push_back(mm);
            n.push_back(nn);
            lda.push_back(mm + 2);
            ldu.push_back(mm + 2);
            ldv.push_back(nn + 2);
            const auto fam = testing::all_families[std::size_t(b) % 6];
            const auto packed = std::min(mm, nn) ? testing::generate_batch<T>(fam, mm, nn, 1, seed + b) : std::vector<T>();
            std::vector<T> x(std::size_t((mm + 2) * std::max<index_t>(nn, 1)), T(R(5)));
            for (index_t j = 0; j < nn && mm; ++j)
                for (index_t i = 0; i < mm; ++i) x[i + j * (mm + 2)] = packed[i + j * mm];
            if (b == nan_matrix && mm && nn) x[0] = T(std::numeric_limits<R>::quiet_NaN());
            a.push_back(x);
            const index_t k = std::min(mm, nn);
            const R nan = std::numeric_limits<R>::quiet_NaN();
            s.emplace_back(std::size_t(std::max<index_t>(k, 1)), nan);
            u.emplace_back(std::size_t((mm + 2) * std::max<index_t>(k, 1)), T(R(-3)));
            v.emplace_back(std::size_t((nn + 2) * std::max<index_t>(k, 1)), T(R(-3)));
            for (index_t j = 0; j < k; ++j) {
                for (index_t i = 0; i < mm; ++i) u.back()[i + j * (mm + 2)] = T(nan);
                for (index_t i = 0; i < nn; ++i) v.back()[i + j * (nn + 2)] = T(nan);
            }
        }
        info.assign(std::size_t(batch), 12345);
    }
    index_t batch() const { return index_t(m.size()); }
};

template <class T> std::vector<const T*> const_ptrs(const std::vector<std::vector<T>>& x) {
    std::vector<const T*> p;
    for (const auto& e : x) p.push_back(e.data());
    return p;
}
template <class T> std::vector<T*> ptrs(std::vector<std::vector<T>>& x) {
    std::vector<T*> p;
    for (auto& e : x) p.push_back(e.data());
    return p;
}

template <class T> void run(List<T>& L, const Options& o) {
    auto ap = const_ptrs(L.a);
    auto sp = ptrs(L.s);
    auto up = ptrs(L.u);
    auto vp = ptrs(L.v);
    gesvd_vbatched<T>(L.batch(), L.m.data(), L.n.data(), MatrixList<const T>{ap.data(), L.lda.data()}, sp.data(),
                      MatrixList<T>{up.data(), L.ldu.data()}, MatrixList<T>{vp.data(), L.ldv.data()}, L.info.data(), o);
}

/// Every matrix's errors, order, padding and status.
template <class T> void check(const List<T>& L, index_t nan_matrix, const std::string& what) {
    using R = real_t<T>;
    for (index_t b = 0; b < L.batch(); ++b) {
        const index_t mm = L.m[b], nn = L.n[b], k = std::min(mm, nn);
        SCOPED_TRACE(what + ": matrix " + std::to_string(b) + " (" + std::to_string(mm) + " x " + std::to_string(nn) +
                     "), seed " + std::to_string(L.seed));
        if (b == nan_matrix && k) {
            EXPECT_EQ(L.info[b], info_nonfinite);
            continue;
        }
        ASSERT_EQ(L.info[b], 0);
        for (index_t j = 0; j < k; ++j) {
            for (index_t i = mm; i < mm + 2; ++i) ASSERT_EQ(L.u[b][i + j * (mm + 2)], T(R(-3))) << "U padding";
            for (index_t i = nn; i < nn + 2; ++i) ASSERT_EQ(L.v[b][i + j * (nn + 2)], T(R(-3))) << "V padding";
        }
        if (!k) continue;
        std::vector<T> a(std::size_t(mm * nn)), u(std::size_t(mm * k)), v(std::size_t(nn * k));
        for (index_t j = 0; j < nn; ++j)
            for (index_t i = 0; i < mm; ++i) a[i + j * mm] = L.a[b][i + j * (mm + 2)];
        for (index_t j = 0; j < k; ++j) {
            for (index_t i = 0; i < mm; ++i) u[i + j * mm] = L.u[b][i + j * (mm + 2)];
            for (index_t i = 0; i < nn; ++i) v[i + j * nn] = L.v[b][i + j * (nn + 2)];
        }
        const auto ref = testing::reference_singular_values<T>(mm, nn, a.data(), mm);
        const auto e = testing::measure<T>(mm, nn, a.data(), mm, L.s[b].data(), u.data(), mm, v.data(), nn, ref.data());
        EXPECT_TRUE(e.within(30)) << "e1-e4 " << e.e1 << " " << e.e2 << " " << e.e3 << " " << e.e4 << " (u "
                                  << testing::unit_roundoff<T>() << ")";
    }
}

template <class T> class VBatched : public ::testing::Test {};
using Types = ::testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(VBatched, Types);

TYPED_TEST(VBatched, RandomMixOnTheCpuMatchesEachMatrixAlone) {
    using T = TypeParam;
    using R = real_t<T>;
    List<T> L(60, testing::fresh_seed(), 23);
    Options cpu;
    cpu.backend = Backend::cpu;
    run(L, cpu);
    check(L, 23, "cpu");
    for (index_t b = 0; b < L.batch(); ++b) {  // bitwise gesvd's result for the matrix alone
        const index_t mm = L.m[b], nn = L.n[b], k = std::min(mm, nn);
        if (!k) continue;
        std::vector<R> s(static_cast<std::size_t>(k));
        std::vector<T> u(std::size_t((mm + 2) * k)), v(std::size_t((nn + 2) * k));
        int info = 7;
        gesvd<T>(mm, nn, 1, MatrixBatch<const T>{L.a[b].data(), mm + 2, 0}, s.data(), k, MatrixBatch<T>{u.data(), mm + 2, 0},
                 MatrixBatch<T>{v.data(), nn + 2, 0}, &info, cpu);
        EXPECT_EQ(info, L.info[b]);
        if (b == 23) continue;
        EXPECT_EQ(std::memcmp(s.data(), L.s[b].data(), s.size() * sizeof(R)), 0) << "matrix " << b;
        for (index_t j = 0; j < k; ++j)
            EXPECT_EQ(std::memcmp(u.data() + j * (mm + 2), L.u[b].data() + j * (mm + 2), mm * sizeof(T)), 0) << "U of " << b;
    }
}

TYPED_TEST(VBatched, ValuesOnlyAndEmpty) {
    using T = TypeParam;
    List<T> L(20, testing::fresh_seed());
    Options o;
    o.backend = Backend::cpu;
    o.compute_u = o.compute_v = false;
    auto ap = const_ptrs(L.a);
    auto sp = ptrs(L.s);
    gesvd_vbatched<T>(L.batch(), L.m.data(), L.n.data(), MatrixList<const T>{ap.data(), L.lda.data()}, sp.data(), {}, {},
                      L.info.data(), o);
    for (index_t b = 0; b < L.batch(); ++b) EXPECT_EQ(L.info[b], 0);
    EXPECT_NO_THROW(gesvd_vbatched<T>(0, nullptr, nullptr, {}, nullptr, {}, {}, nullptr, o));
}

#if BATCHSVD_WITH_CUDA
/// Device copies of a list's operands (the pointers and leading dimensions as the host's).
template <class T> struct OnDevice {
    std::vector<void*> blocks;
    std::vector<const T*> a;
    std::vector<real_t<T>*> s;
    std::vector<T*> u, v;
    int* info = nullptr;
    template <class X> X* put(const std::vector<X>& host) {
        void* p = nullptr;
        EXPECT_EQ(cudaMalloc(&p, std::max<std::size_t>(1, host.size()) * sizeof(X)), cudaSuccess);
        EXPECT_EQ(cudaMemcpy(p, host.data(), host.size() * sizeof(X), cudaMemcpyHostToDevice), cudaSuccess);
        blocks.push_back(p);
        return static_cast<X*>(p);
    }
    explicit OnDevice(const List<T>& L) {
        for (index_t b = 0; b < L.batch(); ++b) {
            a.push_back(put(L.a[b]));
            s.push_back(put(L.s[b]));
            u.push_back(put(L.u[b]));
            v.push_back(put(L.v[b]));
        }
        info = put(L.info);
    }
    template <class X> void get(std::vector<X>& host, const X* p) {
        EXPECT_EQ(cudaMemcpy(host.data(), p, host.size() * sizeof(X), cudaMemcpyDeviceToHost), cudaSuccess);
    }
    void back(List<T>& L) {
        for (index_t b = 0; b < L.batch(); ++b) {
            get(L.s[b], s[b]);
            get(L.u[b], u[b]);
            get(L.v[b], v[b]);
        }
        get(L.info, info);
    }
    ~OnDevice() {
        for (void* p : blocks) cudaFree(p);
    }
};

TYPED_TEST(VBatched, RandomMixOnTheGpu) {
    using T = TypeParam;
    if (!cuda_available()) GTEST_SKIP() << "no CUDA device on this machine: gesvd_vbatched on the GPU not run here "
                                           "(it runs on a GPU machine, see scripts/gpu_check.sh)";
    List<T> host(60, testing::fresh_seed(), 31);
    Options cuda;
    cuda.backend = Backend::cuda;
    run(host, cuda);  // host data staged through the GPU
    check(host, 31, "cuda, host data");
    List<T> dev(60, testing::fresh_seed(), 7);
    {
        OnDevice<T> d(dev);
        gesvd_vbatched<T>(dev.batch(), dev.m.data(), dev.n.data(), MatrixList<const T>{d.a.data(), dev.lda.data()},
                          d.s.data(), MatrixList<T>{d.u.data(), dev.ldu.data()}, MatrixList<T>{d.v.data(), dev.ldv.data()},
                          d.info, Options{});
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        d.back(dev);
    }
    check(dev, 7, "cuda, device data");
}
#endif

TEST(VBatchedApi, BadInputNamesTheMatrix) {
    const index_t m[3] = {3, -1, 2}, n[3] = {3, 2, 2}, ld[3] = {3, 3, 1};
    std::vector<double> x(16, 1.0), y(16), z(16);
    const double* ap[3] = {x.data(), x.data(), x.data()};
    double* sp[3] = {y.data(), y.data(), y.data()};
    double* up[3] = {z.data(), z.data(), z.data()};
    const index_t ldu[3] = {3, 3, 2}, ldv[3] = {3, 3, 2};
    int info[3];
    Options o;
    o.backend = Backend::cpu;
    auto message = [&](const index_t* mm, const index_t* lda, const double* const* a) {
        try {
            gesvd_vbatched<double>(3, mm, n, MatrixList<const double>{a, lda}, sp, MatrixList<double>{up, ldu},
                                   MatrixList<double>{up, ldv}, info, o);
        } catch (const Error& e) {
            EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message(m, ld, ap).find("matrix 1: negative size"), std::string::npos);
    const index_t m2[3] = {3, 3, 2};
    EXPECT_NE(message(m2, ld, ap).find("matrix 2: leading dimension of A"), std::string::npos);
    const index_t ld2[3] = {3, 3, 2};
    const double* ap2[3] = {x.data(), nullptr, x.data()};
    EXPECT_NE(message(m2, ld2, ap2).find("matrix 1: A is null"), std::string::npos);
    Options d = o;
    d.devices = {0};
    EXPECT_THROW(gesvd_vbatched<double>(3, m2, n, MatrixList<const double>{ap, ld2}, sp, MatrixList<double>{up, ldu},
                                        MatrixList<double>{up, ldv}, info, d),
                 Error);
    EXPECT_THROW(gesvd_vbatched<double>(3, nullptr, n, MatrixList<const double>{ap, ld2}, sp, {}, {}, info, o), Error);
}

}  // namespace
}  // namespace batchsvd::test
