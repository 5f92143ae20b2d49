// SPDX-License-Identifier: BSD-3-Clause
// Host driver of the blocked CUDA path (blocked_kernels.cuh), called by dispatch.cu for
// matrices that do not fit the fused kernel, where it measured faster than the fused kernel
// (or preconditioned, faster than QR), or when Options::variant asks for it.
#pragma once

#include <cuda_runtime.h>

#include "cuda/common/kernel_common.cuh"

namespace batchsvd::cuda {

/// Block width the blocked path uses for an Options::block_width request: 16 (any request up
/// to 16) or 32 (requests above 16); the kernels exist for these two. Without a request,
/// dispatch.cu's block_width_for chooses.
int blocked_block_width(int requested);

template <class T> struct BlockedParams;

/// Device bytes run_blocked allocates per matrix for an M x N working matrix (elements of
/// tsize and rsize bytes); the chunking of large batches sizes itself by it.
std::size_t blocked_workspace_bytes(index_t M, index_t N, bool need_vw, std::size_t tsize,
                                    std::size_t rsize);

/// The scan and load passes (finiteness, scale, W = A or A^H scaled, V_W = I when p.V is set)
/// on p.out's batch into p.W and p.state (zeroed before). Shared with the QR path.
template <class DT> void load_working_matrices(const BlockedParams<DT>& p, cudaStream_t stream);

/// Runs the blocked Jacobi solve for q (the fused kernel's parameters: input, outputs, shape,
/// tolerance), from W V0 instead of W when `precondition` (precondition.hpp). Waits once per
/// sweep for the count of matrices still iterating, one sweep late (lagged_count.hpp: sweep
/// s + 1 is already enqueued), and at the end for the last count. With `halves` (and two
/// matrices or more) the batch runs as two halves on two streams of its own, their sweeps
/// interleaved by this thread, and `stream` waits for both; the call then returns when the
/// solve is done.
template <class DT>
void run_blocked(const JacobiParams<DT>& q, int nb, bool precondition, bool halves, cudaStream_t stream);

// The pieces of one matrix over several devices (multi_gpu/one_matrix_over_devices.cu): the
// same pair kernel on each device's columns, with the pairs from a table.

struct BlockedState;

/// Enqueues steps [first, first + count) of p.pair_table (`pairs` block pairs a step) on p's
/// working matrix (batch 1), one launch a step, each pair split over a cluster of blocks as
/// the one-device solve splits its pairs.
template <class DT> void run_table_steps(const BlockedParams<DT>& p, int pairs, int first, int count, cudaStream_t stream);

/// The end of a sweep for `batch` matrices (blocked_sweep_end_kernel): a matrix none of whose
/// pairs rotated has converged, one out of sweeps stops; *active_count (zeroed by the caller)
/// gets the number still iterating.
void end_blocked_sweep(BlockedState* state, index_t batch, int max_sweeps, int* active_count, cudaStream_t stream);

/// The finalisation of p's working matrices into the outputs (blocked_finalize_kernel).
template <class DT> void finalize_working_matrices(const BlockedParams<DT>& p, cudaStream_t stream);

}  // namespace batchsvd::cuda
