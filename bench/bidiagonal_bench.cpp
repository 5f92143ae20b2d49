// SPDX-License-Identifier: BSD-3-Clause
// The CUDA gebrd and the values-only routes against cuSOLVER, on the same GPU in the same run.
//
// mode=gebrd: batchsvd::gebrd from device memory (batchsvd_ms) against cusolverDn?gebrd called
//   in a loop over part of the batch, scaled to the whole (gebrd_loop_ms; gebrd_loop_count
//   matrices timed), and against the roofline bound of the paper's blocked algorithm,
//   F / (2 P_gemm P_gemv / (P_gemm + P_gemv)) with F = 4mn^2 - 4n^3/3 flops a matrix (m >= n)
//   and P_gemm, P_gemv the rates of cuBLAS's strided-batched GEMM (n x n times n x n) and GEMV
//   (n x n) on the same batch, measured here (roofline_ms, gemm_gflops, gemv_gflops).
// mode=svdvals: singular values alone, batchsvd's bidiagonal method (batchsvd_ms) against its
//   Jacobi method (jacobi_values_ms) and cuSOLVER's gesvdaStridedBatched without vectors
//   (gesvda_ms); e4 of both of ours against LAPACK on the first matrices (e4_u, e4_jacobi_u,
//   in units of u) and the route cuda::solve_path names for the bidiagonal one (path).
// Inputs: uniform (0, 1) random, restored from a pristine copy before every run outside the
// timed region; CUDA events around each call after a warm-up, median of --reps runs.
//
// Usage: batchsvd_bidiagonal_bench [--cases f64:1000:128:128,...] [--reps N] [--csv FILE]
//                                  [--mode gebrd|svdvals|both]
//   A case is precision (f64, f32):batch:m:n. The default cases: orders 8-64 every 8 at batch
//   10000, 80-256 every 16 and 384, 512 at batch 1000, both precisions.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "batchsvd/batchsvd.hpp"
#include "batchsvd/bidiagonal.hpp"
#include "cuda/fused/fused_plan.hpp"
#include "cuda_bench_support.hpp"
#include "testing/error_measures.hpp"

namespace {

using batchsvd::index_t;
using batchsvd::bench::Buffer;
constexpr const char* kProgram = "batchsvd_bidiagonal_bench";
const double nan_ms = std::nan("");

void check(cudaError_t e, const char* what) { batchsvd::bench::cuda_check(e, what, kProgram); }
bool ok(cusolverStatus_t s) { return s == CUSOLVER_STATUS_SUCCESS; }
void check_blas(cublasStatus_t s, const char* what) {
    if (s == CUBLAS_STATUS_SUCCESS) return;
    std::fprintf(stderr, "%s: %s failed (%d)\n", kProgram, what, int(s));
    std::exit(2);
}

struct Case {
    std::string precision;
    index_t batch, m, n;
};

std::vector<Case> default_cases() {
    std::vector<Case> c;
    for (const char* p : {"f64", "f32"}) {
        for (index_t n = 8; n <= 64; n += 8) c.push_back({p, 10000, n, n});
        for (index_t n = 80; n <= 256; n += 16) c.push_back({p, 1000, n, n});
        for (index_t n : {384, 512}) c.push_back({p, 1000, n, n});
    }
    return c;
}

std::vector<Case> parse_cases(const std::string& s) {
    std::vector<Case> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ',')) {
        Case c;
        char p[8] = {};
        long long b = 0, m = 0, n = 0;
        if (std::sscanf(item.c_str(), "%7[^:]:%lld:%lld:%lld", p, &b, &m, &n) != 4 || m < 1 || n < 1 || b < 1) {
            std::fprintf(stderr, "%s: bad case '%s' (precision:batch:m:n)\n", kProgram, item.c_str());
            std::exit(1);
        }
        c.precision = p;
        if (c.precision != "f64" && c.precision != "f32") {
            std::fprintf(stderr, "%s: precision f64 or f32, got '%s'\n", kProgram, p);
            std::exit(1);
        }
        c.batch = b;
        c.m = m;
        c.n = n;
        out.push_back(c);
    }
    return out;
}

/// batchsvd::bench::time_median for this program.
double time_median(int reps, const std::function<void()>& refill, const std::function<void()>& f) {
    return batchsvd::bench::time_median(reps, refill, f, kProgram);
}

/// cuSOLVER's and cuBLAS's calls of one precision (L: D or S).
template <class T> struct Cusolver;
#define BATCHSVD_BENCH_CUSOLVER_(T, L)                                                                              \
    template <> struct Cusolver<T> {                                                                                \
        static cusolverStatus_t gebrd_size(cusolverDnHandle_t h, int m, int n, int* lw) {                           \
            return cusolverDn##L##gebrd_bufferSize(h, m, n, lw);                                                    \
        }                                                                                                           \
        static cusolverStatus_t gebrd(cusolverDnHandle_t h, int m, int n, T* A, int lda, T* d, T* e, T* tq, T* tp,  \
                                      T* w, int lw, int* info) {                                                    \
            return cusolverDn##L##gebrd(h, m, n, A, lda, d, e, tq, tp, w, lw, info);                                \
        }                                                                                                           \
        static cusolverStatus_t gesvda_size(cusolverDnHandle_t h, int r, int m, int n, const T* A, int lda,        \
                                            long long sa, const T* S, long long ss, const T* U, int ldu,            \
                                            long long su, const T* V, int ldv, long long sv, int* lw, int batch) {  \
            return cusolverDn##L##gesvdaStridedBatched_bufferSize(h, CUSOLVER_EIG_MODE_NOVECTOR, r, m, n, A, lda,  \
                                                                  sa, S, ss, U, ldu, su, V, ldv, sv, lw, batch);    \
        }                                                                                                           \
        static cusolverStatus_t gesvda(cusolverDnHandle_t h, int r, int m, int n, const T* A, int lda, long long sa, \
                                       T* S, long long ss, T* U, int ldu, long long su, T* V, int ldv, long long sv, \
                                       T* w, int lw, int* info, double* nrm, int batch) {                           \
            return cusolverDn##L##gesvdaStridedBatched(h, CUSOLVER_EIG_MODE_NOVECTOR, r, m, n, A, lda, sa, S, ss,  \
                                                       U, ldu, su, V, ldv, sv, w, lw, info, nrm, batch);            \
        }                                                                                                           \
        static void gemm(cublasHandle_t h, int n, const T* A, T* C, int batch) {                                   \
            const T one = 1, zero = 0;                                                                              \
            check_blas(cublas##L##gemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, A, n,             \
                                                     (long long)n * n, A, n, (long long)n * n, &zero, C, n,         \
                                                     (long long)n * n, batch),                                     \
                       "cublas" #L "gemmStridedBatched");                                                           \
        }                                                                                                           \
        static void gemv(cublasHandle_t h, int n, const T* A, const T* x, T* y, int batch) {                       \
            const T one = 1, zero = 0;                                                                              \
            check_blas(cublas##L##gemvStridedBatched(h, CUBLAS_OP_N, n, n, &one, A, n, (long long)n * n, x, 1, n, \
                                                     &zero, y, 1, n, batch),                                        \
                       "cublas" #L "gemvStridedBatched");                                                           \
        }                                                                                                           \
    };
BATCHSVD_BENCH_CUSOLVER_(double, D)
BATCHSVD_BENCH_CUSOLVER_(float, S)
#undef BATCHSVD_BENCH_CUSOLVER_

using batchsvd::bench::fmt;

/// e4 (the paper's measure: ||s - s_ref||_2 / (k max(1, s_ref,1))) over the first matrices, in units of u.
template <class T> double e4_u(const Case& c, const std::vector<T>& a, const std::vector<T>& s, int count) {
    const index_t k = std::min(c.m, c.n);
    double worst = 0;
    for (int b = 0; b < count; ++b) {
        const auto ref = batchsvd::testing::reference_singular_values<T>(c.m, c.n, a.data() + b * c.m * c.n, c.m);
        double e = 0;
        for (index_t i = 0; i < k; ++i) e += std::pow(double(s[b * k + i]) - double(ref[i]), 2);
        worst = std::max(worst, std::sqrt(e) / (double(k) * std::max(1.0, double(ref[0]))));
    }
    return worst / batchsvd::testing::unit_roundoff<T>();
}

template <class T>
void run_case(const Case& c, int reps, std::ostream& out, const std::string& labels, const std::string& modes) {
    using batchsvd::BidiagonalBatch;
    using batchsvd::MatrixBatch;
    const index_t m = c.m, n = c.n, k = std::min(m, n), mn = m * n, batch = c.batch;
    std::vector<T> host(std::size_t(mn * batch));
    std::mt19937_64 rng(std::random_device{}());
    std::uniform_real_distribution<double> u01(0.0, 1.0);
    for (T& x : host) x = T(u01(rng));
    Buffer<T> pristine(host.size(), false, kProgram), a(host.size(), false, kProgram);
    Buffer<T> tq(std::size_t(k * batch), false, kProgram), tp(std::size_t(k * batch), false, kProgram);
    Buffer<T> d(std::size_t(k * batch), false, kProgram), e(std::size_t(k * batch), false, kProgram);
    Buffer<int> info(std::size_t(batch), false, kProgram);
    check(cudaMemcpy(pristine.p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
    const auto refill = [&] {
        check(cudaMemcpyAsync(a.p, pristine.p, host.size() * sizeof(T), cudaMemcpyDeviceToDevice), "refill");
    };
    const std::string head = labels + "," + c.precision + "," + std::to_string(m) + "," + std::to_string(n) + "," +
                             std::to_string(batch) + ",";

    cusolverDnHandle_t sh;
    if (!ok(cusolverDnCreate(&sh))) {
        std::fprintf(stderr, "%s: cusolverDnCreate failed\n", kProgram);
        std::exit(2);
    }
    int lw = 0;
    if (modes != "svdvals") {
    // ---- gebrd ----
    const double ours_brd = time_median(reps, refill, [&] {
        batchsvd::gebrd<T>(m, n, batch, MatrixBatch<T>{a.p, m, mn}, BidiagonalBatch<T>{d.p, e.p, tq.p, tp.p, k}, info.p);
    });
    double loop_ms = nan_ms;
    index_t loop_count = std::min<index_t>(batch, k <= 64 ? 200 : k <= 256 ? 50 : 10);
    if (ok(Cusolver<T>::gebrd_size(sh, int(m), int(n), &lw))) {
        Buffer<T> w(std::size_t(std::max(lw, 1)), false, kProgram);
        loop_ms = time_median(reps, refill, [&] {
            for (index_t b = 0; b < loop_count; ++b)
                (void)Cusolver<T>::gebrd(sh, int(m), int(n), a.p + b * mn, int(m), d.p + b * k, e.p + b * k, tq.p + b * k,
                                         tp.p + b * k, w.p, lw, info.p + b);
        }) * double(batch) / double(loop_count);
    }
    // Roofline: cuBLAS batched GEMM and GEMV rates at this order and batch (square orders).
    double gemm_gf = nan_ms, gemv_gf = nan_ms, roof = nan_ms;
    if (m == n) {
        cublasHandle_t bh;
        check_blas(cublasCreate(&bh), "cublasCreate");
        Buffer<T> cbuf(host.size(), false, kProgram), x(std::size_t(n * batch), false, kProgram),
            y(std::size_t(n * batch), false, kProgram);
        check(cudaMemset(x.p, 0, std::size_t(n * batch) * sizeof(T)), "cudaMemset");
        const double gemm_ms = time_median(reps, [] {}, [&] { Cusolver<T>::gemm(bh, int(n), pristine.p, cbuf.p, int(batch)); });
        const double gemv_ms = time_median(reps, [] {}, [&] { Cusolver<T>::gemv(bh, int(n), pristine.p, x.p, y.p, int(batch)); });
        gemm_gf = 2.0 * double(n) * n * n * batch / (gemm_ms * 1e6);
        gemv_gf = 2.0 * double(n) * n * batch / (gemv_ms * 1e6);
        const double flops = (4.0 * m * n * n - 4.0 * n * n * n / 3.0) * batch;
        const double rate = 2.0 * gemm_gf * gemv_gf / (gemm_gf + gemv_gf);  // GFLOP/s
        roof = flops / (rate * 1e6);
        cublasDestroy(bh);
    }
    out.flush();
    out << "gebrd," << head << fmt(ours_brd) << "," << fmt(loop_ms) << "," << loop_count << "," << fmt(roof) << ","
        << fmt(gemm_gf) << "," << fmt(gemv_gf) << ",,,,,gebrd\n";
    }
    if (modes == "gebrd") {
        cusolverDnDestroy(sh);
        return;
    }

    // ---- singular values alone ----
    Buffer<T> s(std::size_t(k * batch), false, kProgram);
    batchsvd::Options ob;
    ob.compute_u = ob.compute_v = false;
    ob.method = batchsvd::SvdMethod::bidiagonal;
    batchsvd::Options oj = ob;
    oj.method = batchsvd::SvdMethod::jacobi;
    const auto values = [&](const batchsvd::Options& o) {
        batchsvd::gesvd<T>(m, n, batch, MatrixBatch<const T>{a.p, m, mn}, s.p, k, MatrixBatch<T>{}, MatrixBatch<T>{}, info.p, o);
    };
    const int checked = int(std::min<index_t>(batch, 3));
    const auto e4_of = [&](const batchsvd::Options& o) {
        refill();
        values(o);
        std::vector<T> hs(std::size_t(k * checked));
        check(cudaMemcpy(hs.data(), s.p, hs.size() * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
        return e4_u<T>(c, host, hs, checked);
    };
    const double ours = time_median(reps, refill, [&] { values(ob); });
    const double e4b = e4_of(ob);
    const double jac = time_median(reps, refill, [&] { values(oj); });
    const double e4j = e4_of(oj);
    double gesvda = nan_ms;
    if (m >= n) {
        // (U and V at full size: without vectors gesvda still touches them)
        Buffer<T> uu(std::size_t(mn * batch), false, kProgram), vv(std::size_t(n * n * batch), false, kProgram);
        if (ok(Cusolver<T>::gesvda_size(sh, int(n), int(m), int(n), a.p, int(m), mn, s.p, k, uu.p, int(m), mn, vv.p, int(n),
                                         n * n, &lw, int(batch)))) {
            Buffer<T> w(std::size_t(std::max(lw, 1)), false, kProgram);
            cusolverStatus_t st = CUSOLVER_STATUS_SUCCESS;
            gesvda = time_median(reps, refill, [&] {
                st = Cusolver<T>::gesvda(sh, int(n), int(m), int(n), a.p, int(m), mn, s.p, k, uu.p, int(m), mn, vv.p, int(n),
                                          n * n, w.p, lw, info.p, nullptr, int(batch));  // (no residual norms)
            });
            if (!ok(st)) gesvda = nan_ms;  // (failed: left empty)
        }
    }
    cusolverDnDestroy(sh);
    out << "svdvals," << head << fmt(ours) << ",,,,,," << fmt(jac) << "," << fmt(gesvda) << "," << fmt(e4b, 3) << ","
        << fmt(e4j, 3) << "," << batchsvd::cuda::solve_path<T>(m, n, batch, ob) << "\n";
    out.flush();
}

}  // namespace

int main(int argc, char** argv) {
    std::string cases_arg, csv_path, modes = "both";
    int reps = 5;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
        if (arg == "--cases") cases_arg = next();
        else if (arg == "--reps") reps = std::max(1, std::atoi(next().c_str()));
        else if (arg == "--csv") csv_path = next();
        else if (arg == "--mode") modes = next();
        else {
            std::cerr << "usage: " << argv[0] << " [--cases f64:1000:128:128,...] [--reps N] [--csv FILE] [--mode gebrd|svdvals|both]\n";
            return 1;
        }
    }
    const std::vector<Case> cases = cases_arg.empty() ? default_cases() : parse_cases(cases_arg);
    std::ofstream file;
    if (!csv_path.empty()) file.open(csv_path);
    std::ostream& out = csv_path.empty() ? std::cout : file;
    out << "mode,gpu,date,commit,precision,m,n,batch,batchsvd_ms,gebrd_loop_ms,gebrd_loop_count,roofline_ms,"
           "gemm_gflops,gemv_gflops,jacobi_values_ms,gesvda_ms,e4_u,e4_jacobi_u,path\n";
    const std::string labels = batchsvd::bench::gpu_name(kProgram) + "," + batchsvd::bench::today() + "," +
                               batchsvd::bench::git_commit();
    for (const Case& c : cases) {
        if (c.precision == "f64") run_case<double>(c, reps, out, labels, modes);
        else run_case<float>(c, reps, out, labels, modes);
        std::cerr << c.precision << " " << c.batch << " x " << c.m << "x" << c.n << " done\n";
    }
    return 0;
}
