// SPDX-License-Identifier: BSD-3-Clause
// batchsvd_soak: the CUDA backend under random calls for a fixed time, every result checked on
// the GPU, device memory sampled after every call.
//
// Each call draws a precision, a shape (m and n from 1 to 1024), a batch (batch x m x n up to
// 2^24 elements, and fewer matrices the more work each is), U and V on or off (an output not
// asked for is sometimes passed as null), the variant, QR and preconditioning options and the
// block width, leading dimensions and batch strides with gaps, one of five streams in turn
// (the legacy default stream, two non-blocking ones, a blocking one and the per-thread default
// stream), and hostile matrices: NaN or Inf at one entry, zero, exactly rank one, entries
// scaled by 1e300 or 1e-300 (1e30 and 1e-30 in single precision), one matrix at a time or the
// whole batch. Inputs are generated on the GPU from a counter-based hash of the call's seed;
// gaps between matrices hold NaN (a solve that read them would show it).
//
// Checks, on the GPU:
// - every matrix: info (0, or info_nonfinite for a NaN/Inf matrix); S finite, non-negative
//   and descending, or all NaN for a NaN/Inf matrix; U and V finite, or all NaN; outputs not
//   asked for, gaps between matrices and 64 elements past each operand's end untouched (all
//   of them are set to all-ones bits, info to 0x5A5A5A5A, before the call); and
//   |sum s_j^2 - ||A||_F^2| <= 100 u (m + n) ||A||_F^2 in double precision (a backstop: it is
//   looser than e1-e4, and covers matrices that are not measured);
// - e1-e4 < 30u (and S sorted), the test suite's bar (tests/cuda_device_test.cpp), on up to six
//   matrices a call (the hostile ones that are finite, the neighbours of NaN matrices, the
//   first, the last and random ones; fewer for large orders), measured by gpu_errors.hpp (FP64
//   cuBLAS products, cuSOLVER gesvd values as the reference). A scaled matrix is measured as
//   A 2^-e (exact) with S 2^-e, e the power of two nearest its scale (996 or 100). With U or V
//   off: e4 and the orthogonality of the factor returned.
// Memory: after each call the device is synchronised, the soak's own buffers (cudaMalloc,
// outside the pools) are freed, the library's workspace pool is released
// (batchsvd::release_cached_memory) and the default memory pool (gpu_errors') trimmed to 0,
// and cudaMemGetInfo's free memory is sampled.
// The baseline is the sample after a warm-up round (every path in every precision, the
// preconditioned path on every stream: the library's pooled cuBLAS/cuSOLVER handles and their
// workspaces are made on first use); memory is flat when the last sample is at most 16 MiB
// below it. Two driver caches that only grow are filled first, so that they do not read as a leak:
// CUDA_MODULE_LOADING is set to EAGER unless set already (every kernel loaded with the
// context), and a kernel of the soak's own with 4 KiB of local memory a thread makes the
// local-memory reservation at its largest. The summary also gives the drift over the second
// half of the run, where a steady loss would show.
//
// Usage: batchsvd_soak [--seconds S] [--seed N] [--calls FILE] [--max-call-seconds S]
//   --seconds S (default 480): no call starts after S seconds.
//   --seed N (default: fresh, printed): replays a run's draws (not its timing: the number of
//   calls depends on the time they take).
//   --calls FILE: one line per call there (default: stdout). The line is written in two parts,
//   the call before it runs and its result after, so a call that never returns is named.
//   --max-call-seconds S (default 120): a call that runs longer ends the soak (exit 4).
// Standard output gets the header, the first 200 failed calls in full, progress every 30 s
// and the summary. Exit status: 0 when every call passed and memory stayed flat, 1 otherwise,
// 2 on a usage error, 3 when the device could not be set up, 4 when a call ran past the limit.
#include <cuda_runtime.h>
#include <math_constants.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "batchsvd/batchsvd.hpp"
#include "cuda/fused/fused_plan.hpp"
#include "gpu_errors.hpp"

namespace {

using batchsvd::index_t;
using batchsvd::real_t;
using batchsvd::testing::Errors;

// ---- matrices and their kinds -----------------------------------------------------------------

enum Kind : int { kNormal, kNan, kInf, kZero, kRankOne, kHuge, kTiny, kKinds };
const char* const kKindNames[kKinds] = {"normal", "nan", "inf", "zero", "rank1", "huge", "tiny"};

constexpr int kMaxHostile = 8;
/// The kinds of a batch's matrices: `all` for every matrix but the listed ones.
struct Hostile {
    int count = 0;
    long long index[kMaxHostile] = {};
    int kind[kMaxHostile] = {};
    int all = kNormal;
};

__host__ __device__ inline int kind_of(const Hostile& h, long long b) {
    for (int i = 0; i < h.count; ++i)
        if (h.index[i] == b) return h.kind[i];
    return h.all;
}
__host__ __device__ inline bool nonfinite_kind(int k) { return k == kNan || k == kInf; }
/// The power of two 2^e a matrix of kind k is measured at (A 2^-e): E (near 1e300 or 1e30) for
/// huge ones, -E for tiny ones, 0 otherwise.
__host__ __device__ inline int exponent_of(int k, int E) { return k == kHuge ? E : k == kTiny ? -E : 0; }

template <class T> constexpr bool is_complex_v = !std::is_same_v<T, real_t<T>>;
template <class T> constexpr int parts_v = is_complex_v<T> ? 2 : 1;
/// Scale of huge matrices (tiny ones: its inverse) and the power of two nearest it.
template <class R> constexpr double kScale = sizeof(R) == 8 ? 1e300 : 1e30;
template <class R> constexpr int kScaleExponent = sizeof(R) == 8 ? 996 : 100;  // 2^996 = 6.7e299, 2^100 = 1.3e30

__host__ __device__ inline unsigned long long mix64(unsigned long long x) {  // splitmix64's finaliser
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}
/// Uniform in [-1, 1), a function of (seed, key).
__device__ inline double uniform_pm1(unsigned long long seed, unsigned long long key) {
    return double(mix64(seed ^ mix64(key)) >> 11) * 0x1.0p-52 - 1.0;
}
/// A multiple of 1/256 in [-1, 1]: products and sums of two of them are exact in single
/// precision, so rank-one matrices are exactly rank one.
__device__ inline double dyadic(unsigned long long seed, unsigned long long key) {
    return double(int(mix64(seed ^ mix64(key)) % 513) - 256) / 256.0;
}
constexpr unsigned long long kSaltX = 0x1F2E3D4C5B6A7988ull, kSaltY = 0x2468ACE013579BDFull,
                             kSaltRow = 0x0F1E2D3C4B5A6978ull, kSaltCol = 0x7A6B5C4D3E2F1A0Bull;

/// The input batch, strided (element x of the allocation: matrix x / stride, column r / ld, row
/// r % ld, r = x % stride), P reals an element; everything outside the matrices NaN.
template <class R, int P>
__global__ void generate_kernel(R* a, long long total, int m, int n, long long ld, long long stride, long long batch,
                                unsigned long long seed, Hostile h, double scale) {
    for (long long x = blockIdx.x * (long long)blockDim.x + threadIdx.x; x < total;
         x += (long long)gridDim.x * blockDim.x) {
        const long long b = x / stride, r = x % stride, j = r / ld, i = r % ld;
        double v[2] = {CUDART_NAN, CUDART_NAN};
        if (b < batch && j < n && i < m) {
            const int kind = kind_of(h, b);
            const unsigned long long key =
                ((unsigned long long)b << 21) | ((unsigned long long)i << 11) | ((unsigned long long)j << 1);
            for (int p = 0; p < P; ++p) v[p] = uniform_pm1(seed, key | p);
            if (kind == kZero) {
                v[0] = v[1] = 0;
            } else if (kind == kRankOne) {
                const unsigned long long kx = ((unsigned long long)b << 12) | ((unsigned long long)i << 1),
                                         ky = ((unsigned long long)b << 12) | ((unsigned long long)j << 1);
                const double xr = dyadic(seed ^ kSaltX, kx), xi = P == 2 ? dyadic(seed ^ kSaltX, kx | 1) : 0.0;
                const double yr = dyadic(seed ^ kSaltY, ky), yi = P == 2 ? dyadic(seed ^ kSaltY, ky | 1) : 0.0;
                v[0] = xr * yr - xi * yi;
                v[1] = xr * yi + xi * yr;
            } else if (kind == kHuge) {
                v[0] *= scale;
                v[1] *= scale;
            } else if (kind == kTiny) {
                v[0] /= scale;
                v[1] /= scale;
            } else if (nonfinite_kind(kind) && i == (long long)(mix64(seed ^ kSaltRow ^ (unsigned long long)b) % m) &&
                       j == (long long)(mix64(seed ^ kSaltCol ^ (unsigned long long)b) % n)) {
                v[0] = kind == kNan ? CUDART_NAN : CUDART_INF;
            }
        }
        for (int p = 0; p < P; ++p) a[x * P + p] = R(v[p]);
    }
}

// ---- checks of every matrix ---------------------------------------------------------------

enum Counter : int {
    kSUntouched, kSNan, kSNonfinite, kSNegative, kSUnsorted,
    kUUntouched, kUNan, kUNonfinite,
    kVUntouched, kVNan, kVNonfinite,
    kInfoWrong, kInfoUntouched,
    kFrobenius, kFrobeniusWorst,  // (the worst relative difference, as the bits of a double)
    kCounters
};
const char* const kCounterText[kCounters] = {
    "S: elements outside the matrices written",
    "S: values of NaN/Inf matrices not NaN",
    "S: non-finite values",
    "S: negative values",
    "S: values not descending",
    "U: elements not asked for, outside the matrices or past the end written",
    "U: elements of NaN/Inf matrices not NaN",
    "U: non-finite elements",
    "V: elements not asked for, outside the matrices or past the end written",
    "V: elements of NaN/Inf matrices not NaN",
    "V: non-finite elements",
    "info: values other than expected",
    "info: entries past the batch written",
    "matrices failing |sum s^2 - ||A||_F^2| <= 100 u (m + n) ||A||_F^2",
    nullptr,
};
constexpr unsigned char kPoison = 0xFF;      // all-ones bits: NaN in S, U, V
constexpr unsigned char kInfoPoison = 0x5A;  // info entries: 0x5A5A5A5A
constexpr int kInfoPoisonWord = 0x5A5A5A5A;

__device__ inline bool all_ones(float x) { return __float_as_uint(x) == 0xFFFFFFFFu; }
__device__ inline bool all_ones(double x) { return __double_as_longlong(x) == -1LL; }
__device__ inline float times_pow2(float x, int e) { return ldexpf(x, e); }
__device__ inline double times_pow2(double x, int e) { return ldexp(x, e); }

/// A strided output: `batch` matrices of rows x cols, leading dimension ld, `stride` apart, in
/// an allocation of `total` elements.
struct Layout {
    long long rows, cols, ld, stride, batch, total;
};

/// Every element of one output (base: its first counter, kSUntouched, kUUntouched or
/// kVUntouched): elements of the matrices written (finite, or NaN for NaN/Inf matrices) when
/// `written`, every other one untouched; S (`values`) also non-negative and descending.
template <class R, int P>
__global__ void check_output_kernel(const R* x, Layout g, Hostile h, bool written, bool values,
                                    unsigned long long* counters, int base) {
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < g.total;
         e += (long long)gridDim.x * blockDim.x) {
        const long long b = e / g.stride, r = e % g.stride, j = r / g.ld, i = r % g.ld;
        const R* v = x + e * P;
        if (!(b < g.batch && j < g.cols && i < g.rows) || !written) {
            if (!all_ones(v[0]) || !all_ones(v[P - 1])) atomicAdd(&counters[base], 1ull);
            continue;
        }
        if (nonfinite_kind(kind_of(h, b))) {
            if (!isnan(v[0]) || !isnan(v[P - 1])) atomicAdd(&counters[base + 1], 1ull);
            continue;
        }
        if (!isfinite(v[0]) || !isfinite(v[P - 1])) {
            atomicAdd(&counters[base + 2], 1ull);
            continue;
        }
        if (values) {  // (S: rows = k, one column; the next value is the next element)
            if (v[0] < 0) atomicAdd(&counters[kSNegative], 1ull);
            if (i + 1 < g.rows && !(v[0] >= x[(e + 1) * P])) atomicAdd(&counters[kSUnsorted], 1ull);
        }
    }
}

__global__ void check_info_kernel(const int* info, long long batch, long long total, Hostile h, int nonfinite,
                                  unsigned long long* counters) {
    for (long long b = blockIdx.x * (long long)blockDim.x + threadIdx.x; b < total;
         b += (long long)gridDim.x * blockDim.x) {
        if (b >= batch) {
            if (info[b] != kInfoPoisonWord) atomicAdd(&counters[kInfoUntouched], 1ull);
        } else if (info[b] != (nonfinite_kind(kind_of(h, b)) ? nonfinite : 0)) {
            atomicAdd(&counters[kInfoWrong], 1ull);
        }
    }
}

/// One warp a matrix (finite kinds): sum s_j^2 against ||A||_F^2, both of A 2^-e in double.
template <class R, int P>
__global__ void frobenius_kernel(const R* a, long long lda, long long sa, const R* s, long long ss, int m, int n,
                                 long long batch, Hostile h, int E, double tol, unsigned long long* counters) {
    const long long warp = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / 32;
    const long long warps = (long long)gridDim.x * blockDim.x / 32;
    const int lane = threadIdx.x % 32, k = min(m, n);
    for (long long b = warp; b < batch; b += warps) {
        const int kind = kind_of(h, b);
        if (nonfinite_kind(kind)) continue;
        const int e = -exponent_of(kind, E);
        const R* ab = a + b * sa * P;
        double fa = 0, fs = 0;
        for (long long x = lane; x < (long long)m * n; x += 32) {
            const long long i = x % m, j = x / m;
            for (int p = 0; p < P; ++p) {
                const double y = ldexp(double(ab[(i + j * lda) * P + p]), e);
                fa += y * y;
            }
        }
        for (int j = lane; j < k; j += 32) {
            const double y = ldexp(double(s[b * ss + j]), e);
            fs += y * y;
        }
        for (int off = 16; off > 0; off /= 2) {
            fa += __shfl_down_sync(0xFFFFFFFFu, fa, off);
            fs += __shfl_down_sync(0xFFFFFFFFu, fs, off);
        }
        if (lane == 0) {
            const double diff = fabs(fs - fa);
            if (!(diff <= tol * fa)) atomicAdd(&counters[kFrobenius], 1ull);
            double rel = fa > 0 ? diff / fa : (diff == 0 ? 0.0 : CUDART_INF);
            if (isnan(rel)) rel = CUDART_INF;
            atomicMax(&counters[kFrobeniusWorst], (unsigned long long)__double_as_longlong(rel));
        }
    }
}

/// The rows x cols matrix at src (leading dimension ld), times 2^e, packed into dst.
template <class R, int P>
__global__ void gather_kernel(const R* src, long long ld, long long rows, long long cols, int e, R* dst) {
    for (long long x = blockIdx.x * (long long)blockDim.x + threadIdx.x; x < rows * cols * P;
         x += (long long)gridDim.x * blockDim.x) {
        const long long el = x / P, p = x % P, i = el % rows, j = el / rows;
        dst[x] = times_pow2(src[(i + j * ld) * P + p], e);
    }
}

/// 4 KiB of local memory a thread (a dynamically indexed array). The driver's local-memory
/// reservation grows when a kernel needs more than it holds and is never shrunk: run first, this
/// makes it at a size no library kernel should exceed (their stack frames were at most 232
/// bytes, by ptxas), so that a kernel first launched late in the run does not read as a leak.
constexpr int kLocalBytes = 4096;
__global__ void reserve_local_memory_kernel(int* out, int index) {
    volatile char buf[kLocalBytes];
    for (int i = 0; i < kLocalBytes; i += 32) buf[i] = char(i + threadIdx.x);
    if (out) *out = buf[index & (kLocalBytes - 1)];
}

// ---- host helpers -------------------------------------------------------------------------

void cuda_check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(e));
}

constexpr int kThreads = 256;
unsigned grid_for(long long total) {
    return unsigned(std::clamp<long long>((total + kThreads - 1) / kThreads, 1, 8192));
}

/// The soak's own device memory (cudaMalloc: outside the pools that the samples trim), freed on
/// scope exit.
struct DevMem {
    void* p = nullptr;
    explicit DevMem(std::size_t bytes) {
        if (bytes) cuda_check(cudaMalloc(&p, bytes), "cudaMalloc");
    }
    ~DevMem() {
        if (p) (void)cudaFree(p);
    }
    DevMem(const DevMem&) = delete;
    DevMem& operator=(const DevMem&) = delete;
    template <class X> X* as() const { return static_cast<X*>(p); }
};

long long span(long long ld, long long stride, long long rows, long long cols, long long batch) {
    if (rows == 0 || cols == 0 || batch == 0) return 0;
    return (batch - 1) * stride + (cols - 1) * ld + rows;
}

const char* const kPrecisionNames[4] = {"f32", "f64", "c64", "c128"};
constexpr int kStreams = 5;
constexpr long long kFailuresShown = 200;  ///< failed calls printed in full on standard output
const char* const kStreamNames[kStreams] = {"legacy", "nonblocking1", "nonblocking2", "blocking", "per-thread"};

const char* variant_name(batchsvd::JacobiVariant v) {
    return v == batchsvd::JacobiVariant::automatic ? "auto" : v == batchsvd::JacobiVariant::unblocked ? "unblocked" : "blocked";
}
const char* qr_name(batchsvd::QrMode q) {
    return q == batchsvd::QrMode::automatic ? "auto" : q == batchsvd::QrMode::always ? "always" : "never";
}
const char* pre_name(batchsvd::PreconditionMode p) {
    return p == batchsvd::PreconditionMode::automatic ? "auto" : p == batchsvd::PreconditionMode::always ? "always" : "never";
}

/// One call's draw.
struct Call {
    long long id = 0;
    int precision = 0;  ///< 0 float32, 1 float64, 2 complex64, 3 complex128
    long long batch = 1;
    int m = 1, n = 1;
    batchsvd::Options opts;
    bool u_null = false, v_null = false;  ///< U or V not asked for and passed as null
    long long lda = 1, sa = 1, ldu = 1, su = 1, ldv = 1, sv = 1, ss = 1;
    int stream = 0;
    Hostile hostile;
    unsigned long long seed = 0;
    bool warmup = false;

    long long k() const { return std::min(m, n); }
};

std::string describe(const Call& c, const std::string& path) {
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "#%lld%s %s batch %lld m %d n %d U%d%s V%d%s variant %s qr %s pre %s nb %d lda %lld sa %lld ldu %lld "
                  "su %lld ldv %lld sv %lld ss %lld stream %s",
                  c.id, c.warmup ? " (warm-up)" : "", kPrecisionNames[c.precision], c.batch, c.m, c.n,
                  int(c.opts.compute_u), c.u_null ? "(null)" : "", int(c.opts.compute_v), c.v_null ? "(null)" : "",
                  variant_name(c.opts.variant), qr_name(c.opts.qr), pre_name(c.opts.precondition), c.opts.block_width,
                  c.lda, c.sa, c.ldu, c.su, c.ldv, c.sv, c.ss, kStreamNames[c.stream]);
    std::string out = buf;
    if (c.hostile.count || c.hostile.all != kNormal) {
        out += " hostile";
        for (int i = 0; i < c.hostile.count; ++i)
            out += (i ? "," : " ") + std::to_string(c.hostile.index[i]) + ":" + kKindNames[c.hostile.kind[i]];
        if (c.hostile.all != kNormal) out += std::string(" all:") + kKindNames[c.hostile.all];
    }
    return out + " path " + path + " seed " + std::to_string(c.seed);
}

/// A random call.
Call draw(std::mt19937_64& g, long long id) {
    std::uniform_real_distribution<double> unit(0, 1);
    const auto u01 = [&] { return unit(g); };
    const auto log_uniform = [&](long long lo, long long hi) {
        if (hi <= lo) return lo;
        const double x = std::exp(std::log(double(lo)) + u01() * (std::log(double(hi) + 1) - std::log(double(lo))));
        return std::clamp((long long)x, lo, hi);
    };
    const auto pad = [&](double p, long long most) { return u01() < p ? 1 + (long long)(g() % most) : 0LL; };
    Call c;
    c.id = id;
    c.precision = int(g() % 4);
    if (u01() < 0.3) {
        c.m = c.n = int(log_uniform(1, 1024));
    } else {
        c.m = int(log_uniform(1, 1024));
        c.n = int(log_uniform(1, 1024));
    }
    batchsvd::Options& o = c.opts;
    o.compute_u = u01() < 0.8;
    o.compute_v = u01() < 0.8;
    c.u_null = !o.compute_u && u01() < 0.5;
    c.v_null = !o.compute_v && u01() < 0.5;
    double r = u01();
    o.variant = r < 0.7 ? batchsvd::JacobiVariant::automatic
                : r < 0.85 ? batchsvd::JacobiVariant::unblocked : batchsvd::JacobiVariant::blocked;
    r = u01();
    o.qr = r < 0.8 ? batchsvd::QrMode::automatic : r < 0.9 ? batchsvd::QrMode::always : batchsvd::QrMode::never;
    r = u01();
    o.precondition = r < 0.7 ? batchsvd::PreconditionMode::automatic
                     : r < 0.85 ? batchsvd::PreconditionMode::always : batchsvd::PreconditionMode::never;
    o.block_width = u01() < 0.2 ? (u01() < 0.5 ? 16 : 32) : 0;
    const long long k = c.k();
    c.lda = c.m + pad(0.3, 8);
    c.sa = c.lda * c.n + pad(0.3, 64);
    c.ldu = c.m + pad(0.3, 8);
    c.su = c.ldu * k + pad(0.3, 64);
    c.ldv = c.n + pad(0.3, 8);
    c.sv = c.ldv * k + pad(0.3, 64);
    c.ss = k + pad(0.3, 8);
    // Sizes: at most 2^24 elements of any operand, at most 2^31 multiply-adds of one sweep-like
    // pass (M N^2, four times that for complex types) over the batch, at most 2^20 matrices.
    const long long footprint = std::max({c.sa, c.su, c.sv});
    const long long M = std::max(c.m, c.n), N = k;
    const long long work = M * N * N * (c.precision >= 2 ? 4 : 1);
    const long long most = std::max(1LL, std::min({(1LL << 24) / footprint, (1LL << 31) / work, 1LL << 20}));
    c.batch = log_uniform(1, most);
    c.stream = int(id % kStreams);
    if (u01() < 0.4) {
        const int count = int(1 + g() % std::min<long long>(4, c.batch));
        while (c.hostile.count < count) {
            const long long b = (long long)(g() % (unsigned long long)c.batch);
            bool taken = false;
            for (int i = 0; i < c.hostile.count; ++i) taken = taken || c.hostile.index[i] == b;
            if (taken) continue;
            c.hostile.index[c.hostile.count] = b;
            c.hostile.kind[c.hostile.count] = 1 + int(g() % (kKinds - 1));
            ++c.hostile.count;
        }
    }
    if (u01() < 0.08) c.hostile.all = u01() < 0.5 ? kHuge : kTiny;
    c.seed = g();
    return c;
}

/// A fixed call of the warm-up round.
Call fixed(long long id, int precision, int m, int n, long long batch, batchsvd::JacobiVariant variant,
           batchsvd::QrMode qr, batchsvd::PreconditionMode pre, int stream, unsigned long long seed) {
    Call c;
    c.id = id;
    c.warmup = true;
    c.precision = precision;
    c.m = m;
    c.n = n;
    c.batch = batch;
    c.opts.variant = variant;
    c.opts.qr = qr;
    c.opts.precondition = pre;
    c.lda = c.m;
    c.sa = c.lda * c.n;
    c.ldu = c.m;
    c.su = c.ldu * c.k();
    c.ldv = c.n;
    c.sv = c.ldv * c.k();
    c.ss = c.k();
    c.stream = stream;
    c.seed = seed;
    return c;
}

/// What one call found.
struct Outcome {
    std::vector<std::string> problems;
    Errors worst;        ///< over the matrices measured (e1-e4 as measured: not in units of u)
    int measured = 0;
    double solve_ms = 0;
    double frobenius_worst = 0;  ///< worst |sum s^2 - ||A||_F^2| / ||A||_F^2
    std::size_t free_after_solve = 0;
    std::map<int, long long> kinds;  ///< matrices by kind
};

/// ||I - Q^H Q||_1 / rows of the packed rows x k matrix q (rows >= k), by gpu_measure: the
/// "SVD" Q = Q I I^H with S = 1, whose e2 is Q's orthogonality (e1, e3, e4 are 0).
template <class T> double orthogonality(long long rows, long long k, const T* q, cudaStream_t st) {
    using R = real_t<T>;
    std::vector<R> ones(k, R(1));
    std::vector<T> eye(k * k, T(0));
    for (long long i = 0; i < k; ++i) eye[i + i * k] = T(1);
    DevMem d_ones(k * sizeof(R)), d_eye(k * k * sizeof(T));
    cuda_check(cudaMemcpyAsync(d_ones.p, ones.data(), k * sizeof(R), cudaMemcpyHostToDevice, st), "copy of ones");
    cuda_check(cudaMemcpyAsync(d_eye.p, eye.data(), k * k * sizeof(T), cudaMemcpyHostToDevice, st), "copy of I");
    cuda_check(cudaStreamSynchronize(st), "cudaStreamSynchronize");
    return batchsvd::bench::gpu_measure<T>(rows, k, q, d_ones.as<R>(), q, d_eye.as<T>(), k, false,
                                           std::vector<double>(k, 1.0), st)
        .e2;
}

/// e1-e4 of matrix b (measured at A 2^-e, S 2^-e).
template <class T>
Errors measure_matrix(const Call& c, const T* a, const real_t<T>* s, const T* u, const T* v, long long b, int e,
                      cudaStream_t st) {
    using R = real_t<T>;
    constexpr int P = parts_v<T>;
    const long long m = c.m, n = c.n, k = c.k();
    DevMem am(m * n * sizeof(T)), sm(k * sizeof(R)), um(u ? m * k * sizeof(T) : 0), vm(v ? n * k * sizeof(T) : 0);
    const auto gather = [&](const void* src, long long ld, long long rows, long long cols, int ex, void* dst, bool real) {
        if (real)
            gather_kernel<R, 1><<<grid_for(rows * cols), kThreads, 0, st>>>(static_cast<const R*>(src), ld, rows, cols,
                                                                           ex, static_cast<R*>(dst));
        else
            gather_kernel<R, P><<<grid_for(rows * cols * P), kThreads, 0, st>>>(static_cast<const R*>(src), ld, rows,
                                                                               cols, ex, static_cast<R*>(dst));
        cuda_check(cudaGetLastError(), "gather_kernel");
    };
    gather(a + b * c.sa, c.lda, m, n, -e, am.p, false);
    gather(s + b * c.ss, k, k, 1, -e, sm.p, true);
    if (u) gather(u + b * c.su, c.ldu, m, k, 0, um.p, false);
    if (v) gather(v + b * c.sv, c.ldv, n, k, 0, vm.p, false);
    const std::vector<double> ref = batchsvd::bench::gpu_reference_values<T>(m, n, am.as<T>(), st);
    if (u && v) return batchsvd::bench::gpu_measure<T>(m, n, am.as<T>(), sm.as<R>(), um.as<T>(), vm.as<T>(), n, false, ref, st);
    // U or V off: the values against the reference (gpu_measure's e4 and order) and the
    // orthogonality of the factor returned.
    Errors out;
    std::vector<R> hs(k);
    cuda_check(cudaMemcpyAsync(hs.data(), sm.p, k * sizeof(R), cudaMemcpyDeviceToHost, st), "copy of S");
    cuda_check(cudaStreamSynchronize(st), "cudaStreamSynchronize");
    double acc = 0;
    for (long long r = 0; r < k; ++r) {
        if (std::isnan(hs[r]) || hs[r] < 0 || (r + 1 < k && !(hs[r] >= hs[r + 1]))) out.sorted = false;
        const double d = double(hs[r]) - (r < (long long)ref.size() ? ref[r] : std::nan(""));
        acc += d * d;
    }
    const double scale = !ref.empty() && ref[0] > 1 ? ref[0] : 1.0;
    out.e4 = k ? std::sqrt(acc) / (double(k) * scale) : 0.0;
    if (u) out.e2 = orthogonality<T>(m, k, um.as<T>(), st);
    if (v) out.e3 = orthogonality<T>(n, k, vm.as<T>(), st);
    return out;
}

std::string errors_text(const Errors& e, double u) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "e1 %.3g e2 %.3g e3 %.3g e4 %.3g (u)%s", e.e1 / u, e.e2 / u, e.e3 / u, e.e4 / u,
                  e.sorted ? "" : " not sorted");
    return buf;
}

std::size_t free_bytes() {
    std::size_t free = 0, total = 0;
    cuda_check(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
    return free;
}

/// One call: inputs generated, the solve, every matrix checked, some measured.
template <class T> Outcome run_call(const Call& c, cudaStream_t st) {
    using R = real_t<T>;
    constexpr int P = parts_v<T>;
    const double u = batchsvd::testing::unit_roundoff<T>();
    const long long m = c.m, n = c.n, k = c.k(), pad = 64;
    const long long na = span(c.lda, c.sa, m, n, c.batch) + pad, ns = span(c.ss, c.ss, k, 1, c.batch) + pad,
                    nu = span(c.ldu, c.su, m, k, c.batch) + pad, nv = span(c.ldv, c.sv, n, k, c.batch) + pad,
                    ninfo = c.batch + pad;
    Outcome out;
    for (int i = 0; i < c.hostile.count; ++i) ++out.kinds[c.hostile.kind[i]];
    if (c.hostile.all != kNormal) out.kinds[c.hostile.all] += c.batch - c.hostile.count;

    DevMem a(na * sizeof(T)), s(ns * sizeof(R)), uo(nu * sizeof(T)), vo(nv * sizeof(T)), info(ninfo * sizeof(int)),
        counters(kCounters * sizeof(unsigned long long));
    generate_kernel<R, P><<<grid_for(na), kThreads, 0, st>>>(a.as<R>(), na, c.m, c.n, c.lda, c.sa, c.batch, c.seed,
                                                             c.hostile, kScale<R>);
    cuda_check(cudaGetLastError(), "generate_kernel");
    cuda_check(cudaMemsetAsync(s.p, kPoison, ns * sizeof(R), st), "poison S");
    cuda_check(cudaMemsetAsync(uo.p, kPoison, nu * sizeof(T), st), "poison U");
    cuda_check(cudaMemsetAsync(vo.p, kPoison, nv * sizeof(T), st), "poison V");
    cuda_check(cudaMemsetAsync(info.p, kInfoPoison, ninfo * sizeof(int), st), "poison info");
    cuda_check(cudaMemsetAsync(counters.p, 0, kCounters * sizeof(unsigned long long), st), "zero counters");

    batchsvd::Options o = c.opts;
    o.stream = st;
    const auto t0 = std::chrono::steady_clock::now();
    bool threw = false;
    try {
        batchsvd::gesvd<T>(m, n, c.batch, batchsvd::MatrixBatch<const T>{a.as<const T>(), c.lda, c.sa}, s.as<R>(), c.ss,
                           batchsvd::MatrixBatch<T>{c.u_null ? nullptr : uo.as<T>(), c.ldu, c.su},
                           batchsvd::MatrixBatch<T>{c.v_null ? nullptr : vo.as<T>(), c.ldv, c.sv}, info.as<int>(), o);
    } catch (const batchsvd::Error& e) {
        out.problems.push_back(std::string("gesvd threw: ") + e.what());
        threw = true;
    }
    cuda_check(cudaStreamSynchronize(st), "cudaStreamSynchronize after the solve");
    if (const cudaError_t left = cudaGetLastError(); left != cudaSuccess)
        out.problems.push_back(std::string("the call left the CUDA error state set: ") + cudaGetErrorString(left));
    out.solve_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    out.free_after_solve = free_bytes();
    if (threw) return out;

    // Every matrix.
    const int nonfinite = batchsvd::info_nonfinite;
    auto* cnt = counters.as<unsigned long long>();
    check_output_kernel<R, 1><<<grid_for(ns), kThreads, 0, st>>>(s.as<R>(), Layout{k, 1, c.ss, c.ss, c.batch, ns},
                                                                 c.hostile, true, true, cnt, kSUntouched);
    check_output_kernel<R, P><<<grid_for(nu), kThreads, 0, st>>>(uo.as<R>(), Layout{m, k, c.ldu, c.su, c.batch, nu},
                                                                 c.hostile, c.opts.compute_u, false, cnt, kUUntouched);
    check_output_kernel<R, P><<<grid_for(nv), kThreads, 0, st>>>(vo.as<R>(), Layout{n, k, c.ldv, c.sv, c.batch, nv},
                                                                 c.hostile, c.opts.compute_v, false, cnt, kVUntouched);
    check_info_kernel<<<grid_for(ninfo), kThreads, 0, st>>>(info.as<int>(), c.batch, ninfo, c.hostile, nonfinite, cnt);
    const double tol = 100 * u * double(m + n);
    frobenius_kernel<R, P><<<grid_for(c.batch * 32), kThreads, 0, st>>>(a.as<R>(), c.lda, c.sa, s.as<R>(), c.ss, c.m,
                                                                        c.n, c.batch, c.hostile, kScaleExponent<R>,
                                                                        tol, cnt);
    cuda_check(cudaGetLastError(), "check kernels");
    unsigned long long hc[kCounters];
    cuda_check(cudaMemcpyAsync(hc, cnt, sizeof hc, cudaMemcpyDeviceToHost, st), "copy of the counters");
    cuda_check(cudaStreamSynchronize(st), "cudaStreamSynchronize after the checks");
    for (int i = 0; i < kFrobeniusWorst; ++i)
        if (hc[i]) out.problems.push_back(std::string(kCounterText[i]) + ": " + std::to_string(hc[i]));
    std::memcpy(&out.frobenius_worst, &hc[kFrobeniusWorst], sizeof(double));
    if (hc[kFrobenius]) {
        char buf[96];
        std::snprintf(buf, sizeof buf, " (worst %.3g = %.3g u (m + n))", out.frobenius_worst,
                      out.frobenius_worst / (u * double(m + n)));
        out.problems.back() += buf;
    }

    // Some matrices measured: the hostile finite ones, the neighbours of NaN/Inf ones, the
    // first, the last and random ones; fewer the larger the matrices.
    std::vector<long long> picks;
    const auto pick = [&](long long b) {
        if (b < 0 || b >= c.batch || nonfinite_kind(kind_of(c.hostile, b))) return;
        if (std::find(picks.begin(), picks.end(), b) == picks.end()) picks.push_back(b);
    };
    for (int i = 0; i < c.hostile.count; ++i)
        if (!nonfinite_kind(c.hostile.kind[i])) pick(c.hostile.index[i]);
    for (int i = 0; i < c.hostile.count; ++i)
        if (nonfinite_kind(c.hostile.kind[i])) {
            pick(c.hostile.index[i] - 1);
            pick(c.hostile.index[i] + 1);
        }
    pick(0);
    pick(c.batch - 1);
    std::mt19937_64 g(c.seed ^ 0x5EEDull);
    for (int i = 0; i < 2; ++i) pick((long long)(g() % (unsigned long long)c.batch));
    const long long cost = std::max(m, n) * k * k * (P == 2 ? 4 : 1);
    const std::size_t most = cost > (1LL << 27) ? 1 : cost > (1LL << 22) ? 3 : 6;
    if (picks.size() > most) picks.resize(most);
    const T* up = c.opts.compute_u ? uo.as<T>() : nullptr;
    const T* vp = c.opts.compute_v ? vo.as<T>() : nullptr;
    for (long long b : picks) {
        const int kind = kind_of(c.hostile, b);
        const Errors e = measure_matrix<T>(c, a.as<T>(), s.as<R>(), up, vp, b, exponent_of(kind, kScaleExponent<R>), st);
        ++out.measured;
        out.worst.merge(e);
        if (!e.within(30 * u))
            out.problems.push_back("matrix " + std::to_string(b) + " (" + kKindNames[kind] + "): " + errors_text(e, u) +
                                   ", limit 30u");
    }
    return out;
}

Outcome run(const Call& c, cudaStream_t st) {
    switch (c.precision) {
        case 0: return run_call<float>(c, st);
        case 1: return run_call<double>(c, st);
        case 2: return run_call<std::complex<float>>(c, st);
        default: return run_call<std::complex<double>>(c, st);
    }
}

std::string path_of(const Call& c) {
    try {
        switch (c.precision) {
            case 0: return batchsvd::cuda::solve_path<float>(c.m, c.n, c.batch, c.opts);
            case 1: return batchsvd::cuda::solve_path<double>(c.m, c.n, c.batch, c.opts);
            case 2: return batchsvd::cuda::solve_path<std::complex<float>>(c.m, c.n, c.batch, c.opts);
            default: return batchsvd::cuda::solve_path<std::complex<double>>(c.m, c.n, c.batch, c.opts);
        }
    } catch (const std::exception& e) {
        return std::string("(solve_path threw: ") + e.what() + ")";
    }
}

/// The path's kind for the summary: its first word, " pre" when preconditioned.
std::string path_kind(const std::string& path) {
    std::string kind = path.substr(0, path.find(' '));
    if (path.size() > 4 && path.substr(path.size() - 4) == " pre") kind += " pre";
    return kind;
}

long long rss_bytes() {
    std::ifstream f("/proc/self/statm");
    long long pages = 0, resident = 0;
    if (!(f >> pages >> resident)) return 0;
    return resident * (long long)sysconf(_SC_PAGESIZE);
}

double mib(double bytes) { return bytes / (1024.0 * 1024.0); }

// ---- the run ------------------------------------------------------------------------------

struct Watchdog {
    std::atomic<bool> done{false};
    std::atomic<long long> busy_since_ms{-1};  ///< start of the call in flight, -1 when none
    std::mutex mutex;
    std::string current;
};

int usage(const char* why) {
    std::fprintf(stderr, "batchsvd_soak: %s\nusage: batchsvd_soak [--seconds S] [--seed N] [--calls FILE] "
                         "[--max-call-seconds S]\n", why);
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    double seconds = 480, max_call_seconds = 120;
    unsigned long long seed = 0;
    bool seeded = false;
    std::string calls_path;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool has_value = i + 1 < argc;
        if (arg == "--seconds" && has_value) seconds = std::atof(argv[++i]);
        else if (arg == "--seed" && has_value) seed = std::strtoull(argv[++i], nullptr, 0), seeded = true;
        else if (arg == "--calls" && has_value) calls_path = argv[++i];
        else if (arg == "--max-call-seconds" && has_value) max_call_seconds = std::atof(argv[++i]);
        else if (arg == "--help" || arg == "-h") return usage("random calls of the CUDA backend, each checked on the GPU");
        else return usage(("unknown or incomplete option " + arg).c_str());
    }
    if (!(seconds >= 0) || !(max_call_seconds > 0)) return usage("--seconds must be >= 0, --max-call-seconds > 0");
    if (!seeded) seed = (unsigned long long)std::random_device{}() << 32 ^ std::random_device{}();
    // Every kernel loaded when the context is made, so that loading on first use does not read
    // as a leak (set before the first CUDA call; a value already set is kept).
    setenv("CUDA_MODULE_LOADING", "EAGER", 0);

    FILE* calls = stdout;
    if (!calls_path.empty() && !(calls = std::fopen(calls_path.c_str(), "w"))) return usage("cannot write --calls FILE");

    cudaMemPool_t pool = nullptr;
    cudaStream_t streams[kStreams] = {};
    cudaDeviceProp prop{};
    std::size_t total_bytes = 0, local_reservation = 0;
    const auto setup_began = std::chrono::steady_clock::now();
    try {
        cuda_check(cudaSetDevice(0), "cudaSetDevice");
        cuda_check(cudaFree(nullptr), "context creation");
        cuda_check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
        std::size_t free = 0;
        cuda_check(cudaMemGetInfo(&free, &total_bytes), "cudaMemGetInfo");
        cuda_check(cudaDeviceGetDefaultMemPool(&pool, 0), "cudaDeviceGetDefaultMemPool");
        streams[0] = nullptr;  // the legacy default stream
        cuda_check(cudaStreamCreateWithFlags(&streams[1], cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
        cuda_check(cudaStreamCreateWithFlags(&streams[2], cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
        cuda_check(cudaStreamCreate(&streams[3]), "cudaStreamCreate");
        streams[4] = cudaStreamPerThread;
        const std::size_t before = free_bytes();
        DevMem sink(sizeof(int));
        reserve_local_memory_kernel<<<1, 32>>>(sink.as<int>(), 7);
        cuda_check(cudaGetLastError(), "reserve_local_memory_kernel");
        cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        local_reservation = before > free_bytes() ? before - free_bytes() : 0;
    } catch (const std::exception& e) {
        std::printf("soak: device setup failed: %s\n", e.what());
        return 3;
    }
    int runtime = 0, driver = 0;
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    const char* commit = std::getenv("BATCHSVD_GIT_COMMIT");
    const double setup_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_began).count();
    std::printf("soak: batchsvd %s, commit %s; %s, %.1f GiB, CUDA runtime %d driver %d, CUDA_MODULE_LOADING=%s "
                "(context made in %.1f s)\n",
                batchsvd::version(), commit ? commit : "unknown", prop.name, double(total_bytes) / (1 << 30), runtime,
                driver, std::getenv("CUDA_MODULE_LOADING"), setup_seconds);
    std::printf("soak: local memory reserved for %d bytes a thread: %.1f MiB\n", kLocalBytes, mib(double(local_reservation)));
    std::printf("soak: seed %llu, %.0f s, calls logged to %s\n", seed, seconds,
                calls_path.empty() ? "stdout" : calls_path.c_str());
    std::fflush(stdout);

    Watchdog dog;
    const auto began = std::chrono::steady_clock::now();
    const auto elapsed_ms = [&] {
        return (long long)std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
    };
    std::atomic<long long> calls_done{0}, failures_so_far{0};
    std::thread watchdog([&] {
        while (!dog.done.load()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
            const long long since = dog.busy_since_ms.load();
            if (since >= 0 && elapsed_ms() - since > (long long)(1000 * max_call_seconds)) {
                const std::lock_guard<std::mutex> lock(dog.mutex);
                std::printf("FAIL soak: a call has run for over %.0f s, giving up: %s\n"
                            "soak: calls completed %lld, failures %lld\nsoak: FAIL (a call did not return)\n",
                            max_call_seconds, dog.current.c_str(), calls_done.load(), failures_so_far.load());
                std::fflush(stdout);
                std::fflush(calls);
                std::_Exit(4);
            }
        }
    });

    // Statistics.
    long long calls_total = 0, warmup_calls = 0, failed_calls = 0, matrices_measured = 0, matrices_total = 0;
    std::map<std::string, long long> by_path;
    long long by_precision[4] = {}, by_stream[kStreams] = {};
    std::map<int, long long> by_kind;
    Errors worst_by_precision[4];
    double frobenius_worst_u = 0, slowest_ms = 0, solve_ms_total = 0;
    std::size_t baseline = 0, first_free = 0, min_free = SIZE_MAX, max_free = 0, last_free = 0, min_after_solve = SIZE_MAX;
    bool have_baseline = false, context_lost = false;
    long long rss_min = LLONG_MAX, rss_max = 0, baseline_call = 0;

    const auto one_call = [&](const Call& c) {
        const std::string path = path_of(c);
        const std::string text = describe(c, path);
        {
            const std::lock_guard<std::mutex> lock(dog.mutex);
            dog.current = text;
        }
        std::fprintf(calls, "%s |", text.c_str());
        std::fflush(calls);
        dog.busy_since_ms = elapsed_ms();
        Outcome out;
        try {
            out = run(c, streams[c.stream]);
        } catch (const std::exception& e) {
            out.problems.push_back(std::string("exception: ") + e.what());
            const cudaError_t sticky = cudaDeviceSynchronize();
            if (sticky != cudaSuccess) {
                out.problems.push_back(std::string("CUDA context lost: ") + cudaGetErrorString(sticky));
                context_lost = true;
            }
        }
        std::size_t trimmed = 0;
        if (!context_lost) {
            try {
                cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
                batchsvd::release_cached_memory();
                cuda_check(cudaMemPoolTrimTo(pool, 0), "cudaMemPoolTrimTo");
                trimmed = free_bytes();
            } catch (const std::exception& e) {
                out.problems.push_back(std::string("memory sample: ") + e.what());
                context_lost = true;
            }
        }
        dog.busy_since_ms = -1;
        const double u = c.precision % 2 == 0 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
        ++calls_total;
        warmup_calls += c.warmup;
        ++by_precision[c.precision];
        ++by_stream[c.stream];
        ++by_path[path_kind(path)];
        matrices_total += c.batch;
        for (const auto& [kind, count] : out.kinds) by_kind[kind] += count;
        matrices_measured += out.measured;
        worst_by_precision[c.precision].merge(out.worst);
        frobenius_worst_u = std::max(frobenius_worst_u, out.frobenius_worst / (u * double(c.m + c.n)));
        slowest_ms = std::max(slowest_ms, out.solve_ms);
        solve_ms_total += out.solve_ms;
        if (out.free_after_solve) min_after_solve = std::min(min_after_solve, out.free_after_solve);
        if (trimmed) {
            if (!first_free) first_free = trimmed;
            min_free = std::min(min_free, trimmed);
            max_free = std::max(max_free, trimmed);
            last_free = trimmed;
        }
        const long long rss = rss_bytes();
        rss_min = std::min(rss_min, rss);
        rss_max = std::max(rss_max, rss);
        char tail[256];
        std::snprintf(tail, sizeof tail, " %.2f ms, %d measured, worst %s, free %.1f MiB", out.solve_ms, out.measured,
                      out.measured ? errors_text(out.worst, u).c_str() : "-", mib(double(trimmed)));
        if (out.problems.empty()) {
            std::fprintf(calls, "%s ok\n", tail);
        } else {
            ++failed_calls;
            ++failures_so_far;
            std::string all;
            for (const std::string& p : out.problems) all += "\n    " + p;
            std::fprintf(calls, "%s FAIL%s\n", tail, all.c_str());
            if (calls != stdout && failed_calls <= kFailuresShown)
                std::printf("FAIL %s |%s%s\n%s", text.c_str(), tail, all.c_str(),
                            failed_calls == kFailuresShown ? "soak: further failures only in the calls log\n" : "");
        }
        std::fflush(calls);
        std::fflush(stdout);
        ++calls_done;
    };

    // Warm-up: every path in every precision (tiny, warp, fused, blocked, QR, preconditioned,
    // and the preconditioner's cuSOLVER eigensolve on one large matrix), then the
    // preconditioned path on every stream and in two halves.
    {
        using JV = batchsvd::JacobiVariant;
        using QM = batchsvd::QrMode;
        using PM = batchsvd::PreconditionMode;
        std::mt19937_64 g(seed ^ 0xA5A5A5A5ull);
        long long id = 0;
        std::vector<Call> warm;
        for (int p = 0; p < 4; ++p) {
            warm.push_back(fixed(id, p, 3, 3, 100, JV::automatic, QM::automatic, PM::automatic, int(id % kStreams), g())), ++id;
            warm.push_back(fixed(id, p, 16, 16, 100, JV::automatic, QM::automatic, PM::automatic, int(id % kStreams), g())), ++id;
            warm.push_back(fixed(id, p, 40, 30, 20, JV::unblocked, QM::automatic, PM::automatic, int(id % kStreams), g())), ++id;
            warm.push_back(fixed(id, p, 100, 100, 4, JV::blocked, QM::automatic, PM::never, int(id % kStreams), g())), ++id;
            warm.push_back(fixed(id, p, 300, 20, 10, JV::automatic, QM::always, PM::automatic, int(id % kStreams), g())), ++id;
            warm.push_back(fixed(id, p, 20, 300, 10, JV::automatic, QM::automatic, PM::automatic, int(id % kStreams), g())), ++id;
            warm.push_back(fixed(id, p, 130, 130, 4, JV::automatic, QM::automatic, PM::always, int(id % kStreams), g())), ++id;
            warm.push_back(fixed(id, p, 600, 600, 1, JV::automatic, QM::automatic, PM::always, int(id % kStreams), g())), ++id;
        }
        for (int st = 0; st < kStreams; ++st)
            warm.push_back(fixed(id, 1, 130, 130, 4, JV::automatic, QM::automatic, PM::always, st, g())), ++id;
        // A preconditioned batch large enough for two halves: two handle sets in the pool.
        warm.push_back(fixed(id, 1, 128, 128, 512, JV::automatic, QM::automatic, PM::automatic, int(id % kStreams), g())), ++id;
        for (const Call& c : warm) {
            if (context_lost) break;
            one_call(c);
        }
        baseline = last_free;
        baseline_call = calls_total;
        have_baseline = !context_lost && baseline > 0;
        std::printf("soak: warm-up: %lld calls, %lld failed; free device memory after it (the baseline) %.1f MiB\n",
                    calls_total, failed_calls, mib(double(baseline)));
        std::fflush(stdout);
    }

    std::mt19937_64 g(seed);
    long long next_progress_ms = 30000;
    std::size_t half_free = 0;  // the sample of the first call that ends past half the time
    while (!context_lost && elapsed_ms() < (long long)(1000 * seconds)) {
        one_call(draw(g, calls_total));
        if (!half_free && elapsed_ms() >= (long long)(500 * seconds)) half_free = last_free;
        if (elapsed_ms() >= next_progress_ms) {
            std::printf("soak: progress %.0f s: %lld calls, %lld failed, free %.1f MiB (baseline %.1f)\n",
                        elapsed_ms() / 1000.0, calls_total, failed_calls, mib(double(last_free)), mib(double(baseline)));
            std::fflush(stdout);
            next_progress_ms += 30000;
        }
    }
    dog.done = true;
    watchdog.join();

    // Summary.
    const double ran = elapsed_ms() / 1000.0;
    const double drift = have_baseline ? mib(double(baseline)) - mib(double(last_free)) : 0;
    const bool flat = have_baseline && drift <= 16.0;
    std::printf("soak: ran %.1f s, seed %llu\n", ran, seed);
    std::printf("soak: calls %lld (%lld warm-up), failures %lld, matrices %lld, measured (e1-e4) %lld\n", calls_total,
                warmup_calls, failed_calls, matrices_total, matrices_measured);
    std::printf("soak: by precision");
    for (int p = 0; p < 4; ++p) std::printf(" %s %lld", kPrecisionNames[p], by_precision[p]);
    std::printf("; by stream");
    for (int s = 0; s < kStreams; ++s) std::printf(" %s %lld", kStreamNames[s], by_stream[s]);
    std::printf("\nsoak: by path");
    for (const auto& [path, count] : by_path) std::printf(" [%s] %lld", path.c_str(), count);
    std::printf("\nsoak: hostile matrices");
    for (int k = 1; k < kKinds; ++k) std::printf(" %s %lld", kKindNames[k], by_kind.count(k) ? by_kind[k] : 0LL);
    std::printf("\n");
    for (int p = 0; p < 4; ++p) {
        const double u = p % 2 == 0 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
        std::printf("soak: worst measured %s: %s\n", kPrecisionNames[p],
                    by_precision[p] ? errors_text(worst_by_precision[p], u).c_str() : "-");
    }
    std::printf("soak: worst |sum s^2 - ||A||_F^2| / ||A||_F^2: %.3g u (m + n) (limit 100)\n", frobenius_worst_u);
    std::printf("soak: solve time total %.1f s, slowest solve %.1f ms\n", solve_ms_total / 1000, slowest_ms);
    std::printf("soak: memory (free device memory after each solve, synchronised, pool trimmed to 0): baseline %.1f MiB "
                "(after %lld warm-up solves), first solve %.1f, min %.1f, max %.1f, last %.1f; drift (baseline - last) "
                "%.2f MiB, limit 16: %s\n",
                mib(double(baseline)), baseline_call, mib(double(first_free)),
                mib(double(min_free == SIZE_MAX ? 0 : min_free)), mib(double(max_free)), mib(double(last_free)), drift,
                flat ? "flat" : "NOT FLAT");
    if (half_free)
        std::printf("soak: memory at half time %.1f MiB; drift over the second half (half time - last) %.2f MiB\n",
                    mib(double(half_free)), mib(double(half_free)) - mib(double(last_free)));
    std::size_t pool_high = 0;
    if (pool) (void)cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &pool_high);
    std::printf("soak: memory high-water: %.1f MiB of %.1f in use at the end of a solve (the soak's buffers and the "
                "pool's cache included); default pool reserved at most %.1f MiB; host RSS %.1f to %.1f MiB\n",
                mib(double(total_bytes - (min_after_solve == SIZE_MAX ? total_bytes : min_after_solve))),
                mib(double(total_bytes)), mib(double(pool_high)), mib(double(rss_min == LLONG_MAX ? 0 : rss_min)),
                mib(double(rss_max)));
    const bool pass = failed_calls == 0 && flat && !context_lost;
    std::printf("soak: %s\n", pass ? "PASS" : "FAIL");
    std::fflush(stdout);
    if (calls != stdout) std::fclose(calls);
    for (int s = 1; s <= 3; ++s)
        if (streams[s]) (void)cudaStreamDestroy(streams[s]);
    return pass ? 0 : 1;
}
