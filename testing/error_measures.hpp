// SPDX-License-Identifier: BSD-3-Clause
// The accuracy measures of abfasi section 10.1, computed in higher precision than T
// (double for single, long double for double), with the reference singular values from
// LAPACK's ?gesvd:
//   e1 = ||A - U S V^H||_1 / (n ||A||_1),  e2 = ||I - U^H U||_1 / m,
//   e3 = ||I - V^H V||_1 / n,               e4 = ||S - S_ref||_F / (min(m, n) max(1, s_ref_1)),
// and whether S is sorted in descending order. e4 is the paper's measure for its prescribed
// families (sigma_1 = 1); the max(1, sigma_1) makes it scale-invariant for `random`, whose
// largest singular value grows like n/2: there the absolute error of every backward-stable
// SVD, LAPACK's included, is about u * sigma_1 per value.
#pragma once

#include <vector>

#include "batchsvd/batchsvd.hpp"

namespace batchsvd::testing {

struct Errors {
    double e1 = 0, e2 = 0, e3 = 0, e4 = 0;  ///< NaN-propagating: a NaN anywhere gives NaN
    bool sorted = true;
    /// componentwise maximum (NaN wins), for the worst case over a batch
    void merge(const Errors& o);
    /// all four below tol_factor * unit roundoff of T, sorted, no NaN
    bool within(double limit) const;
};

/// Unit roundoff of T's real type.
template <class T> double unit_roundoff();

/// Singular values of one m x n matrix by LAPACK ?gesvd (values only), descending.
template <class T>
std::vector<real_t<T>> reference_singular_values(index_t m, index_t n, const T* a, index_t lda);

/// Errors of one decomposition. u (m x k) and v (n x k) may be null: the measures that need
/// them are then 0. s_ref may be null: e4 is then 0.
template <class T>
Errors measure(index_t m, index_t n, const T* a, index_t lda, const real_t<T>* s, const T* u,
               index_t ldu, const T* v, index_t ldv, const real_t<T>* s_ref);

/// Worst errors over a packed batch (layout of batchsvd::gesvd's packed overload), with
/// reference values computed here.
template <class T>
Errors measure_batch(index_t m, index_t n, index_t batch, const T* a, const real_t<T>* s,
                     const T* u, const T* v);

}  // namespace batchsvd::testing
