// SPDX-License-Identifier: BSD-3-Clause
// The system LAPACK, for reference results in tests and baselines in benchmarks.
#pragma once

#include <vector>

#include "batchsvd/batchsvd.hpp"

namespace batchsvd::testing::lapack {

/// Singular values of the m x n matrix a (overwritten) by ?gesvd, values only.
/// Returns LAPACK's info.
template <class T> int gesvd_values(int m, int n, T* a, int lda, real_t<T>* s);

/// Full ?gesvd with economy U (m x k) and V^H (k x n). Returns LAPACK's info.
template <class T>
int gesvd(int m, int n, T* a, int lda, real_t<T>* s, T* u, int ldu, T* vt, int ldvt);

/// ?gesdd (divide and conquer) with economy U (m x k) and V^H (k x n). Returns LAPACK's info.
template <class T>
int gesdd(int m, int n, T* a, int lda, real_t<T>* s, T* u, int ldu, T* vt, int ldvt);

/// ?gesvj for real types (m >= n): A is overwritten by U (m x n), V (n x n) is computed.
/// Returns LAPACK's info.
template <class T> int gesvj(int m, int n, T* a, int lda, T* sva, T* v, int ldv);

/// Eigenvalues (ascending) of the Hermitian n x n matrix a (lower triangle; overwritten) by
/// ?syevd / ?heevd, values only. Returns LAPACK's info.
template <class T> int syevd_values(int n, T* a, int lda, real_t<T>* w);

/// ?gebrd: A (m x n) overwritten by the reflectors and the bidiagonal. Returns LAPACK's info.
template <class T> int gebrd(int m, int n, T* a, int lda, real_t<T>* d, real_t<T>* e, T* tauq, T* taup);

}  // namespace batchsvd::testing::lapack
