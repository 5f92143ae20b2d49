// SPDX-License-Identifier: BSD-3-Clause
// The BLAS and LAPACK routines the CPU backend's preconditioning calls (Fortran symbols,
// gfortran ABI: trailing hidden string lengths), behind one overload per precision. Built only
// with BATCHSVD_WITH_LAPACK.
#pragma once

#include <algorithm>
#include <complex>
#include <cstddef>
#include <type_traits>
#include <vector>

#include "cpu/isa.hpp"
#include "batchsvd/batchsvd.hpp"

BATCHSVD_CPU_BEGIN
namespace lapack {

using fstrlen = std::size_t;
using cf = std::complex<float>;
using cd = std::complex<double>;

extern "C" {
void ssyrk_(const char*, const char*, const int*, const int*, const float*, const float*, const int*,
            const float*, float*, const int*, fstrlen, fstrlen);
void dsyrk_(const char*, const char*, const int*, const int*, const double*, const double*, const int*,
            const double*, double*, const int*, fstrlen, fstrlen);
void cherk_(const char*, const char*, const int*, const int*, const float*, const cf*, const int*, const float*,
            cf*, const int*, fstrlen, fstrlen);
void zherk_(const char*, const char*, const int*, const int*, const double*, const cd*, const int*,
            const double*, cd*, const int*, fstrlen, fstrlen);
void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*, const float*, const int*,
            const float*, const int*, const float*, float*, const int*, fstrlen, fstrlen);
void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*,
            const int*, const double*, const int*, const double*, double*, const int*, fstrlen, fstrlen);
void cgemm_(const char*, const char*, const int*, const int*, const int*, const cf*, const cf*, const int*,
            const cf*, const int*, const cf*, cf*, const int*, fstrlen, fstrlen);
void zgemm_(const char*, const char*, const int*, const int*, const int*, const cd*, const cd*, const int*,
            const cd*, const int*, const cd*, cd*, const int*, fstrlen, fstrlen);
void ssyevd_(const char*, const char*, const int*, float*, const int*, float*, float*, const int*, int*,
             const int*, int*, fstrlen, fstrlen);
void dsyevd_(const char*, const char*, const int*, double*, const int*, double*, double*, const int*, int*,
             const int*, int*, fstrlen, fstrlen);
void cheevd_(const char*, const char*, const int*, cf*, const int*, float*, cf*, const int*, float*, const int*,
             int*, const int*, int*, fstrlen, fstrlen);
void zheevd_(const char*, const char*, const int*, cd*, const int*, double*, cd*, const int*, double*,
             const int*, int*, const int*, int*, fstrlen, fstrlen);
void sgeqrf_(const int*, const int*, float*, const int*, float*, float*, const int*, int*);
void dgeqrf_(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
void cgeqrf_(const int*, const int*, cf*, const int*, cf*, cf*, const int*, int*);
void zgeqrf_(const int*, const int*, cd*, const int*, cd*, cd*, const int*, int*);
void sormqr_(const char*, const char*, const int*, const int*, const int*, const float*, const int*, const float*,
             float*, const int*, float*, const int*, int*, fstrlen, fstrlen);
void dormqr_(const char*, const char*, const int*, const int*, const int*, const double*, const int*,
             const double*, double*, const int*, double*, const int*, int*, fstrlen, fstrlen);
void cunmqr_(const char*, const char*, const int*, const int*, const int*, const cf*, const int*, const cf*, cf*,
             const int*, cf*, const int*, int*, fstrlen, fstrlen);
void zunmqr_(const char*, const char*, const int*, const int*, const int*, const cd*, const int*, const cd*, cd*,
             const int*, cd*, const int*, int*, fstrlen, fstrlen);
}

/// A LAPACK routine with one workspace, `call(work, lwork)`: the size query (lwork = -1),
/// then the call with `work` grown to the size asked (at least `least`).
template <class T, class Call> void call_with_work(Call&& call, int least, std::vector<T>& work) {
    T q{};
    call(&q, -1);
    const int lwork = std::max({1, least, int(std::real(q))});
    if (work.size() < std::size_t(lwork)) work.resize(std::size_t(lwork));
    call(work.data(), lwork);
}

/// ?geqrf: A (m x n, m >= n) = QR in place, R in the upper triangle and the reflectors below
/// it (LAPACK's convention, which householder_qr follows: H = I - tau v v^H, real beta).
/// `work` grows as the routine asks. Returns LAPACK's info.
template <class T> int geqrf(int m, int n, T* a, int lda, T* tau, std::vector<T>& work) {
    int info = 0;
    auto call = [&](T* w, int lw) {
        if constexpr (std::is_same_v<T, float>) sgeqrf_(&m, &n, a, &lda, tau, w, &lw, &info);
        else if constexpr (std::is_same_v<T, double>) dgeqrf_(&m, &n, a, &lda, tau, w, &lw, &info);
        else if constexpr (std::is_same_v<T, cf>) cgeqrf_(&m, &n, a, &lda, tau, w, &lw, &info);
        else zgeqrf_(&m, &n, a, &lda, tau, w, &lw, &info);
    };
    call_with_work(call, n, work);
    return info;
}

/// ?ormqr / ?unmqr from the left, no transpose: C (m x ncols) <- Q C, Q from geqrf's k
/// reflectors in a (m x k).
template <class T>
int apply_q_left(int m, int ncols, int k, const T* a, int lda, const T* tau, T* c, int ldc, std::vector<T>& work) {
    int info = 0;
    auto call = [&](T* w, int lw) {
        if constexpr (std::is_same_v<T, float>)
            sormqr_("L", "N", &m, &ncols, &k, a, &lda, tau, c, &ldc, w, &lw, &info, 1, 1);
        else if constexpr (std::is_same_v<T, double>)
            dormqr_("L", "N", &m, &ncols, &k, a, &lda, tau, c, &ldc, w, &lw, &info, 1, 1);
        else if constexpr (std::is_same_v<T, cf>)
            cunmqr_("L", "N", &m, &ncols, &k, a, &lda, tau, c, &ldc, w, &lw, &info, 1, 1);
        else zunmqr_("L", "N", &m, &ncols, &k, a, &lda, tau, c, &ldc, w, &lw, &info, 1, 1);
    };
    call_with_work(call, ncols, work);
    return info;
}

/// Lower triangle of G = X^H X (X rows x n, G n x n).
template <class T> void gram_lower(int n, int rows, const T* x, int ldx, T* g, int ldg) {
    const real_t<T> one = 1, zero = 0;
    if constexpr (std::is_same_v<T, float>) ssyrk_("L", "T", &n, &rows, &one, x, &ldx, &zero, g, &ldg, 1, 1);
    else if constexpr (std::is_same_v<T, double>) dsyrk_("L", "T", &n, &rows, &one, x, &ldx, &zero, g, &ldg, 1, 1);
    else if constexpr (std::is_same_v<T, cf>) cherk_("L", "C", &n, &rows, &one, x, &ldx, &zero, g, &ldg, 1, 1);
    else zherk_("L", "C", &n, &rows, &one, x, &ldx, &zero, g, &ldg, 1, 1);
}

/// C = A B (A m x k, B k x n, C m x n).
template <class T> void gemm_nn(int m, int n, int k, const T* a, int lda, const T* b, int ldb, T* c, int ldc) {
    const T one = T(1), zero = T(0);
    if constexpr (std::is_same_v<T, float>) sgemm_("N", "N", &m, &n, &k, &one, a, &lda, b, &ldb, &zero, c, &ldc, 1, 1);
    else if constexpr (std::is_same_v<T, double>) dgemm_("N", "N", &m, &n, &k, &one, a, &lda, b, &ldb, &zero, c, &ldc, 1, 1);
    else if constexpr (std::is_same_v<T, cf>) cgemm_("N", "N", &m, &n, &k, &one, a, &lda, b, &ldb, &zero, c, &ldc, 1, 1);
    else zgemm_("N", "N", &m, &n, &k, &one, a, &lda, b, &ldb, &zero, c, &ldc, 1, 1);
}

/// Eigenvalues (ascending, in w) and eigenvectors (over g) of the Hermitian g, lower triangle;
/// the workspaces are grown as the routine asks. Returns LAPACK's info.
template <class T> struct EigenWorkspace {
    std::vector<T> work;
    std::vector<real_t<T>> rwork;
    std::vector<int> iwork;
};

template <class T> int eigen_lower(int n, T* g, int ldg, real_t<T>* w, EigenWorkspace<T>& ws) {
    int info = 0, lwork = -1, lrwork = -1, liwork = -1;
    T wq{};
    real_t<T> rq{};
    int iq = 0;
    auto call = [&](T* work, int lw, real_t<T>* rwork, int lrw, int* iwork, int liw) {
        if constexpr (std::is_same_v<T, float>) ssyevd_("V", "L", &n, g, &ldg, w, work, &lw, iwork, &liw, &info, 1, 1);
        else if constexpr (std::is_same_v<T, double>) dsyevd_("V", "L", &n, g, &ldg, w, work, &lw, iwork, &liw, &info, 1, 1);
        else if constexpr (std::is_same_v<T, cf>)
            cheevd_("V", "L", &n, g, &ldg, w, work, &lw, rwork, &lrw, iwork, &liw, &info, 1, 1);
        else zheevd_("V", "L", &n, g, &ldg, w, work, &lw, rwork, &lrw, iwork, &liw, &info, 1, 1);
    };
    call(&wq, lwork, &rq, lrwork, &iq, liwork);  // workspace query
    if (info != 0) return info;
    lwork = std::max(1, int(std::real(wq)));
    lrwork = std::max(1, int(rq));
    liwork = std::max(1, iq);
    if (ws.work.size() < std::size_t(lwork)) ws.work.resize(std::size_t(lwork));
    if (ws.rwork.size() < std::size_t(lrwork)) ws.rwork.resize(std::size_t(lrwork));
    if (ws.iwork.size() < std::size_t(liwork)) ws.iwork.resize(std::size_t(liwork));
    call(ws.work.data(), lwork, ws.rwork.data(), lrwork, ws.iwork.data(), liwork);
    return info;
}

}  // namespace lapack
BATCHSVD_CPU_END
