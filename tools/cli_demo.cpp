// SPDX-License-Identifier: BSD-3-Clause
// `batchsvd demo`: generates sample batches (the paper's test families), solves them on the
// chosen backend and prints a table of time and worst errors e1..e4 against 30u.
#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "cli_args.hpp"
#include "cli_commands.hpp"
#include "npy.hpp"
#include "testing/error_measures.hpp"
#include "testing/generators.hpp"

namespace batchsvd::cli {
namespace {

template <class T> void run_family(const DemoRequest& req, testing::Family family,
                                   std::uint64_t seed, const char* backend) {
    const index_t k = std::min(req.m, req.n);
    const auto count = [&](index_t per) { return static_cast<std::size_t>(req.batch * per); };
    const std::vector<T> a = testing::generate_batch<T>(family, req.m, req.n, req.batch, seed);
    std::vector<real_t<T>> s(count(k));
    std::vector<T> u(count(req.m * k)), v(count(req.n * k));
    std::vector<int> info(count(1));

    const auto start = std::chrono::steady_clock::now();
    gesvd<T>(req.m, req.n, req.batch, a.data(), s.data(), u.data(), v.data(), info.data(),
             req.opts);
    const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;

    const testing::Errors e =
        testing::measure_batch<T>(req.m, req.n, req.batch, a.data(), s.data(), u.data(), v.data());
    const double limit = 30 * testing::unit_roundoff<T>();
    const bool ok = e.e1 < limit && e.e2 < limit && e.e3 < limit && e.e4 < limit && e.sorted;
    std::size_t nonzero = 0;
    for (int i : info) nonzero += i != 0;
    std::printf("%-7s %-10s %-8s %5lld %5lld %7lld %10.2f %9.2e %9.2e %9.2e %9.2e  %s\n", backend,
                npy::name(npy::dtype_v<T>), testing::to_string(family),
                static_cast<long long>(req.m), static_cast<long long>(req.n),
                static_cast<long long>(req.batch), ms.count(), e.e1, e.e2, e.e3, e.e4,
                ok ? "yes" : "no");
    if (nonzero > 0)
        std::fprintf(stderr, "batchsvd: warning: %zu of %lld %s matrices have nonzero info\n",
                     nonzero, static_cast<long long>(req.batch), testing::to_string(family));
}

template <class T> void run_all(const DemoRequest& req) {
    const char* backend = backend_label(req.opts.backend);
    const std::uint64_t seed = req.seed ? *req.seed : testing::fresh_seed();
    std::printf("batchsvd %s demo: backend %s, seed %llu, 30u = %.2e\n", version(), backend,
                static_cast<unsigned long long>(seed), 30 * testing::unit_roundoff<T>());
    {  // warm-up (thread pool, device context) so that the timings show the solver
        const std::vector<T> a = testing::generate_batch<T>(testing::Family::random, 4, 4, 1, seed);
        std::vector<real_t<T>> s(4);
        std::vector<T> u(16), v(16);
        int info = 0;
        gesvd<T>(4, 4, 1, a.data(), s.data(), u.data(), v.data(), &info, req.opts);
    }
    std::printf("%-7s %-10s %-8s %5s %5s %7s %10s %9s %9s %9s %9s  %s\n", "backend", "dtype",
                "family", "m", "n", "batch", "time_ms", "max_e1", "max_e2", "max_e3", "max_e4",
                "below_30u");
    for (std::size_t i = 0; i < req.families.size(); ++i)
        run_family<T>(req, req.families[i], seed + i, backend);
}

}  // namespace

int run_demo(const DemoRequest& req) {
    switch (req.dtype) {
    case npy::Dtype::float32: run_all<float>(req); break;
    case npy::Dtype::float64: run_all<double>(req); break;
    case npy::Dtype::complex64: run_all<std::complex<float>>(req); break;
    case npy::Dtype::complex128: run_all<std::complex<double>>(req); break;
    case npy::Dtype::int32: break;
    }
    return exit_ok;
}

}  // namespace batchsvd::cli
