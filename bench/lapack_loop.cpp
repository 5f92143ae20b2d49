// SPDX-License-Identifier: BSD-3-Clause
// The CPU baseline of both benchmarks (lapack_loop.hpp).
#include "lapack_loop.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "core/scalar.hpp"
#include "cpu/blas_threads.hpp"
#include "testing/lapack.hpp"

namespace batchsvd::bench {
namespace {

template <class F> double time_ms(F&& f) {
    const cpu::SingleThreadedBlas one;  // LAPACK's BLAS on one thread inside the loop
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int lapack_loop_threads() { return omp_get_max_threads(); }

template <class T>
double gesvj_loop(index_t m, index_t n, index_t batch, const T* a, real_t<T>* s, T* u, T* v) {
    if constexpr (!std::is_same_v<T, real_t<T>>) {
        throw std::invalid_argument("gesvj_loop: LAPACK's ?gesvj is for real types");
    } else {
        if (m < n) throw std::invalid_argument("gesvj_loop: needs m >= n");
        return time_ms([&] {
#pragma omp parallel for schedule(dynamic, 1)
            for (index_t b = 0; b < batch; ++b) {
                T* ub = u + b * m * n;  // k = n: U is m x n, V is n x n
                std::memcpy(ub, a + b * m * n, sizeof(T) * m * n);
                testing::lapack::gesvj<T>(int(m), int(n), ub, int(m), s + b * n, v + b * n * n, int(n));
            }
        });
    }
}

template <class T>
double gesvd_loop(LapackRoutine routine, index_t m, index_t n, index_t batch, const T* a, real_t<T>* s, T* u, T* v) {
    if (m < n) throw std::invalid_argument("gesvd_loop: needs m >= n");
    if (routine == LapackRoutine::gesvj) throw std::invalid_argument("gesvd_loop: ?gesvd or ?gesdd");
    const index_t k = n;
    return time_ms([&] {
#pragma omp parallel
        {
            std::vector<T> w(m * n), vt(k * n);
#pragma omp for schedule(dynamic, 1)
            for (index_t b = 0; b < batch; ++b) {
                std::memcpy(w.data(), a + b * m * n, sizeof(T) * m * n);
                const auto svd = routine == LapackRoutine::gesdd ? testing::lapack::gesdd<T> : testing::lapack::gesvd<T>;
                svd(int(m), int(n), w.data(), int(m), s + b * k, u + b * m * k, int(m), vt.data(), int(k));
                T* vb = v + b * n * k;  // V = (V^H)^H
                for (index_t j = 0; j < k; ++j)
                    for (index_t i = 0; i < n; ++i) vb[i + j * n] = core::conj_of(vt[j + i * k]);
            }
        }
    });
}

template <class T>
double batchsvd_cpu_call(index_t m, index_t n, index_t batch, const T* a, real_t<T>* s, T* u, T* v) {
    if (m < n) throw std::invalid_argument("batchsvd_cpu_call: needs m >= n");
    Options o;
    o.backend = Backend::cpu;
    o.threads = omp_get_max_threads();
    std::vector<int> info(static_cast<std::size_t>(batch));
    const auto t0 = std::chrono::steady_clock::now();
    gesvd<T>(m, n, batch, a, s, u, v, info.data(), o);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    for (int i : info)
        if (i != 0) throw std::runtime_error("batchsvd_cpu_call: a status is not 0");
    return ms;
}

template <class T>
LapackLoopRun run_lapack_loop(LapackRoutine routine, index_t m, index_t n, index_t batch, const T* a, int reps) {
    const index_t k = std::min(m, n);
    std::vector<real_t<T>> s(k * batch);
    std::vector<T> u(m * k * batch), v(n * k * batch);
    // Wide (m < n): the loops need rows >= columns, so they solve A^H = U' S V'^H (n x m,
    // conjugate-transposed here, untimed) and A = V' S U'^H: U' (n x k) is written to v and
    // V' (m x k) to u, which are then A's own factors.
    const bool wide = m < n;
    std::vector<T> at(wide ? m * n * batch : 0);
    for (index_t b = 0; b < (wide ? batch : 0); ++b)
        for (index_t j = 0; j < n; ++j)
            for (index_t i = 0; i < m; ++i)
                at[b * m * n + j + i * n] = core::conj_of(a[b * m * n + i + j * m]);
    const index_t rows = wide ? n : m, cols = wide ? m : n;
    const T* in = wide ? at.data() : a;
    T* lu = wide ? v.data() : u.data();
    T* lv = wide ? u.data() : v.data();
    auto loop = [&] {
        if (routine == LapackRoutine::batchsvd) return batchsvd_cpu_call<T>(rows, cols, batch, in, s.data(), lu, lv);
        return routine == LapackRoutine::gesvj ? gesvj_loop<T>(rows, cols, batch, in, s.data(), lu, lv)
                                               : gesvd_loop<T>(routine, rows, cols, batch, in, s.data(), lu, lv);
    };
    std::vector<double> t;
    if (reps > 1) loop();  // warm-up
    for (int r = 0; r < std::max(1, reps); ++r) t.push_back(loop());
    std::sort(t.begin(), t.end());
    LapackLoopRun run;
    run.ms = t[t.size() / 2];
    run.errors = testing::measure_batch<T>(m, n, batch, a, s.data(), u.data(), v.data());
    return run;
}

#define BATCHSVD_LAPACK_LOOP_(T)                                                                     \
    template double gesvj_loop<T>(index_t, index_t, index_t, const T*, real_t<T>*, T*, T*);         \
    template double gesvd_loop<T>(LapackRoutine, index_t, index_t, index_t, const T*, real_t<T>*, T*, T*); \
    template double batchsvd_cpu_call<T>(index_t, index_t, index_t, const T*, real_t<T>*, T*, T*);  \
    template LapackLoopRun run_lapack_loop<T>(LapackRoutine, index_t, index_t, index_t, const T*, int);
BATCHSVD_LAPACK_LOOP_(float)
BATCHSVD_LAPACK_LOOP_(double)
BATCHSVD_LAPACK_LOOP_(std::complex<float>)
BATCHSVD_LAPACK_LOOP_(std::complex<double>)
#undef BATCHSVD_LAPACK_LOOP_

}  // namespace batchsvd::bench
