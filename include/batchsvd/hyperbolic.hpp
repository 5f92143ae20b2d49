// SPDX-License-Identifier: BSD-3-Clause
// batchsvd: the hyperbolic SVD and the eigenvalues of indefinite Hermitian matrices.
//
// Hyperbolic SVD (HSVD) of an m x n matrix G, m >= n, of full column rank, with a signature
// J = diag(j_1 .. j_n), j_i = +1 or -1:
//     G V = U diag(S),   U^H U = I,   V^H J V = J',   so   G = U diag(S) V^{-1},
// U m x n, S n values >= 0, V n x n (J-unitary), and J' the output signature: every +1 first,
// then every -1; S is sorted in descending order within each sign. Then
//     G J G^H = U diag(j'_i S_i^2) U^H:
// the eigenvalues of the indefinite Hermitian matrix G J G^H are j'_i S_i^2, with U's columns
// as eigenvectors, computed to high relative accuracy (Veselic; Slapnicar) when G is well
// conditioned after its columns are scaled, which a tridiagonal reduction of G J G^H does not
// give its small eigenvalues.
//
// eigh_indefinite computes the eigenvalues (ascending) and eigenvectors of Hermitian matrices
// A by A = G J G^H (symmetric indefinite factorisation with complete Bunch-Parlett pivoting)
// followed by the HSVD of G: relative accuracy for the graded matrices A = D B D, D diagonal
// and B well conditioned, where LAPACK's ?syevd loses the small eigenvalues.
//
// Backends, as gesvd's: host memory runs on the CPU backend unless opts.backend is
// Backend::cuda (then through device copies), device memory on the CUDA backend (every pointer,
// the signatures included, in device memory; mixed memory is invalid_argument). On the GPU,
// hsvd takes G up to m n = 2^30 (the register, shared-memory and blocked forms of the SVD's
// kernels) and eigh_indefinite orders up to 64; larger A and the singular matrices of
// eigh_indefinite (0 < rank < n) run on the CPU backend through host copies. A device call reads the signatures back to check them and synchronises the stream
// (eigh_indefinite: to find the singular matrices); docs/hyperbolic.md.
#pragma once

#include "batchsvd/batchsvd.hpp"

namespace batchsvd {

/// Per-matrix status of hsvd and eigh_indefinite, beside gesvd's (0, > 0 sweep limit, -1 NaN/Inf):
///  -2  G is not of full column rank (a column of the iterated G vanished: a zero singular
///      value); the outputs of the matrix are NaN.
///  -3  no hyperbolic rotation exists for a pair of columns of opposite sign: numerically
///      2 |g_p^H g_q| >= ||g_p||^2 + ||g_q||^2, which happens when G J G^H has a lower rank
///      than G (G has no HSVD); the outputs of the matrix are NaN.
inline constexpr int info_rank_deficient = -2;
inline constexpr int info_no_hyperbolic_rotation = -3;

/// A strided batch of signatures: matrix b's j_i is data[b * stride + i], +1 or -1. stride 0
/// shares one signature among every matrix.
struct SignatureBatch {
    const int* data = nullptr;
    index_t stride = 0;
};

/// Hyperbolic SVD of `batch` matrices G of m x n, m >= n (see the top of this file).
///   g:      input, not modified.
///   j:      the input signatures (n entries each, +1 or -1; anything else is invalid_argument).
///   s:      output, n values per matrix, `s_stride` >= n apart.
///   j_out:  output signatures, n ints per matrix, `j_out_stride` >= n apart (may be null).
///   u:      output m x n per matrix; ignored unless opts.compute_u.
///   v:      output n x n per matrix (V, not V^{-1} = J' V^H J); ignored unless opts.compute_v.
///   info:   per-matrix status (above).
/// Options used: compute_u, compute_v, tol_factor, max_sweeps, threads, sweeps, backend.
/// A matrix whose signature has one sign is an SVD: on the CPU it gets gesvd's algorithm,
/// results and status (J' all +1 or all -1; a zero singular value is then not an error); on the
/// GPU the same kernel with trigonometric rotations only (the SVD to its accuracy, not gesvd's
/// bits; a column that vanishes is info_rank_deficient).
template <class T>
void hsvd(index_t m, index_t n, index_t batch, MatrixBatch<const T> g, SignatureBatch j, real_t<T>* s,
          index_t s_stride, int* j_out, index_t j_out_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
          const Options& opts = {});

/// Eigenvalues (ascending, `w_stride` >= n apart) and, when opts.compute_u, orthonormal
/// eigenvectors z (n x n per matrix, column i for w_i) of `batch` Hermitian n x n matrices A,
/// of which the lower triangle is read. info as hsvd's (-2 and -3 do not occur: a singular A
/// has zero eigenvalues, with eigenvectors completing the others to an orthonormal basis).
/// opts.compute_v is ignored; opts.sweeps counts the HSVD's sweeps.
template <class T>
void eigh_indefinite(index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* w, index_t w_stride,
                     MatrixBatch<T> z, int* info, const Options& opts = {});

#define BATCHSVD_DECLARE_HYPERBOLIC_(T)                                                                      \
    extern template void hsvd<T>(index_t, index_t, index_t, MatrixBatch<const T>, SignatureBatch, real_t<T>*, \
                                 index_t, int*, index_t, MatrixBatch<T>, MatrixBatch<T>, int*, const Options&); \
    extern template void eigh_indefinite<T>(index_t, index_t, MatrixBatch<const T>, real_t<T>*, index_t,     \
                                            MatrixBatch<T>, int*, const Options&);
BATCHSVD_DECLARE_HYPERBOLIC_(float)
BATCHSVD_DECLARE_HYPERBOLIC_(double)
BATCHSVD_DECLARE_HYPERBOLIC_(std::complex<float>)
BATCHSVD_DECLARE_HYPERBOLIC_(std::complex<double>)
#undef BATCHSVD_DECLARE_HYPERBOLIC_

}  // namespace batchsvd
