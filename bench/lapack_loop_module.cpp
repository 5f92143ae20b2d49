// SPDX-License-Identifier: BSD-3-Clause
// The LAPACK loops (lapack_loop.hpp) as a C function, for benchmarks written in Python
// (cpu_numpy_bench.py loads this library with ctypes): one packed batch, one routine, the
// median time and the errors of its results.
#include <omp.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <exception>
#include <limits>

#include "lapack_loop.hpp"

namespace {

template <class T>
double run(batchsvd::bench::LapackRoutine routine, long m, long n, long batch, const void* a, int reps, double* errors) {
    const batchsvd::bench::LapackLoopRun r =
        batchsvd::bench::run_lapack_loop<T>(routine, m, n, batch, static_cast<const T*>(a), reps);
    if (errors) {
        errors[0] = r.errors.e1;
        errors[1] = r.errors.e2;
        errors[2] = r.errors.e3;
        errors[3] = r.errors.e4;
    }
    return r.ms;
}

}  // namespace

/// Median milliseconds of `reps` runs (after a warm-up) of LAPACK `routine` ("gesvd",
/// "gesdd" or "gesvj", or "batchsvd": the library's CPU backend in one call) over a packed column-major batch of `dtype` ("float32", "float64",
/// "complex64", "complex128") on `threads` OpenMP threads (0: OpenMP's default); errors[0..3]
/// (if not null) receive e1-e4 of its results. NaN where the routine does not take the type
/// (?gesvj: real only) or a call fails.
extern "C" __attribute__((visibility("default"))) double batchsvd_bench_lapack_loop(
    const char* routine, const char* dtype, long m, long n, long batch, const void* a, int threads, int reps,
    double* errors) {
    using batchsvd::bench::LapackRoutine;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    try {
        const LapackRoutine r = std::strcmp(routine, "gesvj") == 0      ? LapackRoutine::gesvj
                                : std::strcmp(routine, "gesdd") == 0    ? LapackRoutine::gesdd
                                : std::strcmp(routine, "gesvd") == 0    ? LapackRoutine::gesvd
                                : std::strcmp(routine, "batchsvd") == 0 ? LapackRoutine::batchsvd
                                                                        : throw std::invalid_argument(routine);
        const int before = omp_get_max_threads();
        if (threads > 0) omp_set_num_threads(threads);
        double ms = nan;
        if (std::strcmp(dtype, "float32") == 0) ms = run<float>(r, m, n, batch, a, reps, errors);
        else if (std::strcmp(dtype, "float64") == 0) ms = run<double>(r, m, n, batch, a, reps, errors);
        else if (r != LapackRoutine::gesvj && std::strcmp(dtype, "complex64") == 0)
            ms = run<std::complex<float>>(r, m, n, batch, a, reps, errors);
        else if (r != LapackRoutine::gesvj && std::strcmp(dtype, "complex128") == 0)
            ms = run<std::complex<double>>(r, m, n, batch, a, reps, errors);
        omp_set_num_threads(before);
        return ms;
    } catch (const std::exception&) {
        return nan;
    }
}
