// SPDX-License-Identifier: BSD-3-Clause
// The CPU baseline of both benchmarks: the system LAPACK's ?gesvj (one-sided Jacobi, real
// types) and ?gesvd (economy U and V^H) in an OpenMP loop over a packed batch, one matrix per
// iteration, on all the host's cores.
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

/// ?gesvj (T real, m >= n) on every matrix of a (m x n, packed); s, u, v receive the results.
template <class T>
double gesvj_loop(index_t m, index_t n, index_t batch, const T* a, real_t<T>* s, T* u, T* v);

/// ?gesvd (m >= n) on every matrix of a; s, u, v receive the results (v = (V^H)^H).
template <class T>
double gesvd_loop(index_t m, index_t n, index_t batch, const T* a, real_t<T>* s, T* u, T* v);

/// Median time of `reps` runs (after a warm-up when reps > 1) of gesvd_loop or gesvj_loop on
/// a, and the errors of the last. A wide batch (m < n) is solved through its conjugate
/// transpose (A^H = U' S V'^H, transposed outside the timed loops; U = V', V = U'), its
/// errors measured against a itself.
template <class T>
LapackLoopRun run_lapack_loop(bool jacobi, index_t m, index_t n, index_t batch, const T* a, int reps);

/// OpenMP threads the loops use.
int lapack_loop_threads();

}  // namespace batchsvd::bench
