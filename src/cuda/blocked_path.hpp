// Host driver of the blocked CUDA path (blocked_kernels.cuh), called by svd_cuda.cu for
// matrices that do not fit the fused kernel, or when Options::variant asks for it.
#pragma once

#include <cuda_runtime.h>

#include "cuda/kernel_common.cuh"

namespace batchsvd::cuda {

/// Block width the blocked path uses for an Options::block_width request: 16 (the default,
/// and for any request up to 16) or 32 (requests above 16); the kernels exist for these two.
int blocked_block_width(int requested);

/// Runs the blocked Jacobi solve for q (the fused kernel's parameters: input, outputs, shape,
/// tolerance). Synchronises `stream` once per sweep to read how many matrices still iterate.
template <class DT> void run_blocked(const JacobiParams<DT>& q, int nb, cudaStream_t stream);

}  // namespace batchsvd::cuda
