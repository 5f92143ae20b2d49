// SPDX-License-Identifier: BSD-3-Clause
// Bidiagonalisation of one matrix on the CPU: LAPACK's unblocked ?gebd2, step for step (its
// reflectors, householder_qr.hpp's ?larfg, their storage and the real d and e of a complex
// matrix), so that the result
// reads as ?gebrd's. The batched-bidiagonalisation paper's blocked LABRD panels are a GPU
// matter (the trailing update as a GEMM); here one matrix a thread stays in cache up to the
// orders a batch holds.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>

#include "core/scalar.hpp"
#include "cpu/column_ops.hpp"
#include "cpu/householder_qr.hpp"
#include "cpu/isa.hpp"

BATCHSVD_CPU_BEGIN

namespace bidiagonal {

/// y <- y + x * a over len entries, in real arithmetic (std::complex products do not
/// vectorise: each checks for NaN).
template <class T> void add_scaled(index_t len, const T* x, T a, T* y) {
    using R = real_t<T>;
    if constexpr (is_cplx<T>::value) {
        const R* xr = reinterpret_cast<const R*>(x);
        R* yr = reinterpret_cast<R*>(y);
        const R ar = a.real(), ai = a.imag();
        for (index_t i = 0; i < len; ++i) {
            const R p = xr[2 * i], q = xr[2 * i + 1];
            yr[2 * i] += p * ar - q * ai;
            yr[2 * i + 1] += p * ai + q * ar;
        }
    } else {
        for (index_t i = 0; i < len; ++i) y[i] += x[i] * a;
    }
}

/// C (rows x cols, ldc) <- (I - tau v v^H) C, v contiguous with v[0] = 1 implied by the caller.
template <class T> void apply_left(index_t rows, index_t cols, const T* v, T tau, T* C, index_t ldc) {
    if (tau == T(0)) return;
    for (index_t c = 0; c < cols; ++c) {
        T* col = C + c * ldc;
        const T s = dot_conj(rows, v, col) * tau;
        add_scaled(rows, v, -s, col);
    }
}

/// C (rows x cols, ldc) <- C (I - tau v v^H), v strided (inc) of cols entries; w: rows scratch.
template <class T> void apply_right(index_t rows, index_t cols, const T* v, index_t inc, T tau, T* C, index_t ldc, T* w) {
    if (tau == T(0)) return;
    std::fill(w, w + rows, T(0));
    for (index_t k = 0; k < cols; ++k) add_scaled(rows, C + k * ldc, v[k * inc], w);
    for (index_t k = 0; k < cols; ++k) add_scaled(rows, w, -(tau * core::conj_of(v[k * inc])), C + k * ldc);
}

template <class T> void conj_row(index_t len, T* x, index_t inc) {
    if constexpr (is_cplx<T>::value)
        for (index_t i = 0; i < len; ++i) x[i * inc] = std::conj(x[i * inc]);
}

/// ?gebd2 on A (m x n, lda): d (k), e (k - 1), tauq, taup (k each; may be null: then the
/// reflectors are still applied, only tau is not stored). w: max(m, n) scratch.
template <class T>
void gebd2(index_t m, index_t n, T* A, index_t lda, real_t<T>* d, real_t<T>* e, T* tauq, T* taup, T* w) {
    auto at = [&](index_t i, index_t j) -> T& { return A[i + j * lda]; };
    auto store = [](T* p, index_t i, T x) {
        if (p) p[i] = x;
    };
    if (m >= n) {
        for (index_t i = 0; i < n; ++i) {
            // H(i) annihilates A(i+1:m, i); H(i)^H applied to A(i:m, i+1:n) from the left.
            T alpha = at(i, i);
            const T tq = householder_reflector(m - i - 1, alpha, &at(std::min(i + 1, m - 1), i), 1);
            store(tauq, i, tq);
            d[i] = std::real(alpha);
            at(i, i) = T(1);
            if (i + 1 < n) apply_left(m - i, n - i - 1, &at(i, i), core::conj_of(tq), &at(i, i + 1), lda);
            at(i, i) = T(d[i]);
            if (i + 1 < n) {
                // G(i) annihilates A(i, i+2:n) (the row conjugated first, as ?gebd2 does).
                conj_row(n - i - 1, &at(i, i + 1), lda);
                T beta = at(i, i + 1);
                const T tp = householder_reflector(n - i - 2, beta, &at(i, std::min(i + 2, n - 1)), lda);
                store(taup, i, tp);
                e[i] = std::real(beta);
                at(i, i + 1) = T(1);
                apply_right(m - i - 1, n - i - 1, &at(i, i + 1), lda, tp, &at(i + 1, i + 1), lda, w);
                conj_row(n - i - 1, &at(i, i + 1), lda);
                at(i, i + 1) = T(e[i]);
            } else {
                store(taup, i, T(0));
            }
        }
    } else {
        for (index_t i = 0; i < m; ++i) {
            // G(i) annihilates A(i, i+1:n); applied to A(i+1:m, i:n) from the right.
            conj_row(n - i, &at(i, i), lda);
            T alpha = at(i, i);
            const T tp = householder_reflector(n - i - 1, alpha, &at(i, std::min(i + 1, n - 1)), lda);
            store(taup, i, tp);
            d[i] = std::real(alpha);
            at(i, i) = T(1);
            if (i + 1 < m) apply_right(m - i - 1, n - i, &at(i, i), lda, tp, &at(i + 1, i), lda, w);
            conj_row(n - i, &at(i, i), lda);
            at(i, i) = T(d[i]);
            if (i + 1 < m) {
                // H(i) annihilates A(i+2:m, i); H(i)^H applied to A(i+1:m, i+1:n) from the left.
                T beta = at(i + 1, i);
                const T tq = householder_reflector(m - i - 2, beta, &at(std::min(i + 2, m - 1), i), 1);
                store(tauq, i, tq);
                e[i] = std::real(beta);
                at(i + 1, i) = T(1);
                apply_left(m - i - 1, n - i - 1, &at(i + 1, i), core::conj_of(tq), &at(i + 1, i + 1), lda);
                at(i + 1, i) = T(e[i]);
            } else {
                store(tauq, i, T(0));
            }
        }
    }
}

}  // namespace bidiagonal

BATCHSVD_CPU_END
