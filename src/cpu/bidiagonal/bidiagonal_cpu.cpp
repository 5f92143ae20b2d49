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

#include "core/bidiagonal_values.hpp"
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
/// else, or where dqds reports a failure, bisection (core/bidiagonal_values.hpp, the GPU's
/// form). dqds measured 5 to 20 times faster than the bisection on the development machine.
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
    core::bidiagonal_singular_values<R>(n, d, e, s);
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

template <class T>
void gebrd(index_t m, index_t n, index_t batch, MatrixBatch<T> a, BidiagonalBatch<T> out, int* info,
           const Options& opts) {
    using R = real_t<T>;
    const index_t k = std::min(m, n);
    const int threads = threads_for(opts, batch);
    BatchErrors errors;
#pragma omp parallel num_threads(threads)
    {
        std::vector<T> w;
#pragma omp for schedule(dynamic, 1)
        for (index_t b = 0; b < batch; ++b) errors.run([&] {
            w.resize(std::max<index_t>(std::max(m, n), 1));
            T* A = a.data + b * a.stride;
            R* d = out.d + b * out.stride;
            R* e = out.e ? out.e + b * out.stride : nullptr;
            T* tq = out.tauq ? out.tauq + b * out.stride : nullptr;
            T* tp = out.taup ? out.taup + b * out.stride : nullptr;
            info[b] = 0;
            if (k == 0) return;
            if (!all_finite(m, n, A, a.ld)) {
                fill_nan(m, n, A, a.ld);
                fill_nan(k, 1, d, k);
                if (e) fill_nan(k - 1, 1, e, k);
                fill_nan(k, 1, tq, k);
                fill_nan(k, 1, tp, k);
                info[b] = info_nonfinite;
                return;
            }
            std::vector<R> e_local;  // (e may be null only for k = 1)
            if (!e) e_local.resize(std::max<index_t>(k, 1));
            gebd2(m, n, A, a.ld, d, e ? e : e_local.data(), tq, tp, w.data());
        });
    }
    errors.rethrow();
}

template <class T>
void svdvals_bidiagonal(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s,
                        index_t s_stride, int* info, const Options& opts) {
    using R = real_t<T>;
    const index_t k = std::min(m, n);
    const int threads = threads_for(opts, batch);
    BatchErrors errors;
#pragma omp parallel num_threads(threads)
    {
        std::vector<T> work, w;
        std::vector<R> d, e, lwork;
#pragma omp for schedule(dynamic, 1)
        for (index_t b = 0; b < batch; ++b) errors.run([&] {
            work.resize(std::size_t(std::max<index_t>(m * n, 1)));
            w.resize(std::max<index_t>(std::max(m, n), 1));
            d.resize(std::max<index_t>(k, 1));
            e.resize(std::max<index_t>(k, 1));
            const T* A = a.data + b * a.stride;
            R* sb = s + b * s_stride;
            info[b] = 0;
            if (opts.sweeps) opts.sweeps[b] = 0;
            if (k == 0) return;
            if (!all_finite(m, n, A, a.ld)) {
                for (index_t i = 0; i < k; ++i) sb[i] = std::numeric_limits<R>::quiet_NaN();
                info[b] = info_nonfinite;
                return;
            }
            // A wide matrix is reduced as its conjugate transpose (same values, upper bidiagonal).
            const bool wide = m < n;
            const index_t M = wide ? n : m, N = wide ? m : n;
            for (index_t j = 0; j < n; ++j)
                for (index_t i = 0; i < m; ++i) {
                    if (wide) work[j + i * M] = core::conj_of(A[i + j * a.ld]);
                    else work[i + j * M] = A[i + j * a.ld];
                }
            gebd2(M, N, work.data(), M, d.data(), e.data(), static_cast<T*>(nullptr), static_cast<T*>(nullptr),
                  w.data());
            bidiagonal_values<R>(static_cast<int>(N), d.data(), e.data(), sb, lwork);
        });
    }
    errors.rethrow();
}

namespace {

/// Matrix indices by descending cost m n min(m, n) (dynamic scheduling takes the largest first).
std::vector<index_t> largest_first(index_t count, const index_t* which, const index_t* m, const index_t* n) {
    std::vector<index_t> order(which, which + count);
    auto cost = [&](index_t b) { return double(m[b]) * double(n[b]) * double(std::min(m[b], n[b])); };
    std::stable_sort(order.begin(), order.end(), [&](index_t x, index_t y) { return cost(x) > cost(y); });
    return order;
}

}  // namespace

template <class T>
void svdvals_bidiagonal_list(index_t count, const index_t* which, const index_t* m, const index_t* n,
                             MatrixList<const T> a, real_t<T>* const* s, int* info, const Options& opts) {
    const std::vector<index_t> order = largest_first(count, which, m, n);
    Options one = opts;
    one.threads = 1;
    BatchErrors errors;
#pragma omp parallel for num_threads(threads_for(opts, count)) schedule(dynamic, 1)
    for (index_t i = 0; i < count; ++i) errors.run([&] {
        const index_t b = order[std::size_t(i)];
        Options mine = one;
        mine.sweeps = opts.sweeps ? opts.sweeps + b : nullptr;
        svdvals_bidiagonal<T>(m[b], n[b], 1, MatrixBatch<const T>{a.data[b], a.ld[b], 0}, s[b], std::min(m[b], n[b]),
                              info + b, mine);
    });
    errors.rethrow();
}

template <class T>
void gebrd_vbatched(index_t batch, const index_t* m, const index_t* n, MatrixList<T> a, BidiagonalList<T> out,
                    int* info, const Options& opts) {
    std::vector<index_t> all(static_cast<std::size_t>(batch));
    std::iota(all.begin(), all.end(), index_t(0));
    const std::vector<index_t> order = largest_first(batch, all.data(), m, n);
    Options one = opts;
    one.threads = 1;
    BatchErrors errors;
#pragma omp parallel for num_threads(threads_for(opts, batch)) schedule(dynamic, 1)
    for (index_t i = 0; i < batch; ++i) errors.run([&] {
        const index_t b = order[std::size_t(i)];
        const index_t k = std::min(m[b], n[b]);
        cpu::gebrd<T>(m[b], n[b], 1, MatrixBatch<T>{a.data[b], a.ld[b], 0},
                 BidiagonalBatch<T>{out.d[b], out.e ? out.e[b] : nullptr, out.tauq ? out.tauq[b] : nullptr,
                                    out.taup ? out.taup[b] : nullptr, std::max<index_t>(k, 1)},
                 info + b, one);
    });
    errors.rethrow();
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
