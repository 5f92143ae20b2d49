// SPDX-License-Identifier: BSD-3-Clause
// Host side of the register-resident warp kernel (warp_kernel.cuh): which sizes it takes,
// and its launch.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

#include "batchsvd/batchsvd.hpp"
#include "cuda/common/kernel_common.cuh"

namespace batchsvd::cuda {

/// How the warp kernel runs an M x N working matrix (M >= N): a team of nc lanes per matrix
/// (nc even, 6 to 32), rpl rows of W per lane (1 to kWarpMaxRowsPerLane). fits is false where
/// no instance holds the matrix in registers (N > 32, M > 64, or too many registers for the
/// type).
struct WarpPlan {
    bool fits = false;
    int nc = 0, rpl = 0;
};
template <class T> WarpPlan warp_plan(index_t M, index_t N);

/// Rows of W a lane holds at most, and the register words of W and V together an instance
/// may hold: real 144, complex 128 (more spilled: float64 64 x 32 and complex128 32 x 32,
/// 192 words; complex64 24 x 24 in 2 rows a lane, 144 words, 660 bytes).
inline constexpr int kWarpMaxRowsPerLane = 4;
constexpr int warp_max_words(bool complex) { return complex ? 128 : 144; }

/// Whether the warp kernel has an instance with teams of nc lanes and rpl rows a lane for a
/// type of tsize bytes: W (rpl x nc) and V (nc) within warp_max_words 32-bit registers, and
/// rpl no more than 64 rows need.
constexpr bool warp_instance_exists(int nc, int rpl, std::size_t tsize, bool complex) {
    return nc % 2 == 0 && nc >= 6 && nc <= 32 && rpl >= 1 && rpl <= kWarpMaxRowsPerLane &&
           (rpl - 1) * nc < 64 && (rpl + 1) * nc * int(tsize / 4) <= warp_max_words(complex);
}

/// The instances of the kernel's hyperbolic form (the hyperbolic SVD): the SVD's teams (6 to 32
/// lanes) with one or two rows a lane, where warp_instance_exists.
constexpr bool warp_hyperbolic_instance_exists(int nc, int rpl, std::size_t tsize, bool complex) {
    return rpl <= 2 && warp_instance_exists(nc, rpl, tsize, complex);
}

/// The hyperbolic form's team for an M x N matrix (M >= N): the SVD's choice (warp_plan) where
/// it has one of at most two rows a lane, else the smallest team that holds the matrix in one
/// or two rows a lane; fits is false where none does.
template <class T> WarpPlan warp_hyperbolic_plan(index_t M, index_t N);

/// Launches the warp kernel on p (JacobiParams filled by the caller, team fields unused).
template <class T>
void launch_warp(const WarpPlan& wp, JacobiParams<device_scalar_t<T>> p, cudaStream_t stream);

/// Launches the kernel's hyperbolic form (p.jsig set; m >= n) with a plan of warp_hyperbolic_plan.
template <class T>
void launch_warp_hyperbolic(const WarpPlan& wp, JacobiParams<device_scalar_t<T>> p, cudaStream_t stream);

}  // namespace batchsvd::cuda
