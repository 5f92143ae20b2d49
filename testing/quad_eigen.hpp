// SPDX-License-Identifier: BSD-3-Clause
// A high-precision reference for the eigenvalues of a Hermitian matrix: cyclic two-sided
// Jacobi in binary128 (__float128). Tests check the eigenvalues of graded indefinite matrices
// (smallest |lambda| 1e-10 of the largest, or less) to relative error 1e-12; a long double
// reference (normwise error ~5e-20 ||A||) is not accurate enough for those, binary128 is.
// Jacobi with the relative stopping test |a_pq| <= tol sqrt(|a_pp a_qq|) also keeps the small
// eigenvalues of graded matrices D B D (B well conditioned) relatively accurate.
// The arithmetic is GCC's builtin __float128 (x86-64); libquadmath is not used.
#pragma once

#include <vector>

#include "batchsvd/batchsvd.hpp"

namespace batchsvd::testing {

/// Eigenvalues, ascending, of the Hermitian n x n matrix whose LOWER triangle is stored
/// column-major at a (element (i, j) at a[i + j * lda], i >= j; the upper triangle is not read,
/// the diagonal's imaginary part is ignored), computed in binary128 (__float128, unit roundoff 1e-34)
/// by the cyclic two-sided Jacobi method run until every off-diagonal entry is below
/// 1e-33 * sqrt(|a_ii a_jj|) (or exactly zero), and returned rounded to long double.
/// Aborts (with a message on stderr) if 60 sweeps do not converge.
/// T: float, double, std::complex<float>, std::complex<double>.
template <class T> std::vector<long double> reference_eigenvalues_quad(index_t n, const T* a, index_t lda);

#if defined(__SIZEOF_FLOAT128__)
/// The same eigenvalues before the rounding to long double (ascending). For checks that need
/// more than long double's 64 bits, e.g. the self-tests' trace and determinant identities.
template <class T>
std::vector<__float128> reference_eigenvalues_binary128(index_t n, const T* a, index_t lda);
#endif

}  // namespace batchsvd::testing
