// SPDX-License-Identifier: BSD-3-Clause
// A batch over several GPUs of one host (Options::devices) against one GPU, in the same run:
// for each case and each GPU count g in --gpus (those the machine has), devices {0 .. g-1},
// the input either in device 0's memory (input=device: the other shares travel by peer copies)
// or in pinned host memory (input=host). A batch of one large matrix is spread over the GPUs
// (one_matrix_over_devices.cu). Times are CUDA events on a stream of device 0 around the call
// (which returns when every other device's share is back), after --warmup calls (0: only a
// small call that makes the GPUs' NCCL communicators, for the largest cases), the median of
// --reps calls. Each g's result is compared bitwise with one GPU's, and (--check lapack) e1-e4
// of its first and last matrix against LAPACK in units of u, or (--check one-gpu, for orders
// whose LAPACK reference takes too long) the largest difference of S from one GPU's S in
// units of u times the largest singular value.
//   batchsvd_multi_gpu_bench [--gpus 1,2,4,8] [--reps 5] [--warmup 1] [--input device|host|both]
//                            [--check lapack|one-gpu] [--release-between]
//                            [--case PRECISION:BATCHxMxN ...]
//                            (default: the cases below)
// The library keeps its workspace between calls (its workspace pool): --release-between gives
// it back before every call (batchsvd::release_cached_memory, outside the time).
// CSV on stdout: mode=multigpu, gpu, date, commit ($BATCHSVD_GIT_COMMIT, else the build's),
// gpus, precision, m, n, batch, input, batchsvd_ms, one_gpu_ms, speedup, bitwise_one_gpu, err_u, check.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <ctime>
#include <exception>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "batchsvd/batchsvd.hpp"
#include "cuda_bench_support.hpp"
#include "testing/error_measures.hpp"
#include "testing/outputs.hpp"

namespace {

using batchsvd::index_t;
using batchsvd::bench::Buffer;
using batchsvd::bench::today;

constexpr const char* kProgram = "multi_gpu_bench";
bool release_between = false;  ///< --release-between
#define CK(call) batchsvd::bench::cuda_check((call), #call, kProgram)

struct Case {
    std::string precision;
    index_t batch, m, n;
};

/// Uniform [-1, 1) entries ("random"), filled by all host threads.
template <class T> std::vector<T> random_batch(std::size_t count, std::uint64_t seed) {
    using R = batchsvd::real_t<T>;
    std::vector<T> a(count);
    const unsigned threads = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            std::mt19937_64 g(seed * 1000003 + t);
            std::uniform_real_distribution<double> d(-1, 1);
            for (std::size_t i = t; i < count; i += threads) {
                if constexpr (std::is_same_v<T, R>) a[i] = T(d(g));
                else a[i] = T(R(d(g)), R(d(g)));
            }
        });
    for (auto& th : pool) th.join();
    return a;
}

template <class T> using Result = batchsvd::testing::Outputs<T>;

/// Makes the NCCL communicators of `devices` with a small matrix spread over them (a call
/// whose time is not taken), so that a timed call without warm-up does not count their set-up.
template <class T> void make_communicators(const std::vector<int>& devices) {
    using R = batchsvd::real_t<T>;
    const index_t n = 256;
    const std::vector<T> a = random_batch<T>(std::size_t(n * n), 7);
    std::vector<R> s(static_cast<std::size_t>(n));
    int info = 0;
    batchsvd::Options o;
    o.devices = devices;
    o.compute_u = o.compute_v = false;
    setenv("BATCHSVD_CUDA_SPREAD_MIN_ORDER", "1", 1);
    batchsvd::gesvd<T>(n, n, 1, a.data(), s.data(), nullptr, nullptr, &info, o);
    unsetenv("BATCHSVD_CUDA_SPREAD_MIN_ORDER");
}

template <class T>
void run_case(const Case& c, const std::vector<int>& gpu_counts, int reps, int warmup, bool lapack,
              const std::vector<std::string>& inputs) {
    using R = batchsvd::real_t<T>;
    const index_t m = c.m, n = c.n, batch = c.batch, k = std::min(m, n);
    const std::size_t na = std::size_t(batch * m * n), ns = std::size_t(batch * k), nu = std::size_t(batch * m * k),
                      nv = std::size_t(batch * n * k);
    const std::vector<T> a = random_batch<T>(na, std::random_device{}());
    CK(cudaSetDevice(0));
    cudaStream_t stream;
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (const std::string& input : inputs) {
        const bool host = input == "host";
        Buffer<T> da(na, host, kProgram), du(nu, host, kProgram), dv(nv, host, kProgram);
        Buffer<R> ds(ns, host, kProgram);
        Buffer<int> di(std::size_t(batch), host, kProgram);
        CK(cudaMemcpy(da.p, a.data(), na * sizeof(T), cudaMemcpyDefault));
        Result<T> one;
        double one_ms = 0;
        std::vector<R> ref_first, ref_last;
        for (int g : gpu_counts) {
            batchsvd::Options o;
            o.stream = stream;
            if (g > 1)
                for (int d = 0; d < g; ++d) o.devices.push_back(d);
            auto call = [&] {
                if (release_between) batchsvd::release_cached_memory();
                CK(cudaMemsetAsync(di.p, 0xff, batch * sizeof(int), stream));  // (poison: info -1)
                CK(cudaStreamSynchronize(stream));
                CK(cudaEventRecord(e0, stream));
                batchsvd::gesvd<T>(m, n, batch, da.p, ds.p, du.p, dv.p, di.p, o);
                CK(cudaEventRecord(e1, stream));
                CK(cudaEventSynchronize(e1));
                float ms = 0;
                CK(cudaEventElapsedTime(&ms, e0, e1));
                return double(ms);
            };
            for (int w = 0; w < warmup; ++w) call();
            if (warmup == 0 && g > 1 && batch == 1) make_communicators<T>(o.devices);
            std::vector<double> times;
            for (int r = 0; r < reps; ++r) times.push_back(call());
            std::sort(times.begin(), times.end());
            const double ms = times[times.size() / 2];
            Result<T> res;
            res.s.resize(ns);
            res.u.resize(nu);
            res.v.resize(nv);
            res.info.resize(std::size_t(batch));
            CK(cudaMemcpy(res.s.data(), ds.p, ns * sizeof(R), cudaMemcpyDefault));
            CK(cudaMemcpy(res.u.data(), du.p, nu * sizeof(T), cudaMemcpyDefault));
            CK(cudaMemcpy(res.v.data(), dv.p, nv * sizeof(T), cudaMemcpyDefault));
            CK(cudaMemcpy(res.info.data(), di.p, batch * sizeof(int), cudaMemcpyDefault));
            if (g == gpu_counts.front()) {
                one = res;
                one_ms = ms;
            }
            double worst = 0;
            if (!lapack) {  // S against one GPU's, relative to the largest value
                const double u = batchsvd::testing::unit_roundoff<T>();
                for (index_t b = 0; b < batch; ++b)
                    for (index_t j = 0; j < k; ++j) {
                        const double top = std::max(double(one.s[b * k]), std::numeric_limits<double>::min());
                        worst = std::max(worst, std::abs(double(res.s[b * k + j]) - double(one.s[b * k + j])) / (u * top));
                    }
                for (int i : res.info)
                    if (i != 0) worst = std::numeric_limits<double>::infinity();
            }
            for (index_t b : {index_t(0), batch - 1}) {
                if (!lapack) break;
                const T* ab = a.data() + b * m * n;
                std::vector<R>& ref = b == 0 ? ref_first : ref_last;  // (once a case: LAPACK's time)
                if (ref.empty()) ref = batchsvd::testing::reference_singular_values<T>(m, n, ab, m);
                const auto e = batchsvd::testing::measure<T>(m, n, ab, m, res.s.data() + b * k, res.u.data() + b * m * k, m,
                                                             res.v.data() + b * n * k, n, ref.data());
                for (double x : {e.e1, e.e2, e.e3, e.e4}) worst = std::max(worst, x / batchsvd::testing::unit_roundoff<T>());
                if (res.info[b] != 0) worst = std::numeric_limits<double>::infinity();
            }
            std::printf("multigpu,%s,%s,%s,%d,%s,%lld,%lld,%lld,%s,%.3f,%.3f,%.3f,%d,%.2f,%s\n", batchsvd::bench::gpu_name(kProgram).c_str(),
                        today().c_str(), batchsvd::bench::git_commit().c_str(), g, c.precision.c_str(), (long long)m, (long long)n,
                        (long long)batch, input.c_str(), ms, one_ms, one_ms / ms, int(res == one), worst,
                        lapack ? "lapack_e1_e4" : "s_vs_one_gpu");
            std::fflush(stdout);
        }
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    CK(cudaStreamDestroy(stream));
}

std::vector<int> parse_ints(const std::string& s) {
    std::vector<int> out;
    std::size_t i = 0;
    while (i < s.size()) {
        const std::size_t j = s.find(',', i);
        out.push_back(std::atoi(s.substr(i, j - i).c_str()));
        if (j == std::string::npos) break;
        i = j + 1;
    }
    return out;
}

bool parse_case(const std::string& s, Case& c) {
    const std::size_t colon = s.find(':');
    if (colon == std::string::npos) return false;
    c.precision = s.substr(0, colon);
    long long b = 0, m = 0, n = 0;
    if (std::sscanf(s.c_str() + colon + 1, "%lldx%lldx%lld", &b, &m, &n) != 3 || b < 1 || m < 1 || n < 1) return false;
    c.batch = b;
    c.m = m;
    c.n = n;
    return c.precision == "float32" || c.precision == "float64" || c.precision == "complex64" ||
           c.precision == "complex128";
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<int> gpus{1, 2, 4, 8};
    int reps = 5, warmup = 1;
    bool lapack = true;
    std::vector<std::string> inputs{"device", "host"};
    std::vector<Case> cases;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "multi_gpu_bench: %s needs a value\n", arg.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (arg == "--gpus") gpus = parse_ints(value());
        else if (arg == "--reps") reps = std::max(1, std::atoi(value().c_str()));
        else if (arg == "--warmup") warmup = std::max(0, std::atoi(value().c_str()));
        else if (arg == "--release-between") release_between = true;
        else if (arg == "--check") {
            const std::string v = value();
            if (v != "lapack" && v != "one-gpu") {
                std::fprintf(stderr, "multi_gpu_bench: --check is lapack or one-gpu\n");
                return 2;
            }
            lapack = v == "lapack";
        }
        else if (arg == "--input") {
            const std::string v = value();
            inputs = v == "both" ? std::vector<std::string>{"device", "host"} : std::vector<std::string>{v};
            if (v != "both" && v != "device" && v != "host") {
                std::fprintf(stderr, "multi_gpu_bench: --input is device, host or both\n");
                return 2;
            }
        } else if (arg == "--case") {
            Case c;
            if (!parse_case(value(), c)) {
                std::fprintf(stderr, "multi_gpu_bench: --case is PRECISION:BATCHxMxN (e.g. float64:1000x256x256)\n");
                return 2;
            }
            cases.push_back(c);
        } else {
            std::fprintf(stderr, "multi_gpu_bench: unknown option %s\n", arg.c_str());
            return 2;
        }
    }
    if (cases.empty())
        cases = {{"float64", 10000, 32, 32}, {"float64", 1000, 256, 256}, {"float64", 50, 512, 512}, {"float64", 1000, 512, 512}};
    int count = 0;
    CK(cudaGetDeviceCount(&count));
    std::vector<int> usable;
    for (int g : gpus)
        if (g >= 1 && g <= count) usable.push_back(g);
    std::sort(usable.begin(), usable.end());
    if (usable.empty() || usable.front() != 1) usable.insert(usable.begin(), 1);  // one GPU: the baseline
    std::printf("mode,gpu,date,commit,gpus,precision,m,n,batch,input,batchsvd_ms,one_gpu_ms,speedup,bitwise_one_gpu,err_u,check\n");
    try {
        for (const Case& c : cases) {
            if (c.precision == "float32") run_case<float>(c, usable, reps, warmup, lapack, inputs);
            else if (c.precision == "float64") run_case<double>(c, usable, reps, warmup, lapack, inputs);
            else if (c.precision == "complex64") run_case<std::complex<float>>(c, usable, reps, warmup, lapack, inputs);
            else run_case<std::complex<double>>(c, usable, reps, warmup, lapack, inputs);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "multi_gpu_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
