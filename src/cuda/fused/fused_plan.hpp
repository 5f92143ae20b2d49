// SPDX-License-Identifier: BSD-3-Clause
// What the fused shared-memory kernel takes on this device (plain C++: for tests, benchmarks
// and tools). Larger sizes go to the blocked path (blocked_path.hpp).
#pragma once

#include <cstddef>
#include <string>

#include "batchsvd/batchsvd.hpp"

namespace batchsvd::cuda {

/// True when an m x n matrix of T (with V_W accumulated when need_v) fits the fused kernel on
/// the current device.
template <class T> bool fits_fused_kernel(index_t m, index_t n, bool need_v);

/// How the fused kernel runs an m x n batch on the current device (for benchmarks and tuning).
struct FusedPlanInfo {
    bool fits = false;
    int lanes_per_pair = 0, team_threads = 0, teams_per_block = 0, block_threads = 0;
    int blocks_per_sm = 0;  ///< resident blocks per SM (occupancy calculator)
    std::size_t smem_per_block = 0;
};
template <class T> FusedPlanInfo fused_plan_info(index_t m, index_t n, index_t batch, bool need_v);

/// Largest order max(m, n) that goes to the tiny kernel (one thread per matrix), 0 when the
/// environment turns that kernel off (BATCHSVD_CUDA_NO_TINY, for benchmarks).
int tiny_max_order();

/// The path the CUDA backend takes for an m x n batch with these options (for benchmarks and
/// tools): "tiny", "warp ncN rplR", "fused G.. team..", "blocked nbN" (with " pre" when
/// preconditioned) or "qr".
template <class T> std::string solve_path(index_t m, index_t n, index_t batch, const Options& opts);

/// Whether the blocked path, when it solves this m x n batch, starts from a single-precision
/// eigenbasis (Options::precondition and its automatic rule; no device is needed to ask).
template <class T> bool preconditions(index_t m, index_t n, index_t batch, const Options& opts);

/// Largest n such that an n x n matrix of T fits the fused kernel on the current device.
template <class T> index_t largest_fused_square(bool need_v);

}  // namespace batchsvd::cuda
