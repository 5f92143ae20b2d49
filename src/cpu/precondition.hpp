// SPDX-License-Identifier: BSD-3-Clause
// Preconditioning of the CPU backend's Jacobi iteration (the CUDA blocked path's, docs/paths/
// precondition.md, done with LAPACK): the sweeps start from X V0 instead of X, V0 the
// eigenvectors of X^H X in descending order. X V0 has nearly orthogonal columns, and the
// one-sided Jacobi iteration that follows, to the same convergence test, converges in about
// two sweeps instead of ten or more. Differs from the GPU: the eigenvectors come from
// LAPACK's ?syevd / ?heevd in the working precision (orthogonal to working precision, so no
// Newton-Schulz step), the Gram matrix and the product from the BLAS.
#pragma once

#include <algorithm>
#include <vector>

#include "batchsvd/batchsvd.hpp"

#if defined(BATCHSVD_HAVE_LAPACK)
#include "cpu/lapack_calls.hpp"
#endif

namespace batchsvd::cpu {

/// Whether the build can precondition on the CPU (it needs LAPACK).
inline constexpr bool precondition_available =
#if defined(BATCHSVD_HAVE_LAPACK)
    true;
#else
    false;
#endif

/// From this order on `automatic` preconditions (X after QR pre-processing: rows >= cols).
template <class T> constexpr index_t precondition_min_cols() { return 10; }

template <class T> bool use_precondition(PreconditionMode mode, index_t cols) {
    if (!precondition_available || cols < 2) return false;
    if (mode == PreconditionMode::always) return true;
    if (mode == PreconditionMode::never) return false;
    return cols >= precondition_min_cols<T>();
}

template <class T> struct PreconditionWorkspace {
    std::vector<T> gram, product;
    std::vector<real_t<T>> eigenvalues;
#if defined(BATCHSVD_HAVE_LAPACK)
    lapack::EigenWorkspace<T> eigen;
#endif
};

/// The lower triangle of G = X^H X (cols x cols, ld cols): the Gram-tested sweeps' G
/// (jacobi_unblocked.hpp). Only called where precondition_available.
template <class T> void gram_lower_of(index_t rows, index_t cols, const T* X, index_t ldx, T* g) {
#if defined(BATCHSVD_HAVE_LAPACK)
    lapack::gram_lower(int(cols), int(rows), X, int(ldx), g, int(cols));
#else
    (void)rows, (void)cols, (void)X, (void)ldx, (void)g;
#endif
}

/// X (rows x cols, ldx) <- X V0 and v0 (cols x cols, ld cols) <- V0. Returns false, leaving X
/// and v0 untouched, when the eigensolver fails (the iteration then starts from X and I).
template <class T>
bool precondition(index_t rows, index_t cols, T* X, index_t ldx, T* v0, PreconditionWorkspace<T>& ws) {
#if defined(BATCHSVD_HAVE_LAPACK)
    const int n = int(cols), r = int(rows), ld = int(ldx);
    ws.gram.resize(std::size_t(cols) * cols);
    ws.eigenvalues.resize(std::size_t(cols));
    lapack::gram_lower(n, r, X, ld, ws.gram.data(), n);
    if (lapack::eigen_lower(n, ws.gram.data(), n, ws.eigenvalues.data(), ws.eigen) != 0) return false;
    for (index_t j = 0; j < cols; ++j)  // descending: the largest columns first, as Jacobi sorts
        std::copy_n(ws.gram.data() + (cols - 1 - j) * cols, cols, v0 + j * cols);
    ws.product.resize(std::size_t(rows) * cols);
    lapack::gemm_nn(r, n, n, X, ld, v0, n, ws.product.data(), r);
    for (index_t j = 0; j < cols; ++j) std::copy_n(ws.product.data() + j * rows, rows, X + j * ldx);
    return true;
#else
    (void)rows, (void)cols, (void)X, (void)ldx, (void)v0, (void)ws;
    return false;
#endif
}

}  // namespace batchsvd::cpu
