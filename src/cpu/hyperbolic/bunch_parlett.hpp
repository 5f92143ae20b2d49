// SPDX-License-Identifier: BSD-3-Clause
// The J-factorisation A = G J G^H of a Hermitian matrix by symmetric indefinite elimination
// with complete (Bunch-Parlett) pivoting, the first step of eigh_indefinite.
//
// Each step takes, from the remaining Schur complement S, the largest diagonal entry as a 1 x 1
// pivot when it is at least alpha = (1 + sqrt(17)) / 8 times the largest entry of S, else the
// 2 x 2 block of the largest off-diagonal entry (whose determinant is then negative: one
// positive and one negative eigenvalue). Slapnicar's analysis of the J-factorisation (used
// with one-sided J-Jacobi by Veselic and Slapnicar) needs this complete pivoting for the factor
// G to keep the relative accuracy of graded A; LAPACK's ?sytrf (Bunch-Kaufman, partial
// pivoting) does not guarantee it. A 1 x 1 pivot d gives the column S(:, k) / (sign(d)
// sqrt|d|) with j = sign(d); a 2 x 2 pivot E = Q diag(l1, l2) Q^H (its Jacobi rotation,
// core::jacobi_rotation) gives the columns S(:, k:k+1) Q diag(1 / (sign(l) sqrt|l|)) with
// j = sign(l): E = W diag(j) W^H for W = Q diag(sqrt|l|). The Schur complement is updated as
// S -= g j g^H per new column. Elimination stops when S is exactly zero: G then has
// rank(A) columns. O(n^3): the pivot search reads S once a step.
#pragma once

#include <cmath>
#include <complex>
#include <vector>

#include "core/rotation.hpp"
#include "cpu/column_ops.hpp"
#include "cpu/isa.hpp"

BATCHSVD_CPU_BEGIN

namespace hyperbolic {

/// On entry S (n x n, ld n) holds the full Hermitian matrix (both triangles, real diagonal); it
/// is destroyed. On return G (n x r, ld n) and j (r entries) with A = G diag(j) G^H, rows of G
/// in A's order; returns r.
template <class T> index_t bunch_parlett(index_t n, T* S, T* G, int* j) {
    using R = real_t<T>;
    const R alpha = (R(1) + std::sqrt(R(17))) / R(8);
    std::vector<index_t> p(n);  // p[i]: the row of A at position i
    for (index_t i = 0; i < n; ++i) p[i] = i;
    std::fill(G, G + n * n, T(0));
    auto at = [&](index_t i, index_t k) -> T& { return S[i + k * n]; };
    auto swap_rc = [&](index_t a, index_t b) {  // symmetric permutation of positions a and b
        if (a == b) return;
        for (index_t k = 0; k < n; ++k) std::swap(at(a, k), at(b, k));
        for (index_t k = 0; k < n; ++k) std::swap(at(k, a), at(k, b));
        std::swap(p[a], p[b]);
    };
    index_t r = 0;
    index_t k = 0;
    std::vector<T> col0(n), col1(n);
    while (k < n) {
        R mu0 = 0, mu1 = 0;
        index_t i0 = k, j0 = k, d1 = k;
        for (index_t c = k; c < n; ++c) {
            const R d = std::fabs(std::real(at(c, c)));
            if (d > mu1) { mu1 = d; d1 = c; }
            for (index_t i = c + 1; i < n; ++i) {
                const R x = std::abs(at(i, c));
                if (x > mu0) { mu0 = x; i0 = i; j0 = c; }
            }
        }
        if (mu1 == 0 && mu0 == 0) break;  // the rest of A's rank is zero
        if (mu1 >= alpha * mu0) {
            swap_rc(k, d1);
            const R d = std::real(at(k, k));
            const R f = R(1) / std::copysign(std::sqrt(std::fabs(d)), d);
            const int sg = d > 0 ? 1 : -1;
            for (index_t i = k; i < n; ++i) col0[i] = at(i, k) * f;
            col0[k] = T(std::sqrt(std::fabs(d)));
            for (index_t i = k; i < n; ++i) G[p[i] + r * n] = col0[i];
            j[r] = sg;
            // S -= g sg g^H on the trailing block
            for (index_t c = k + 1; c < n; ++c) {
                const T gc = core::conj_of(col0[c]) * R(sg);
                for (index_t i = k + 1; i < n; ++i) at(i, c) -= col0[i] * gc;
                at(c, c) = T(std::real(at(c, c)));
            }
            r += 1;
            k += 1;
        } else {
            swap_rc(k, j0);
            swap_rc(k + 1, i0 == k ? j0 : i0);
            const R e11 = std::real(at(k, k)), e22 = std::real(at(k + 1, k + 1));
            const T e12 = at(k, k + 1);  // (k, k+1): conj of the stored (k+1, k)
            const R ac = std::abs(e12);
            // E's eigenvectors: the Jacobi rotation of [[e11, e12], [conj(e12), e22]],
            // q1 = cs (e_1 - conj(tw) e_2), q2 = cs (e_2 + tw e_1), eigenvalues e11 - t|e12|, e22 + t|e12|.
            const core::Rotation<R> rot = core::jacobi_rotation(e11, e22, ac);
            const T tw = e12 * (rot.t / ac);
            const R l1 = e11 - rot.t * ac, l2 = e22 + rot.t * ac;
            const R f1 = R(1) / std::copysign(std::sqrt(std::fabs(l1)), l1);
            const R f2 = R(1) / std::copysign(std::sqrt(std::fabs(l2)), l2);
            for (index_t i = k; i < n; ++i) {
                const T a = at(i, k), b = at(i, k + 1);
                col0[i] = rot.cs * (a - b * core::conj_of(tw)) * f1;  // [a b] q1
                col1[i] = rot.cs * (b + a * tw) * f2;                  // [a b] q2
            }
            const int s1 = l1 > 0 ? 1 : -1, s2 = l2 > 0 ? 1 : -1;
            for (index_t i = k; i < n; ++i) {
                G[p[i] + r * n] = col0[i];
                G[p[i] + (r + 1) * n] = col1[i];
            }
            j[r] = s1;
            j[r + 1] = s2;
            for (index_t c = k + 2; c < n; ++c) {
                const T g0 = core::conj_of(col0[c]) * R(s1), g1 = core::conj_of(col1[c]) * R(s2);
                for (index_t i = k + 2; i < n; ++i) at(i, c) -= col0[i] * g0 + col1[i] * g1;
                at(c, c) = T(std::real(at(c, c)));
            }
            r += 2;
            k += 2;
        }
    }
    return r;
}

}  // namespace hyperbolic

BATCHSVD_CPU_END
