// Host driver of the CUDA QR pre-processing (qr_kernels.cuh): W = QR by Householder, the SVD of
// R by the fused kernel or the blocked path, then U_W = Q [U_R; 0]. Used when Options::qr is
// `always`; `automatic` does not choose it on the GPU until a measured crossover exists.
#pragma once

#include <cuda_runtime.h>

#include "cuda/kernel_common.cuh"

namespace batchsvd::cuda {

/// q: the problem's parameters (common_params in svd_cuda.cu); a, u, v, s, info as given to
/// gesvd_device. Stream-ordered on `stream`.
template <class T>
void run_qr(const JacobiParams<device_scalar_t<T>>& q, index_t batch, real_t<T>* s,
            index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info, const Options& opts,
            cudaStream_t stream);

}  // namespace batchsvd::cuda
