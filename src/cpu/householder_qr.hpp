// SPDX-License-Identifier: BSD-3-Clause
// Householder QR of a tall matrix (abfasi section 9.2: A = QR, SVD of R, U = Q U_R),
// in the style of LAPACK's geqr2/larfg: reflector H_j = I - tau_j v_j v_j^H with v_j(0) = 1
// and a real beta, so that R has a real diagonal. Q is never formed: apply_q multiplies
// by it, reflector by reflector.
#pragma once

#include <cmath>
#include <algorithm>
#include <complex>
#include <limits>
#include <vector>

#include "cpu/isa.hpp"
#include "core/scalar.hpp"
#include "cpu/column_ops.hpp"

BATCHSVD_CPU_BEGIN

/// ||x||_2 from squares scaled by a power of two near the largest |x_i| (as LAPACK's nrm2):
/// rank deficiency leaves columns of rounding noise of rounding noise (1e-26 in float, 1e-160
/// in double) whose plain squares underflow, and a tail norm that does not match the tail
/// makes the reflector non-unitary.
template <class T> real_t<T> scaled_norm(index_t len, const T* x, index_t inc = 1) {
    using R = real_t<T>;
    R big = 0;
    for (index_t i = 0; i < len; ++i) big = std::max(big, std::abs(x[i * inc]));
    if (big == 0) return 0;
    const int e = std::ilogb(big);
    R sum = 0;
    // (scalbn on each entry: 2^-e itself overflows for a subnormal largest entry, e < -127 in
    // float, and made such a column's norm, and R, Inf.)
    for (index_t i = 0; i < len; ++i) {
        const T y = x[i * inc];
        if constexpr (is_cplx<T>::value)
            sum += std::norm(T(std::scalbn(y.real(), -e), std::scalbn(y.imag(), -e)));
        else
            sum += std::norm(std::scalbn(y, -e));
    }
    return std::scalbn(std::sqrt(sum), e);
}

/// ?larfg: H = I - tau v v^H with v = [1; x'] and H^H [alpha; x] = [beta; 0], beta real; alpha
/// becomes beta and x (len entries, stride inc) becomes x'. Returns tau; 0 (H = I) for a zero
/// tail with a real head, and for a vector below the normal range (1 / (alpha - beta) would
/// overflow; what is dropped is far below u ||A||).
template <class T> T householder_reflector(index_t len, T& alpha, T* x, index_t inc) {
    using R = real_t<T>;
    const R tail = scaled_norm(len, x, inc);
    const R mag = std::hypot(std::abs(alpha), tail);
    if ((tail == 0 && std::imag(alpha) == R(0)) || mag < std::numeric_limits<R>::min()) return T(0);
    const R beta = std::real(alpha) >= 0 ? -mag : mag;
    const T tau = (T(beta) - alpha) / beta;
    const T inv = T(1) / (alpha - T(beta));
    for (index_t i = 0; i < len; ++i) x[i * inc] *= inv;
    alpha = T(beta);
    return tau;
}

/// In place: on return the upper triangle of W (rows x cols, rows >= cols) is R and the
/// entries below the diagonal hold the reflectors' vectors (their unit heads implicit).
template <class T> void householder_qr(index_t rows, index_t cols, T* W, index_t ldw, T* tau) {
    for (index_t j = 0; j < cols; ++j) {
        T* x = W + j + j * ldw;  // x = W(j:rows, j)
        const index_t len = rows - j;
        tau[j] = householder_reflector(len - 1, x[0], x + 1, 1);
        if (tau[j] == T(0)) continue;
        // Apply H^H = I - conj(tau) v v^H to the trailing columns.
        for (index_t k = j + 1; k < cols; ++k) {
            T* c = W + j + k * ldw;
            T s = c[0];
            s += dot_conj(len - 1, x + 1, c + 1);  // v^H c
            s *= core::conj_of(tau[j]);
            c[0] -= s;
            for (index_t i = 1; i < len; ++i) c[i] -= x[i] * s;
        }
    }
}

/// C <- Q C for C (rows x ccols), Q = H_0 H_1 ... H_{cols-1} from householder_qr.
template <class T>
void apply_q(index_t rows, index_t cols, const T* W, index_t ldw, const T* tau, index_t ccols,
             T* C, index_t ldc) {
    for (index_t j = cols - 1; j >= 0; --j) {
        if (tau[j] == T(0)) continue;
        const T* v = W + j + j * ldw;
        const index_t len = rows - j;
        for (index_t k = 0; k < ccols; ++k) {
            T* c = C + j + k * ldc;
            T s = c[0] + dot_conj(len - 1, v + 1, c + 1);
            s *= tau[j];
            c[0] -= s;
            for (index_t i = 1; i < len; ++i) c[i] -= v[i] * s;
        }
    }
}

BATCHSVD_CPU_END
