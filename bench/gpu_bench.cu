// SPDX-License-Identifier: BSD-3-Clause
// batchsvd against cuSOLVER on the same GPU, in the same run.
//
// For each case (precision, m, n, batch): batchsvd (device pointers, U and V), cuSOLVER
// gesvdjBatched (m, n <= 32), gesvdaStridedBatched, and gesvdj and gesvd each called in a
// loop over a subset of the batch (200 matrices for n <= 32, 50 up to 128, else 5; the time is scaled to
// the whole batch and the CSV says so). gesvda, gesvd and the CPU baseline need m >= n: a
// wide case (m < n) runs them on A^H (n x m, conjugate-transposed inside the timed call on
// the GPU, as torch's gesvda driver does) and swaps the factors back (A^H = U' S V'^H gives
// A = V' S U'^H), its errors measured against A; the CSV's peers_on_transpose says so.
// Inputs are fresh uniform (0, 1) random data, refilled
// before every run outside the timed region; times are CUDA events around the call after a
// warm-up, the median of --reps runs (>= 10; 3 where the warm-up took over 0.5 s).
// batchsvd's errors e1-e4 are measured on the first matrices of the batch against LAPACK
// (past ~670^3 multiply-adds, on one matrix on the GPU in FP64: gpu_errors.hpp; the CSV's
// errors_by column says which); every library's errors are measured on one shared random
// input and on a `geo` batch (kappa 1e10 double, 1e5 single; generated on the GPU where the
// errors are measured there).
//
// Usage: batchsvd_gpu_bench [--cases f64:10000:32:32,...] [--reps N] [--csv FILE]
//                           [--group NAME] [--cap S] [--no-peers] [--no-sweep-count] [--breakdown]
//                           [--cpu-baseline] [--host-memory] [--label TEXT] [--print-cases]
//                           [--tol-factor K] [--concurrent K]
//   A case is precision:batch:m:n, with an optional fifth field: bNB forces the blocked path
//   with block width NB (f64:1000:119:119:b16), fused forces the unblocked kernels (the fused
//   one where the warp and tiny kernels do not fit; f64:1000:64:64:fused), qr forces QR
//   pre-processing and noqr turns it off (f64:1000:1000:16:qr), pre forces the blocked path's
//   preconditioning (Options::precondition) and nopre turns it off, bpre forces both the blocked
//   path (its automatic block width) and the preconditioning; "max:BATCH" runs the largest
//   fused square of each precision, in the fused kernel.
//   --cpu-baseline: also LAPACK ?gesvd and ?gesvj (real types) in an OpenMP loop on all the
//   host's cores (lapack_loop.hpp), over about a second's worth of matrices, scaled to the batch.
//   --group quick|small|square|square_1000|tall|wide|large|tiny|scan: the benchmark suite's case lists
//   (square_1000 is the square group's order 1000, on its own: ~8 minutes on an H100 with
//   --cpu-baseline; quick is the
//   default and the README table's; scan: time against order, every order, in three parts
//   scan_square, scan_large, scan_rect, run with --no-peers); --cap S: a peer whose warm-up call takes over S seconds
//   (default 30) is skipped and named in the CSV's skipped_over_cap column, which also names
//   a peer that failed ("gesvda(failed)") or could not size its workspace.
//   --print-cases: print the case list (of --group or --cases) and exit, no GPU needed.
//   --no-sweep-count: skip the sweep scan (about mean sweeps / 2 extra solves; no arithmetic floor).
//   --host-memory: also time the batch from pinned host memory (transfers included), as the
//   library chooses and streamed in 8 chunks; and from pageable memory (the input touched,
//   the outputs fresh each call, as NumPy gives them) through the library's staging and
//   through the driver's own copies (BATCHSVD_CUDA_STAGING=0).
//   --breakdown: for blocked-path cases, also time one sweep with the pair kernel stopped
//   after its Gram, after its eigensolver, and in full, which splits a sweep into its parts.
//   --errors-on K: measure batchsvd's errors on at most K matrices a case (the scan: 20).
//   --tol-factor K: batchsvd's Options::tol_factor (default 30; name it in --label), for
//   measuring what the convergence threshold costs in sweeps and gives in accuracy.
//   --concurrent K: batchsvd's time is that of K calls on K slices of the batch, each from a
//   host thread of its own on a stream of its own (name it in --label): whether one call's
//   parts leave the GPU idle enough for another's to fill (the preconditioner's eigensolve).
// The git commit comes from the environment (BATCHSVD_GIT_COMMIT) or -DBATCHSVD_GIT_COMMIT.
#include <cuComplex.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <ctime>
#include <exception>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "batchsvd/batchsvd.hpp"
#include "cuda/fused/fused_plan.hpp"
#include "gpu_errors.hpp"
#include "lapack_loop.hpp"
#include "testing/error_measures.hpp"
#include "testing/generators.hpp"

#ifndef BATCHSVD_GIT_COMMIT
#define BATCHSVD_GIT_COMMIT "unknown"
#endif

using batchsvd::index_t;
using batchsvd::real_t;

namespace {

#define CK(call)                                                                              \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess) {                                                              \
            std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_), __FILE__, \
                         __LINE__, #call);                                                    \
            std::exit(2);                                                                     \
        }                                                                                     \
    } while (0)

const double nan_ms = std::numeric_limits<double>::quiet_NaN();

/// run_case's nb for the blocked path forced with block_width_for's width.
constexpr int kBlockedAnyWidth = -2;

/// Host to device, ordered on stream s and complete on return. (A plain cudaMemcpy from
/// pageable memory may return before its DMA lands, and runs on the legacy stream, which the
/// benchmark's non-blocking stream does not wait for: a solver launched next could read the
/// previous contents. Seen on the GPU as O(1) errors of whichever library ran next.)
template <class T> void to_device(T* dst, const T* src, std::size_t count, cudaStream_t s) {
    CK(cudaMemcpyAsync(dst, src, count * sizeof(T), cudaMemcpyHostToDevice, s));
    CK(cudaStreamSynchronize(s));
}

template <class T> T conj_of(const T& x) {
    if constexpr (std::is_same_v<T, real_t<T>>) return x; else return std::conj(x);
}

/// Matrices whose errors are measured on the host (LAPACK reference values and wide-precision
/// products, O(m n k) each, about a minute at 1024^3 in long double): at most `want`, and no
/// more than about 3e8 multiply-adds in all; 0 for a single matrix past that (n > ~670), whose
/// errors are then measured on the GPU instead (gpu_errors.hpp, one matrix).
/// BATCHSVD_BENCH_GPU_ERRORS=1 takes every size to the GPU measures (to compare the two).
index_t measure_count(index_t m, index_t n, index_t want) {
    static const bool gpu_only = std::getenv("BATCHSVD_BENCH_GPU_ERRORS") != nullptr;
    if (gpu_only) return 0;
    constexpr double cap = 3e8;
    const double work = double(m) * double(n) * double(std::min(m, n));
    if (work > cap) return 0;
    return std::max<index_t>(1, std::min<index_t>(want, index_t(cap / work)));
}

// ---- cuSOLVER per precision -----------------------------------------------------------------
template <class T> struct Solver;
#define BATCHSVD_SOLVER_(T, DT, L)                                                                \
    template <> struct Solver<T> {                                                                \
        using D = DT;                                                                             \
        static cusolverStatus_t jb_size(cusolverDnHandle_t h, int m, int n, D* A, int lda,      \
                                        real_t<T>* S, D* U, int ldu, D* V, int ldv, int* lw,     \
                                        gesvdjInfo_t p, int batch) {                             \
            return cusolverDn##L##gesvdjBatched_bufferSize(h, CUSOLVER_EIG_MODE_VECTOR, m, n, A,  \
                                                          lda, S, U, ldu, V, ldv, lw, p, batch);  \
        }                                                                                         \
        static cusolverStatus_t jb(cusolverDnHandle_t h, int m, int n, D* A, int lda,           \
                                   real_t<T>* S, D* U, int ldu, D* V, int ldv, D* w, int lw,     \
                                   int* info, gesvdjInfo_t p, int batch) {                       \
            return cusolverDn##L##gesvdjBatched(h, CUSOLVER_EIG_MODE_VECTOR, m, n, A, lda, S, U,  \
                                               ldu, V, ldv, w, lw, info, p, batch);              \
        }                                                                                         \
        static cusolverStatus_t j_size(cusolverDnHandle_t h, int m, int n, D* A, int lda,       \
                                       real_t<T>* S, D* U, int ldu, D* V, int ldv, int* lw,      \
                                       gesvdjInfo_t p) {                                         \
            return cusolverDn##L##gesvdj_bufferSize(h, CUSOLVER_EIG_MODE_VECTOR, 1, m, n, A, lda, \
                                                   S, U, ldu, V, ldv, lw, p);                    \
        }                                                                                         \
        static cusolverStatus_t j(cusolverDnHandle_t h, int m, int n, D* A, int lda,            \
                                  real_t<T>* S, D* U, int ldu, D* V, int ldv, D* w, int lw,      \
                                  int* info, gesvdjInfo_t p) {                                   \
            return cusolverDn##L##gesvdj(h, CUSOLVER_EIG_MODE_VECTOR, 1, m, n, A, lda, S, U, ldu, \
                                        V, ldv, w, lw, info, p);                                 \
        }                                                                                         \
        static cusolverStatus_t g_size(cusolverDnHandle_t h, int m, int n, int* lw) {           \
            return cusolverDn##L##gesvd_bufferSize(h, m, n, lw);                                  \
        }                                                                                         \
        static cusolverStatus_t g(cusolverDnHandle_t h, int m, int n, D* A, int lda,            \
                                  real_t<T>* S, D* U, int ldu, D* VT, int ldvt, D* w, int lw,    \
                                  real_t<T>* rw, int* info) {                                    \
            return cusolverDn##L##gesvd(h, 'S', 'S', m, n, A, lda, S, U, ldu, VT, ldvt, w, lw,    \
                                        rw, info);                                                \
        }                                                                                         \
        static cusolverStatus_t a_size(cusolverDnHandle_t h, int rank, int m, int n,            \
                                       const D* A, int lda, long long sA, const real_t<T>* S,    \
                                       long long sS, const D* U, int ldu, long long sU,          \
                                       const D* V, int ldv, long long sV, int* lw, int batch) {  \
            return cusolverDn##L##gesvdaStridedBatched_bufferSize(                               \
                h, CUSOLVER_EIG_MODE_VECTOR, rank, m, n, A, lda, sA, S, sS, U, ldu, sU, V, ldv,   \
                sV, lw, batch);                                                                   \
        }                                                                                         \
        static cusolverStatus_t a(cusolverDnHandle_t h, int rank, int m, int n, const D* A,     \
                                  int lda, long long sA, real_t<T>* S, long long sS, D* U,       \
                                  int ldu, long long sU, D* V, int ldv, long long sV, D* w,      \
                                  int lw, int* info, double* nrm, int batch) {                   \
            return cusolverDn##L##gesvdaStridedBatched(h, CUSOLVER_EIG_MODE_VECTOR, rank, m, n,  \
                                                      A, lda, sA, S, sS, U, ldu, sU, V, ldv, sV, \
                                                      w, lw, info, nrm, batch);                  \
        }                                                                                         \
    };
BATCHSVD_SOLVER_(float, float, S)
BATCHSVD_SOLVER_(double, double, D)
BATCHSVD_SOLVER_(std::complex<float>, cuComplex, C)
BATCHSVD_SOLVER_(std::complex<double>, cuDoubleComplex, Z)
#undef BATCHSVD_SOLVER_

template <class T> const char* precision_name() {
    if constexpr (std::is_same_v<T, float>) return "float32";
    else if constexpr (std::is_same_v<T, double>) return "float64";
    else if constexpr (std::is_same_v<T, std::complex<float>>) return "complex64";
    else return "complex128";
}

// ---- fresh random data on the device ---------------------------------------------------------
__device__ inline unsigned long long splitmix64(unsigned long long x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}
/// Uniform in (0, 1): never zero.
template <class R> __global__ void fill_uniform(R* p, std::size_t count, unsigned long long seed) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const unsigned long long r = splitmix64(seed * 0x2545F4914F6CDD1DULL + i);
        p[i] = R((double(r >> 11) + 0.5) * 0x1.0p-53);
    }
}
template <class T> void fill(T* p, std::size_t count, unsigned long long seed, cudaStream_t s) {
    using R = real_t<T>;
    const std::size_t n = count * (sizeof(T) / sizeof(R));
    fill_uniform<R><<<1024, 256, 0, s>>>(reinterpret_cast<R*>(p), n, seed);
    CK(cudaGetLastError());
}

// ---- conjugate transpose of a batch ---------------------------------------------------------
template <class D> __device__ inline D conj_elem(D x) { return x; }
template <> __device__ inline cuComplex conj_elem(cuComplex x) { return cuConjf(x); }
template <> __device__ inline cuDoubleComplex conj_elem(cuDoubleComplex x) { return cuConj(x); }
/// at_b = a_b^H for every rows x cols matrix a_b (column-major, stride rows cols) into
/// cols x rows (same stride), through 32 x 32 shared-memory tiles so that both the reads and
/// the writes run down columns (a naive copy reads with stride rows).
template <class D>
__global__ void conj_transpose_kernel(const D* a, D* at, index_t rows, index_t cols, index_t batch) {
    __shared__ D tile[32][33];  // +1: no bank conflicts on the transposed read
    const index_t i0 = index_t(blockIdx.x) * 32, j0 = index_t(blockIdx.y) * 32;
    const std::size_t stride = std::size_t(rows) * cols;
    for (index_t b = blockIdx.z; b < batch; b += gridDim.z) {
        const D* ab = a + b * stride;
        D* tb = at + b * stride;
        for (unsigned y = threadIdx.y; y < 32; y += blockDim.y) {  // tile[y][x] = a(i0 + x, j0 + y)
            const index_t i = i0 + threadIdx.x, j = j0 + y;
            if (i < rows && j < cols) tile[y][threadIdx.x] = ab[i + j * rows];
        }
        __syncthreads();
        for (unsigned y = threadIdx.y; y < 32; y += blockDim.y) {  // at(j, i) = conj(a(i, j))
            const index_t j = j0 + threadIdx.x, i = i0 + y;
            if (i < rows && j < cols) tb[j + i * cols] = conj_elem(tile[threadIdx.x][y]);
        }
        __syncthreads();
    }
}
/// The conjugate transpose of `batch` rows x cols matrices, on stream s (D: cuSOLVER's types).
template <class D>
void conj_transpose(const D* a, D* at, index_t rows, index_t cols, index_t batch, cudaStream_t s) {
    if (batch <= 0) return;
    const dim3 grid(unsigned((rows + 31) / 32), unsigned((cols + 31) / 32),
                    unsigned(std::min<index_t>(batch, 65535)));
    conj_transpose_kernel<D><<<grid, dim3(32, 8), 0, s>>>(a, at, rows, cols, batch);
    CK(cudaGetLastError());
}

template <class T> struct Dev {
    T* p = nullptr;
    explicit Dev(std::size_t n) { if (n) CK(cudaMalloc(&p, n * sizeof(T))); }
    ~Dev() { if (p) cudaFree(p); }
    Dev(const Dev&) = delete;
    Dev& operator=(const Dev&) = delete;
};

double median(std::vector<double> v) {
    if (v.empty()) return nan_ms;
    std::sort(v.begin(), v.end());
    const std::size_t h = v.size() / 2;
    return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

/// Peers whose warm-up call takes longer than this many seconds are skipped (--cap).
double g_cap_seconds = 30;
/// batchsvd's Options::tol_factor in every case (--tol-factor).
double g_tol_factor = batchsvd::Options{}.tol_factor;
/// --errors-on K: batchsvd's errors measured on at most K matrices of a case (0: the default
/// counts: 500 for n <= 32, 50 to 128, 8 beyond).
index_t g_errors_on = 0;
/// batchsvd's calls per case, on slices of the batch, concurrently (--concurrent).
int g_concurrent = 1;
/// Set by time_median when it skipped its run for the cap.
bool g_last_skipped = false;

/// Median over reps of the event time of `run`, after `refill` (untimed) and one warm-up.
/// `run` returns false when the library refused or failed: the result is then NaN. With
/// `capped`, a warm-up over g_cap_seconds ends it: NaN, and g_last_skipped is set.
double time_median(int reps, cudaStream_t s, const std::function<void(int)>& refill,
                   const std::function<bool()>& run, bool capped = false) {
    g_last_skipped = false;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    refill(-1);
    CK(cudaStreamSynchronize(s));
    const auto w0 = std::chrono::steady_clock::now();
    bool ok = run();
    CK(cudaStreamSynchronize(s));
    // A run that takes over half a second (a peer looping over large matrices) is repeated
    // 3 times, not `reps`, to keep the suite inside one device call.
    const double warm_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    if (warm_s > 0.5) reps = std::min(reps, 3);
    if (capped && warm_s > g_cap_seconds) {
        g_last_skipped = true;
        ok = false;
    }
    std::vector<double> t;
    for (int r = 0; ok && r < reps; ++r) {
        refill(r);
        CK(cudaEventRecord(e0, s));
        ok = run();
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        t.push_back(ms);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return ok ? median(t) : nan_ms;
}

/// Worst of e1-e4 in units of u of batchsvd and each cuSOLVER peer on one shared input of
/// `count` matrices; nan where a peer did not run.
struct LibraryAccuracy {
    index_t count = 0;
    double ours = nan_ms, jbatched = nan_ms, gesvda = nan_ms, jloop = nan_ms, gesvd = nan_ms;
    /// batchsvd's and gesvda's e1-e4 themselves (the CSV's geo_e* columns)
    batchsvd::testing::Errors ours_errors, gesvda_errors;
    bool gesvda_measured = false;
};

struct Row {
    std::string precision;
    index_t m, n, batch;
    double ours = nan_ms, jbatched = nan_ms, gesvda = nan_ms, jloop = nan_ms;
    index_t loop_subset = 0;
    batchsvd::testing::Errors err;
    index_t measured = 0;
    /// Where e1-e4 (err and the acc_* columns) were computed: "host" (long double, LAPACK
    /// reference) or, past measure_count's limit, "gpu" (gpu_errors.hpp: FP64 cuBLAS products,
    /// cuSOLVER gesvd reference values, one matrix).
    std::string errors_by = "host";
    double geo_kappa = 0;
    double floor_ms = nan_ms;  ///< inputs read and outputs written once at the copy bandwidth
    std::string plan;          ///< how the fused kernel ran the case
    double mean_sweeps = nan_ms;  ///< sweeps to convergence (final check sweep included)
    index_t sweeps_counted_on = 0;  ///< matrices the sweeps were counted on (first of the batch)
    int most_sweeps = 0;
    /// --breakdown, blocked path: one sweep's time by part (ms) and the rest of a one-sweep
    /// solve (scan, load, sweep end, finalisation).
    double bd_other = nan_ms, bd_gram = nan_ms, bd_eigen = nan_ms, bd_update = nan_ms;
    double gesvd_loop = nan_ms;  ///< cuSOLVER gesvd over loop_subset matrices, scaled
    std::string skipped;         ///< peers skipped for the --cap, ';'-separated
    double arith_floor_ms = nan_ms;  ///< estimated flops (mean sweeps) at the FP peak
    /// --cpu-baseline: LAPACK in an OpenMP loop on the host, over cpu_subset random matrices
    /// of the case's shape, scaled to the batch; worst of e1..e4 in units of u.
    double cpu_gesvd = nan_ms, cpu_gesvj = nan_ms, cpu_gesvd_err = nan_ms, cpu_gesvj_err = nan_ms;
    index_t cpu_subset = 0;
    /// --host-memory: the same batch from pinned host memory, wall time including the
    /// transfers: one shot (copied in, solved, copied out) and streamed in 8 chunks.
    double host_ms = nan_ms, host_streamed_ms = nan_ms;
    /// ... and from pageable memory, staged by the library and copied by the driver.
    double pageable_ms = nan_ms, pageable_driver_ms = nan_ms;
    /// Worst of e1-e4 in units of u of each cuSOLVER peer and of batchsvd on one shared
    /// uniform random input (the first acc_count matrices); nan where a peer did not run.
    LibraryAccuracy acc;
    /// The same on a geo batch (kappa = geo_kappa; count 0 where the peers did not run).
    LibraryAccuracy geo_acc;
    /// m < n with the peers run: gesvda, looped gesvd and the CPU baseline ran on A^H (their
    /// U and V swapped back); gesvdjBatched, looped gesvdj and batchsvd take A as it is.
    bool peers_on_transpose = false;
};

struct Env {
    double copy_bytes_per_ms = 0;  ///< measured device-to-device copy rate, read + written
    cudaStream_t stream;
    cusolverDnHandle_t handle;
    int reps;
    bool peers;
    bool breakdown = false;
    bool cpu_baseline = false;
    bool host_memory = false;
    bool count_sweeps = true;  ///< false: --no-sweep-count (no sweeps, no arithmetic floor)
    double fp64_flops_per_ms = nan_ms, fp32_flops_per_ms = nan_ms;  ///< vector (non-tensor) peaks
};

unsigned long long g_seed = 0x1234;

/// --host-memory: batchsvd on pinned host copies of the device batch `da` (wall time, the
/// median of 3 after a warm-up), once as the library chooses and once streamed in 8 chunks
/// (BATCHSVD_CUDA_CHUNK), which overlaps the transfers with the solve.
template <class T>
void time_host_memory(Row& row, index_t m, index_t n, index_t batch, const T* da,
                      batchsvd::Options opts) {
    using R = real_t<T>;
    const index_t k = std::min(m, n);
    struct Pinned {
        void* p = nullptr;
        explicit Pinned(std::size_t bytes) { CK(cudaMallocHost(&p, bytes)); }
        ~Pinned() { cudaFreeHost(p); }
        Pinned(const Pinned&) = delete;
        Pinned& operator=(const Pinned&) = delete;
    };
    Pinned a(sizeof(T) * std::size_t(m) * n * batch), u(sizeof(T) * std::size_t(m) * k * batch),
        v(sizeof(T) * std::size_t(n) * k * batch), sv(sizeof(R) * std::size_t(k) * batch),
        info(sizeof(int) * std::size_t(batch));
    CK(cudaMemcpy(a.p, da, sizeof(T) * std::size_t(m) * n * batch, cudaMemcpyDeviceToHost));
    opts.stream = nullptr;
    opts.backend = batchsvd::Backend::automatic;  // host pointers: staged through the GPU
    // The median wall time of 3 calls after a warm-up, on input `in`; fresh: outputs from
    // malloc each call (untouched pages, as a new NumPy array's), else the pinned ones.
    auto wall = [&](const T* in, bool fresh) {
        using Buffer = std::unique_ptr<void, decltype(&std::free)>;
        auto fresh_buffer = [&](std::size_t bytes) {
            Buffer b(fresh ? std::malloc(bytes) : nullptr, &std::free);
            if (fresh && !b) throw std::bad_alloc();
            return b;
        };
        std::vector<double> t;
        for (int r = 0; r < 4; ++r) {
            const Buffer fu = fresh_buffer(sizeof(T) * std::size_t(m) * k * batch),
                         fv = fresh_buffer(sizeof(T) * std::size_t(n) * k * batch),
                         fs = fresh_buffer(sizeof(R) * std::size_t(k) * batch),
                         fi = fresh_buffer(sizeof(int) * std::size_t(batch));
            const auto t0 = std::chrono::steady_clock::now();
            batchsvd::gesvd<T>(m, n, batch, in, static_cast<R*>(fresh ? fs.get() : sv.p),
                               static_cast<T*>(fresh ? fu.get() : u.p), static_cast<T*>(fresh ? fv.get() : v.p),
                               static_cast<int*>(fresh ? fi.get() : info.p), opts);
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            if (r > 0) t.push_back(ms);  // the first is the warm-up
        }
        return median(t);
    };
    row.host_ms = wall(static_cast<const T*>(a.p), false);
    setenv("BATCHSVD_CUDA_CHUNK", std::to_string((batch + 7) / 8).c_str(), 1);
    row.host_streamed_ms = wall(static_cast<const T*>(a.p), false);
    unsetenv("BATCHSVD_CUDA_CHUNK");
    // Pageable: the input a touched copy, the outputs fresh each call.
    {
        std::vector<T> pa(std::size_t(m) * n * batch);
        std::memcpy(pa.data(), a.p, sizeof(T) * pa.size());
        row.pageable_ms = wall(pa.data(), true);
        setenv("BATCHSVD_CUDA_STAGING", "0", 1);
        row.pageable_driver_ms = wall(pa.data(), true);
        unsetenv("BATCHSVD_CUDA_STAGING");
    }
    const int* inf = static_cast<const int*>(info.p);
    const index_t bad = std::count_if(inf, inf + batch, [](int x) { return x != 0; });
    std::cerr << "  host memory: " << row.host_ms << " ms as chosen, " << row.host_streamed_ms
              << " ms streamed in 8 chunks; pageable " << row.pageable_ms << " ms staged, "
              << row.pageable_driver_ms << " ms the driver's copies (device-resident " << row.ours << " ms)"
              << (bad ? ", matrices with info != 0: " + std::to_string(bad) : std::string()) << "\n";
}

/// The worst of e1-e4 in units of u; a NaN among them (NaN in the library's output, which
/// the measures propagate) counts as an infinite error, not as a missing one.
double worst_in_u(const batchsvd::testing::Errors& e, double u) {
    for (double x : {e.e1, e.e2, e.e3, e.e4})
        if (std::isnan(x)) return std::numeric_limits<double>::infinity();
    return std::max({e.e1, e.e2, e.e3, e.e4}) / u;
}

template <class T> Row run_case(const Env& env, index_t m, index_t n, index_t batch, int nb = 0,
                                batchsvd::QrMode qr = batchsvd::QrMode::automatic,
                                batchsvd::PreconditionMode pre = batchsvd::PreconditionMode::automatic) {
    using S = Solver<T>;
    using D = typename S::D;
    using R = real_t<T>;
    Row row;
    row.precision = precision_name<T>();
    row.m = m;
    row.n = n;
    row.batch = batch;
    const index_t k = std::min(m, n);
    const std::size_t na = std::size_t(m) * n * batch;
    Dev<T> da(na), du(std::size_t(m) * k * batch), dv(std::size_t(n) * k * batch);
    Dev<R> ds(std::size_t(k) * batch);
    Dev<int> dinfo(batch);
    cudaStream_t s = env.stream;
    auto refill = [&](int) { fill(da.p, na, ++g_seed, s); };

    batchsvd::Options opts;
    opts.stream = s;
    if (nb > 0 || nb == kBlockedAnyWidth) {  // the blocked path forced, with this block width
        opts.variant = batchsvd::JacobiVariant::blocked;
        opts.block_width = std::max(nb, 0);
    } else if (nb < 0) {  // the unblocked kernels forced (the fused one where nothing smaller fits)
        opts.variant = batchsvd::JacobiVariant::unblocked;
    }
    opts.qr = qr;
    opts.precondition = pre;
    opts.tol_factor = g_tol_factor;
    const int parts = int(std::min<index_t>(g_concurrent, batch));
    std::vector<cudaStream_t> part_streams(parts);
    std::vector<cudaEvent_t> part_done(parts);
    cudaEvent_t start{};
    CK(cudaEventCreateWithFlags(&start, cudaEventDisableTiming));
    for (int i = 0; i < parts; ++i) {
        CK(cudaStreamCreateWithFlags(&part_streams[i], cudaStreamNonBlocking));
        CK(cudaEventCreateWithFlags(&part_done[i], cudaEventDisableTiming));
    }
    row.ours = time_median(env.reps, s, refill, [&] {
        if (parts <= 1) {
            batchsvd::gesvd<T>(m, n, batch, da.p, ds.p, du.p, dv.p, dinfo.p, opts);
            return true;
        }
        // --concurrent: the slices start after everything on s and s waits for all of them.
        CK(cudaEventRecord(start, s));
        std::vector<std::thread> threads;
        std::vector<std::exception_ptr> failed(parts);
        for (int i = 0; i < parts; ++i)
            threads.emplace_back([&, i] {
                try {
                    const index_t first = batch * i / parts, count = batch * (i + 1) / parts - first;
                    CK(cudaStreamWaitEvent(part_streams[i], start, 0));
                    batchsvd::Options o = opts;
                    o.stream = part_streams[i];
                    batchsvd::gesvd<T>(m, n, count, da.p + first * m * n, ds.p + first * k, du.p + first * m * k,
                                       dv.p + first * n * k, dinfo.p + first, o);
                    CK(cudaEventRecord(part_done[i], part_streams[i]));
                } catch (...) {
                    failed[i] = std::current_exception();
                }
            });
        for (auto& t : threads) t.join();
        for (const auto& f : failed)
            if (f) std::rethrow_exception(f);
        for (int i = 0; i < parts; ++i) CK(cudaStreamWaitEvent(s, part_done[i], 0));
        return true;
    });
    CK(cudaStreamSynchronize(s));
    for (int i = 0; i < parts; ++i) {
        CK(cudaEventDestroy(part_done[i]));
        CK(cudaStreamDestroy(part_streams[i]));
    }
    CK(cudaEventDestroy(start));
    {  // errors of the last timed run on its first matrices
        CK(cudaStreamSynchronize(s));
        index_t want = n <= 32 ? 500 : n <= 128 ? 50 : 8;
        if (g_errors_on > 0) want = std::min(want, g_errors_on);
        row.measured = measure_count(m, n, std::min<index_t>(batch, want));
        std::vector<T> a(std::size_t(m) * n * row.measured), u(std::size_t(m) * k * row.measured),
            v(std::size_t(n) * k * row.measured);
        std::vector<R> sv(std::size_t(k) * row.measured);
        std::vector<int> info(batch);
        CK(cudaMemcpy(a.data(), da.p, a.size() * sizeof(T), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(u.data(), du.p, u.size() * sizeof(T), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(v.data(), dv.p, v.size() * sizeof(T), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(sv.data(), ds.p, sv.size() * sizeof(R), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(info.data(), dinfo.p, batch * sizeof(int), cudaMemcpyDeviceToHost));
        if (row.measured > 0) {
            row.err = batchsvd::testing::measure_batch<T>(m, n, row.measured, a.data(), sv.data(),
                                                          u.data(), v.data());
        } else {  // too large for the host reference: the first matrix, measured on the GPU
            row.measured = 1;
            row.errors_by = "gpu";
            try {
                const auto ref = batchsvd::bench::gpu_reference_values<T>(m, n, da.p, s);
                row.err = batchsvd::bench::gpu_measure<T>(m, n, da.p, ds.p, du.p, dv.p, n, false, ref, s);
            } catch (const std::exception& e) {
                std::cerr << "warning: errors not measured: " << e.what() << "\n";
                row.err = {nan_ms, nan_ms, nan_ms, nan_ms, true};
            }
        }
        const index_t bad = std::count_if(info.begin(), info.end(), [](int x) { return x != 0; });
        if (bad) std::cerr << "warning: " << bad << " matrices with info != 0\n";
    }
    if (env.host_memory) time_host_memory<T>(row, m, n, batch, da.p, opts);
    row.floor_ms = double(sizeof(T) * (std::size_t(m) * n + std::size_t(m) * k + std::size_t(n) * k) +
                          sizeof(R) * std::size_t(k)) * double(batch) / env.copy_bytes_per_ms;
    {  // the fused kernel's plan, and the sweeps the batch needed (runs with a sweep limit s)
        row.plan = batchsvd::cuda::solve_path<T>(m, n, batch, opts);
        if (row.plan.rfind("fused", 0) == 0) {
            const auto pi = batchsvd::cuda::fused_plan_info<T>(m, n, batch, true);
            row.plan += " blk/SM " + std::to_string(pi.blocks_per_sm);
        }
        // The scan costs about (mean sweeps / 2) solves: for solves over 2 s it runs on the
        // first matrices of the batch, as many as take about a second, at least one where that
        // one takes under 20 s (one 8192^2 float64 matrix: ~15 s, a scan of about 2 minutes).
        const index_t scan = !(row.ours > 0) || !env.count_sweeps ? 0  // not run (NaN), or not asked for
                             : row.ours < 2000 ? batch
                             : std::max<index_t>(index_t(double(batch) * 1000.0 / row.ours),
                                                 row.ours / double(batch) < 20000 ? 1 : 0);
        row.sweeps_counted_on = scan;
        std::vector<int> info(std::max<index_t>(scan, 1));
        index_t done = 0;
        double total = 0;
        batchsvd::Options o = opts;
        for (int sw = 1; sw <= 30 && done < scan; ++sw) {
            o.max_sweeps = sw;
            batchsvd::gesvd<T>(m, n, scan, da.p, ds.p, du.p, dv.p, dinfo.p, o);
            CK(cudaStreamSynchronize(s));
            CK(cudaMemcpy(info.data(), dinfo.p, scan * sizeof(int), cudaMemcpyDeviceToHost));
            const index_t now = std::count(info.begin(), info.begin() + scan, 0);
            total += double(now - done) * sw;
            if (now > done) row.most_sweeps = sw;
            done = now;
        }
        row.mean_sweeps = scan > 0 && done == scan ? total / double(scan) : nan_ms;
    }
    {  // roofline: the unblocked one-sided Jacobi's flops at the measured sweeps (FLOORS.md):
       // per pair and sweep 12 M for W's dot products and rotation, 6 N for V's; complex x4
        const double M = double(std::max(m, n)), N = double(std::min(m, n));
        const double per = row.mean_sweeps * N * (N - 1) / 2 * (12 * M + 6 * N) *
                           (std::is_same_v<T, R> ? 1.0 : 4.0);
        const double peak = sizeof(R) == 8 ? env.fp64_flops_per_ms : env.fp32_flops_per_ms;
        row.arith_floor_ms = per * double(batch) / peak;
    }
    if (env.breakdown && row.plan.rfind("blocked", 0) == 0) {
        // One sweep with the pair kernel stopped after each part (BATCHSVD_CUDA_BLOCKED_PHASES);
        // differences of the medians give the parts.
        batchsvd::Options o = opts;
        o.max_sweeps = 1;
        double t[4];
        const char* phases[4] = {"none", "gram", "eigen", "all"};
        for (int i = 0; i < 4; ++i) {
            setenv("BATCHSVD_CUDA_BLOCKED_PHASES", phases[i], 1);
            t[i] = time_median(env.reps, s, refill, [&] {
                batchsvd::gesvd<T>(m, n, batch, da.p, ds.p, du.p, dv.p, dinfo.p, o);
                return true;
            });
        }
        unsetenv("BATCHSVD_CUDA_BLOCKED_PHASES");
        row.bd_other = t[0];
        row.bd_gram = t[1] - t[0];
        row.bd_eigen = t[2] - t[1];
        row.bd_update = t[3] - t[2];
        std::cerr << "  breakdown of one sweep: Gram " << row.bd_gram << " ms, eigensolver "
                  << row.bd_eigen << " ms, update " << row.bd_update << " ms; rest of a "
                  << "one-sweep solve " << row.bd_other << " ms\n";
    }
    if (!env.peers) return row;

    // gesvda and gesvd need rows >= columns: a wide case runs them on A^H (n x m, in `at`),
    // conjugate-transposed on the stream inside the timed call. A^H = U' S V'^H gives
    // A = V' S U'^H, so their U' output (n x k) goes to dv as V and V' (m x k) to du as U:
    // the same layouts as batchsvd's, and what the CSV calls peers_on_transpose.
    const bool tr = m < n;
    row.peers_on_transpose = tr;
    const index_t pm = tr ? n : m, pn = tr ? m : n;  // the peers' rows and columns
    Dev<T> at(tr ? na : 0);
    D* const pa = reinterpret_cast<D*>(tr ? at.p : da.p);
    D* const pu = reinterpret_cast<D*>(tr ? dv.p : du.p);  // U': ld pm, stride pm k
    D* const pv = reinterpret_cast<D*>(tr ? du.p : dv.p);  // V': ld pn, stride pn k
    // The peer's input of the first `count` matrices of da.
    auto peer_input = [&](index_t count) {
        if (tr) conj_transpose(reinterpret_cast<const D*>(da.p), pa, m, n, count, s);
    };

    gesvdjInfo_t params;
    cusolverDnCreateGesvdjInfo(&params);
    // gesvdjBatched: m, n <= 32, full U (m x m) and V (n x n).
    if (m <= 32 && n <= 32) {
        Dev<D> U(std::size_t(m) * m * batch), V(std::size_t(n) * n * batch);
        int lw = 0;
        if (S::jb_size(env.handle, int(m), int(n), reinterpret_cast<D*>(da.p), int(m), ds.p, U.p,
                       int(m), V.p, int(n), &lw, params, int(batch)) == CUSOLVER_STATUS_SUCCESS) {
            Dev<D> w(lw);
            row.jbatched = time_median(env.reps, s, refill, [&] {
                return S::jb(env.handle, int(m), int(n), reinterpret_cast<D*>(da.p), int(m), ds.p,
                             U.p, int(m), V.p, int(n), w.p, lw, dinfo.p, params, int(batch)) ==
                       CUSOLVER_STATUS_SUCCESS;
            }, true);
            if (g_last_skipped) row.skipped += "gesvdjBatched;";
        }
    }
    // gesvdaStridedBatched: rank = k, on A (m >= n) or A^H (m < n).
    {
        int lw = 0;
        const long long sA = m * n, sS = k, sU = pm * k, sV = pn * k;
        if (S::a_size(env.handle, int(k), int(pm), int(pn), pa, int(pm), sA, ds.p, sS, pu, int(pm),
                      sU, pv, int(pn), sV, &lw, int(batch)) == CUSOLVER_STATUS_SUCCESS) {
            Dev<D> w(lw);
            row.gesvda = time_median(env.reps, s, refill, [&] {
                peer_input(batch);
                return S::a(env.handle, int(k), int(pm), int(pn), pa, int(pm), sA, ds.p, sS, pu,
                            int(pm), sU, pv, int(pn), sV, w.p, lw, dinfo.p, nullptr,
                            int(batch)) == CUSOLVER_STATUS_SUCCESS;
            }, true);
            if (g_last_skipped) row.skipped += "gesvda;";
            else if (std::isnan(row.gesvda)) row.skipped += "gesvda(failed);";
        } else {
            row.skipped += "gesvda(no workspace size);";
        }
    }
    // gesvdj in a loop over a subset, scaled to the batch.
    {
        row.loop_subset = std::min<index_t>(batch, n <= 32 ? 200 : n <= 128 ? 50 : 5);
        int lw = 0;
        if (S::j_size(env.handle, int(m), int(n), reinterpret_cast<D*>(da.p), int(m), ds.p,
                      reinterpret_cast<D*>(du.p), int(m), reinterpret_cast<D*>(dv.p), int(n), &lw,
                      params) == CUSOLVER_STATUS_SUCCESS) {
            Dev<D> w(lw);
            const double t = time_median(env.reps, s, refill, [&] {
                for (index_t b = 0; b < row.loop_subset; ++b)
                    if (S::j(env.handle, int(m), int(n), reinterpret_cast<D*>(da.p) + b * m * n,
                             int(m), ds.p + b * k, reinterpret_cast<D*>(du.p) + b * m * k, int(m),
                             reinterpret_cast<D*>(dv.p) + b * n * k, int(n), w.p, lw, dinfo.p + b,
                             params) != CUSOLVER_STATUS_SUCCESS)
                        return false;
                return true;
            }, true);
            if (g_last_skipped) row.skipped += "gesvdj_loop;";
            else if (std::isnan(t)) row.skipped += "gesvdj_loop(failed);";
            row.jloop = t * double(batch) / double(row.loop_subset);
        }
    }
    // gesvd (cuSOLVER's bidiagonalisation SVD, rows >= columns) in a loop over the same
    // subset, scaled; a wide case transposes that subset inside the timed call. Its outputs
    // are U' (pm x k) and V'^H (k x pn = k x k), left as they come (on A^H, V'^H = U^H of A),
    // as a user of gesvd gets them.
    {
        int lw = 0;
        if (S::g_size(env.handle, int(pm), int(pn), &lw) == CUSOLVER_STATUS_SUCCESS) {
            Dev<D> w(lw);
            Dev<R> rw(k);
            const double t = time_median(env.reps, s, refill, [&] {
                peer_input(row.loop_subset);
                for (index_t b = 0; b < row.loop_subset; ++b)  // V'^H is k x pn = k x k here
                    if (S::g(env.handle, int(pm), int(pn), pa + b * m * n, int(pm), ds.p + b * k,
                             pu + b * pm * k, int(pm), pv + b * pn * k, int(pn), w.p, lw, rw.p,
                             dinfo.p + b) != CUSOLVER_STATUS_SUCCESS)
                        return false;
                return true;
            }, true);
            if (g_last_skipped) row.skipped += "gesvd_loop;";
            else if (std::isnan(t)) row.skipped += "gesvd_loop(failed);";
            row.gesvd_loop = t * double(batch) / double(row.loop_subset);
        }
    }
    // The CPU baseline: LAPACK ?gesvd and ?gesvj (real types) on all the host's cores, on as
    // many matrices as take about a second (at least one per thread), scaled to the batch. A
    // wide case runs on the host-transposed batch (run_lapack_loop: A^H, transposed outside
    // the timed loop), its U and V swapped back and measured against A.
    if (env.cpu_baseline) {
        const index_t probe = std::min<index_t>(batch, batchsvd::bench::lapack_loop_threads());
        const auto a = batchsvd::testing::generate_batch<T>(batchsvd::testing::Family::random, m,
                                                            n, batch <= probe ? batch : probe, 99);
        const double t1 = batchsvd::bench::run_lapack_loop<T>(batchsvd::bench::LapackRoutine::gesvd, m, n, probe, a.data(), 1).ms;
        row.cpu_subset = std::clamp<index_t>(index_t(1000.0 / std::max(t1, 1e-3) * double(probe)),
                                             probe, std::min<index_t>(batch, 20000));
        const auto b = batchsvd::testing::generate_batch<T>(batchsvd::testing::Family::random, m,
                                                            n, row.cpu_subset, 98);
        const double u = batchsvd::testing::unit_roundoff<T>();
        auto worst = [u](const batchsvd::testing::Errors& e) { return worst_in_u(e, u); };
        const double scale = double(batch) / double(row.cpu_subset);
        const auto rd = batchsvd::bench::run_lapack_loop<T>(batchsvd::bench::LapackRoutine::gesvd, m, n, row.cpu_subset, b.data(), 3);
        row.cpu_gesvd = rd.ms * scale;
        row.cpu_gesvd_err = worst(rd.errors);
        if constexpr (std::is_same_v<T, R>) {
            const auto rj = batchsvd::bench::run_lapack_loop<T>(batchsvd::bench::LapackRoutine::gesvj, m, n, row.cpu_subset, b.data(), 3);
            row.cpu_gesvj = rj.ms * scale;
            row.cpu_gesvj_err = worst(rj.errors);
        }
        std::cerr << "  CPU (" << batchsvd::bench::lapack_loop_threads() << " threads, "
                  << row.cpu_subset << " matrices): gesvd " << row.cpu_gesvd << " ms, gesvj "
                  << row.cpu_gesvj << " ms for the batch\n";
    }
    // Accuracy of every library on one shared input: the first count matrices of a batch of
    // `family` (uniform random, the timed runs' distribution; or geo), copied in before each
    // call (the cuSOLVER routines overwrite A); e1-e4 against LAPACK, worst of the four in
    // units of u. Past the host reference's limit (measure_count), one matrix measured on the
    // GPU (gpu_errors.hpp) against a device copy of the input.
    // `want`: matrices to measure on the host (fewer where measure_count says so).
    auto library_accuracy = [&](batchsvd::testing::Family family, std::uint64_t seed, double cond,
                                index_t want) {
        LibraryAccuracy r;
        const bool on_host = measure_count(m, n, 1) > 0;
        const index_t cnt = r.count = on_host ? measure_count(m, n, std::min<index_t>(batch, want)) : 1;
        // Past the host reference's reach a structured family is generated on the GPU (the
        // host's Gram-Schmidt would take minutes at order 2048 and more).
        const auto a = !on_host && family != batchsvd::testing::Family::random
                           ? batchsvd::bench::gpu_generate<T>(family, m, n, cond, seed, s)
                           : batchsvd::testing::generate_batch<T>(family, m, n, cnt, seed, cond);
        const double u = batchsvd::testing::unit_roundoff<T>();
        using Measured = std::optional<batchsvd::testing::Errors>;  // none: could not be measured
        const batchsvd::testing::Errors unmeasured{nan_ms, nan_ms, nan_ms, nan_ms, true};
        auto worst = [u](const Measured& e) { return e ? worst_in_u(*e, u) : nan_ms; };
        std::vector<T> hu(on_host ? std::size_t(m) * k * cnt : 0), hv(on_host ? std::size_t(n) * k * cnt : 0);
        std::vector<R> hs(std::size_t(k) * cnt);
        auto load = [&] { to_device(da.p, a.data(), a.size(), s); };
        Dev<T> a0(on_host ? 0 : a.size());
        std::vector<double> ref;
        if (!on_host) {
            to_device(a0.p, a.data(), a.size(), s);
            try {
                ref = batchsvd::bench::gpu_reference_values<T>(m, n, a0.p, s);
                if (family != batchsvd::testing::Family::random && !ref.empty())
                    std::cerr << "  generated on the GPU: reference sigma_1 " << ref.front() << ", sigma_k "
                              << ref.back() << " (expected 1 and " << 1.0 / cond << ")\n";
            } catch (const std::exception& e) {
                std::cerr << "warning: reference values not computed: " << e.what() << "\n";
            }
        }
        // Outputs of matrix b: U at u0 + b su (ld m), V or V^H (vh) at v0 + b sv (ld ldv).
        auto measure = [&](const T* u0, index_t su, const T* v0, index_t sv, index_t ldv, bool vh) -> Measured {
            CK(cudaStreamSynchronize(s));
            if (!on_host) {
                try {
                    return batchsvd::bench::gpu_measure<T>(m, n, a0.p, ds.p, u0, v0, ldv, vh, ref, s);
                } catch (const std::exception& e) {
                    std::cerr << "warning: errors not measured: " << e.what() << "\n";
                    return std::nullopt;
                }
            }
            CK(cudaMemcpy(hs.data(), ds.p, hs.size() * sizeof(R), cudaMemcpyDeviceToHost));
            std::vector<T> ub(std::size_t(su) * cnt), vb(std::size_t(sv) * cnt);
            CK(cudaMemcpy(ub.data(), u0, ub.size() * sizeof(T), cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(vb.data(), v0, vb.size() * sizeof(T), cudaMemcpyDeviceToHost));
            for (index_t b = 0; b < cnt; ++b)
                for (index_t j = 0; j < k; ++j) {
                    for (index_t i = 0; i < m; ++i) hu[(b * k + j) * m + i] = ub[b * su + j * m + i];
                    for (index_t i = 0; i < n; ++i)
                        hv[(b * k + j) * n + i] = vh ? conj_of(vb[b * sv + i * ldv + j]) : vb[b * sv + j * ldv + i];
                }
            return batchsvd::testing::measure_batch<T>(m, n, cnt, a.data(), hs.data(), hu.data(), hv.data());
        };
        load();
        batchsvd::gesvd<T>(m, n, cnt, da.p, ds.p, du.p, dv.p, dinfo.p, opts);
        const Measured ours = measure(du.p, m * k, dv.p, n * k, n, false);
        r.ours_errors = ours.value_or(unmeasured);
        r.ours = worst(ours);
        if (!std::isnan(row.jbatched) && std::isfinite(row.jbatched)) {
            Dev<D> U(std::size_t(m) * m * cnt), V(std::size_t(n) * n * cnt);
            int lw = 0;
            if (S::jb_size(env.handle, int(m), int(n), reinterpret_cast<D*>(da.p), int(m), ds.p, U.p,
                           int(m), V.p, int(n), &lw, params, int(cnt)) == CUSOLVER_STATUS_SUCCESS) {
                Dev<D> w(lw);
                load();
                if (S::jb(env.handle, int(m), int(n), reinterpret_cast<D*>(da.p), int(m), ds.p, U.p,
                          int(m), V.p, int(n), w.p, lw, dinfo.p, params, int(cnt)) == CUSOLVER_STATUS_SUCCESS)
                    r.jbatched = worst(measure(reinterpret_cast<T*>(U.p), m * m,
                                               reinterpret_cast<T*>(V.p), n * n, n, false));
            }
        }
        if (!std::isnan(row.gesvda) && std::isfinite(row.gesvda)) {
            // As timed (on A^H for m < n): U and V of A land in du and dv either way.
            int lw = 0;
            const long long sA = m * n, sS = k, sU = pm * k, sV = pn * k;
            if (S::a_size(env.handle, int(k), int(pm), int(pn), pa, int(pm), sA, ds.p, sS, pu,
                          int(pm), sU, pv, int(pn), sV, &lw, int(cnt)) == CUSOLVER_STATUS_SUCCESS) {
                Dev<D> w(lw);
                load();
                peer_input(cnt);
                if (S::a(env.handle, int(k), int(pm), int(pn), pa, int(pm), sA, ds.p, sS, pu, int(pm),
                         sU, pv, int(pn), sV, w.p, lw, dinfo.p, nullptr, int(cnt)) == CUSOLVER_STATUS_SUCCESS) {
                    const Measured e = measure(du.p, m * k, dv.p, n * k, n, false);
                    r.gesvda_errors = e.value_or(unmeasured);
                    r.gesvda = worst(e);
                    r.gesvda_measured = true;
                }
            }
        }
        // gesvdj and gesvd one matrix at a time, as timed (gesvd on A^H for m < n).
        auto looped = [&](bool svd_g) {
            int lw = 0;
            const bool sized = svd_g ? S::g_size(env.handle, int(pm), int(pn), &lw) == CUSOLVER_STATUS_SUCCESS
                                     : S::j_size(env.handle, int(m), int(n), reinterpret_cast<D*>(da.p), int(m),
                                                 ds.p, reinterpret_cast<D*>(du.p), int(m),
                                                 reinterpret_cast<D*>(dv.p), int(n), &lw,
                                                 params) == CUSOLVER_STATUS_SUCCESS;
            if (!sized) return nan_ms;
            Dev<D> w(lw);
            Dev<R> rw(k);
            load();
            if (svd_g) peer_input(cnt);
            for (index_t b = 0; b < cnt; ++b) {
                const cusolverStatus_t st =
                    svd_g ? S::g(env.handle, int(pm), int(pn), pa + b * m * n, int(pm), ds.p + b * k,
                                 pu + b * pm * k, int(pm), pv + b * pn * k, int(pn), w.p, lw, rw.p,
                                 dinfo.p + b)
                          : S::j(env.handle, int(m), int(n), reinterpret_cast<D*>(da.p) + b * m * n,
                                 int(m), ds.p + b * k, reinterpret_cast<D*>(du.p) + b * m * k, int(m),
                                 reinterpret_cast<D*>(dv.p) + b * n * k, int(n), w.p, lw, dinfo.p + b,
                                 params);
                if (st != CUSOLVER_STATUS_SUCCESS) return nan_ms;
            }
            if (svd_g && tr) {  // du holds V'^H (k x k) = U^H of A: U is its conjugate transpose
                // (into `at`, whose A^H gesvd has overwritten); dv holds V = U' (n x k)
                conj_transpose(pv, pa, k, k, cnt, s);
                return worst(measure(at.p, m * k, dv.p, n * k, n, false));
            }
            return worst(measure(du.p, m * k, dv.p, n * k, n, svd_g));
        };
        if (!std::isnan(row.jloop) && std::isfinite(row.jloop)) r.jloop = looped(false);
        if (!std::isnan(row.gesvd_loop) && std::isfinite(row.gesvd_loop)) r.gesvd = looped(true);
        std::cerr << "  accuracy on " << cnt << (family == batchsvd::testing::Family::geo ? " geo" : "")
                  << " shared matrices (worst e / u): batchsvd " << r.ours
                  << ", gesvdjBatched " << r.jbatched << ", gesvda " << r.gesvda
                  << ", gesvdj " << r.jloop << ", gesvd " << r.gesvd << "\n";
        return r;
    };
    row.acc = library_accuracy(batchsvd::testing::Family::random, 4242,
                               batchsvd::testing::default_condition<T>(), n <= 32 ? 200 : n <= 128 ? 20 : 3);
    // geo (kappa 1e10 double, 1e5 single), on the host where its reference is (random
    // orthogonal factors, O(m n k)), on the GPU beyond. batchsvd's and gesvda's own e1-e4 are
    // the CSV's geo_e* columns.
    row.geo_kappa = batchsvd::testing::default_condition<T>();
    row.geo_acc = library_accuracy(batchsvd::testing::Family::geo, 777, row.geo_kappa, n <= 128 ? 200 : 8);
    cusolverDnDestroyGesvdjInfo(params);
    return row;
}

std::string fmt(double x, int prec = 4) {
    if (std::isnan(x)) return "nan";
    std::ostringstream os;
    os.precision(prec);
    os << x;
    return os.str();
}
std::string sci(double x) {
    if (std::isnan(x)) return "nan";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2e", x);
    return buf;
}

}  // namespace

/// Case lists of the benchmark suite, by group (--group); "quick" is the README table's.
std::string group_cases(const std::string& g) {
    std::string c;
    auto add = [&c](const std::string& x) { c += (c.empty() ? "" : ",") + x; };
    auto num = [](index_t x) { return std::to_string(x); };
    if (g == "quick") {
        c = "f64:10000:32:32,f32:10000:32:32,f64:10000:16:16,f32:10000:16:16,f64:10000:8:8,"
            "f32:10000:8:8,c64:10000:32:32,c128:10000:32:32,f64:10000:32:16,f64:1000:64:64,"
            "max:1000,f32:1000000:2:2,f32:1000000:3:3,f64:1000000:3:3,f32:1000000:3:2,"
            "f32:1000000:4:4,f64:1000000:4:4,f64:1000000:8:8,f64:1000:256:256,f32:1000:256:256,"
            "f64:1000:500:100,f64:100:512:512";
    } else if (g == "small") {  // batch 10000, square 2..32
        for (const char* p : {"f32", "f64", "c64", "c128"})
            for (index_t n = 2; n <= 32; n += 2) add(std::string(p) + ":10000:" + num(n) + ":" + num(n));
    } else if (g == "square") {  // batch 1000, square 32..512 (order 1000: square_1000)
        for (const char* p : {"f64", "f32"})
            for (index_t n : {32, 64, 128, 256, 512}) add(std::string(p) + ":1000:" + num(n) + ":" + num(n));
        for (const char* p : {"c64", "c128"})
            for (index_t n : {32, 64, 128, 256}) add(std::string(p) + ":1000:" + num(n) + ":" + num(n));
    } else if (g == "square_1000") {  // the square group's order 1000: about 8 minutes alone
        c = "f64:1000:1000:1000,f32:1000:1000:1000";
    } else if (g == "tall" || g == "wide") {  // batch 1000, n = 16, m = 100..2000
        for (const char* p : {"f64", "f32", "c64", "c128"})
            for (index_t m : {100, 200, 500, 1000, 2000})
                add(std::string(p) + ":1000:" + (g == "tall" ? num(m) + ":16" : "16:" + num(m)));
    } else if (g == "large") {  // one matrix
        for (index_t n : {1024, 2048, 4096, 8192}) add("f64:1:" + num(n) + ":" + num(n));
        add("f32:1:4096:4096");
        for (const char* p : {"c64", "c128"})
            for (index_t n : {1024, 2048}) add(std::string(p) + ":1:" + num(n) + ":" + num(n));
    } else if (g == "scan" || g == "scan_square" || g == "scan_large" || g == "scan_rect") {
        // Time against order, every order (no peers): square 2-64 at batch 10000; 64-512 every 8
        // and every 32k +- 1 at batch 1000; tall m = 2n and 4n and wide n = 2m for n <= 64 at
        // batch 10000. float64 and float32 at every order, complex at every 4th (and, past 64,
        // at every 32nd). scan_square, scan_large and scan_rect are its three parts.
        const bool all = g == "scan";
        auto each = [&](index_t n, index_t step, const std::string& tail) {
            for (const char* p : {"f64", "f32"}) add(std::string(p) + tail);
            if (n % step == 0)
                for (const char* p : {"c64", "c128"}) add(std::string(p) + tail);
        };
        if (all || g == "scan_square")
            for (index_t n = 2; n <= 64; ++n) each(n, 4, ":10000:" + num(n) + ":" + num(n));
        if (all || g == "scan_large")
            for (index_t n = 64; n <= 512; ++n)
                if (n % 8 == 0 || n % 32 == 1 || n % 32 == 31) each(n, 32, ":1000:" + num(n) + ":" + num(n));
        if (all || g == "scan_rect")
            for (index_t n = 2; n <= 64; ++n) {
                each(n, 4, ":10000:" + num(2 * n) + ":" + num(n));
                each(n, 4, ":10000:" + num(4 * n) + ":" + num(n));
                each(n, 4, ":10000:" + num(n) + ":" + num(2 * n));
            }
    } else if (g == "tiny") {
        c = "f32:1000000:2:2,f64:1000000:2:2,f32:1000000:3:3,f64:1000000:3:3,f32:1000000:3:2,"
            "f32:1000000:4:4,f64:1000000:4:4,f32:1000000:8:8,f64:1000000:8:8";
    }
    return c;
}

int main(int argc, char** argv) {
    std::string cases = group_cases("quick");
    std::string csv_path, label;
    int reps = 10;
    bool peers = true, breakdown = false, cpu_baseline = false, host_memory = false, count_sweeps = true;
    bool print_cases = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
        if (a == "--cases") cases = next();
        else if (a == "--reps") reps = std::max(1, std::atoi(next().c_str()));
        else if (a == "--csv") csv_path = next();
        else if (a == "--no-peers") peers = false;
        else if (a == "--no-sweep-count") count_sweeps = false;
        else if (a == "--print-cases") print_cases = true;
        else if (a == "--breakdown") breakdown = true;
        else if (a == "--cpu-baseline") cpu_baseline = true;
        else if (a == "--host-memory") host_memory = true;
        else if (a == "--cap") g_cap_seconds = std::atof(next().c_str());
        else if (a == "--tol-factor") g_tol_factor = std::atof(next().c_str());
        else if (a == "--errors-on") g_errors_on = std::max<index_t>(0, std::atoll(next().c_str()));
        else if (a == "--concurrent") g_concurrent = std::max(1, std::atoi(next().c_str()));
        else if (a == "--group") {
            const std::string g = next();
            cases = group_cases(g);
            if (cases.empty()) {
                std::cerr << "unknown group " << g << " (quick, small, square, square_1000, tall, wide, large, tiny,"
                             " scan, scan_square, scan_large, scan_rect)\n";
                return 1;
            }
        }
        else if (a == "--label") label = next();
        else {
            std::cerr << "usage: " << argv[0]
                      << " [--cases f64:10000:32:32,...|max:BATCH] [--reps N] [--csv FILE]"
                         " [--group NAME] [--cap S] [--no-peers] [--no-sweep-count] [--breakdown] [--cpu-baseline] [--host-memory]"
                         " [--label TEXT] [--print-cases] [--tol-factor K] [--errors-on K] [--concurrent K]\n";
            return 1;
        }
    }
    if (print_cases) {  // the case list (of --group or --cases), for bench/torch_compare.py
        std::cout << cases << "\n";
        return 0;
    }
    if (!batchsvd::cuda_available()) {
        std::cerr << "no CUDA device\n";
        return 3;
    }
    cudaDeviceProp prop{};
    CK(cudaGetDeviceProperties(&prop, 0));
    int clock_khz = 0;
    CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    int rt = 0, drv = 0;
    cudaRuntimeGetVersion(&rt);
    cudaDriverGetVersion(&drv);
    const char* env_commit = std::getenv("BATCHSVD_GIT_COMMIT");
    const std::string commit = env_commit ? env_commit : BATCHSVD_GIT_COMMIT;
    char date[64];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    const std::string cuda_version = std::to_string(rt / 1000) + "." + std::to_string(rt % 1000 / 10) +
                                     " (driver " + std::to_string(drv / 1000) + "." +
                                     std::to_string(drv % 1000 / 10) + ")";

    Env env;
    CK(cudaStreamCreateWithFlags(&env.stream, cudaStreamNonBlocking));
    cusolverDnCreate(&env.handle);
    cusolverDnSetStream(env.handle, env.stream);
    env.reps = reps;
    env.peers = peers;
    env.breakdown = breakdown;
    {  // FMA units per SM: 64 FP64 / 128 FP32 on compute capability 9.0 (H100/H200), 32 / 64
       // on 8.0; other devices get no arithmetic floor.
        const int f64 = prop.major == 9 && prop.minor == 0 ? 64 : prop.major == 8 && prop.minor == 0 ? 32 : 0;
        if (f64 > 0) {
            env.fp64_flops_per_ms = 2.0 * f64 * prop.multiProcessorCount * double(clock_khz);
            env.fp32_flops_per_ms = 2.0 * env.fp64_flops_per_ms;
        }
    }
    env.cpu_baseline = cpu_baseline;
    env.count_sweeps = count_sweeps;
    env.host_memory = host_memory;
    {  // the memory ceiling: a 1 GiB device-to-device copy (bytes read + written)
        const std::size_t bytes = std::size_t(1) << 30;
        Dev<char> x(bytes), y(bytes);
        CK(cudaMemset(x.p, 1, bytes));
        const double ms = time_median(10, env.stream, [](int) {}, [&] {
            CK(cudaMemcpyAsync(y.p, x.p, bytes, cudaMemcpyDeviceToDevice, env.stream));
            return true;
        });
        env.copy_bytes_per_ms = 2.0 * double(bytes) / ms;
        std::cerr << "copy bandwidth: " << env.copy_bytes_per_ms / 1e9 << " TB/s\n";
    }

    std::vector<Row> rows;
    std::stringstream ss(cases);
    // The CSV, rewritten after every case: a run cut short keeps the cases it finished.
    auto write_csv = [&] {
        std::string csv_label = label;  // a field of its own: no commas
        std::replace(csv_label.begin(), csv_label.end(), ',', ';');
        std::ostringstream csv;
        csv << "gpu,cuda,commit,date,label,precision,m,n,batch,batchsvd_ms,gesvdjBatched_ms,"
               "gesvdaStridedBatched_ms,gesvdj_loop_ms,gesvdj_loop_note,speedup_vs_gesvdjBatched,"
               "speedup_vs_gesvda,speedup_vs_gesvdj_loop,e1,e2,e3,e4,sorted,errors_on_matrices,"
               "geo_kappa,geo_e1_batchsvd,geo_e2_batchsvd,geo_e4_batchsvd,geo_e1_gesvda,"
               "geo_e2_gesvda,geo_e4_gesvda,fused_plan,mean_sweeps,most_sweeps,memory_floor_ms,"
               "batchsvd_over_floor,copy_TBps,sweep_gram_ms,sweep_eigensolver_ms,sweep_update_ms,"
               "one_sweep_rest_ms,gesvd_loop_ms,cpu_gesvd_ms,cpu_gesvj_ms,cpu_threads,cpu_subset,"
               "cpu_gesvd_max_err_u,cpu_gesvj_max_err_u,arith_floor_ms,batchsvd_over_roofline,"
               "skipped_over_cap,host_memory_ms,host_memory_streamed_ms,acc_count,acc_batchsvd_u,"
               "acc_gesvdjBatched_u,acc_gesvda_u,acc_gesvdj_u,acc_gesvd_u,errors_by,geo_acc_count,"
               "geo_acc_batchsvd_u,geo_acc_gesvdjBatched_u,geo_acc_gesvda_u,geo_acc_gesvdj_u,"
               "geo_acc_gesvd_u,sweeps_counted_on,peers_on_transpose,host_pageable_ms,host_pageable_driver_ms\n";
        for (const Row& r : rows) {
            csv << '"' << prop.name << "\"," << cuda_version << ',' << commit << ',' << date << ','
                << csv_label << ',' << r.precision << ',' << r.m << ',' << r.n << ',' << r.batch << ','
                << fmt(r.ours, 6) << ',' << fmt(r.jbatched, 6) << ',' << fmt(r.gesvda, 6) << ','
                << fmt(r.jloop, 6) << ','
                << (r.loop_subset ? "timed on " + std::to_string(r.loop_subset) + " matrices scaled to batch"
                                  : std::string("not run"))
                << ',' << fmt(r.jbatched / r.ours) << ',' << fmt(r.gesvda / r.ours) << ','
                << fmt(r.jloop / r.ours) << ',' << sci(r.err.e1) << ',' << sci(r.err.e2) << ','
                << sci(r.err.e3) << ',' << sci(r.err.e4) << ',' << r.err.sorted << ',' << r.measured
                << ',' << r.geo_kappa << ','
                << ((r.geo_acc.count > 0) ? sci(r.geo_acc.ours_errors.e1) : "nan") << ','
                << ((r.geo_acc.count > 0) ? sci(r.geo_acc.ours_errors.e2) : "nan") << ','
                << ((r.geo_acc.count > 0) ? sci(r.geo_acc.ours_errors.e4) : "nan") << ','
                << (r.geo_acc.gesvda_measured ? sci(r.geo_acc.gesvda_errors.e1) : "nan") << ','
                << (r.geo_acc.gesvda_measured ? sci(r.geo_acc.gesvda_errors.e2) : "nan") << ','
                << (r.geo_acc.gesvda_measured ? sci(r.geo_acc.gesvda_errors.e4) : "nan") << ',' << r.plan << ','
                << fmt(r.mean_sweeps) << ',' << r.most_sweeps << ',' << fmt(r.floor_ms, 4) << ','
                << fmt(r.ours / r.floor_ms) << ',' << fmt(env.copy_bytes_per_ms / 1e9) << ','
                << fmt(r.bd_gram) << ',' << fmt(r.bd_eigen) << ',' << fmt(r.bd_update) << ','
                << fmt(r.bd_other) << ',' << fmt(r.gesvd_loop, 6) << ',' << fmt(r.cpu_gesvd, 6) << ','
                << fmt(r.cpu_gesvj, 6) << ',' << batchsvd::bench::lapack_loop_threads() << ','
                << r.cpu_subset << ',' << fmt(r.cpu_gesvd_err) << ',' << fmt(r.cpu_gesvj_err) << ','
                << fmt(r.arith_floor_ms, 4) << ','
                << fmt(r.ours / std::max(r.arith_floor_ms, r.floor_ms)) << ','
                << (r.skipped.empty() ? "none" : r.skipped) << ',' << fmt(r.host_ms, 6) << ','
                << fmt(r.host_streamed_ms, 6) << ',' << r.acc.count << ',' << fmt(r.acc.ours, 3) << ','
                << fmt(r.acc.jbatched, 3) << ',' << fmt(r.acc.gesvda, 3) << ',' << fmt(r.acc.jloop, 3)
                << ',' << fmt(r.acc.gesvd, 3) << ',' << r.errors_by << ',' << r.geo_acc.count << ','
                << fmt(r.geo_acc.ours, 3) << ',' << fmt(r.geo_acc.jbatched, 3) << ','
                << fmt(r.geo_acc.gesvda, 3) << ',' << fmt(r.geo_acc.jloop, 3) << ','
                << fmt(r.geo_acc.gesvd, 3) << ',' << r.sweeps_counted_on << ','
                << (r.peers_on_transpose ? 1 : 0) << ',' << fmt(r.pageable_ms, 6) << ','
                << fmt(r.pageable_driver_ms, 6) << '\n';
        }
        if (!csv_path.empty()) std::ofstream(csv_path) << csv.str();
    };
    std::string item;
    while (std::getline(ss, item, ',')) {
        std::vector<std::string> f;
        std::stringstream is(item);
        std::string x;
        while (std::getline(is, x, ':')) f.push_back(x);
        try {
            if (f.size() == 2 && f[0] == "max") {  // largest square of the fused kernel, each precision
                const index_t b = std::atoll(f[1].c_str());
                auto one = [&](auto tag) {
                    using T = decltype(tag);
                    const index_t nmax = batchsvd::cuda::largest_fused_square<T>(true);
                    std::cerr << "case max " << precision_name<T>() << ": " << nmax << "\n";
                    rows.push_back(run_case<T>(env, nmax, nmax, b, -1));  // the fused kernel, forced
                };
                one(float{});
                one(double{});
                one(std::complex<float>{});
                one(std::complex<double>{});
                continue;
            }
            const bool bpre = f.size() == 5 && f[4] == "bpre";
            if (f.size() != 4 && !(f.size() == 5 && ((f[4].size() > 1 && f[4][0] == 'b') || f[4] == "qr" ||
                                                     f[4] == "noqr" || f[4] == "fused" || f[4] == "pre" ||
                                                     f[4] == "nopre"))) {
                std::cerr << "bad case " << item << "\n";
                continue;
            }
            const index_t batch = std::atoll(f[1].c_str()), m = std::atoll(f[2].c_str()),
                          n = std::atoll(f[3].c_str());
            std::cerr << "case " << item << "\n";
            const batchsvd::QrMode qr = f.size() == 5 && f[4] == "qr"     ? batchsvd::QrMode::always
                                        : f.size() == 5 && f[4] == "noqr" ? batchsvd::QrMode::never
                                                                          : batchsvd::QrMode::automatic;
            const int nb = bpre ? kBlockedAnyWidth
                           : f.size() == 5 && f[4][0] == 'b' ? std::atoi(f[4].c_str() + 1)
                           : f.size() == 5 && f[4] == "fused" ? -1 : 0;
            const batchsvd::PreconditionMode pre = bpre || (f.size() == 5 && f[4] == "pre") ? batchsvd::PreconditionMode::always
                                                   : f.size() == 5 && f[4] == "nopre"
                                                       ? batchsvd::PreconditionMode::never
                                                       : batchsvd::PreconditionMode::automatic;
            if (f[0] == "f32") rows.push_back(run_case<float>(env, m, n, batch, nb, qr, pre));
            else if (f[0] == "f64") rows.push_back(run_case<double>(env, m, n, batch, nb, qr, pre));
            else if (f[0] == "c64") rows.push_back(run_case<std::complex<float>>(env, m, n, batch, nb, qr, pre));
            else if (f[0] == "c128") rows.push_back(run_case<std::complex<double>>(env, m, n, batch, nb, qr, pre));
            else std::cerr << "bad precision " << f[0] << "\n";
            if (!rows.empty())  // as it comes, so that a run cut short still shows its cases
                std::cerr << "  " << rows.back().precision << " ours " << rows.back().ours
                          << " ms, gesvda " << rows.back().gesvda << " ms, gesvdj loop "
                          << rows.back().jloop << " ms, plan " << rows.back().plan << ", sweeps "
                          << rows.back().mean_sweeps << ", e2 " << rows.back().err.e2 << "\n";
        } catch (const std::exception& e) {
            std::cerr << "case " << item << " failed: " << e.what() << "\n";
        }
        write_csv();
    }

    write_csv();

    std::printf("%s | CUDA %s | commit %s | %s %s\n", prop.name, cuda_version.c_str(),
                commit.c_str(), date, label.c_str());
    std::printf("%-10s %13s %10s %10s %10s %11s %8s %8s %8s %9s %9s %9s %9s\n", "precision",
                "batch x m x n", "ours ms", "jBatch ms", "gesvda ms", "jloop ms", "x jB",
                "x gesvda", "x jloop", "max e1", "max e2", "max e3", "max e4");
    for (const Row& r : rows) {
        const std::string shape = std::to_string(r.batch) + "x" + std::to_string(r.m) + "x" +
                                  std::to_string(r.n);
        std::printf("%-10s %13s %10s %10s %10s %11s %8s %8s %8s %9s %9s %9s %9s\n",
                    r.precision.c_str(), shape.c_str(), fmt(r.ours).c_str(),
                    fmt(r.jbatched).c_str(), fmt(r.gesvda).c_str(), fmt(r.jloop).c_str(),
                    fmt(r.jbatched / r.ours, 3).c_str(), fmt(r.gesvda / r.ours, 3).c_str(),
                    fmt(r.jloop / r.ours, 3).c_str(), sci(r.err.e1).c_str(), sci(r.err.e2).c_str(),
                    sci(r.err.e3).c_str(), sci(r.err.e4).c_str());
    }
    for (const Row& r : rows)
        std::printf("plan %-10s %ldx%ldx%ld: %s, sweeps mean %s max %d, memory floor %s ms (x%s)\n",
                    r.precision.c_str(), long(r.batch), long(r.m), long(r.n), r.plan.c_str(),
                    fmt(r.mean_sweeps).c_str(), r.most_sweeps, fmt(r.floor_ms, 3).c_str(),
                    fmt(r.ours / r.floor_ms, 3).c_str());
    for (const Row& r : rows)
        if ((r.geo_acc.count > 0))
            std::printf("geo kappa %.0e %-10s %ldx%ld: e2 ours %s gesvda %s | e4 ours %s gesvda %s\n",
                        r.geo_kappa, r.precision.c_str(), long(r.m), long(r.n),
                        sci(r.geo_acc.ours_errors.e2).c_str(),
                        r.geo_acc.gesvda_measured ? sci(r.geo_acc.gesvda_errors.e2).c_str() : "failed",
                        sci(r.geo_acc.ours_errors.e4).c_str(),
                        r.geo_acc.gesvda_measured ? sci(r.geo_acc.gesvda_errors.e4).c_str() : "failed");
    cusolverDnDestroy(env.handle);
    cudaStreamDestroy(env.stream);
    return 0;
}
