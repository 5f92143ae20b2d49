// SPDX-License-Identifier: BSD-3-Clause
// The CUDA backend's hyperbolic SVD and eigh_indefinite on device memory: the warp kernel's
// hyperbolic form (warp_kernel.cuh) for the shapes it holds in registers, the fused kernel's
// (fused_kernel.cuh) for those its shared memory holds, the blocked iteration
// (hsvd_blocked_kernels.cuh) past it, the J-factorisation and the assembly of eigenpairs around
// it (eigh_kernels.cuh). Stream-ordered on opts.stream.
#pragma once

#include <vector>

#include "batchsvd/hyperbolic.hpp"

namespace batchsvd::cuda {

/// Whether hsvd_device takes m x n matrices (m >= n): the warp kernel
/// (a team of 6 to 32 lanes holds G and V in registers with one or two rows a lane:
/// warp_hyperbolic_plan), else the fused kernel (G and V in one team's shared memory), else
/// the blocked iteration (hsvd_blocked_kernels.cuh), up to m n = 2^30.
template <class T> bool hsvd_on_device(index_t m, index_t n);

/// hsvd on device memory (every pointer a device pointer; hsvd_on_device(m, n)).
template <class T>
void hsvd_device(index_t m, index_t n, index_t batch, MatrixBatch<const T> g, SignatureBatch j, real_t<T>* s,
                 index_t s_stride, int* j_out, index_t j_out_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
                 const Options& opts);

/// Whether eigh_indefinite_device takes matrices of order n: up to the factorisation kernel's
/// order (kFactorMaxOrder), where hsvd_on_device(n, n, false).
template <class T> bool eigh_indefinite_on_device(index_t n);

/// eigh_indefinite on device memory. Returns the matrices it left to the caller: those of
/// rank between 1 and n - 1 (their null space completes the eigenvectors, which the CPU
/// backend does); it synchronises the stream to know them.
template <class T>
std::vector<index_t> eigh_indefinite_device(index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* w,
                                            index_t w_stride, MatrixBatch<T> z, int* info, const Options& opts);

/// The signatures of a device array (count entries), for the caller's check of their values.
std::vector<int> signatures_to_host(const int* j, index_t count, const Options& opts);

}  // namespace batchsvd::cuda
