// SPDX-License-Identifier: BSD-3-Clause
// The CUDA backend's workspace pool (src/cuda/common/workspace_pool.hpp): memory kept between
// calls, reused without changing a result (a call on memory that held another call's data
// gives bitwise what it gives on fresh memory, so no kernel reads workspace it did not write),
// and given back by release_cached_memory.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <cstdint>
#include <vector>

#include "batchsvd/batchsvd.hpp"
#include "cuda_test_support.hpp"
#include "testing/generators.hpp"

namespace {

using batchsvd::index_t;

/// One call on the CUDA backend from host memory (staged through the pool, whose workspace
/// the call's path also takes), outputs poisoned first.
template <class T> batchsvd::test::Outputs<T> solve(index_t m, index_t n, index_t batch, const std::vector<T>& a,
                                                    batchsvd::Options opts) {
    const index_t k = std::min(m, n);
    batchsvd::test::Outputs<T> r;
    r.s.assign(std::size_t(k * batch), batchsvd::real_t<T>(-7));
    r.u.assign(std::size_t(m * k * batch), T(-7));
    r.v.assign(std::size_t(n * k * batch), T(-7));
    r.info.assign(std::size_t(batch), -99);
    opts.backend = batchsvd::Backend::cuda;
    batchsvd::gesvd<T>(m, n, batch, a.data(), r.s.data(), r.u.data(), r.v.data(), r.info.data(), opts);
    return r;
}

template <class T> void reused_memory_gives_the_same_result(index_t m, index_t n, index_t batch,
                                                            const batchsvd::Options& opts) {
    SCOPED_TRACE(::testing::Message() << m << " x " << n << " x " << batch);
    const std::uint64_t seed = batchsvd::testing::fresh_seed();
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    const auto x = batchsvd::testing::generate_batch<T>(batchsvd::testing::Family::random, m, n, batch, seed);
    const auto y = batchsvd::testing::generate_batch<T>(batchsvd::testing::Family::random, m, n, batch, seed + 1);
    batchsvd::release_cached_memory();
    const auto fresh = solve<T>(m, n, batch, y, opts);
    int device = 0;
    ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
    EXPECT_GT(batchsvd::cached_memory_bytes(device), 0u) << "the call's workspace is kept";
    (void)solve<T>(m, n, batch, x, opts);  // the pool's memory now holds x's intermediates
    const auto reused = solve<T>(m, n, batch, y, opts);
    for (int i : reused.info) EXPECT_EQ(i, 0);
    EXPECT_TRUE(reused == fresh) << "a result changed with the memory it was computed in";
}

}  // namespace

TEST(CudaWorkspacePool, ReusedMemoryGivesBitwiseTheSameResults) {
    SKIP_WITHOUT_CUDA("the workspace pool");
    reused_memory_gives_the_same_result<double>(24, 24, 300, {});                                    // warp
    reused_memory_gives_the_same_result<std::complex<float>>(40, 40, 200, {});                       // fused
    reused_memory_gives_the_same_result<double>(200, 200, 40, batchsvd::test::preconditioned());      // blocked, preconditioned
    reused_memory_gives_the_same_result<float>(96, 96, 40, batchsvd::test::blocked_path());          // blocked
    reused_memory_gives_the_same_result<double>(300, 60, 40, batchsvd::test::qr_always());           // QR
}

TEST(CudaWorkspacePool, ReleaseGivesTheMemoryBack) {
    SKIP_WITHOUT_CUDA("the workspace pool");
    int device = 0;
    ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
    const auto a = batchsvd::testing::generate_batch<double>(batchsvd::testing::Family::random, 128, 128, 64,
                                                             batchsvd::testing::fresh_seed());
    (void)solve<double>(128, 128, 64, a, batchsvd::test::preconditioned());
    EXPECT_GE(batchsvd::cached_memory_bytes(device), sizeof(double) * 128 * 128 * 64) << "at least A's staging kept";
    batchsvd::release_cached_memory();
    EXPECT_EQ(batchsvd::cached_memory_bytes(device), 0u);
    std::size_t free_after = 0, total = 0;
    ASSERT_EQ(cudaMemGetInfo(&free_after, &total), cudaSuccess);
    EXPECT_GT(free_after, 0u);
    // The next call takes fresh memory again, and is unaffected.
    const auto again = solve<double>(128, 128, 64, a, batchsvd::test::preconditioned());
    for (int i : again.info) EXPECT_EQ(i, 0);
}

TEST(CudaWorkspacePool, DevicesOutOfRangeHoldNothing) {
    EXPECT_EQ(batchsvd::cached_memory_bytes(-1), 0u);
    EXPECT_EQ(batchsvd::cached_memory_bytes(1 << 20), 0u);
    batchsvd::release_cached_memory();  // (nothing to release is no error, with or without a device)
}
