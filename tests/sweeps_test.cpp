// SPDX-License-Identifier: BSD-3-Clause
// Options::sweeps, the per-matrix sweep counts, on every backend, precision and CUDA path
// (tiny, warp, fused, blocked with and without preconditioning, QR pre-processing, wide
// matrices): within [1, max_sweeps] for a finite matrix and equal to info when it did not
// converge; 0 for NaN matrices and empty ones; the same from host and from device memory;
// and a sweeps array in the other kind of memory than info is invalid_argument.
#include <cmath>
#include <cstring>

#include "svd_check.hpp"

#if BATCHSVD_WITH_CUDA
#include <cuda_runtime.h>
#endif

namespace batchsvd::test {
namespace {


/// Shapes that take each CUDA path (and the CPU's unblocked and blocked variants).
constexpr index_t kShapes[][2] = {{3, 3}, {12, 9}, {32, 32}, {48, 40}, {96, 96}, {200, 150}, {1000, 16}, {20, 90}};

class Sweeps : public ::testing::TestWithParam<Param> {
protected:
    void SetUp() override { BATCHSVD_SKIP_UNLESS_BACKEND(GetParam().backend); }
    template <class F> void run(F&& f) { with_dtype(GetParam().dtype, f); }
};

/// Solves a batch of 3 (the middle one NaN) with sweeps out; returns info and sweeps.
template <class T>
std::pair<std::vector<int>, std::vector<int>> solve_with_sweeps(index_t m, index_t n, const std::vector<T>& a,
                                                                const Options& base) {
    std::vector<int> sweeps(3, -7);
    Options o = base;
    o.sweeps = sweeps.data();
    const Result<T> r = solve<T>(m, n, 3, a, o);
    return {r.info, sweeps};
}

TEST_P(Sweeps, CountedOnEveryPath) {
    run([&](auto zero) {
        using T = decltype(zero);
        using R = real_t<T>;
        for (const auto& shape : kShapes) {
            const index_t m = shape[0], n = shape[1];
            SCOPED_TRACE(std::to_string(m) + " x " + std::to_string(n));
            std::vector<T> a = testing::generate_batch<T>(testing::Family::random, m, n, 3, testing::fresh_seed());
            a[std::size_t(m * n + 1)] = T(std::numeric_limits<R>::quiet_NaN());
            Options o;
            o.backend = GetParam().backend;
            const auto [info, sweeps] = solve_with_sweeps(m, n, a, o);
            for (index_t b : {0, 2}) {
                EXPECT_EQ(info[b], 0);
                EXPECT_GE(sweeps[b], 1);
                EXPECT_LE(sweeps[b], o.max_sweeps);
            }
            EXPECT_EQ(info[1], info_nonfinite);
            EXPECT_EQ(sweeps[1], 0);
            // The sweep limit: an unconverged matrix's info and sweeps are the sweeps run.
            o.max_sweeps = 2;
            const auto [info2, sweeps2] = solve_with_sweeps(m, n, a, o);
            for (index_t b : {0, 2}) {
                EXPECT_LE(sweeps2[b], 2);
                if (info2[b] != 0) EXPECT_EQ(info2[b], sweeps2[b]);
                else EXPECT_GE(sweeps2[b], 1);
            }
            // The preconditioned blocked path, where it applies.
            if (GetParam().backend == Backend::cuda && std::min(m, n) >= 40) {
                Options p;
                p.backend = Backend::cuda;
                p.variant = JacobiVariant::blocked;
                for (PreconditionMode mode : {PreconditionMode::always, PreconditionMode::never}) {
                    p.precondition = mode;
                    const auto [ip, sp] = solve_with_sweeps(m, n, a, p);
                    EXPECT_EQ(ip[0], 0);
                    EXPECT_GE(sp[0], 1);
                    EXPECT_EQ(sp[1], 0);
                }
            }
        }
    });
}

TEST_P(Sweeps, EmptyMatricesTakeNone) {
    run([&](auto zero) {
        using T = decltype(zero);
        std::vector<int> info(4, 9), sweeps(4, 9);
        Options o;
        o.backend = GetParam().backend;
        o.sweeps = sweeps.data();
        std::vector<T> a(1);
        std::vector<real_t<T>> s(1);
        gesvd<T>(0, 5, 4, MatrixBatch<const T>{a.data(), 1, 0}, s.data(), 0, MatrixBatch<T>{nullptr, 1, 0},
                 MatrixBatch<T>{nullptr, 5, 0}, info.data(), o);
        for (int i = 0; i < 4; ++i) {
            EXPECT_EQ(info[std::size_t(i)], 0);
            EXPECT_EQ(sweeps[std::size_t(i)], 0);
        }
    });
}

INSTANTIATE_TEST_SUITE_P(AllBackends, Sweeps, ::testing::ValuesIn(all_params()), param_name);

#if BATCHSVD_WITH_CUDA
/// From device memory: the same counts as from host memory (the same arithmetic), written
/// on the stream; a host sweeps array with device info is invalid_argument.
TEST(SweepsOnDevice, SameAsFromHostMemoryAndSameMemoryAsInfo) {
    if (!cuda_available()) GTEST_SKIP() << "no CUDA device on this machine: GPU case not run (it runs on a machine with a GPU, see scripts/gpu_check.sh)";
    for (const auto& shape : kShapes) {
        const index_t m = shape[0], n = shape[1], k = std::min(m, n), batch = 5;
        SCOPED_TRACE(std::to_string(m) + " x " + std::to_string(n));
        const std::vector<double> a = testing::generate_batch<double>(testing::Family::geo, m, n, batch, testing::fresh_seed());
        Options o;
        o.backend = Backend::cuda;
        std::vector<int> host_sweeps(batch, -1);
        Options oh = o;
        oh.sweeps = host_sweeps.data();
        const Result<double> rh = solve<double>(m, n, batch, a, oh);
        double *da = nullptr, *ds = nullptr, *du = nullptr, *dv = nullptr;
        int *di = nullptr, *dw = nullptr;
        ASSERT_EQ(cudaMalloc(&da, a.size() * sizeof(double)), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&ds, std::size_t(k * batch) * sizeof(double)), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&du, std::size_t(m * k * batch) * sizeof(double)), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&dv, std::size_t(n * k * batch) * sizeof(double)), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&di, std::size_t(batch) * sizeof(int)), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&dw, std::size_t(batch) * sizeof(int)), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(da, a.data(), a.size() * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
        ASSERT_EQ(cudaMemset(dw, 0xff, std::size_t(batch) * sizeof(int)), cudaSuccess);
        Options od = o;
        od.sweeps = dw;
        gesvd<double>(m, n, batch, da, ds, du, dv, di, od);
        std::vector<int> dev_sweeps(batch);
        ASSERT_EQ(cudaMemcpy(dev_sweeps.data(), dw, std::size_t(batch) * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
        EXPECT_EQ(dev_sweeps, host_sweeps);
        for (int x : host_sweeps) EXPECT_GE(x, 1);
        Options mixed = o;
        mixed.sweeps = host_sweeps.data();
        try {
            gesvd<double>(m, n, batch, da, ds, du, dv, di, mixed);
            ADD_FAILURE() << "host sweeps with device info accepted";
        } catch (const Error& e) {
            EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
        }
        for (void* p : {static_cast<void*>(da), static_cast<void*>(ds), static_cast<void*>(du), static_cast<void*>(dv),
                        static_cast<void*>(di), static_cast<void*>(dw)})
            cudaFree(p);
    }
}
#endif

}  // namespace
}  // namespace batchsvd::test
