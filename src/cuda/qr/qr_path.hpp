// SPDX-License-Identifier: BSD-3-Clause
// Host driver of the CUDA QR pre-processing (qr_kernels.cuh): W = QR by Householder, the SVD of
// R by the tiny, warp, fused or blocked path, then U_W = Q [U_R; 0]. Used when Options::qr is
// `always`, and by `automatic` for tall panels that fit in shared memory (dispatch.cu).
#pragma once

#include <cuda_runtime.h>

#include "cuda/common/kernel_common.cuh"

namespace batchsvd::cuda {

/// Device bytes run_qr allocates per matrix (with those of the blocked path, which the SVD
/// of R may take) for an M x N working matrix; the chunking of large batches sizes itself by it.
std::size_t qr_workspace_bytes(index_t M, index_t N, bool need_vw, std::size_t tsize,
                               std::size_t rsize);

/// Bytes of shared memory a QR kernel may give an M x N panel on the current device (the
/// panel is factored there when it fits, in global memory otherwise).
std::size_t qr_panel_smem_limit();

/// q: the problem's parameters (common_params in dispatch.cu: input, outputs, shape,
/// tolerance); opts: the caller's options for the SVD of R. Stream-ordered on `stream`.
template <class T>
void run_qr(const JacobiParams<device_scalar_t<T>>& q, const Options& opts, cudaStream_t stream);

}  // namespace batchsvd::cuda
