// SPDX-License-Identifier: BSD-3-Clause
// Eigenvalues and eigenvectors of a small real symmetric matrix, for the CPU backend's
// preconditioning of small orders: Householder tridiagonalisation with the transformation
// accumulated (EISPACK tred2), then the implicit QL iteration with Wilkinson's shift on the
// tridiagonal (EISPACK tql2), the same phases as the GPU's fused eigensolver
// (src/cuda/precondition/eigensolver_fused.cuh). No BLAS: called from every thread at once it
// takes no lock (OpenBLAS's level-2 and level-3 calls take buffers from a locked pool, and at
// 16 threads the LAPACK eigensolver of thousands of small matrices stalled on it).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "cpu/isa.hpp"
#include "batchsvd/batchsvd.hpp"

BATCHSVD_CPU_BEGIN

template <class R> struct SymmetricEigenWorkspace {
    std::vector<R> d, e, q, row;
    std::vector<index_t> order;
};

/// The lower triangle of g (n x n, ld n) holds a symmetric matrix; on return v (n x n, ld n)
/// holds its eigenvectors in descending order of eigenvalue. Returns false if the QL
/// iteration did not converge (30 iterations an eigenvalue), v then unset. g is overwritten.
template <class R> bool symmetric_eigen_descending(index_t n, R* g, R* v, SymmetricEigenWorkspace<R>& ws) {
    ws.d.assign(std::size_t(n), R(0));
    ws.e.assign(std::size_t(n), R(0));
    R* d = ws.d.data();
    R* e = ws.e.data();
    // a(i, k) for k <= i reads the lower triangle as row i: g[i + k n] is column k, so keep
    // a(i, k) = g[k + i n], the transpose (the same matrix), whose row i is contiguous.
    auto a = [&](index_t i, index_t k) -> R& { return g[k + i * n]; };
    for (index_t i = 0; i < n; ++i)  // mirror the lower triangle into the upper
        for (index_t k = 0; k < i; ++k) g[k + i * n] = g[i + k * n];

    // tred2: Householder reduction to tridiagonal form, row i = n-1 .. 1.
    for (index_t i = n - 1; i > 0; --i) {
        const index_t l = i - 1;
        R h = 0, scale = 0;
        if (l > 0) {
            for (index_t k = 0; k <= l; ++k) scale += std::fabs(a(i, k));
            if (scale == 0) {
                e[i] = a(i, l);
            } else {
                for (index_t k = 0; k <= l; ++k) {
                    a(i, k) /= scale;
                    h += a(i, k) * a(i, k);
                }
                R f = a(i, l);
                R gg = f >= 0 ? -std::sqrt(h) : std::sqrt(h);
                e[i] = scale * gg;
                h -= f * gg;
                a(i, l) = f - gg;
                // The active block [0, l]^2 is kept whole (both triangles), so that every loop
                // below runs over a contiguous row (EISPACK updates one triangle and reads the
                // other across rows).
                f = 0;
                const R* ui = &a(i, 0);
                for (index_t j = 0; j <= l; ++j) {
                    a(j, i) = ui[j] / h;
                    const R* aj = &a(j, 0);
                    gg = 0;
                    for (index_t k = 0; k <= l; ++k) gg += aj[k] * ui[k];
                    e[j] = gg / h;
                    f += e[j] * ui[j];
                }
                const R hh = f / (h + h);
                for (index_t j = 0; j <= l; ++j) e[j] -= hh * ui[j];
                for (index_t j = 0; j <= l; ++j) {
                    R* aj = &a(j, 0);
                    const R fj = ui[j], gj = e[j];
                    for (index_t k = 0; k <= l; ++k) aj[k] -= fj * e[k] + gj * ui[k];
                }
            }
        } else {
            e[i] = a(i, l);
        }
        d[i] = h;
    }
    d[0] = 0;
    e[0] = 0;
    // The accumulated transformation, on the transposed storage q(x, y) = a(x, y) =
    // q[x + y n] (column-major, what QL's column rotations want), with row i of a (the
    // Householder vector) copied out first, so that every loop is contiguous.
    ws.q.resize(std::size_t(n) * n);
    R* q = ws.q.data();
    for (index_t y = 0; y < n; ++y)
        for (index_t x = 0; x < n; ++x) q[x + y * n] = a(x, y);
    auto b = [&](index_t x, index_t y) -> R& { return q[x + y * n]; };
    std::vector<R>& row = ws.row;
    row.resize(std::size_t(n));
    for (index_t i = 0; i < n; ++i) {
        const index_t l = i - 1;
        if (d[i] != 0) {
            for (index_t k = 0; k <= l; ++k) row[std::size_t(k)] = b(i, k);
            const R* ci = &b(0, i);
            for (index_t j = 0; j <= l; ++j) {
                R* cj = &b(0, j);
                R gg = 0;
                for (index_t k = 0; k <= l; ++k) gg += row[std::size_t(k)] * cj[k];
                for (index_t k = 0; k <= l; ++k) cj[k] -= gg * ci[k];
            }
        }
        d[i] = b(i, i);
        b(i, i) = 1;
        for (index_t j = 0; j <= l; ++j) b(j, i) = b(i, j) = 0;
    }

    // tql2: implicit QL with Wilkinson's shift.
    for (index_t i = 1; i < n; ++i) e[i - 1] = e[i];
    e[n - 1] = 0;
    constexpr R eps = std::numeric_limits<R>::epsilon();
    for (index_t l = 0; l < n; ++l) {
        int iter = 0;
        index_t m;
        do {
            for (m = l; m < n - 1; ++m) {
                const R dd = std::fabs(d[m]) + std::fabs(d[m + 1]);
                if (std::fabs(e[m]) <= eps * dd) break;
            }
            if (m != l) {
                if (iter++ == 30) return false;
                R gg = (d[l + 1] - d[l]) / (2 * e[l]);
                R r = std::hypot(gg, R(1));
                gg = d[m] - d[l] + e[l] / (gg + (gg >= 0 ? std::fabs(r) : -std::fabs(r)));
                R s = 1, c = 1, p = 0;
                bool underflow = false;
                for (index_t i = m - 1; i >= l; --i) {  // (index_t is signed)
                    const R f = s * e[i], b = c * e[i];
                    e[i + 1] = r = std::hypot(f, gg);
                    if (r == 0) {
                        d[i + 1] -= p;
                        e[m] = 0;
                        underflow = true;
                        break;
                    }
                    s = f / r;
                    c = gg / r;
                    gg = d[i + 1] - p;
                    r = (d[i] - gg) * s + 2 * c * b;
                    p = s * r;
                    d[i + 1] = gg + p;
                    gg = c * r - b;
                    R* zi = q + i * n;
                    R* zj = q + (i + 1) * n;
                    for (index_t k = 0; k < n; ++k) {
                        const R fz = zj[k];
                        zj[k] = s * zi[k] + c * fz;
                        zi[k] = c * zi[k] - s * fz;
                    }
                }
                if (underflow) continue;
                d[l] -= p;
                e[l] = gg;
                e[m] = 0;
            }
        } while (m != l);
    }
    ws.order.resize(std::size_t(n));
    std::iota(ws.order.begin(), ws.order.end(), index_t(0));
    std::stable_sort(ws.order.begin(), ws.order.end(), [&](index_t x, index_t y) { return d[x] > d[y]; });
    for (index_t j = 0; j < n; ++j) std::copy_n(q + ws.order[std::size_t(j)] * n, n, v + j * n);
    return true;
}

BATCHSVD_CPU_END
