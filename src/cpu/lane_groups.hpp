// SPDX-License-Identifier: BSD-3-Clause
// Small real matrices solved lane_count at a time, one a SIMD lane (cpu/lanes/jacobi_lanes.hpp):
// each matrix of a group is checked and scaled as prepare_matrix does, packed interleaved,
// iterated together, then unpacked and finished by write_solution. A matrix's result is the
// same whichever group, batch or thread it is solved in.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "cpu/isa.hpp"
#include "cpu/lanes/jacobi_lanes.hpp"
#include "cpu/svd_one_matrix.hpp"

BATCHSVD_CPU_BEGIN

/// Orders (the smaller side) and lengths (the larger) the lanes take under automatic options.
/// Measured on the 2-core development machine against the per-matrix iteration with its
/// preconditioning (batchsvd_cpu_bench, float64 and float32, 2026-11-27; docs/cpu.md).
template <class R> inline constexpr index_t lanes_max_cols = sizeof(R) == 8 ? 20 : 24;
inline constexpr index_t lanes_max_rows = 64;
/// float64 matrices of order 16 and up and length 56 and up take the per-matrix iteration,
/// whose LAPACK QR first shortens their columns: 64 x 16 38.0 against 43.5 ms, 64 x 20 41.6
/// against 46.6, 56 x 16 42.3 against 43.9 (2 cores, batchsvd_cpu_bench, 2026-11-27, with
/// BATCHSVD_CPU_LANES=off against on; float32 and shorter columns measured faster in the lanes).
inline constexpr index_t lanes_f64_qr_cols = 16, lanes_f64_qr_rows = 56;

/// Whether the m x n matrices of a call take the lanes: real types, orders 2 to
/// lanes_max_cols (float64: not from order 16 with 56 rows or more), and the automatic variant without forced QR or preconditioning (those
/// options ask for the per-matrix iteration).
template <class T> bool lanes_suit(index_t m, index_t n, const Options& opt) {
    if constexpr (is_cplx<T>::value) {
        return false;
    } else {
        const index_t k = std::min(m, n), len = std::max(m, n);
        if (sizeof(T) == 8 && k >= lanes_f64_qr_cols && len >= lanes_f64_qr_rows) return false;
        return lanes_enabled() && k >= 2 && k <= lanes_max_cols<T> && len <= lanes_max_rows && opt.variant == JacobiVariant::automatic &&
               opt.qr != QrMode::always && opt.precondition != PreconditionMode::always;
    }
}

template <class R> struct LaneWorkspace {
    std::vector<R> x, v;
};

/// Solve job(0) .. job(count - 1) (count <= lane_count, one shape, lanes_suit) as one group.
/// A matrix with NaN or Inf is handed to svd_one_matrix (which writes its NaN outputs).
template <class T, class Job>
void solve_lane_group(int count, Job&& job, const Options& opt, Workspace<T>& ws, LaneWorkspace<T>& lw) {
    static_assert(!is_cplx<T>::value, "the lanes take real types");
    using R = T;
    constexpr int L = lane_count<R>;
    const MatrixJob<T> first = job(0);
    const bool wide = first.m < first.n;
    const index_t M = wide ? first.n : first.m, N = wide ? first.m : first.n;
    const bool want_right = wide ? opt.compute_u : opt.compute_v;
    lw.x.assign(static_cast<std::size_t>(M * N * L), R(0));
    if (want_right) {
        lw.v.assign(static_cast<std::size_t>(N * N * L), R(0));
        for (index_t j = 0; j < N; ++j)
            for (int l = 0; l < L; ++l) lw.v[std::size_t((j * N + j) * L + l)] = R(1);
    }
    R negligible[L] = {};
    int sweeps[L] = {};
    bool converged[L] = {};
    bool packed[L] = {};
    Prepared<R> prep[L];
    for (int l = 0; l < count; ++l) {
        const MatrixJob<T> j = job(l);
        R maxabs = 0;
        bool finite = true;
        for (index_t c = 0; c < j.n; ++c)
            for (index_t r = 0; r < j.m; ++r) {
                const R x = j.a[r + c * j.lda];
                finite = finite && std::isfinite(x);
                maxabs = std::max(maxabs, std::fabs(x));
            }
        if (!finite) {
            const MatrixStatus st = svd_one_matrix<T>(j.m, j.n, j.a, j.lda, j.s, j.u, j.ldu, j.v, j.ldv, opt, ws);
            *j.info = st.info;
            if (j.sweeps) *j.sweeps = st.sweeps;
            continue;
        }
        const int scale_exp = scale_exponent(maxabs);
        for (index_t c = 0; c < j.n; ++c)
            for (index_t r = 0; r < j.m; ++r) {
                const R x = scale_exp ? std::ldexp(j.a[r + c * j.lda], scale_exp) : j.a[r + c * j.lda];
                const index_t row = wide ? c : r, col = wide ? r : c;  // of W = A or A^T
                lw.x[std::size_t((col * M + row) * L + l)] = x;
            }
        negligible[l] = core::negligible_norm(std::ldexp(maxabs, scale_exp));
        packed[l] = true;
        Prepared<R>& p = prep[l];
        p.wide = wide;
        p.M = p.rows = M;
        p.N = N;
        p.scale_exp = scale_exp;
        p.maxabs = maxabs;
    }
    LaneGroup<R> g;
    g.rows = int(M);
    g.cols = int(N);
    g.x = lw.x.data();
    g.v = want_right ? lw.v.data() : nullptr;
    g.tol = core::convergence_tolerance<R>(opt.tol_factor);
    g.negligible = negligible;
    g.max_sweeps = opt.max_sweeps;
    g.sweeps = sweeps;
    g.converged = converged;
    jacobi_lanes(g, chosen_isa());
    ws.w.resize(static_cast<std::size_t>(M * N));
    if (want_right) ws.right.resize(static_cast<std::size_t>(N * N));
    for (int l = 0; l < count; ++l) {
        if (!packed[l]) continue;
        const MatrixJob<T> j = job(l);
        for (index_t e = 0; e < M * N; ++e) ws.w[std::size_t(e)] = lw.x[std::size_t(e * L + l)];
        if (want_right)
            for (index_t e = 0; e < N * N; ++e) ws.right[std::size_t(e)] = lw.v[std::size_t(e * L + l)];
        write_solution<T>(prep[l], ws.w.data(), want_right ? ws.right.data() : nullptr, negligible[l], j.s, j.u, j.ldu,
                          j.v, j.ldv, opt, ws);
        *j.info = converged[l] ? 0 : sweeps[l];
        if (j.sweeps) *j.sweeps = sweeps[l];
    }
}

BATCHSVD_CPU_END
