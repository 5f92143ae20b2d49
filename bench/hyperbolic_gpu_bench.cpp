// SPDX-License-Identifier: BSD-3-Clause
// The CUDA hyperbolic SVD and eigh_indefinite against their peers, on the same GPU in the same
// run, from device memory.
//
// mode=hsvd: batchsvd::hsvd of random G (uniform (-1, 1) entries) with an alternating
//   signature, U and V computed (batchsvd_ms), against batchsvd::gesvd of the same G with U
//   and V (svd_ms); sweeps_median and svd_sweeps_median: the sweeps of each; svd_unblocked_ms:
//   the SVD on the kernels hsvd has a form of (warp and fused: JacobiVariant::unblocked, no QR,
//   no preconditioner, BATCHSVD_CUDA_NO_ROWS), what the hyperbolic rotations cost on one kernel.
// mode=eigh_indefinite: graded indefinite Hermitian A = D B D (B = Q diag(+-(1..2)) Q^T, D =
//   diag(10^(-g x_i)), x_i spread over [0, 1] in a random order: entries from 10^-2g to 1;
//   g = --grading, default 5: 1e-10; the column `grading` is 2g),
//   eigenvalues and eigenvectors by batchsvd::eigh_indefinite (batchsvd_ms) against cuSOLVER's
//   syevjBatched (syevj_ms, orders to 32) and syevd called in a loop over part of the batch,
//   scaled to the whole (syevd_loop_ms; syevd_loop_count matrices timed); the relative error
//   of every eigenvalue of the first --checked matrices against a binary128 Jacobi reference:
//   the largest over all (rel_err_max) and that of the smallest |lambda| (rel_err_smallest,
//   syevj_rel_err_smallest, syevd_rel_err_smallest; the worst over the matrices checked).
// Inputs restored from a pristine copy before every run outside the timed region; CUDA events
// around each call after a warm-up, median of --reps runs.
//
// Usage: batchsvd_hyperbolic_bench [--cases hsvd:f64:10000:32:32,eigh_indefinite:f64:10000:16:16,...]
//                                  [--reps N] [--checked N] [--grading G] [--csv FILE]
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "batchsvd/batchsvd.hpp"
#include "batchsvd/hyperbolic.hpp"
#include "cuda_bench_support.hpp"
#include "testing/generators.hpp"
#include "testing/quad_eigen.hpp"

namespace {

using batchsvd::index_t;
using batchsvd::MatrixBatch;
using batchsvd::bench::Buffer;
constexpr const char* kProgram = "batchsvd_hyperbolic_bench";
const double nan_v = std::nan("");

void check(cudaError_t e, const char* what) { batchsvd::bench::cuda_check(e, what, kProgram); }
bool ok(cusolverStatus_t s) { return s == CUSOLVER_STATUS_SUCCESS; }

struct Case {
    std::string mode, precision;
    index_t batch, m, n;
};

std::vector<Case> default_cases() {
    std::vector<Case> c;
    for (const char* p : {"f64", "f32"}) {
        for (index_t n : {8, 16, 24, 32}) c.push_back({"hsvd", p, 10000, n, n});
        c.push_back({"hsvd", p, 10000, 64, 32});
        for (index_t n : {8, 16, 24, 32}) c.push_back({"eigh_indefinite", p, 10000, n, n});
        c.push_back({"eigh_indefinite", p, 1000, 64, 64});
    }
    return c;
}

std::vector<Case> parse_cases(const std::string& s) {
    std::vector<Case> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ',')) {
        char mode[24] = {}, p[8] = {};
        long long b = 0, m = 0, n = 0;
        if (std::sscanf(item.c_str(), "%23[^:]:%7[^:]:%lld:%lld:%lld", mode, p, &b, &m, &n) != 5 || m < 1 || n < 1 ||
            b < 1 || m < n || (std::string(mode) != "hsvd" && std::string(mode) != "eigh_indefinite") ||
            (std::string(p) != "f64" && std::string(p) != "f32") || (std::string(mode) == "eigh_indefinite" && m != n)) {
            std::fprintf(stderr, "%s: bad case '%s' (hsvd|eigh_indefinite:f64|f32:batch:m:n, m >= n; m = n for eigh)\n",
                         kProgram, item.c_str());
            std::exit(1);
        }
        out.push_back({mode, p, index_t(b), index_t(m), index_t(n)});
    }
    return out;
}

/// batchsvd::bench::time_median for this program.
double time_median(int reps, const std::function<void()>& refill, const std::function<void()>& f) {
    return batchsvd::bench::time_median(reps, refill, f, kProgram);
}

/// cuSOLVER's symmetric eigensolvers of one precision (L: D or S).
template <class T> struct Cusolver;
#define BATCHSVD_BENCH_CUSOLVER_(T, L)                                                                                \
    template <> struct Cusolver<T> {                                                                                  \
        static cusolverStatus_t syevj_size(cusolverDnHandle_t h, int n, const T* A, const T* W, int* lw,             \
                                           syevjInfo_t p, int batch) {                                                \
            return cusolverDn##L##syevjBatched_bufferSize(h, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n, A, \
                                                          n, W, lw, p, batch);                                        \
        }                                                                                                             \
        static cusolverStatus_t syevj(cusolverDnHandle_t h, int n, T* A, T* W, T* w, int lw, int* info,             \
                                      syevjInfo_t p, int batch) {                                                     \
            return cusolverDn##L##syevjBatched(h, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n, A, n, W, w,   \
                                               lw, info, p, batch);                                                   \
        }                                                                                                             \
        static cusolverStatus_t syevd_size(cusolverDnHandle_t h, int n, const T* A, const T* W, int* lw) {           \
            return cusolverDn##L##syevd_bufferSize(h, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n, A, n, W,  \
                                                   lw);                                                               \
        }                                                                                                             \
        static cusolverStatus_t syevd(cusolverDnHandle_t h, int n, T* A, T* W, T* w, int lw, int* info) {           \
            return cusolverDn##L##syevd(h, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n, A, n, W, w, lw,      \
                                        info);                                                                        \
        }                                                                                                             \
    };
BATCHSVD_BENCH_CUSOLVER_(double, D)
BATCHSVD_BENCH_CUSOLVER_(float, S)
#undef BATCHSVD_BENCH_CUSOLVER_

using batchsvd::bench::fmt;

/// The graded indefinite A = D B D of the header, in double, rounded to T.
template <class T> std::vector<T> graded_indefinite(index_t n, std::uint64_t seed, double grading) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(1, 2);
    const std::vector<double> q = batchsvd::testing::random_orthonormal<double>(n, n, seed ^ 0x5eed);
    std::vector<double> lam(n), d(n);
    for (index_t i = 0; i < n; ++i) lam[i] = (i % 2 ? -1 : 1) * unit(rng);
    for (index_t i = 0; i < n; ++i) d[i] = std::pow(10.0, -grading * double(i) / double(std::max<index_t>(n - 1, 1)));
    std::shuffle(d.begin(), d.end(), rng);
    std::vector<T> a(std::size_t(n * n));
    for (index_t c = 0; c < n; ++c)
        for (index_t i = c; i < n; ++i) {
            double x = 0;
            for (index_t k = 0; k < n; ++k) x += q[i + k * n] * lam[k] * q[c + k * n];
            a[i + c * n] = a[c + i * n] = T(x * d[i] * d[c]);
        }
    return a;
}

/// Relative errors of one matrix's ascending eigenvalues against the reference: the largest,
/// and that of the smallest |lambda|.
std::pair<double, double> relative_errors(const std::vector<long double>& ref, const double* w) {
    double worst = 0, smallest = 0;
    std::size_t at = 0;
    for (std::size_t i = 0; i < ref.size(); ++i)
        if (std::abs(ref[i]) < std::abs(ref[at])) at = i;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        const double e = double(std::abs((long double)w[i] - ref[i]) / std::abs(ref[i]));
        worst = std::max(worst, e);
        if (i == at) smallest = e;
    }
    return {worst, smallest};
}

template <class T> std::vector<double> to_double(const Buffer<T>& d, std::size_t count) {
    std::vector<T> h(count);
    check(cudaMemcpy(h.data(), d.p, count * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return std::vector<double>(h.begin(), h.end());
}

int median_of(std::vector<int> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

template <class T> void run_hsvd(const Case& c, int reps, std::ostream& out, const std::string& head) {
    const index_t m = c.m, n = c.n, mn = m * n, batch = c.batch;
    std::vector<T> host(std::size_t(mn * batch));
    std::mt19937_64 rng(std::random_device{}());
    std::uniform_real_distribution<double> u11(-1.0, 1.0);
    for (T& x : host) x = T(u11(rng));
    std::vector<int> j(static_cast<std::size_t>(n));
    for (index_t i = 0; i < n; ++i) j[std::size_t(i)] = i % 2 ? -1 : 1;
    Buffer<T> g(host.size(), false, kProgram), u(host.size(), false, kProgram), v(std::size_t(n * n * batch), false, kProgram),
        s(std::size_t(n * batch), false, kProgram);
    Buffer<int> dj(j.size(), false, kProgram), jo(std::size_t(n * batch), false, kProgram), info(std::size_t(batch), false, kProgram),
        sweeps(std::size_t(batch), false, kProgram);
    check(cudaMemcpy(g.p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(dj.p, j.data(), j.size() * sizeof(int), cudaMemcpyHostToDevice), "cudaMemcpy");
    batchsvd::Options o;
    o.sweeps = sweeps.p;
    const double ours = time_median(reps, [] {}, [&] {
        batchsvd::hsvd<T>(m, n, batch, MatrixBatch<const T>{g.p, m, mn}, batchsvd::SignatureBatch{dj.p, 0}, s.p, n, jo.p, n,
                          MatrixBatch<T>{u.p, m, mn}, MatrixBatch<T>{v.p, n, n * n}, info.p, o);
    });
    std::vector<int> hs(static_cast<std::size_t>(batch)), hi(static_cast<std::size_t>(batch));
    check(cudaMemcpy(hs.data(), sweeps.p, hs.size() * sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy");
    check(cudaMemcpy(hi.data(), info.p, hi.size() * sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy");
    const int max_info = *std::max_element(hi.begin(), hi.end()), min_info = *std::min_element(hi.begin(), hi.end());
    batchsvd::Options os;
    os.sweeps = sweeps.p;
    const double svd = time_median(reps, [] {}, [&] {
        batchsvd::gesvd<T>(m, n, batch, MatrixBatch<const T>{g.p, m, mn}, s.p, n, MatrixBatch<T>{u.p, m, mn},
                           MatrixBatch<T>{v.p, n, n * n}, info.p, os);
    });
    std::vector<int> svd_sweeps(static_cast<std::size_t>(batch));
    check(cudaMemcpy(svd_sweeps.data(), sweeps.p, svd_sweeps.size() * sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy");
    // The SVD on the kernels hsvd has a form of (warp, fused): no rows kernel, no QR, no
    // preconditioned blocked path.
    batchsvd::Options ou = os;
    ou.variant = batchsvd::JacobiVariant::unblocked;
    ou.qr = batchsvd::QrMode::never;
    ou.precondition = batchsvd::PreconditionMode::never;
    setenv("BATCHSVD_CUDA_NO_ROWS", "1", 1);
    const double svd_unblocked = time_median(reps, [] {}, [&] {
        batchsvd::gesvd<T>(m, n, batch, MatrixBatch<const T>{g.p, m, mn}, s.p, n, MatrixBatch<T>{u.p, m, mn},
                           MatrixBatch<T>{v.p, n, n * n}, info.p, ou);
    });
    unsetenv("BATCHSVD_CUDA_NO_ROWS");
    out << "hsvd," << head << fmt(ours) << "," << fmt(svd) << "," << fmt(ours / svd, 3) << ",,,,,,,,," << median_of(hs)
        << "," << median_of(svd_sweeps) << "," << (min_info < 0 ? min_info : max_info) << "," << fmt(svd_unblocked)
        << "\n";
    out.flush();
}

template <class T>
void run_eigh(const Case& c, int reps, int checked, double grading, std::ostream& out, const std::string& head) {
    const index_t n = c.n, nn = n * n, batch = c.batch;
    std::vector<T> host;
    host.reserve(std::size_t(nn * batch));
    const std::uint64_t seed = std::random_device{}();
    for (index_t b = 0; b < batch; ++b) {
        const std::vector<T> ab = graded_indefinite<T>(n, seed + std::uint64_t(b), grading);
        host.insert(host.end(), ab.begin(), ab.end());
    }
    Buffer<T> pristine(host.size(), false, kProgram), a(host.size(), false, kProgram), z(host.size(), false, kProgram),
        w(std::size_t(n * batch), false, kProgram);
    Buffer<int> info(std::size_t(batch), false, kProgram), sweeps(std::size_t(batch), false, kProgram);
    check(cudaMemcpy(pristine.p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
    const auto refill = [&] {
        check(cudaMemcpyAsync(a.p, pristine.p, host.size() * sizeof(T), cudaMemcpyDeviceToDevice), "refill");
    };
    checked = int(std::min<index_t>(checked, batch));
    std::vector<std::vector<long double>> ref(static_cast<std::size_t>(checked));
    for (int b = 0; b < checked; ++b)
        ref[std::size_t(b)] = batchsvd::testing::reference_eigenvalues_quad<T>(n, host.data() + b * nn, n);
    const auto errors = [&](const Buffer<T>& wd) {
        const std::vector<double> hw = to_double(wd, std::size_t(n * checked));
        double worst = 0, smallest = 0;
        for (int b = 0; b < checked; ++b) {
            const auto [x, y] = relative_errors(ref[std::size_t(b)], hw.data() + b * n);
            worst = std::max(worst, x);
            smallest = std::max(smallest, y);
        }
        return std::pair<double, double>{worst, smallest};
    };
    batchsvd::Options o;
    o.sweeps = sweeps.p;
    const double ours = time_median(reps, [] {}, [&] {
        batchsvd::eigh_indefinite<T>(n, batch, MatrixBatch<const T>{pristine.p, n, nn}, w.p, n, MatrixBatch<T>{z.p, n, nn},
                                     info.p, o);
    });
    const auto [ours_max, ours_small] = errors(w);
    std::vector<int> hs(static_cast<std::size_t>(batch)), hi(static_cast<std::size_t>(batch));
    check(cudaMemcpy(hs.data(), sweeps.p, hs.size() * sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy");
    check(cudaMemcpy(hi.data(), info.p, hi.size() * sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy");
    const int max_info = *std::max_element(hi.begin(), hi.end()), min_info = *std::min_element(hi.begin(), hi.end());

    cusolverDnHandle_t sh;
    if (!ok(cusolverDnCreate(&sh))) {
        std::fprintf(stderr, "%s: cusolverDnCreate failed\n", kProgram);
        std::exit(2);
    }
    double syevj_ms = nan_v, syevj_small = nan_v;
    int lw = 0;
    if (n <= 32) {
        syevjInfo_t params;
        if (ok(cusolverDnCreateSyevjInfo(&params))) {
            if (ok(Cusolver<T>::syevj_size(sh, int(n), a.p, w.p, &lw, params, int(batch)))) {
                Buffer<T> work(std::size_t(std::max(lw, 1)), false, kProgram);
                cusolverStatus_t st = CUSOLVER_STATUS_SUCCESS;
                syevj_ms = time_median(reps, refill, [&] {
                    st = Cusolver<T>::syevj(sh, int(n), a.p, w.p, work.p, lw, info.p, params, int(batch));
                });
                if (ok(st)) syevj_small = errors(w).second;
                else syevj_ms = nan_v;
            }
            cusolverDnDestroySyevjInfo(params);
        }
    }
    double loop_ms = nan_v, syevd_small = nan_v;
    const index_t loop_count = std::min<index_t>(batch, 200);
    if (ok(Cusolver<T>::syevd_size(sh, int(n), a.p, w.p, &lw))) {
        Buffer<T> work(std::size_t(std::max(lw, 1)), false, kProgram);
        loop_ms = time_median(reps, refill, [&] {
            for (index_t b = 0; b < loop_count; ++b)
                (void)Cusolver<T>::syevd(sh, int(n), a.p + b * nn, w.p + b * n, work.p, lw, info.p + b);
        }) * double(batch) / double(loop_count);
        syevd_small = errors(w).second;  // (the first loop_count >= checked matrices)
    }
    cusolverDnDestroy(sh);
    out << "eigh_indefinite," << head << fmt(ours) << ",,," << fmt(syevj_ms) << "," << fmt(loop_ms) << "," << loop_count
        << "," << fmt(2 * grading) << "," << fmt(ours_max, 3) << "," << fmt(ours_small, 3) << "," << fmt(syevj_small, 3)
        << "," << fmt(syevd_small, 3) << "," << median_of(hs) << ",," << (min_info < 0 ? min_info : max_info) << ",\n";
    out.flush();
}

}  // namespace

int main(int argc, char** argv) {
    std::string cases_arg, csv_path;
    int reps = 5, checked = 3;
    double grading = 5;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
        if (arg == "--cases") cases_arg = next();
        else if (arg == "--reps") reps = std::max(1, std::atoi(next().c_str()));
        else if (arg == "--checked") checked = std::max(1, std::atoi(next().c_str()));
        else if (arg == "--grading") grading = std::atof(next().c_str());
        else if (arg == "--csv") csv_path = next();
        else {
            std::cerr << "usage: " << argv[0]
                      << " [--cases hsvd:f64:10000:32:32,eigh_indefinite:f64:1000:64:64,...] [--reps N] [--checked N]"
                         " [--grading G] [--csv FILE]\n";
            return 1;
        }
    }
    const std::vector<Case> cases = cases_arg.empty() ? default_cases() : parse_cases(cases_arg);
    std::ofstream file;
    if (!csv_path.empty()) file.open(csv_path);
    std::ostream& out = csv_path.empty() ? std::cout : file;
    out << "mode,gpu,date,commit,precision,m,n,batch,batchsvd_ms,svd_ms,svd_ratio,syevj_ms,syevd_loop_ms,"
           "syevd_loop_count,grading,rel_err_max,rel_err_smallest,syevj_rel_err_smallest,syevd_rel_err_smallest,"
           "sweeps_median,svd_sweeps_median,worst_info,svd_unblocked_ms\n";
    const std::string labels = batchsvd::bench::gpu_name(kProgram) + "," + batchsvd::bench::today() + "," +
                               batchsvd::bench::git_commit();
    for (const Case& c : cases) {
        const std::string head =
            labels + "," + c.precision + "," + std::to_string(c.m) + "," + std::to_string(c.n) + "," + std::to_string(c.batch) + ",";
        if (c.mode == "hsvd") {
            if (c.precision == "f64") run_hsvd<double>(c, reps, out, head);
            else run_hsvd<float>(c, reps, out, head);
        } else {
            if (c.precision == "f64") run_eigh<double>(c, reps, checked, grading, out, head);
            else run_eigh<float>(c, reps, checked, grading, out, head);
        }
        std::cerr << c.mode << " " << c.precision << " " << c.batch << " x " << c.m << "x" << c.n << " done\n";
    }
    return 0;
}
