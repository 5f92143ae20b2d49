// SPDX-License-Identifier: BSD-3-Clause
// The hyperbolic SVD of one matrix with a mixed signature on the CPU: one-sided J-orthogonal
// Jacobi (the hierarchical-blocked paper, section 4.3, pointwise form; Veselic's method).
// Steps, as the SVD's (svd_one_matrix.hpp): copy with the columns reordered so that J is
// partitioned (every +1 first: the paper notes that an unpartitioned J converges more
// slowly), finiteness check and power-of-two scaling, QR pre-processing of a tall G
// (Householder QR is column-wise backward stable, which the relative accuracy needs), sweeps
// over the parallel round-robin pairs (trigonometric rotations within a sign, hyperbolic ones
// across: core/hyperbolic_rotation.hpp), then S from the column norms sorted within each sign,
// U the normalised columns. What differs from the paper: no sorting swaps inside the sweeps
// (one sort at the end), and an exact-norm recomputation after every hyperbolic rotation
// (its tracked norms a + th|c| cancel when cosh is large).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "batchsvd/hyperbolic.hpp"
#include "core/hyperbolic_rotation.hpp"
#include "core/ordering.hpp"
#include "core/precision.hpp"
#include "core/rotation.hpp"
#include "cpu/column_ops.hpp"
#include "cpu/householder_qr.hpp"
#include "cpu/isa.hpp"
#include "cpu/jacobi_unblocked.hpp"

BATCHSVD_CPU_BEGIN

namespace hyperbolic {

template <class T> struct HsvdWorkspace {
    std::vector<T> w, r, tau, v, left;
    std::vector<real_t<T>> norms, sigma;
    std::vector<index_t> order, perm;
};

struct HsvdStatus {
    int info = 0;
    int sweeps = 0;
};


/// Pointwise one-sided J-Jacobi on X (rows x cols, ld rows) whose first `npos` columns have
/// j = +1, accumulating into V (cols x cols, identity on entry) unless null. With `parallel`
/// > 1 the disjoint pairs of each round-robin step are shared among that many OpenMP threads
/// (for a batch too small to occupy them); the result is bitwise the same either way.
/// Returns the sweeps run, the status in `info` (0 converged, > 0 sweep limit, -2, -3).
template <class T>
HsvdStatus jacobi_hyperbolic(index_t rows, index_t cols, index_t npos, T* X, T* V, const core::Tolerance<real_t<T>>& tol,
                             int max_sweeps, std::vector<real_t<T>>& norms, int parallel = 0) {
    using R = real_t<T>;
    HsvdStatus st;
    const int n = static_cast<int>(cols);
    norms.resize(cols);
    const R negligible_sq = tol.negligible * tol.negligible;
    // One pair: 0 nothing to do, 1 rotated, or a negative status.
    auto pair = [&](int step, int p) -> int {
        const core::IndexPair ij = core::round_robin_pair(n, step, p);
        if (ij.j >= n) return 0;
        T* xi = X + ij.i * rows;
        T* xj = X + ij.j * rows;
        const T c = dot_conj(rows, xi, xj);
        const R abs_c = std::abs(c);
        R& ni = norms[ij.i];
        R& nj = norms[ij.j];
        if (!core::needs_rotation(abs_c, ni, nj, tol)) return 0;
        ni = norm_sq(rows, xi);
        nj = norm_sq(rows, xj);
        if (!(ij.i < npos && ij.j >= npos)) {
            rotate_and_track(rows, xi, xj, cols, V ? V + ij.i * cols : nullptr, V ? V + ij.j * cols : nullptr, c,
                             abs_c, ni, nj);
            return 1;
        }
        const core::HyperbolicRotation<R> rot = core::hyperbolic_rotation(ni, nj, abs_c);
        if (!rot.defined) return info_no_hyperbolic_rotation;
        const T tw = c * (rot.th / abs_c);
        pair_update<1>(rows, xi, xj, rot.ch, tw);
        if (V) pair_update<1>(cols, V + ij.i * cols, V + ij.j * cols, rot.ch, tw);
        ni = norm_sq(rows, xi);
        nj = norm_sq(rows, xj);
        if (!(ni > negligible_sq) || !(nj > negligible_sq)) return info_rank_deficient;
        return 1;
    };
    auto vanished = [&] {  // a column at noise level: G is (numerically) of lower column rank
        for (index_t j = 0; j < cols; ++j)
            if (!(norms[j] > negligible_sq)) return true;
        return false;
    };
    while (st.sweeps < max_sweeps) {
        ++st.sweeps;
        bool rotated = false;
        int status = 0;
        if (parallel > 1) {
            // One team for the sweep, a worksharing loop (and its barrier) a step. Every thread
            // reads the status before a barrier that no write can pass (writes happen inside
            // the next step's loop), so all see the same value and leave together.
#pragma omp parallel num_threads(parallel)
            {
#pragma omp for schedule(static)
                for (index_t j = 0; j < cols; ++j) norms[j] = norm_sq(rows, X + j * rows);
#pragma omp single
                if (vanished()) status = info_rank_deficient;
                for (int step = 0; step < core::round_robin_steps(n); ++step) {
                    int seen;
#pragma omp atomic read
                    seen = status;
#pragma omp barrier
                    if (seen != 0) break;
#pragma omp for schedule(static) reduction(|| : rotated)
                    for (int p = 0; p < core::round_robin_pairs(n); ++p) {
                        const int r = pair(step, p);
                        if (r < 0) {
#pragma omp atomic write
                            status = r;
                        }
                        rotated = rotated || r > 0;
                    }
                }
            }
        } else {
            for (index_t j = 0; j < cols; ++j) norms[j] = norm_sq(rows, X + j * rows);
            if (vanished()) status = info_rank_deficient;
            for (int step = 0; step < core::round_robin_steps(n) && status == 0; ++step)
                for (int p = 0; p < core::round_robin_pairs(n) && status == 0; ++p) {
                    const int r = pair(step, p);
                    if (r < 0) status = r;
                    rotated = rotated || r > 0;
                }
        }
        if (status != 0) {
            st.info = status;
            return st;
        }
        if (!rotated) return st;  // converged: info 0
    }
    st.info = st.sweeps;  // the sweep limit: the outputs are the best available
    return st;
}

/// order: the columns with j = +1, then those with j = -1, each in their input order (J
/// partitioned); returns the count of the first.
inline index_t signature_order(index_t n, const int* jsig, index_t* order) {
    index_t npos = 0;
    for (index_t j = 0; j < n; ++j)
        if (jsig[j] > 0) order[npos++] = j;
    for (index_t j = 0, q = npos; j < n; ++j)
        if (jsig[j] < 0) order[q++] = j;
    return npos;
}

/// perm: the columns by descending sigma within each sign (the first npos, then the rest;
/// stable), the order of S, U and V's columns.
template <class R> void sign_sorted_order(index_t npos, const std::vector<R>& sigma, std::vector<index_t>& perm) {
    perm.resize(sigma.size());
    std::iota(perm.begin(), perm.end(), index_t(0));
    auto before = [&](index_t a, index_t b) { return sigma[a] > sigma[b]; };
    std::stable_sort(perm.begin(), perm.begin() + npos, before);
    std::stable_sort(perm.begin() + npos, perm.end(), before);
}

/// HSVD of one m x n matrix (m >= n) whose signature has both signs. s, j_out: n entries;
/// u (m x n), v (n x n) may be null. parallel > 1: the threads share each step's pairs.
template <class T>
HsvdStatus hsvd_mixed(index_t m, index_t n, const T* g, index_t ldg, const int* jsig, real_t<T>* s, int* j_out, T* u,
                      index_t ldu, T* v, index_t ldv, const Options& opt, HsvdWorkspace<T>& ws, int parallel = 0) {
    using R = real_t<T>;
    // Working column order: the +1 columns, then the -1 columns, each in their input order.
    ws.order.resize(n);
    const index_t npos = signature_order(n, jsig, ws.order.data());
    if (j_out)
        for (index_t j = 0; j < n; ++j) j_out[j] = j < npos ? 1 : -1;
    auto fail = [&](int info) {
        for (index_t r = 0; r < n; ++r) s[r] = std::numeric_limits<R>::quiet_NaN();
        if (opt.compute_u) fill_nan(m, n, u, ldu);
        if (opt.compute_v) fill_nan(n, n, v, ldv);
        return HsvdStatus{info, 0};
    };
    ws.w.resize(std::size_t(m) * n);
    T* W = ws.w.data();
    R maxabs = 0;
    bool finite = true;
    for (index_t q = 0; q < n; ++q) {
        const T* col = g + ws.order[q] * ldg;
        for (index_t i = 0; i < m; ++i) {
            const T x = col[i];
            finite = finite && std::isfinite(std::real(x)) && std::isfinite(std::imag(x));
            maxabs = std::max({maxabs, std::fabs(std::real(x)), std::fabs(std::imag(x))});
            W[i + q * m] = x;
        }
    }
    if (!finite) return fail(info_nonfinite);
    if (maxabs == 0) return fail(info_rank_deficient);
    const int scale_exp = scale_exponent(maxabs);
    if (scale_exp != 0)
        for (T& x : ws.w) {
            if constexpr (is_cplx<T>::value) x = T(std::ldexp(x.real(), scale_exp), std::ldexp(x.imag(), scale_exp));
            else x = std::ldexp(x, scale_exp);
        }
    const bool use_qr = m >= 2 * n;
    T* X = W;
    index_t rows = m;
    if (use_qr) {
        ws.tau.resize(n);
        householder_qr(m, n, W, m, ws.tau.data());
        ws.r.assign(std::size_t(n) * n, T(0));
        for (index_t j = 0; j < n; ++j)
            for (index_t i = 0; i <= j; ++i) ws.r[i + j * n] = W[i + j * m];
        X = ws.r.data();
        rows = n;
    }
    T* V = nullptr;
    if (opt.compute_v) {
        ws.v.assign(std::size_t(n) * n, T(0));
        for (index_t j = 0; j < n; ++j) ws.v[j + j * n] = T(1);
        V = ws.v.data();
    }
    const core::Tolerance<R> tol{core::convergence_tolerance<R>(opt.tol_factor),
                                 core::negligible_norm(std::ldexp(maxabs, scale_exp))};
    HsvdStatus st = jacobi_hyperbolic(rows, n, npos, X, V, tol, opt.max_sweeps, ws.norms, parallel);
    if (st.info < 0) {
        const int sweeps = st.sweeps;
        st = fail(st.info);
        st.sweeps = sweeps;
        return st;
    }
    // S from the norms, sorted in descending order within each sign (stable).
    ws.sigma.resize(n);
    for (index_t j = 0; j < n; ++j) ws.sigma[j] = std::sqrt(norm_sq(rows, X + j * rows));
    sign_sorted_order(npos, ws.sigma, ws.perm);
    for (index_t r = 0; r < n; ++r) s[r] = std::ldexp(ws.sigma[ws.perm[r]], -scale_exp);
    if (opt.compute_u) {
        ws.left.assign(std::size_t(m) * n, T(0));
        for (index_t r = 0; r < n; ++r) {
            T* out = ws.left.data() + r * m;
            std::copy_n(X + ws.perm[r] * rows, rows, out);
            scale_col(rows, out, R(1) / ws.sigma[ws.perm[r]]);
        }
        if (use_qr) apply_q(m, n, W, m, ws.tau.data(), n, ws.left.data(), m);  // U = Q [U_R; 0]
        for (index_t r = 0; r < n; ++r) std::copy_n(ws.left.data() + r * m, m, u + r * ldu);
    }
    if (opt.compute_v) {
        // V = P V_w: row order[q] of V is row q of the working V_w.
        for (index_t r = 0; r < n; ++r) {
            const T* col = V + ws.perm[r] * n;
            for (index_t q = 0; q < n; ++q) v[ws.order[q] + r * ldv] = col[q];
        }
    }
    return st;
}

}  // namespace hyperbolic

BATCHSVD_CPU_END
