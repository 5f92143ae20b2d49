// `batchsvd demo`: generates sample batches (the paper's test families), solves them on the
// chosen backend and prints a table of time and worst errors e1..e4 against 30u.
#include <chrono>
#include <complex>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "cli_args.hpp"
#include "cli_commands.hpp"
#include "npy.hpp"
#include "testing/error_measures.hpp"
#include "testing/generators.hpp"

namespace batchsvd::cli {
namespace {

struct DemoRequest {
    index_t m = 32, n = 32, batch = 1000;
    npy::Dtype dtype = npy::Dtype::float64;
    std::vector<testing::Family> families{testing::Family::random, testing::Family::geo};
    std::optional<std::uint64_t> seed;
    Options opts;
};

npy::Dtype parse_dtype(std::string_view text) {
    for (npy::Dtype d : {npy::Dtype::float32, npy::Dtype::float64, npy::Dtype::complex64,
                         npy::Dtype::complex128})
        if (text == npy::name(d)) return d;
    throw UsageError("bad value '" + std::string(text) +
                     "' for --dtype: expected float32, float64, complex64 or complex128");
}

DemoRequest parse_demo_args(std::span<const std::string_view> args) {
    constexpr std::int64_t max_dim = 1 << 20, max_elements = std::int64_t{1} << 30;
    DemoRequest req;
    for (ArgReader r(args); !r.done();) {
        if (auto v = r.value("--m")) req.m = parse_integer("--m", *v, 1, max_dim);
        else if (auto v = r.value("--n")) req.n = parse_integer("--n", *v, 1, max_dim);
        else if (auto v = r.value("--batch")) req.batch = parse_integer("--batch", *v, 1, max_elements);
        else if (auto v = r.value("--dtype")) req.dtype = parse_dtype(*v);
        else if (auto v = r.value("--family")) {
            const auto f = testing::family_from_string(*v);
            if (!f)
                throw UsageError("bad value '" + std::string(*v) +
                                 "' for --family: expected random, arith, cluster0, cluster1, "
                                 "logrand or geo");
            req.families = {*f};
        } else if (auto v = r.value("--seed"))
            req.seed = static_cast<std::uint64_t>(
                parse_integer("--seed", *v, 0, std::numeric_limits<std::int64_t>::max()));
        else if (auto v = r.value("--backend")) req.opts.backend = parse_backend(*v);
        else if (auto v = r.value("--tol")) req.opts.tol_factor = parse_positive("--tol", *v);
        else if (auto v = r.value("--max-sweeps"))
            req.opts.max_sweeps = static_cast<int>(parse_integer("--max-sweeps", *v, 1, 1000000));
        else if (auto p = r.positional())
            throw UsageError("demo takes no file arguments, got '" + std::string(*p) + "'");
    }
    if (req.m * req.n > max_elements / req.batch)
        throw UsageError("demo batch too large: m * n * batch must be at most 2^30");
    return req;
}

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

void check_demo_args(std::span<const std::string_view> args) { (void)parse_demo_args(args); }

int run_demo(std::span<const std::string_view> args) {
    const DemoRequest req = parse_demo_args(args);
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
