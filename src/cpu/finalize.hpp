// SPDX-License-Identifier: BSD-3-Clause
// Last stage of every Jacobi solve: singular values from the column norms, sorted in
// descending order with their vectors, and left vectors normalised. Columns whose norm is
// zero or negligible (rank-deficient or zero matrices) get an orthonormal completion, so U has
// orthonormal columns in every case.
#pragma once

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "cpu/isa.hpp"
#include "cpu/column_ops.hpp"

BATCHSVD_CPU_BEGIN

/// perm: column order by descending norm (stable); sigma[j] = ||X(:, j)||, or 0 where that
/// is at most `negligible` (rounding noise, core::negligible_norm).
template <class T>
void sort_by_norm(index_t rows, index_t cols, const T* X, index_t ldx, real_t<T> negligible,
                  std::vector<real_t<T>>& sigma, std::vector<index_t>& perm) {
    sigma.resize(cols);
    for (index_t j = 0; j < cols; ++j) {
        sigma[j] = std::sqrt(norm_sq(rows, X + j * ldx));
        if (sigma[j] <= negligible) sigma[j] = 0;
    }
    perm.resize(cols);
    std::iota(perm.begin(), perm.end(), index_t(0));
    auto before = [&](index_t a, index_t b) { return sigma[a] > sigma[b]; };
    if (cols <= 32) {  // insertion sort (stable): std::stable_sort allocates a buffer each call
        for (index_t r = 1; r < cols; ++r) {
            const index_t x = perm[r];
            index_t q = r;
            for (; q > 0 && before(x, perm[q - 1]); --q) perm[q] = perm[q - 1];
            perm[q] = x;
        }
    } else {
        std::stable_sort(perm.begin(), perm.end(), before);
    }
}

/// L(:, r) = X(:, perm[r]) / sigma[perm[r]] (rows x cols, ld rows); zero columns completed.
template <class T>
void normalized_left_vectors(index_t rows, index_t cols, const T* X, index_t ldx,
                             const std::vector<real_t<T>>& sigma,
                             const std::vector<index_t>& perm, T* L) {
    using R = real_t<T>;
    bool any_zero = false;
    for (index_t r = 0; r < cols; ++r) {
        const R sg = sigma[perm[r]];
        T* out = L + r * rows;
        if (sg > 0) {
            std::copy_n(X + perm[r] * ldx, rows, out);
            scale_col(rows, out, R(1) / sg);
        } else {
            any_zero = true;
        }
    }
    if (!any_zero) return;
    std::vector<index_t> zero_cols, done;  // done: columns of L that are orthonormal so far
    for (index_t r = 0; r < cols; ++r) (sigma[perm[r]] > 0 ? done : zero_cols).push_back(r);
    std::vector<T> y(rows), best(rows);
    for (index_t r : zero_cols) {
        // Of the unit vectors e_i, take the one with the largest part orthogonal to the
        // columns so far (Gram-Schmidt run twice), and normalise it.
        R best_norm = -1;
        for (index_t i = 0; i < rows; ++i) {
            std::fill(y.begin(), y.end(), T(0));
            y[i] = T(1);
            for (int pass = 0; pass < 2; ++pass)
                for (index_t c : done) {
                    const T* q = L + c * rows;
                    const T proj = dot_conj(rows, q, y.data());
                    for (index_t k = 0; k < rows; ++k) y[k] -= q[k] * proj;
                }
            const R nrm = std::sqrt(norm_sq(rows, y.data()));
            if (nrm > best_norm) {
                best_norm = nrm;
                best = y;
            }
            if (best_norm > R(0.5)) break;  // good enough: well away from the span
        }
        T* out = L + r * rows;
        std::copy(best.begin(), best.end(), out);
        scale_col(rows, out, R(1) / best_norm);
        done.push_back(r);
    }
}

BATCHSVD_CPU_END
