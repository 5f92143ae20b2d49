// SPDX-License-Identifier: BSD-3-Clause
// Fortran LAPACK bindings (gfortran ABI: trailing hidden string lengths).
#include "testing/lapack.hpp"

#include <algorithm>
#include <complex>
#include <cstddef>

using fstrlen = std::size_t;
using cf = std::complex<float>;
using cd = std::complex<double>;

extern "C" {
void sgesvd_(const char*, const char*, const int*, const int*, float*, const int*, float*,
             float*, const int*, float*, const int*, float*, const int*, int*, fstrlen, fstrlen);
void dgesvd_(const char*, const char*, const int*, const int*, double*, const int*, double*,
             double*, const int*, double*, const int*, double*, const int*, int*, fstrlen,
             fstrlen);
void cgesvd_(const char*, const char*, const int*, const int*, cf*, const int*, float*, cf*,
             const int*, cf*, const int*, cf*, const int*, float*, int*, fstrlen, fstrlen);
void zgesvd_(const char*, const char*, const int*, const int*, cd*, const int*, double*, cd*,
             const int*, cd*, const int*, cd*, const int*, double*, int*, fstrlen, fstrlen);
void sgesdd_(const char*, const int*, const int*, float*, const int*, float*, float*, const int*, float*,
             const int*, float*, const int*, int*, int*, fstrlen);
void dgesdd_(const char*, const int*, const int*, double*, const int*, double*, double*, const int*, double*,
             const int*, double*, const int*, int*, int*, fstrlen);
void cgesdd_(const char*, const int*, const int*, cf*, const int*, float*, cf*, const int*, cf*, const int*, cf*,
             const int*, float*, int*, int*, fstrlen);
void zgesdd_(const char*, const int*, const int*, cd*, const int*, double*, cd*, const int*, cd*, const int*, cd*,
             const int*, double*, int*, int*, fstrlen);
void sgesvj_(const char*, const char*, const char*, const int*, const int*, float*, const int*,
             float*, const int*, float*, const int*, float*, const int*, int*, fstrlen, fstrlen,
             fstrlen);
void dgesvj_(const char*, const char*, const char*, const int*, const int*, double*,
             const int*, double*, const int*, double*, const int*, double*, const int*, int*,
             fstrlen, fstrlen, fstrlen);
void sgebrd_(const int*, const int*, float*, const int*, float*, float*, float*, float*, float*, const int*, int*);
void dgebrd_(const int*, const int*, double*, const int*, double*, double*, double*, double*, double*, const int*,
             int*);
void cgebrd_(const int*, const int*, cf*, const int*, float*, float*, cf*, cf*, cf*, const int*, int*);
void zgebrd_(const int*, const int*, cd*, const int*, double*, double*, cd*, cd*, cd*, const int*, int*);
void ssyevd_(const char*, const char*, const int*, float*, const int*, float*, float*, const int*, int*,
             const int*, int*, fstrlen, fstrlen);
void dsyevd_(const char*, const char*, const int*, double*, const int*, double*, double*, const int*, int*,
             const int*, int*, fstrlen, fstrlen);
void cheevd_(const char*, const char*, const int*, cf*, const int*, float*, cf*, const int*, float*, const int*,
             int*, const int*, int*, fstrlen, fstrlen);
void zheevd_(const char*, const char*, const int*, cd*, const int*, double*, cd*, const int*, double*,
             const int*, int*, const int*, int*, fstrlen, fstrlen);
}

namespace batchsvd::testing::lapack {
namespace {

template <class T>
int call_gesvd(char jobu, char jobvt, int m, int n, T* a, int lda, real_t<T>* s, T* u,
               int ldu, T* vt, int ldvt) {
    using R = real_t<T>;
    int info = 0, lwork = -1;
    T query{};
    const int k = std::min(m, n);
    std::vector<R> rwork(std::max(1, 5 * k));
    auto call = [&](T* work, int lw) {
        if constexpr (std::is_same_v<T, float>)
            sgesvd_(&jobu, &jobvt, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lw, &info, 1, 1);
        else if constexpr (std::is_same_v<T, double>)
            dgesvd_(&jobu, &jobvt, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lw, &info, 1, 1);
        else if constexpr (std::is_same_v<T, cf>)
            cgesvd_(&jobu, &jobvt, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lw,
                    rwork.data(), &info, 1, 1);
        else
            zgesvd_(&jobu, &jobvt, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lw,
                    rwork.data(), &info, 1, 1);
    };
    call(&query, lwork);
    lwork = std::max(1, static_cast<int>(std::real(query)));
    std::vector<T> work(lwork);
    call(work.data(), lwork);
    return info;
}

}  // namespace

template <class T> int gesvd_values(int m, int n, T* a, int lda, real_t<T>* s) {
    T dummy{};
    return call_gesvd<T>('N', 'N', m, n, a, lda, s, &dummy, 1, &dummy, 1);
}

template <class T>
int gesvd(int m, int n, T* a, int lda, real_t<T>* s, T* u, int ldu, T* vt, int ldvt) {
    return call_gesvd<T>('S', 'S', m, n, a, lda, s, u, ldu, vt, ldvt);
}

template <class T>
int gesdd(int m, int n, T* a, int lda, real_t<T>* s, T* u, int ldu, T* vt, int ldvt) {
    using R = real_t<T>;
    const char jobz = 'S';
    int info = 0, lwork = -1;
    T query{};
    const int k = std::min(m, n), big = std::max(m, n);
    std::vector<int> iwork(std::max(1, 8 * k));
    std::vector<R> rwork(!std::is_same_v<T, R> ? std::max<std::size_t>(1, std::size_t(k) * std::max(5 * k + 7, 2 * big + 2 * k + 1))
                                         : 1);
    auto call = [&](T* work, int lw) {
        if constexpr (std::is_same_v<T, float>)
            sgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lw, iwork.data(), &info, 1);
        else if constexpr (std::is_same_v<T, double>)
            dgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lw, iwork.data(), &info, 1);
        else if constexpr (std::is_same_v<T, cf>)
            cgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lw, rwork.data(), iwork.data(), &info, 1);
        else
            zgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lw, rwork.data(), iwork.data(), &info, 1);
    };
    call(&query, lwork);
    lwork = std::max(1, static_cast<int>(std::real(query)));
    std::vector<T> work(lwork);
    call(work.data(), lwork);
    return info;
}

template <class T> int gesvj(int m, int n, T* a, int lda, T* sva, T* v, int ldv) {
    const char joba = 'G', jobu = 'U', jobv = 'V';
    int mv = 0, info = 0;
    int lwork = std::max(6, m + n);
    std::vector<T> work(lwork);
    if constexpr (std::is_same_v<T, float>)
        sgesvj_(&joba, &jobu, &jobv, &m, &n, a, &lda, sva, &mv, v, &ldv, work.data(), &lwork,
                &info, 1, 1, 1);
    else
        dgesvj_(&joba, &jobu, &jobv, &m, &n, a, &lda, sva, &mv, v, &ldv, work.data(), &lwork,
                &info, 1, 1, 1);
    return info;
}

template <class T> int syevd_values(int n, T* a, int lda, real_t<T>* w) {
    using R = real_t<T>;
    const char jobz = 'N', uplo = 'L';
    int info = 0;
    // Values only: the minimal workspaces are 2n + 1 (real), n + 1 (complex), n (rwork), 1 (iwork).
    int lwork = std::max(1, 2 * n + 1), liwork = 1, lrwork = std::max(1, n);
    std::vector<T> work(lwork);
    std::vector<R> rwork(lrwork);
    std::vector<int> iwork(liwork);
    if constexpr (std::is_same_v<T, float>)
        ssyevd_(&jobz, &uplo, &n, a, &lda, w, work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1);
    else if constexpr (std::is_same_v<T, double>)
        dsyevd_(&jobz, &uplo, &n, a, &lda, w, work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1);
    else if constexpr (std::is_same_v<T, cf>)
        cheevd_(&jobz, &uplo, &n, a, &lda, w, work.data(), &lwork, rwork.data(), &lrwork, iwork.data(), &liwork,
                &info, 1, 1);
    else
        zheevd_(&jobz, &uplo, &n, a, &lda, w, work.data(), &lwork, rwork.data(), &lrwork, iwork.data(), &liwork,
                &info, 1, 1);
    return info;
}

template <class T> int gebrd(int m, int n, T* a, int lda, real_t<T>* d, real_t<T>* e, T* tauq, T* taup) {
    int info = 0, lwork = -1;
    T query{};
    auto call = [&](T* work, int lw) {
        if constexpr (std::is_same_v<T, float>) sgebrd_(&m, &n, a, &lda, d, e, tauq, taup, work, &lw, &info);
        else if constexpr (std::is_same_v<T, double>) dgebrd_(&m, &n, a, &lda, d, e, tauq, taup, work, &lw, &info);
        else if constexpr (std::is_same_v<T, cf>) cgebrd_(&m, &n, a, &lda, d, e, tauq, taup, work, &lw, &info);
        else zgebrd_(&m, &n, a, &lda, d, e, tauq, taup, work, &lw, &info);
    };
    call(&query, lwork);
    lwork = std::max(1, static_cast<int>(std::real(query)));
    std::vector<T> work(lwork);
    call(work.data(), lwork);
    return info;
}

#define BATCHSVD_INSTANTIATE_(T)                                                   \
    template int gebrd<T>(int, int, T*, int, real_t<T>*, real_t<T>*, T*, T*);      \
    template int syevd_values<T>(int, T*, int, real_t<T>*);                        \
    template int gesvd_values<T>(int, int, T*, int, real_t<T>*);                   \
    template int gesvd<T>(int, int, T*, int, real_t<T>*, T*, int, T*, int);       \
    template int gesdd<T>(int, int, T*, int, real_t<T>*, T*, int, T*, int);
BATCHSVD_INSTANTIATE_(float)
BATCHSVD_INSTANTIATE_(double)
BATCHSVD_INSTANTIATE_(cf)
BATCHSVD_INSTANTIATE_(cd)
#undef BATCHSVD_INSTANTIATE_
template int gesvj<float>(int, int, float*, int, float*, float*, int);
template int gesvj<double>(int, int, double*, int, double*, double*, int);

}  // namespace batchsvd::testing::lapack
