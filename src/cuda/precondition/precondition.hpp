// SPDX-License-Identifier: BSD-3-Clause
// Preconditioning of the blocked CUDA path (Options::precondition): before the sweeps, the
// working matrix W (M x N, M >= N) is replaced by W V0 and V_W starts from V0 instead of I,
// V0 an eigenbasis of W^H W computed in single precision (the library's own batched
// eigensolvers, or cuSOLVER's batched syev / heev past them: precondition_eigensolver), in
// single precision from order 256 refined by one step of Ogita and Aishima's iteration, and
// made orthogonal in the working precision (Newton-Schulz steps). W V0 has nearly orthogonal
// columns (to about single precision, better where W^H W resolves them), and the Jacobi sweeps
// that follow converge from there, quadratically, in far fewer sweeps (H100, 2026-11-25: 1000
// x 256^2 float64 11.2 -> 5.1). This is the mixed-precision preconditioning of Gao, Ma and Shao
// ("A mixed precision Jacobi SVD algorithm", 2022), with the single-precision SVD taken through the
// Gram matrix's eigenvectors (cheaper on the GPU than a single-precision Jacobi SVD). The
// answer's accuracy is still the Jacobi iteration's: its sweeps run to the same test
// (|w_i^H w_j| <= k u ||w_i|| ||w_j||), on W V0, an orthogonal transformation of W in the
// working precision, so e1-e4 (normwise) keep their bounds. A poor V0 (ill-conditioned W,
// whose Gram matrix loses its small singular directions) only costs sweeps.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/common/device_buffer.hpp"
#include "cuda/common/kernel_common.cuh"
#include "cuda/common/library_handles.hpp"

namespace batchsvd::cuda {

template <class T> struct BlockedParams;

/// Device bytes per matrix that precondition_working_matrices allocates for an M x N working
/// matrix of elements of tsize bytes (the eigensolvers' own workspaces not counted: each is
/// sized when it is allocated, within the 20% of free memory that matrices_per_chunk leaves;
/// the split and bisection forms' in chunks, precondition.cu's workspace_chunk).
std::size_t precondition_workspace_bytes(index_t M, index_t N, std::size_t tsize);

/// W <- W V0 and, when p.V is set, V_W <- V0, for every matrix of p's batch (stream-ordered on
/// `stream`, with the cuBLAS and cuSOLVER handles of h, bound to it; called between
/// load_working_matrices and the sweeps; the caller holds h until the products are done, so
/// that no other stream's calls share the handles' workspaces meanwhile). W V0 is formed in a
/// buffer of its own, which replaces `w` (p.W = w.get() on return; the old buffer is freed). Matrices
/// with a non-finite entry get V0 = I (they are not iterated), and so does a matrix whose
/// single-precision eigensolve failed (the eigensolver's info) or returned a non-finite
/// vector, or whose basis the last Newton-Schulz step cannot make orthogonal (the safeguard):
/// the sweeps then start from W as without preconditioning.
template <class DT>
void precondition_working_matrices(BlockedParams<DT>& p, DeviceBuffer<DT>& w, const HandleSet& h, cudaStream_t stream);

/// The preconditioner's single-precision eigensolvers (precondition.cu's eigensolver_form).
enum class PreconditionEigensolver {
    fused,     ///< eigensolver_fused.cuh, one kernel, the matrix in one block's shared memory
    split,     ///< eigensolver_split.cuh, three kernels, the packed triangle in it
    bisect,    ///< eigensolver_bisect.cuh, bisection and inverse iteration, G in L2
    cusolver,  ///< cuSOLVER's syevBatched / heevBatched, a call that waits on the host
};

/// The largest order whose eigensolve (of two or more matrices) takes the bisection form.
inline constexpr index_t kPreconditionBisectUpTo = 512;

/// The orders whose eigensolve of two or more matrices is the bisection form on an H100 or H200
/// (past the split form's 336 real, 237 complex, up to kPreconditionBisectUpTo), as a constant
/// for rules that must not need a device (dispatch.cu's use_precondition); with less shared
/// memory the split form ends earlier and those rules stay on their cautious side.
template <class DT> constexpr bool precondition_bisect_orders(index_t N) {
    return N > (core::is_complex_v<DT> ? 237 : 336) && N <= kPreconditionBisectUpTo;
}

/// The eigensolver the preconditioner takes for `batch` matrices of order N (dispatch.cu's
/// blocked_halves asks: the blocked path's two halves overlap only around our kernels past
/// order 256; use_precondition, which must not need a device, asks precondition_bisect_orders).
template <class DT> PreconditionEigensolver precondition_eigensolver(index_t N, index_t batch);

}  // namespace batchsvd::cuda
