// SPDX-License-Identifier: BSD-3-Clause
// The CPU backend's gebrd and bidiagonal singular values: OpenMP over the batch, one matrix a
// thread (each matrix's result independent of the thread count and of the batch).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

#include <omp.h>

#include "core/bidiagonal_dqds.hpp"
#include "cpu/batch_loops.hpp"
#include "cpu/bidiagonal/bidiagonal_cpu.hpp"
#include "cpu/bidiagonal/gebrd.hpp"

#if defined(BATCHSVD_HAVE_LAPACK)
extern "C" {
void slasq1_(const int*, float*, float*, float*, int*);
void dlasq1_(const int*, double*, double*, double*, int*);
}
#endif

namespace batchsvd::cpu {

namespace {

/// The bidiagonal's singular values, descending: LAPACK's ?lasq1 (dqds, Fernando and
/// Parlett: relative accuracy, O(n^2) with a small constant) where the build has LAPACK,
/// else, or where ?lasq1 reports a failure, the GPU's dqds (core/bidiagonal_dqds.hpp, which
/// takes the bisection of core/bidiagonal_values.hpp for the blocks it does not trust). dqds
/// measured 5 to 20 times faster than the bisection on the development machine.
/// d and e are destroyed.
template <class R> void bidiagonal_values(int n, R* d, R* e, R* s, std::vector<R>& work) {
#if defined(BATCHSVD_HAVE_LAPACK)
    std::copy_n(d, n, s);
    std::vector<R> e_copy(e, e + std::max(n - 1, 0));
    work.resize(std::size_t(4) * std::max(n, 1));
    int info = 0;
    if constexpr (std::is_same_v<R, float>) slasq1_(&n, s, e, work.data(), &info);
    else dlasq1_(&n, s, e, work.data(), &info);
    if (info == 0) return;
    std::copy(e_copy.begin(), e_copy.end(), e);
#else
    (void)work;
#endif
    std::vector<double> dq_work(std::size_t(5) * std::max(n, 1));
    core::bidiagonal_singular_values_dqds<R>(n, d, e, s, dq_work.data());
}

using namespace isa_baseline::bidiagonal;


template <class T> bool all_finite(index_t m, index_t n, const T* a, index_t lda) {
    for (index_t j = 0; j < n; ++j)
        for (index_t i = 0; i < m; ++i) {
            const T x = a[i + j * lda];
            if (!std::isfinite(std::real(x)) || !std::isfinite(std::imag(x))) return false;
        }
    return true;
}


}  // namespace

namespace {

template <class T> struct BrdWorkspace {
    std::vector<T> work, w;
    std::vector<real_t<T>> d, e, lwork;
};

/// gebrd of one matrix in place; returns its info.
template <class T>
int gebrd_one(index_t m, index_t n, T* A, index_t lda, real_t<T>* d, real_t<T>* e, T* tq, T* tp, BrdWorkspace<T>& ws) {
    const index_t k = std::min(m, n);
    if (k == 0) return 0;
    if (!all_finite(m, n, A, lda)) {
        fill_nan(m, n, A, lda);
        fill_nan(k, 1, d, k);
        if (e) fill_nan(k - 1, 1, e, k);
        fill_nan(k, 1, tq, k);
        fill_nan(k, 1, tp, k);
        return info_nonfinite;
    }
    ws.w.resize(std::max<index_t>(std::max(m, n), 1));
    if (!e) ws.e.resize(std::max<index_t>(k, 1));  // (e may be null only for k = 1)
    gebd2(m, n, A, lda, d, e ? e : ws.e.data(), tq, tp, ws.w.data());
    return 0;
}

/// Singular values (descending) of one matrix by gebrd and its bidiagonal's values; returns its info.
template <class T>
int svdvals_one(index_t m, index_t n, const T* A, index_t lda, real_t<T>* s, BrdWorkspace<T>& ws) {
    using R = real_t<T>;
    const index_t k = std::min(m, n);
    if (k == 0) return 0;
    if (!all_finite(m, n, A, lda)) {
        for (index_t i = 0; i < k; ++i) s[i] = std::numeric_limits<R>::quiet_NaN();
        return info_nonfinite;
    }
    // A wide matrix is reduced as its conjugate transpose (same values, upper bidiagonal).
    const bool wide = m < n;
    const index_t M = wide ? n : m, N = wide ? m : n;
    ws.work.resize(std::size_t(m * n));
    ws.w.resize(M);
    ws.d.resize(N);
    ws.e.resize(N);
    for (index_t j = 0; j < n; ++j)
        for (index_t i = 0; i < m; ++i) {
            if (wide) ws.work[j + i * M] = core::conj_of(A[i + j * lda]);
            else ws.work[i + j * M] = A[i + j * lda];
        }
    gebd2(M, N, ws.work.data(), M, ws.d.data(), ws.e.data(), static_cast<T*>(nullptr), static_cast<T*>(nullptr),
          ws.w.data());
    bidiagonal_values<R>(static_cast<int>(N), ws.d.data(), ws.e.data(), s, ws.lwork);
    return 0;
}

/// job(i, ws) for i < count, a thread each (dynamic schedule), errors kept and rethrown.
template <class T, class Job> void over_items(index_t count, const Options& opts, Job&& job) {
    BatchErrors errors;
#pragma omp parallel num_threads(threads_for(opts, count))
    {
        BrdWorkspace<T> ws;
#pragma omp for schedule(dynamic, 1)
        for (index_t i = 0; i < count; ++i) errors.run([&] { job(i, ws); });
    }
    errors.rethrow();
}

/// Matrix indices by descending cost m n min(m, n) (dynamic scheduling takes the largest first).
std::vector<index_t> largest_first(index_t count, const index_t* which, const index_t* m, const index_t* n) {
    std::vector<index_t> order(which, which + count);
    auto cost = [&](index_t b) { return double(m[b]) * double(n[b]) * double(std::min(m[b], n[b])); };
    std::stable_sort(order.begin(), order.end(), [&](index_t x, index_t y) { return cost(x) > cost(y); });
    return order;
}

}  // namespace

template <class T>
void gebrd(index_t m, index_t n, index_t batch, MatrixBatch<T> a, BidiagonalBatch<T> out, int* info,
           const Options& opts) {
    over_items<T>(batch, opts, [&](index_t b, BrdWorkspace<T>& ws) {
        const std::size_t o = std::size_t(b * out.stride);
        info[b] = gebrd_one(m, n, a.data + b * a.stride, a.ld, out.d + o, out.e ? out.e + o : nullptr,
                            out.tauq ? out.tauq + o : nullptr, out.taup ? out.taup + o : nullptr, ws);
    });
}

template <class T>
void svdvals_bidiagonal(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s,
                        index_t s_stride, int* info, const Options& opts) {
    over_items<T>(batch, opts, [&](index_t b, BrdWorkspace<T>& ws) {
        info[b] = svdvals_one(m, n, a.data + b * a.stride, a.ld, s + b * s_stride, ws);
        if (opts.sweeps) opts.sweeps[b] = 0;
    });
}

template <class T>
void svdvals_bidiagonal_list(index_t count, const index_t* which, const index_t* m, const index_t* n,
                             MatrixList<const T> a, real_t<T>* const* s, int* info, const Options& opts) {
    const std::vector<index_t> order = largest_first(count, which, m, n);
    over_items<T>(count, opts, [&](index_t i, BrdWorkspace<T>& ws) {
        const index_t b = order[std::size_t(i)];
        info[b] = svdvals_one(m[b], n[b], a.data[b], a.ld[b], s[b], ws);
        if (opts.sweeps) opts.sweeps[b] = 0;
    });
}

template <class T>
void gebrd_vbatched(index_t batch, const index_t* m, const index_t* n, MatrixList<T> a, BidiagonalList<T> out,
                    int* info, const Options& opts) {
    std::vector<index_t> all(static_cast<std::size_t>(batch));
    std::iota(all.begin(), all.end(), index_t(0));
    const std::vector<index_t> order = largest_first(batch, all.data(), m, n);
    over_items<T>(batch, opts, [&](index_t i, BrdWorkspace<T>& ws) {
        const index_t b = order[std::size_t(i)];
        info[b] = gebrd_one(m[b], n[b], a.data[b], a.ld[b], out.d[b], out.e ? out.e[b] : nullptr,
                            out.tauq ? out.tauq[b] : nullptr, out.taup ? out.taup[b] : nullptr, ws);
    });
}

#define BATCHSVD_INSTANTIATE_(T)                                                                               \
    template void gebrd<T>(index_t, index_t, index_t, MatrixBatch<T>, BidiagonalBatch<T>, int*, const Options&); \
    template void svdvals_bidiagonal_list<T>(index_t, const index_t*, const index_t*, const index_t*,            \
                                             MatrixList<const T>, real_t<T>* const*, int*, const Options&);     \
    template void gebrd_vbatched<T>(index_t, const index_t*, const index_t*, MatrixList<T>, BidiagonalList<T>,   \
                                    int*, const Options&);                                                       \
    template void svdvals_bidiagonal<T>(index_t, index_t, index_t, MatrixBatch<const T>, real_t<T>*, index_t,  \
                                        int*, const Options&);
BATCHSVD_INSTANTIATE_(float)
BATCHSVD_INSTANTIATE_(double)
BATCHSVD_INSTANTIATE_(std::complex<float>)
BATCHSVD_INSTANTIATE_(std::complex<double>)
#undef BATCHSVD_INSTANTIATE_

}  // namespace batchsvd::cpu
