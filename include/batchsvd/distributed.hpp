// SPDX-License-Identifier: BSD-3-Clause
// batchsvd::distributed: the SVD of one matrix by all the processes of an MPI communicator, on
// their CPUs (host memory). Needs a build with MPI (BATCHSVD_WITH_MPI; link the CMake target
// batchsvd::distributed, installed and exported with the package) and <mpi.h>.
//
// The algorithm is the one-sided block Jacobi method across processes (Novakovic, "A
// hierarchically blocked Jacobi SVD algorithm for single and multiple graphics processing
// units", section 5): the working matrix W (A, or A^H when A is wide) is cut into 2P column
// blocks, two a process with the matching blocks of V; each step every process orthogonalises
// its two blocks against each other, by the library's own SVD of the pair when the pair fails
// the convergence test (|w_i^H w_j| <= tol_factor u ||w_i|| ||w_j||), and the blocks move
// between neighbouring processes by the circle method (src/core/block_ordering.hpp), so that
// every two blocks meet once in 2P - 1 steps (a sweep). After each sweep the processes add up
// the pairs they rotated (MPI_Allreduce); a sweep without one ends the iteration. The root
// then gathers W and V and normalises, sorts and completes them by the library's SVD of W
// (whose columns are orthogonal by then: one sweep of checks). It is the CPU twin of one
// matrix over several GPUs (Options::devices with a batch of one): the same blocks, circle
// method and verdict by all-reduce; on GPUs the blocks' sub-blocks are paired instead of each
// pair of blocks being solved whole.
#pragma once

#include <mpi.h>

#include "batchsvd/batchsvd.hpp"

namespace batchsvd::distributed {

/// Reduced SVD of one m x n column-major matrix by every process of `comm` together. a (lda >=
/// m), s (min(m, n) values), u (m x k, ldu >= m) and v (n x k, ldv >= n) are read or written on
/// `root` only (others may pass nullptr). opts: tol_factor, max_sweeps (sweeps of the block
/// iteration), compute_u, compute_v; the backend is the CPU.
/// Returns the status on every process: 0 converged, > 0 the sweeps run without converging
/// (outputs the best available), info_nonfinite for NaN/Inf in A (S, U, V NaN).
/// Every process must pass the same m, n, root, T and options: a mismatch is an
/// Error{invalid_argument} on every process, found before any block moves. An error on one
/// process during the iteration (out of memory) is thrown on every process at the end of that
/// step (the others: device_error, naming the failed rank), so none waits forever.
template <class T>
int gesvd(MPI_Comm comm, int root, index_t m, index_t n, const T* a, index_t lda, real_t<T>* s, T* u,
          index_t ldu, T* v, index_t ldv, const Options& opts = {});

}  // namespace batchsvd::distributed
