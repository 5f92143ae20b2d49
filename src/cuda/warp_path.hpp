// Host side of the register-resident warp kernel (warp_kernel.cuh): which sizes it takes,
// and its launch.
#pragma once

#include <cuda_runtime.h>

#include "batchsvd/batchsvd.hpp"
#include "cuda/kernel_common.cuh"

namespace batchsvd::cuda {

/// How the warp kernel runs an M x N working matrix (M >= N): a team of nc lanes per matrix,
/// rpl rows of W per lane. fits is false where no instantiation holds the matrix in
/// registers (N > 32, M > 2 nc, or too many registers for the type), and where N is below
/// 7/8 of the team (the fused kernel is faster there).
struct WarpPlan {
    bool fits = false;
    int nc = 0, rpl = 0;
};
template <class T> WarpPlan warp_plan(index_t M, index_t N);

/// Launches the warp kernel on p (JacobiParams filled by the caller, team fields unused).
template <class T>
void launch_warp(const WarpPlan& wp, JacobiParams<device_scalar_t<T>> p, cudaStream_t stream);

}  // namespace batchsvd::cuda
