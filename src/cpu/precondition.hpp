// SPDX-License-Identifier: BSD-3-Clause
// Preconditioning of the CPU backend's Jacobi iteration (the CUDA blocked path's, docs/paths/
// precondition.md): the sweeps start from X V0 instead of X, V0 the eigenvectors of X^H X in
// descending order. X V0 has nearly orthogonal columns, and the one-sided Jacobi iteration
// that follows, to the same convergence test, converges in about two sweeps instead of ten or
// more. Differs from the GPU: the eigenvectors are computed in the working precision
// (orthogonal to working precision, so no Newton-Schulz step), by the library's own
// eigensolver for real orders up to 64 (symmetric_eigen.hpp, with plain loops for the Gram
// matrix and the product), else by LAPACK's ?syevd / ?heevd with the BLAS's ?syrk / ?herk
// and ?gemm.
#pragma once

#include <algorithm>
#include <vector>

#include "cpu/isa.hpp"
#include "batchsvd/batchsvd.hpp"
#include "cpu/column_ops.hpp"
#include "cpu/symmetric_eigen.hpp"

#if defined(BATCHSVD_HAVE_LAPACK)
#include "cpu/lapack_calls.hpp"
#endif

BATCHSVD_CPU_BEGIN

/// Up to this order real matrices are preconditioned without the BLAS (own Gram matrix,
/// eigensolver and product: symmetric_eigen.hpp), in any build; complex ones, and larger
/// orders, need LAPACK.
/// Measured on 2 cores against the LAPACK path (2026-11-27): faster up to 32 (float64 12^2
/// 65 against 78 ms, 16^2 51 against 66; float32 16^2 32 against 58), even at 32 float64,
/// 48 float32 faster, 48 float64 10% slower, 64 30% slower (187 against 142 ms), 96 and
/// beyond much slower (96^2 float64 150 against 89). The bound sits at 64 because on 16
/// threads the LAPACK path of small orders stalls on OpenBLAS's locked buffer pool (16
/// threads, 472 x 64^2 float64 121 ms through LAPACK, 828 x 48^2 32 ms without it).
inline constexpr index_t own_eigensolver_max_cols = 64;

template <class T> constexpr bool own_precondition(index_t cols) {
    return !is_cplx<T>::value && cols <= own_eigensolver_max_cols;
}

/// Whether this build preconditions a matrix of `cols` columns (after QR: rows >= cols).
template <class T> bool precondition_available(index_t cols) {
#if defined(BATCHSVD_HAVE_LAPACK)
    (void)cols;
    return true;
#else
    return own_precondition<T>(cols);
#endif
}

/// From this order on `automatic` preconditions: real types from 4 (the own eigensolver; 2
/// cores, 100000 x 4^2 float64 93 against 116 ms, 3^2 58 against 56, 2^2 24 against 17;
/// float32 from 3), complex from 10 (LAPACK's; measured on the real types before the own
/// eigensolver: 8^2 5-30% slower, from 10 faster).
template <class T> constexpr index_t precondition_min_cols() { return is_cplx<T>::value ? 10 : 4; }

template <class T> bool use_precondition(PreconditionMode mode, index_t cols) {
    if (cols < 2 || !precondition_available<T>(cols)) return false;
    if (mode == PreconditionMode::always) return true;
    if (mode == PreconditionMode::never) return false;
    return cols >= precondition_min_cols<T>();
}

/// Whether a call preconditions through the BLAS (and so holds its threads: blas_threads.hpp).
template <class T> bool precondition_calls_blas(PreconditionMode mode, index_t cols) {
    return use_precondition<T>(mode, cols) && !own_precondition<T>(cols);
}

template <class T> struct PreconditionWorkspace {
    std::vector<T> gram, product;
    std::vector<real_t<T>> eigenvalues;
    SymmetricEigenWorkspace<real_t<T>> own;
#if defined(BATCHSVD_HAVE_LAPACK)
    lapack::EigenWorkspace<T> eigen;
#endif
};

/// The lower triangle of G = X^H X (cols x cols, ld cols) by the BLAS: the Gram-tested
/// sweeps' G (jacobi_unblocked.hpp). Only called where the BLAS preconditions.
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
    if constexpr (!is_cplx<T>::value) {
        if (own_precondition<T>(cols)) {
            ws.gram.resize(std::size_t(cols) * cols);
            T* g = ws.gram.data();
            for (index_t j = 0; j < cols; ++j)
                for (index_t i = j; i < cols; ++i) g[i + j * cols] = dot_conj(rows, X + i * ldx, X + j * ldx);
            if (!symmetric_eigen_descending(cols, g, v0, ws.own)) return false;
            // X V0, column by column of the product (axpy loops the compiler vectorises).
            ws.product.assign(std::size_t(rows) * cols, T(0));
            for (index_t j = 0; j < cols; ++j) {
                T* out = ws.product.data() + j * rows;
                for (index_t l = 0; l < cols; ++l) {
                    const T c = v0[l + j * cols];
                    const T* x = X + l * ldx;
                    for (index_t i = 0; i < rows; ++i) out[i] += x[i] * c;
                }
            }
            for (index_t j = 0; j < cols; ++j) std::copy_n(ws.product.data() + j * rows, rows, X + j * ldx);
            return true;
        }
    }
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

BATCHSVD_CPU_END
