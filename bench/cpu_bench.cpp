// SPDX-License-Identifier: BSD-3-Clause
// CPU baseline benchmark: batchsvd's CPU backend against an OpenMP loop over LAPACK's
// ?gesvj (the one-sided Jacobi SVD) and ?gesvd on the same cores and the same inputs.
// Prints one CSV row per case (median of --reps runs after a warm-up) with the max e1-e4 of
// each library.
//   batchsvd_cpu_bench [--m 32] [--n 32] [--batch 2000] [--dtype f64|f32] [--reps 7]
//                      [--family random] [--csv FILE] [--variant auto|unblocked|blocked]
//                      [--block-width NB] [--precondition auto|always|never] [--qr auto|always|never]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "batchsvd/batchsvd.hpp"
#include "testing/error_measures.hpp"
#include "testing/generators.hpp"
#include "lapack_loop.hpp"

using namespace batchsvd;

namespace {

struct Args {
    index_t m = 32, n = 32, batch = 2000;
    std::string dtype = "f64", family = "random", csv, variant = "auto", precondition = "auto", qr = "auto";
    int block_width = 0;
    int reps = 7;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

template <class F> double time_ms(F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

template <class T> int run(const Args& args) {
    const index_t m = args.m, n = args.n, batch = args.batch, k = std::min(m, n);
    const auto family = testing::family_from_string(args.family);
    if (!family || m < n) {
        std::fprintf(stderr, "cpu_bench: need a known family and m >= n (gesvj)\n");
        return 2;
    }
    const std::vector<T> a = testing::generate_batch<T>(*family, m, n, batch, testing::fresh_seed());
    std::vector<T> s(k * batch), u(m * k * batch), v(n * k * batch);
    std::vector<int> info(batch);
    Options opts;
    opts.backend = Backend::cpu;
    opts.variant = args.variant == "unblocked" ? JacobiVariant::unblocked
                   : args.variant == "blocked" ? JacobiVariant::blocked
                                               : JacobiVariant::automatic;
    opts.block_width = args.block_width;
    opts.qr = args.qr == "always" ? QrMode::always : args.qr == "never" ? QrMode::never : QrMode::automatic;
    opts.precondition = args.precondition == "always"  ? PreconditionMode::always
                        : args.precondition == "never" ? PreconditionMode::never
                                                       : PreconditionMode::automatic;

    // batchsvd
    std::vector<double> t_ours;
    for (int r = 0; r <= args.reps; ++r) {
        std::fill(s.begin(), s.end(), T(-1));
        const double t = time_ms([&] { gesvd<T>(m, n, batch, a.data(), s.data(), u.data(), v.data(), info.data(), opts); });
        if (r > 0) t_ours.push_back(t);  // run 0 is the warm-up
    }
    const testing::Errors e_ours = testing::measure_batch<T>(m, n, batch, a.data(), s.data(), u.data(), v.data());

    // LAPACK ?gesvj and ?gesvd in an OpenMP loop (lapack_loop.hpp), the same repetitions.
    const bench::LapackLoopRun gesvj_run = bench::run_lapack_loop<T>(bench::LapackRoutine::gesvj, m, n, batch, a.data(), args.reps);
    const bench::LapackLoopRun gesvd_run = bench::run_lapack_loop<T>(bench::LapackRoutine::gesvd, m, n, batch, a.data(), args.reps);
    const testing::Errors& e_gesvj = gesvj_run.errors;

    const double ours = median(t_ours), gesvj = gesvj_run.ms, gesvd = gesvd_run.ms;
    const double ur = testing::unit_roundoff<T>();
    char row[512];
    std::snprintf(row, sizeof row,
                  "%s,%s,%ld,%ld,%ld,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.2e,%.2e,%.2e,%.2e,%.2e,%.2e,%.2e,%.2e",
                  args.dtype.c_str(), args.family.c_str(), long(m), long(n), long(batch), omp_get_max_threads(), ours,
                  gesvj, gesvd, gesvj / ours, gesvd / ours, e_ours.e1 / ur, e_ours.e2 / ur, e_ours.e3 / ur, e_ours.e4 / ur,
                  e_gesvj.e1 / ur, e_gesvj.e2 / ur, e_gesvj.e3 / ur, e_gesvj.e4 / ur);
    const char* header =
        "dtype,family,m,n,batch,threads,batchsvd_ms,gesvj_ms,gesvd_ms,gesvj_over_batchsvd,gesvd_over_batchsvd,"
        "batchsvd_e1_u,batchsvd_e2_u,batchsvd_e3_u,batchsvd_e4_u,gesvj_e1_u,gesvj_e2_u,gesvj_e3_u,gesvj_e4_u";
    std::printf("%s\n%s\n", header, row);
    if (!args.csv.empty()) {
        const bool fresh = !std::ifstream(args.csv).good();
        std::ofstream out(args.csv, std::ios::app);
        if (fresh) out << header << "\n";
        out << row << "\n";
    }
    for (index_t b = 0; b < batch; ++b)
        if (info[b] != 0) {
            std::fprintf(stderr, "cpu_bench: matrix %ld info %d\n", long(b), info[b]);
            return 1;
        }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    Args args;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i], val = argv[i + 1];
        if (key == "--m") args.m = std::stol(val);
        else if (key == "--n") args.n = std::stol(val);
        else if (key == "--batch") args.batch = std::stol(val);
        else if (key == "--dtype") args.dtype = val;
        else if (key == "--reps") args.reps = std::stoi(val);
        else if (key == "--family") args.family = val;
        else if (key == "--csv") args.csv = val;
        else if (key == "--variant") args.variant = val;
        else if (key == "--precondition") args.precondition = val;
        else if (key == "--qr") args.qr = val;
        else if (key == "--block-width") args.block_width = std::stoi(val);
        else {
            std::fprintf(stderr, "cpu_bench: unknown option %s\n", key.c_str());
            return 2;
        }
    }
    if (args.dtype == "f64") return run<double>(args);
    if (args.dtype == "f32") return run<float>(args);
    std::fprintf(stderr, "cpu_bench: --dtype f64 or f32\n");
    return 2;
}
