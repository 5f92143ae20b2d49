// SPDX-License-Identifier: BSD-3-Clause
// The CPU backend's solve of one matrix: input checks and scaling, the transpose for wide
// matrices, QR pre-processing for tall ones, the Jacobi iteration (unblocked or blocked),
// and the final sort, normalisation and write-out. The CUDA backend follows the same steps.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

#include "cpu/isa.hpp"
#include "core/precision.hpp"
#include "core/scalar.hpp"
#include "core/rotation.hpp"
#include "cpu/finalize.hpp"
#include "cpu/householder_qr.hpp"
#include "cpu/jacobi_blocked.hpp"
#include "cpu/jacobi_unblocked.hpp"
#include "cpu/precondition.hpp"

BATCHSVD_CPU_BEGIN

/// Up to this many columns the unblocked iteration is used (Variant::automatic). Measured on
/// the 2-core development machine (batchsvd_cpu_bench --variant, float64): unblocked is 1.6-1.9x
/// faster than blocked at 128, 256 and 512 columns, since the blocked products here are
/// plain loops, not cache-blocked GEMMs (2026-11-23; docs/benchmarks.md has the numbers).
inline constexpr index_t unblocked_max_cols = 512;
inline constexpr int default_block_width = 16;

template <class T> struct Workspace {
    std::vector<T> w, r, tau, right, left, qleft, qr_work;
    std::vector<real_t<T>> norms, sigma;
    std::vector<index_t> perm;
    BlockedWorkspace<T> blocked;
    PreconditionWorkspace<T> pre;
    GramTest<T> gram;
};


/// Whether the QR pre-processing of a matrix of `cols` columns calls LAPACK's blocked ?geqrf
/// and ?ormqr (where the build has LAPACK) rather than householder_qr and apply_q, which work a
/// reflector at a time (BLAS-2): from 2 columns, where the automatic rule starts QR (faster
/// from there on: 100 x 4 float32 10.6 -> 6.9 ms a batch of 5000 on 2 cores).
/// BATCHSVD_CPU_LAPACK_QR=0 turns it off (measurements).
inline bool lapack_qr(index_t cols) {
#if defined(BATCHSVD_HAVE_LAPACK)
    static const bool on = [] {
        const char* e = std::getenv("BATCHSVD_CPU_LAPACK_QR");
        return !(e && e[0] == '0');
    }();
    return on && cols >= 2;
#else
    (void)cols;
    return false;
#endif
}

/// W (rows x cols, ld rows, rows >= cols) = QR in place: R above the diagonal, the reflectors
/// below, tau beside (householder_qr's layout, which is LAPACK's).
template <class T> void qr_factor(index_t rows, index_t cols, T* W, T* tau, std::vector<T>& work) {
#if defined(BATCHSVD_HAVE_LAPACK)
    if (lapack_qr(cols) && lapack::geqrf(int(rows), int(cols), W, int(rows), tau, work) == 0) return;
#endif
    (void)work;
    householder_qr(rows, cols, W, rows, tau);
}

/// C (rows x ccols, ld ldc) <- Q C, Q from qr_factor's W and tau.
template <class T>
void qr_apply(index_t rows, index_t cols, const T* W, const T* tau, index_t ccols, T* C, index_t ldc,
              std::vector<T>& work) {
#if defined(BATCHSVD_HAVE_LAPACK)
    if (lapack_qr(cols) &&
        lapack::apply_q_left(int(rows), int(ccols), int(cols), W, int(rows), tau, C, int(ldc), work) == 0)
        return;
#endif
    (void)work;
    apply_q(rows, cols, W, rows, tau, ccols, C, ldc);
}

/// Whether an M x N working matrix (M >= N) is QR-factored first (Options::qr).
inline bool qr_first(index_t M, index_t N, const Options& opt) {
    return opt.qr == QrMode::always || (opt.qr == QrMode::automatic && M >= 2 * N && N > 1);
}

/// Whether the solve of an m x n matrix calls the BLAS or LAPACK (the caller then holds the
/// BLAS to one thread: cpu/blas_threads.hpp).
template <class T> bool solve_calls_blas(index_t m, index_t n, const Options& opt) {
    const index_t M = std::max(m, n), N = std::min(m, n);
    return precondition_calls_blas<T>(opt.precondition, N) || (N > 0 && qr_first(M, N, opt) && lapack_qr(N));
}

/// What one matrix's solve reports: its info value and the sweeps it took (Options::sweeps).
struct MatrixStatus {
    int info = 0;
    int sweeps = 0;
};

/// What the first part of a solve (prepare_matrix) leaves for the second (finish_matrix), with
/// the matrices in the workspace: W in ws.w, R and tau in ws.r and ws.tau after QR, V (or V0)
/// in ws.right.
template <class R> struct Prepared {
    bool finished = false;  ///< nothing left to do (empty, or NaN/Inf: outputs written)
    MatrixStatus status;
    bool wide = false, use_qr = false, preconditioned = false;
    index_t M = 0, N = 0, rows = 0;
    int scale_exp = 0;
    R maxabs = 0;
};


/// One matrix's arguments (the schedules of svd_cpu.cpp and lane_groups.hpp).
template <class T> struct MatrixJob {
    index_t m, n;
    const T* a;
    index_t lda;
    real_t<T>* s;
    T* u;
    index_t ldu;
    T* v;
    index_t ldv;
    int* info;
    int* sweeps;
};

/// The first part of the SVD of one m x n matrix: copy (transposing a wide one), checks,
/// scaling, QR pre-processing and preconditioning. A matrix with NaN or Inf gets its NaN
/// outputs here. Needs no other thread: the CPU backend prepares several large matrices at
/// once and then finishes them one after another with the threads sharing their pairs.
template <class T>
Prepared<real_t<T>> prepare_matrix(index_t m, index_t n, const T* a, index_t lda, real_t<T>* s, T* u,
                                   index_t ldu, T* v, index_t ldv, const Options& opt, Workspace<T>& ws) {
    using R = real_t<T>;
    Prepared<R> p;
    const bool wide = m < n;
    const index_t M = wide ? n : m, N = wide ? m : n;  // W = A or A^H is M x N, M >= N
    const bool want_right = wide ? opt.compute_u : opt.compute_v;
    p.wide = wide;
    p.M = M;
    p.N = N;
    if (N == 0) {
        p.finished = true;
        return p;
    }
    // Copy (transposing a wide matrix), check that every entry is finite, find the scale.
    ws.w.resize(static_cast<size_t>(M) * N);
    T* W = ws.w.data();
    R maxabs = 0;
    bool finite = true;
    for (index_t j = 0; j < n; ++j)
        for (index_t i = 0; i < m; ++i) {
            const T x = a[i + j * lda];
            finite = finite && std::isfinite(std::real(x)) && std::isfinite(std::imag(x));
            maxabs = std::max({maxabs, std::fabs(std::real(x)), std::fabs(std::imag(x))});
            if (wide) W[j + i * M] = core::conj_of(x); else W[i + j * M] = x;
        }
    if (!finite) {
        for (index_t r = 0; r < N; ++r) s[r] = std::numeric_limits<R>::quiet_NaN();
        if (opt.compute_u) fill_nan(m, N, u, ldu);
        if (opt.compute_v) fill_nan(n, N, v, ldv);
        p.finished = true;
        p.status = {info_nonfinite, 0};
        return p;
    }
    // Power-of-two scaling keeps sums of squares in range (exact, undone on S at the end).
    const int scale_exp = scale_exponent(maxabs);
    if (scale_exp != 0) {
        // ldexp on each entry: 2^scale_exp itself overflows for subnormal inputs (> 2^1023).
        for (T& x : ws.w) {
            if constexpr (is_cplx<T>::value)
                x = T(std::ldexp(x.real(), scale_exp), std::ldexp(x.imag(), scale_exp));
            else
                x = std::ldexp(x, scale_exp);
        }
    }

    // QR pre-processing: Jacobi then runs on the N x N triangle R.
    const bool use_qr = qr_first(M, N, opt);
    T* X = W;
    index_t rows = M;
    if (use_qr) {
        ws.tau.resize(N);
        qr_factor(M, N, W, ws.tau.data(), ws.qr_work);
        ws.r.assign(static_cast<size_t>(N) * N, T(0));
        for (index_t j = 0; j < N; ++j)
            for (index_t i = 0; i <= j; ++i) ws.r[i + j * N] = W[i + j * M];
        X = ws.r.data();
        rows = N;
    }

    // V starts as the identity, or as the preconditioner's V0 (X <- X V0).
    const bool try_precondition = use_precondition<T>(opt.precondition, N);
    if (want_right || try_precondition) ws.right.assign(static_cast<size_t>(N) * N, T(0));
    const bool preconditioned = try_precondition && precondition(rows, N, X, rows, ws.right.data(), ws.pre);
    static const bool gram_tests = !std::getenv("BATCHSVD_CPU_NO_GRAM_TEST");  // (measurements)
    ws.gram.gram = gram_tests ? &gram_lower_of<T> : nullptr;
    if (!preconditioned && want_right)
        for (index_t j = 0; j < N; ++j) ws.right[j + j * N] = T(1);
    p.use_qr = use_qr;
    p.preconditioned = preconditioned;
    p.rows = rows;
    p.scale_exp = scale_exp;
    p.maxabs = maxabs;
    return p;
}

/// The last steps of every solve: the singular values sorted (and unscaled), the left vectors
/// normalised (and multiplied by Q after QR), both sets of vectors written out. X is the
/// iterated p.rows x p.N matrix (ld p.rows), V its right vectors (N x N) or null.
template <class T>
void write_solution(const Prepared<real_t<T>>& p, const T* X, const T* V, real_t<T> negligible, real_t<T>* s,
                    T* u, index_t ldu, T* v, index_t ldv, const Options& opt, Workspace<T>& ws) {
    const bool wide = p.wide;
    const index_t M = p.M, N = p.N, rows = p.rows;
    const bool want_left = wide ? opt.compute_v : opt.compute_u;
    T* left_out = wide ? v : u;
    const index_t ld_left = wide ? ldv : ldu;
    T* right_out = wide ? u : v;
    const index_t ld_right = wide ? ldu : ldv;
    sort_by_norm(rows, N, X, rows, negligible, ws.sigma, ws.perm);
    for (index_t r = 0; r < N; ++r) s[r] = std::ldexp(ws.sigma[ws.perm[r]], -p.scale_exp);
    if (want_left) {
        ws.left.resize(static_cast<size_t>(rows) * N);
        normalized_left_vectors(rows, N, X, rows, ws.sigma, ws.perm, ws.left.data());
        const T* L = ws.left.data();
        if (p.use_qr) {  // U = Q [U_R; 0]
            ws.qleft.assign(static_cast<size_t>(M) * N, T(0));
            for (index_t j = 0; j < N; ++j) std::copy_n(L + j * N, N, ws.qleft.data() + j * M);
            qr_apply(M, N, ws.w.data(), ws.tau.data(), N, ws.qleft.data(), M, ws.qr_work);
            L = ws.qleft.data();
        }
        for (index_t j = 0; j < N; ++j) std::copy_n(L + j * M, M, left_out + j * ld_left);
    }
    if (V)
        for (index_t r = 0; r < N; ++r) std::copy_n(V + ws.perm[r] * N, N, right_out + r * ld_right);
}

/// The second part: the Jacobi iteration, then write_solution.
/// parallel_pairs > 1: share each round-robin step's pairs among that many OpenMP threads.
template <class T>
MatrixStatus finish_matrix(const Prepared<real_t<T>>& p, real_t<T>* s, T* u, index_t ldu, T* v, index_t ldv,
                           const Options& opt, Workspace<T>& ws, int parallel_pairs = 0) {
    using R = real_t<T>;
    if (p.finished) return p.status;
    const index_t N = p.N, rows = p.rows;
    const bool want_right = p.wide ? opt.compute_u : opt.compute_v;
    T* X = p.use_qr ? ws.r.data() : ws.w.data();
    T* V = want_right ? ws.right.data() : nullptr;
    const core::Tolerance<R> tol{core::convergence_tolerance<R>(opt.tol_factor),
                                 core::negligible_norm(std::ldexp(p.maxabs, p.scale_exp))};
    const int nb = opt.block_width > 0 ? opt.block_width : default_block_width;
    const bool blocked = N > nb && (opt.variant == JacobiVariant::blocked ||
                                    (opt.variant == JacobiVariant::automatic &&
                                     N > unblocked_max_cols));
    const JacobiResult jr =
        blocked ? jacobi_blocked(rows, N, X, rows, V, N, tol, opt.max_sweeps, nb, ws.blocked)
                : jacobi_unblocked(rows, N, X, rows, V, N, tol, opt.max_sweeps, ws.norms,
                                   parallel_pairs, p.preconditioned && !own_precondition<T>(N) ? &ws.gram : nullptr);
    write_solution<T>(p, X, V, tol.negligible, s, u, ldu, v, ldv, opt, ws);
    return {jr.converged ? 0 : jr.sweeps, jr.sweeps};
}

/// SVD of one m x n matrix; u, v may be null when not requested.
/// parallel_pairs > 1: share each round-robin step's pairs among that many OpenMP threads.
template <class T>
MatrixStatus svd_one_matrix(index_t m, index_t n, const T* a, index_t lda, real_t<T>* s, T* u,
                            index_t ldu, T* v, index_t ldv, const Options& opt, Workspace<T>& ws,
                            int parallel_pairs = 0) {
    const Prepared<real_t<T>> p = prepare_matrix<T>(m, n, a, lda, s, u, ldu, v, ldv, opt, ws);
    return finish_matrix<T>(p, s, u, ldu, v, ldv, opt, ws, parallel_pairs);
}

BATCHSVD_CPU_END
