// SPDX-License-Identifier: BSD-3-Clause
// Host side of the register-resident warp kernel (warp_kernel.cuh): which sizes it takes,
// and its launch.
#pragma once

#include <cuda_runtime.h>

#include "batchsvd/batchsvd.hpp"
#include "cuda/common/kernel_common.cuh"

namespace batchsvd::cuda {

/// How the warp kernel runs an M x N working matrix (M >= N): a team of nc lanes per matrix,
/// rpl rows of W per lane. fits is false where no instantiation holds the matrix in
/// registers (N > 32, M > 2 nc, or too many registers for the type), and where N fills too
/// little of the team (measured: below 13/16 in float64 and complex64, 11/16 in float32; 7/8
/// for complex128 and teams of 8), where the fused kernel is faster.
struct WarpPlan {
    bool fits = false;
    int nc = 0, rpl = 0;
};
template <class T> WarpPlan warp_plan(index_t M, index_t N);

/// Launches the warp kernel on p (JacobiParams filled by the caller, team fields unused).
template <class T>
void launch_warp(const WarpPlan& wp, JacobiParams<device_scalar_t<T>> p, cudaStream_t stream);

}  // namespace batchsvd::cuda
