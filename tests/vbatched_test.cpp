// SPDX-License-Identifier: BSD-3-Clause
// gesvd_vbatched: random mixes of sizes (orders 0 to 300, shapes 4:1 to 1:4, the harness's
// families, some zero matrices) in four precisions, on the CPU backend and, where a GPU exists,
// on the CUDA backend from host and from device memory. Every matrix: e1-e4 < 30u against
// LAPACK and S sorted, outputs poisoned first and padding (ld past the rows) untouched, the
// sweeps output within [1, max_sweeps] (0 for empty and NaN matrices); on the CPU bitwise what
// gesvd gives it alone, sweeps included; on the GPU, for sizes with a batch of their own,
// bitwise what gesvd gives those matrices packed, sweeps included. A NaN matrix mid-list gets
// info -1 and no other matrix changes; bad sizes, null pointers and short leading dimensions
// are invalid_argument naming the matrix.
#include <gtest/gtest.h>

#include <algorithm>
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
    std::vector<int> info, sweeps;
    std::uint64_t seed;

    /// batch matrices of orders 0 to max_order (shapes 4:1 to 1:4); with `repeat` > 1, each
    /// drawn size is used for `repeat` consecutive matrices.
    List(index_t batch, std::uint64_t seed_, index_t nan_matrix = -1, index_t max_order = 48, index_t repeat = 1)
        : seed(seed_) {
        std::mt19937_64 g(seed);
        std::uniform_int_distribution<index_t> size(0, max_order);
        index_t mm = 0, nn = 0;
        for (index_t b = 0; b < batch; ++b) {
            if (b % repeat == 0) {
                mm = (b / repeat) % 17 == 5 ? 0 : size(g);
                nn = size(g);
                if (mm > 4 * nn + 3) mm = 4 * nn + 3;  // shapes from 4:1 to 1:4
                if (nn > 4 * mm + 3) nn = 4 * mm + 3;
            }
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
            if (b % 13 == 4)  // a zero matrix (a padded one is solved again at its size)
                for (index_t j = 0; j < nn; ++j)
                    for (index_t i = 0; i < mm; ++i) x[i + j * (mm + 2)] = T(R(0));
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
        sweeps.assign(std::size_t(batch), -5);
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
    Options with = o;
    with.sweeps = L.sweeps.data();
    gesvd_vbatched<T>(L.batch(), L.m.data(), L.n.data(), MatrixList<const T>{ap.data(), L.lda.data()}, sp.data(),
                      MatrixList<T>{up.data(), L.ldu.data()}, MatrixList<T>{vp.data(), L.ldv.data()}, L.info.data(), with);
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
            EXPECT_EQ(L.sweeps[b], 0);
            continue;
        }
        ASSERT_EQ(L.info[b], 0);
        if (k) EXPECT_TRUE(L.sweeps[b] >= 1 && L.sweeps[b] <= Options{}.max_sweeps) << "sweeps " << L.sweeps[b];
        else EXPECT_EQ(L.sweeps[b], 0);
        for (index_t j = 1; j < k; ++j) ASSERT_GE(L.s[b][j - 1], L.s[b][j]) << "S not sorted";
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
    List<T> L(30, testing::fresh_seed(), 23, 300);
    Options cpu;
    cpu.backend = Backend::cpu;
    run(L, cpu);
    check(L, 23, "cpu");
    for (index_t b = 0; b < L.batch(); ++b) {  // bitwise gesvd's result for the matrix alone
        const index_t mm = L.m[b], nn = L.n[b], k = std::min(mm, nn);
        if (!k) continue;
        std::vector<R> s(static_cast<std::size_t>(k));
        std::vector<T> u(std::size_t((mm + 2) * k)), v(std::size_t((nn + 2) * k));
        int info = 7, sweeps = -1;
        Options alone = cpu;
        alone.sweeps = &sweeps;
        gesvd<T>(mm, nn, 1, MatrixBatch<const T>{L.a[b].data(), mm + 2, 0}, s.data(), k, MatrixBatch<T>{u.data(), mm + 2, 0},
                 MatrixBatch<T>{v.data(), nn + 2, 0}, &info, alone);
        EXPECT_EQ(info, L.info[b]);
        EXPECT_EQ(sweeps, L.sweeps[b]) << "sweeps of " << b;
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
    int* sweeps = nullptr;
    char* arena = nullptr;  ///< one allocation holding every operand (one_allocation)
    std::size_t used = 0;
    template <class X> X* put(const std::vector<X>& host) {
        const std::size_t bytes = std::max<std::size_t>(1, host.size()) * sizeof(X);
        void* p = nullptr;
        if (arena) {
            p = arena + used;
            used += (bytes + 255) / 256 * 256;
        } else {
            EXPECT_EQ(cudaMalloc(&p, bytes), cudaSuccess);
            blocks.push_back(p);
        }
        EXPECT_EQ(cudaMemcpy(p, host.data(), host.size() * sizeof(X), cudaMemcpyHostToDevice), cudaSuccess);
        return static_cast<X*>(p);
    }
    /// Each operand in an allocation of its own, or (one_allocation) all of them in one.
    explicit OnDevice(const List<T>& L, bool one_allocation = false) {
        if (one_allocation) {
            std::size_t total = 2 * 256 * (1 + std::size_t(L.batch()));
            for (index_t b = 0; b < L.batch(); ++b)
                total += (L.a[b].size() + L.u[b].size() + L.v[b].size()) * sizeof(T) + L.s[b].size() * sizeof(real_t<T>) +
                         4 * 256;
            void* p = nullptr;
            EXPECT_EQ(cudaMalloc(&p, total), cudaSuccess);
            blocks.push_back(p);
            arena = static_cast<char*>(p);
        }
        for (index_t b = 0; b < L.batch(); ++b) {
            a.push_back(put(L.a[b]));
            s.push_back(put(L.s[b]));
            u.push_back(put(L.u[b]));
            v.push_back(put(L.v[b]));
        }
        info = put(L.info);
        sweeps = put(L.sweeps);
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
        get(L.sweeps, sweeps);
    }
    /// gesvd_vbatched on the device copies, then the results back into L.
    void solve(List<T>& L, Options o = {}) {
        o.sweeps = sweeps;
        gesvd_vbatched<T>(L.batch(), L.m.data(), L.n.data(), MatrixList<const T>{a.data(), L.lda.data()}, s.data(),
                          MatrixList<T>{u.data(), L.ldu.data()}, MatrixList<T>{v.data(), L.ldv.data()}, info, o);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        back(L);
    }
    ~OnDevice() {
        for (void* p : blocks) cudaFree(p);
    }
};

TYPED_TEST(VBatched, RandomMixOnTheGpu) {
    using T = TypeParam;
    if (!cuda_available()) GTEST_SKIP() << "no CUDA device on this machine: gesvd_vbatched on the GPU not run here "
                                           "(it runs on a GPU machine, see scripts/gpu_check.sh)";
    List<T> host(60, testing::fresh_seed(), 31, 300);
    Options cuda;
    cuda.backend = Backend::cuda;
    run(host, cuda);  // host data staged through the GPU
    check(host, 31, "cuda, host data");
    List<T> dev(60, testing::fresh_seed(), 7, 300);
    {
        OnDevice<T> d(dev);
        d.solve(dev);
    }
    check(dev, 7, "cuda, device data");
}

/// Every operand in one device allocation (the memory kinds found once, from its range), then
/// one matrix's S in host memory among device operands: an error naming that matrix; and
/// host operands in pinned memory, solved as host data.
TEST(VBatchedApi, MemoryKindsFromOneAllocationAndMixed) {
    if (!cuda_available()) GTEST_SKIP() << "no CUDA device on this machine: gesvd_vbatched on the GPU not run here "
                                           "(it runs on a GPU machine, see scripts/gpu_check.sh)";
    List<double> L(50, testing::fresh_seed(), -1, 64);
    {
        OnDevice<double> d(L, true);
        d.solve(L);
    }
    check(L, -1, "cuda, every operand in one allocation");
    List<double> M(20, testing::fresh_seed(), -1, 40);
    index_t bad = 0;
    while (bad < M.batch() && std::min(M.m[bad], M.n[bad]) == 0) ++bad;
    ASSERT_LT(bad, M.batch());
    OnDevice<double> d(M, true);
    d.s[std::size_t(bad)] = M.s[std::size_t(bad)].data();
    try {
        gesvd_vbatched<double>(M.batch(), M.m.data(), M.n.data(), MatrixList<const double>{d.a.data(), M.lda.data()},
                               d.s.data(), MatrixList<double>{d.u.data(), M.ldu.data()},
                               MatrixList<double>{d.v.data(), M.ldv.data()}, d.info, Options{});
        ADD_FAILURE() << "host S among device operands: no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
        EXPECT_NE(std::string(e.what()).find("matrix " + std::to_string(bad) + ": host and device memory mixed"),
                  std::string::npos)
            << e.what();
    }
    List<double> P(30, testing::fresh_seed(), -1, 40);
    std::vector<double*> pinned;
    std::vector<const double*> ap;
    for (const auto& x : P.a) {
        void* p = nullptr;
        ASSERT_EQ(cudaMallocHost(&p, std::max<std::size_t>(1, x.size()) * sizeof(double)), cudaSuccess);
        std::copy(x.begin(), x.end(), static_cast<double*>(p));
        pinned.push_back(static_cast<double*>(p));
        ap.push_back(pinned.back());
    }
    auto sp = ptrs(P.s);
    auto up = ptrs(P.u);
    auto vp = ptrs(P.v);
    Options o;
    o.sweeps = P.sweeps.data();
    gesvd_vbatched<double>(P.batch(), P.m.data(), P.n.data(), MatrixList<const double>{ap.data(), P.lda.data()},
                           sp.data(), MatrixList<double>{up.data(), P.ldu.data()},
                           MatrixList<double>{vp.data(), P.ldv.data()}, P.info.data(), o);
    for (double* p : pinned) EXPECT_EQ(cudaFreeHost(p), cudaSuccess);
    check(P, -1, "cuda, pinned host operands");
}

/// Sizes with a batch of their own (32 matrices each) get bitwise what gesvd gives those
/// matrices packed (the same ld and spacing), sweeps included.
TYPED_TEST(VBatched, ExactSizesOnTheGpuMatchTheUniformBatch) {
    using T = TypeParam;
    using R = real_t<T>;
    if (!cuda_available()) GTEST_SKIP() << "no CUDA device on this machine: gesvd_vbatched on the GPU not run here "
                                           "(it runs on a GPU machine, see scripts/gpu_check.sh)";
    constexpr index_t kRepeat = 32, kSizes = 4;
    List<T> L(kRepeat * kSizes, testing::fresh_seed(), 40, 200, kRepeat);
    {
        OnDevice<T> d(L);
        d.solve(L);
    }
    check(L, 40, "cuda, exact sizes");
    for (index_t g = 0; g < kSizes; ++g) {
        const index_t b0 = g * kRepeat, mm = L.m[b0], nn = L.n[b0], k = std::min(mm, nn);
        if (!k) continue;
        // The group packed: each matrix's columns as in the list (ld mm + 2), matrices spaced
        // by their vectors' sizes.
        const index_t sa = index_t(L.a[b0].size()), su = index_t(L.u[b0].size()), sv = index_t(L.v[b0].size());
        std::vector<T> a(std::size_t(sa * kRepeat)), u(std::size_t(su * kRepeat)), v(std::size_t(sv * kRepeat));
        for (index_t j = 0; j < kRepeat; ++j) std::copy(L.a[b0 + j].begin(), L.a[b0 + j].end(), a.begin() + j * sa);
        T *da = nullptr, *du = nullptr, *dv = nullptr;
        R* ds = nullptr;
        int *di = nullptr, *dw = nullptr;
        ASSERT_EQ(cudaMalloc(&da, a.size() * sizeof(T)), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&du, u.size() * sizeof(T)), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&dv, v.size() * sizeof(T)), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&ds, std::size_t(k * kRepeat) * sizeof(R)), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&di, kRepeat * sizeof(int)), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&dw, kRepeat * sizeof(int)), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(da, a.data(), a.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
        Options o;
        std::vector<int> info(kRepeat), sweeps(kRepeat);
        o.sweeps = dw;
        gesvd<T>(mm, nn, kRepeat, MatrixBatch<const T>{da, mm + 2, sa}, ds, k, MatrixBatch<T>{du, mm + 2, su},
                 MatrixBatch<T>{dv, nn + 2, sv}, di, o);
        std::vector<R> s(std::size_t(k * kRepeat));
        ASSERT_EQ(cudaMemcpy(s.data(), ds, s.size() * sizeof(R), cudaMemcpyDeviceToHost), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(u.data(), du, u.size() * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(info.data(), di, kRepeat * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(sweeps.data(), dw, kRepeat * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
        for (void* p : {static_cast<void*>(da), static_cast<void*>(du), static_cast<void*>(dv), static_cast<void*>(ds),
                        static_cast<void*>(di), static_cast<void*>(dw)})
            cudaFree(p);
        for (index_t j = 0; j < kRepeat; ++j) {
            const index_t b = b0 + j;
            SCOPED_TRACE("matrix " + std::to_string(b) + " (" + std::to_string(mm) + " x " + std::to_string(nn) + ")");
            EXPECT_EQ(info[std::size_t(j)], L.info[b]);
            EXPECT_EQ(sweeps[std::size_t(j)], L.sweeps[b]);
            EXPECT_EQ(std::memcmp(s.data() + j * k, L.s[b].data(), std::size_t(k) * sizeof(R)), 0);
            for (index_t c = 0; c < k; ++c)
                EXPECT_EQ(std::memcmp(u.data() + j * su + c * (mm + 2), L.u[b].data() + c * (mm + 2), mm * sizeof(T)), 0);
        }
    }
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
