// SPDX-License-Identifier: BSD-3-Clause
// The dispatcher's choices for one shape, for the code that solves one matrix over several
// devices (multi_gpu/one_matrix_over_devices.cu) with the one-device path's rules. CUDA
// translation units only.
#pragma once

#include "cuda/common/kernel_common.cuh"
#include "cuda/svd_cuda.hpp"

namespace batchsvd::cuda {

/// The kernel parameters of a batch (shapes, operands, tolerance, sweeps), as every path
/// starts from them (dispatch.cu).
template <class T>
JacobiParams<device_scalar_t<T>> common_params(index_t m, index_t n, index_t batch, MatrixBatch<const T> a,
                                               real_t<T>* s, index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v,
                                               int* info, const Options& opts, bool need_vw);

}  // namespace batchsvd::cuda
