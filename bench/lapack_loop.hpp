// SPDX-License-Identifier: BSD-3-Clause
// The CPU baselines of the benchmarks: the system LAPACK's ?gesvj (one-sided Jacobi, real
// types), ?gesvd and ?gesdd (economy U and V^H) in an OpenMP loop over a packed batch, one
// matrix per iteration, on all the host's cores (the BLAS held to one thread inside it); and
// batchsvd's CPU backend in the same harness (same input, outputs allocated once outside the
// timing), so that a benchmark in Python compares the library with the loops on equal terms.
#pragma once

#include "batchsvd/batchsvd.hpp"
#include "testing/error_measures.hpp"

namespace batchsvd::bench {

/// Time and outputs of one run. U is m x k, V is n x k (V, not V^H, as batchsvd returns it),
/// packed; `errors` are e1..e4 of those outputs against LAPACK's values (testing::measure_batch).
struct LapackLoopRun {
    double ms = 0;
    testing::Errors errors;
};

/// The LAPACK routine of a loop (batchsvd: one gesvd call on the CPU backend instead).
enum class LapackRoutine { gesvd, gesdd, gesvj, batchsvd };

/// ?gesvj (T real, m >= n) on every matrix of a (m x n, packed); s, u, v receive the results.
template <class T>
double gesvj_loop(index_t m, index_t n, index_t batch, const T* a, real_t<T>* s, T* u, T* v);

/// ?gesvd or ?gesdd (m >= n) on every matrix of a; s, u, v receive the results (v = (V^H)^H).
template <class T>
double gesvd_loop(LapackRoutine routine, index_t m, index_t n, index_t batch, const T* a, real_t<T>* s, T* u, T* v);

/// batchsvd::gesvd on the CPU backend (m >= n) over the whole batch, on the loops' threads.
template <class T>
double batchsvd_cpu_call(index_t m, index_t n, index_t batch, const T* a, real_t<T>* s, T* u, T* v);

/// Median time of `reps` runs (after a warm-up when reps > 1) of the routine's loop on
/// a, and the errors of the last. A wide batch (m < n) is solved through its conjugate
/// transpose (A^H = U' S V'^H, transposed outside the timed loops; U = V', V = U'), its
/// errors measured against a itself.
template <class T>
LapackLoopRun run_lapack_loop(LapackRoutine routine, index_t m, index_t n, index_t batch, const T* a, int reps);

/// OpenMP threads the loops use.
int lapack_loop_threads();

}  // namespace batchsvd::bench
