// SPDX-License-Identifier: BSD-3-Clause
// One matrix over several devices of one host (Options::devices with a batch of one): the
// blocked one-sided Jacobi iteration with its block columns spread over the devices and moved
// between them by NCCL (one_matrix_over_devices.cu; docs/multi_gpu.md).
#pragma once

#include "batchsvd/batchsvd.hpp"

namespace batchsvd::cuda {

/// Whether a batch of one m x n matrix over opts.devices is spread over the devices: a build
/// with NCCL that finds it at run time, two devices or more, the blocked path as the one-device
/// rules choose it, and min(m, n) from split_min_order() up. Otherwise the matrix is solved on
/// one device, as a batch of one always was.
template <class T> bool spread_one_matrix(index_t m, index_t n, const Options& opts);

/// Whether NCCL can be loaded at run time (nccl_library.hpp).
bool nccl_found();

/// The smallest order spread: 2048, or BATCHSVD_CUDA_SPREAD_MIN_ORDER (tests and benchmarks;
/// any order >= 1).
index_t spread_min_order();

/// The SVD of one matrix (a batch of one, gesvd's arguments) over the devices opts.devices
/// (valid and distinct; every operand in host memory, or every one on one device). The first
/// device, or the operands' device where it is listed, is the root: it loads and, as the
/// one-device rules say, preconditions the working matrix, sends each device its two blocks of
/// columns, and gathers and finalises them after the iteration. Synchronous: returns when the
/// outputs are written (device data: after the work queued on opts.stream before the call).
/// An error on one device (out of memory, a failed launch or exchange) makes every device stop
/// and the call throw that first error; the devices' NCCL communicator is then discarded and
/// made again by the next call.
template <class T>
void gesvd_one_matrix_devices(index_t m, index_t n, MatrixBatch<const T> a, real_t<T>* s, MatrixBatch<T> u,
                              MatrixBatch<T> v, int* info, const Options& opts);

}  // namespace batchsvd::cuda
