// SPDX-License-Identifier: BSD-3-Clause
// How the fused shared-memory kernel (fused_kernel.cuh) runs a batch: lanes per column pair,
// team, teams per block, shared memory and kernel variant (make_fused_plan), and the variant
// with its shared-memory attributes set (configured_fused_kernel). For the SVD's dispatcher
// and the hyperbolic SVD (hyperbolic/hyperbolic_path.cu).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

#include "cuda/common/check.hpp"
#include "cuda/common/device_attribute.hpp"
#include "cuda/common/smem_limit.hpp"
#include "cuda/fused/fused_kernel.cuh"

namespace batchsvd::cuda {

namespace fused_detail {

inline int pow2_ceil(index_t x) {
    int p = 1;
    while (p < x && p < (1 << 30)) p <<= 1;
    return p;
}
inline int pow2_floor(int x) {
    int p = 1;
    while (p * 2 <= x) p <<= 1;
    return p;
}

/// Lanes per column pair forced through the environment (tuning and benchmarking only).
inline int lanes_override() {
    static const int v = [] {
        const char* s = std::getenv("BATCHSVD_CUDA_LANES");
        if (!s) return 0;
        const int x = std::atoi(s);
        return (x >= 1 && x <= 32 && (x & (x - 1)) == 0) ? x : 0;
    }();
    return v;
}

}  // namespace fused_detail

struct FusedPlan {
    bool fits = false;
    int M = 0, N = 0, G = 0, P = 0, team_threads = 0, teams_per_block = 0;
    TeamLayout layout;
    unsigned grid = 0, block = 0;
    std::size_t smem = 0;
    /// Kernel variant: <= kSmallThreads threads per block with E = 4 register rows per lane
    /// (registers capped for occupancy) or E = 8 (for long columns per lane), else large.
    enum class Variant { small4, small8, large } variant = Variant::large;
};

/// Launch bounds of the two kernel variants.
constexpr int kSmallThreads = 128;
/// Blocks per SM the small E = 4 variant is compiled for (registers <= 65536 / (128 * this)): as many
/// as fit without spilling the sweep loop, by the compiler's resource report.
template <class DT> constexpr int small_min_blocks() {
    if constexpr (core::is_complex_v<DT>) return sizeof(core::real_of_t<DT>) == 8 ? 4 : 6;
    else return sizeof(DT) == 8 ? 5 : 8;
}
constexpr int kLargeThreads = 512;

/// Forces the large variant (tuning and benchmarking only).
inline bool force_large() {
    static const bool v = std::getenv("BATCHSVD_CUDA_LARGE") != nullptr;
    return v;
}

/// The fused kernel's plan for an m x n batch (with room for V_W when need_vw).
template <class T>
FusedPlan make_fused_plan(index_t m, index_t n, index_t batch, bool need_vw) {
    using DT = device_scalar_t<T>;
    using R = real_t<T>;
    FusedPlan pl;
    const index_t M = std::max(m, n), N = std::min(m, n);
    if (M > (1 << 24) || M * N > (index_t(1) << 30)) return pl;  // far beyond shared memory
    pl.M = int(M);
    pl.N = int(N);
    pl.P = core::round_robin_pairs(pl.N);
    if (pl.P > 1024) return pl;
    // Lanes per column pair, measured on an H100 (2026-11-23; docs/paths/fused.md): real types
    // run fastest with 1 lane up to 8 rows (16 in float64), 2 lanes up to 32 rows (more rows
    // per lane: fewer redundant rotation computations and shuffles) and 8 lanes above; complex
    // ones (4x the flops per row) with 4 rows per lane. The cap of 512 threads per team
    // applies after this.
    int G;
    if constexpr (core::is_complex_v<DT>) G = fused_detail::pow2_ceil((M + 3) / 4);
    else G = M <= (sizeof(DT) == 8 ? 16 : 8) ? 1 : M <= 32 ? 2 : 8;
    G = std::min(G, 32);
    if (fused_detail::lanes_override()) G = fused_detail::lanes_override();
    if (pl.P > kLargeThreads) return pl;
    G = std::min(G, fused_detail::pow2_floor(kLargeThreads / pl.P));
    pl.G = G;
    const int raw = pl.P * G;
    if (raw <= 32) {
        pl.team_threads = fused_detail::pow2_ceil(raw);
        pl.teams_per_block = 128 / pl.team_threads;
    } else {
        pl.team_threads = (raw + 31) / 32 * 32;
        pl.teams_per_block = 1;
    }
    pl.layout = team_layout(pl.M, pl.N, need_vw, sizeof(DT), sizeof(R));

    const int optin = device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
    const int per_sm = device_attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor);
    if (pl.layout.bytes > std::size_t(optin)) return pl;
    // Teams packed into one block share its shared memory: keep a block to a quarter of an
    // SM's, so that blocks, not just teams, fill the SM without leaving much unused.
    const index_t pack = std::max<index_t>(1, index_t(per_sm / 4) / index_t(pl.layout.bytes));
    pl.teams_per_block = int(std::min<index_t>(
        {index_t(pl.teams_per_block), pack, index_t(optin / pl.layout.bytes), batch}));
    pl.teams_per_block = std::max(1, pl.teams_per_block);
    const index_t blocks = (batch + pl.teams_per_block - 1) / pl.teams_per_block;
    if (blocks > INT_MAX) return pl;
    pl.grid = unsigned(blocks);
    pl.block = unsigned(pl.team_threads * pl.teams_per_block);
    pl.smem = pl.layout.bytes * pl.teams_per_block;
    const int rows_per_lane = (pl.M + G - 1) / G;
    if (pl.block > kSmallThreads || force_large()) pl.variant = FusedPlan::Variant::large;
    else pl.variant = rows_per_lane > 4 ? FusedPlan::Variant::small8 : FusedPlan::Variant::small4;
    pl.fits = true;
    return pl;
}

/// The kernel variant of a plan, with its shared-memory attributes set: the dynamic limit
/// raised past 48 KB where needed, and the largest carveout preferred, so that as many
/// matrices as fit share an SM (left to the driver, the carveout can hold one block).
template <class T, bool Hyp = false> auto configured_fused_kernel(const FusedPlan& pl) {
    using DT = device_scalar_t<T>;
    const auto kernel =
        pl.variant == FusedPlan::Variant::small4
            ? &jacobi_block_per_matrix_kernel<DT, kSmallThreads, small_min_blocks<DT>(), 4, Hyp>
        : pl.variant == FusedPlan::Variant::small8 ? &jacobi_block_per_matrix_kernel<DT, kSmallThreads, 3, 8, Hyp>
                                              : &jacobi_block_per_matrix_kernel<DT, kLargeThreads, 1, 8, Hyp>;
    if (pl.smem > 48 * 1024)
        BATCHSVD_CUDA_CHECK(allow_dynamic_smem(kernel, pl.smem));
    BATCHSVD_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                             int(cudaSharedmemCarveoutMaxShared)));
    return kernel;
}

}  // namespace batchsvd::cuda
