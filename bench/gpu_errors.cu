// SPDX-License-Identifier: BSD-3-Clause
// GPU error measures for large matrices (gpu_errors.hpp). Matrices are held as arrays of
// doubles with P = 1 (real) or 2 (complex) doubles per element, column-major.
#include "gpu_errors.hpp"

#include "cuda/common/check.hpp"
#include "cuda/common/device_buffer.hpp"

#include <cublas_v2.h>
#include <cuComplex.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace batchsvd::bench {
namespace {

void check(cublasStatus_t e, const char* what) {
    if (e != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string("gpu_errors: ") + what + " failed (cuBLAS " + std::to_string(int(e)) + ")");
}
void check(cusolverStatus_t e, const char* what) {
    if (e != CUSOLVER_STATUS_SUCCESS) throw std::runtime_error(std::string("gpu_errors: ") + what + " failed (cuSOLVER " + std::to_string(int(e)) + ")");
}

/// Device arrays: the library's stream-ordered RAII buffer.
template <class E> using Buf = cuda::DeviceBuffer<E>;

/// A cuSOLVER dense handle on stream s, destroyed on scope exit.
struct SolverHandle {
    cusolverDnHandle_t h = nullptr;
    explicit SolverHandle(cudaStream_t s) {
        check(cusolverDnCreate(&h), "cusolverDnCreate");
        if (const cusolverStatus_t e = cusolverDnSetStream(h, s); e != CUSOLVER_STATUS_SUCCESS) {
            cusolverDnDestroy(h);
            check(e, "cusolverDnSetStream");
        }
    }
    ~SolverHandle() { cusolverDnDestroy(h); }
    SolverHandle(const SolverHandle&) = delete;
    SolverHandle& operator=(const SolverHandle&) = delete;
};

struct Handles {
    cublasHandle_t blas = nullptr;
    explicit Handles(cudaStream_t s) {
        check(cublasCreate(&blas), "cublasCreate");
        check(cublasSetStream(blas, s), "cublasSetStream");
        // The products must be IEEE double: no reduced-precision emulation.
        check(cublasSetMathMode(blas, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    }
    ~Handles() { cublasDestroy(blas); }
    Handles(const Handles&) = delete;
    Handles& operator=(const Handles&) = delete;
};

template <class T> constexpr int parts_v = std::is_same_v<T, real_t<T>> ? 1 : 2;

constexpr unsigned kGrid = 1024, kThreads = 256;

template <class R> __global__ void widen_kernel(const R* in, double* out, std::size_t count) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = double(in[i]);
}

/// Columns j of the rows x cols matrix x (P doubles an element, ld rows) times s[j].
template <class R, int P>
__global__ void scale_columns_kernel(double* x, index_t rows, index_t cols, const R* s) {
    const std::size_t total = std::size_t(rows) * cols * P;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < total;
         i += std::size_t(gridDim.x) * blockDim.x)
        x[i] *= double(s[i / (std::size_t(rows) * P)]);
}

/// The k x k identity (P doubles an element).
template <int P> __global__ void identity_kernel(double* x, index_t k) {
    const std::size_t total = std::size_t(k) * k * P;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < total;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const std::size_t e = i / P;
        x[i] = (i % P == 0 && e % k == e / k) ? 1.0 : 0.0;
    }
}

/// sums[j] = sum over rows of |x(r, j)| (one block a column); NaN propagates.
template <int P> __global__ void column_abs_sums_kernel(const double* x, index_t rows, index_t ld, double* sums) {
    __shared__ double part[kThreads];
    const double* col = x + std::size_t(blockIdx.x) * ld * P;
    double acc = 0;
    for (index_t r = threadIdx.x; r < rows; r += blockDim.x)
        acc += P == 1 ? fabs(col[r]) : hypot(col[2 * r], col[2 * r + 1]);
    part[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned h = blockDim.x / 2; h > 0; h /= 2) {
        if (threadIdx.x < h) part[threadIdx.x] += part[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = part[0];
}

/// ||x||_1 (the largest column sum) of a rows x cols matrix with leading dimension ld.
template <int P> double norm1(const double* x, index_t rows, index_t cols, index_t ld, cudaStream_t s) {
    if (cols == 0) return 0;
    Buf<double> sums(cols, s);
    column_abs_sums_kernel<P><<<unsigned(cols), kThreads, 0, s>>>(x, rows, ld, sums.get());
    BATCHSVD_CUDA_CHECK(cudaGetLastError());
    std::vector<double> h(cols);
    BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(h.data(), sums.get(), cols * sizeof(double), cudaMemcpyDeviceToHost, s));
    BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(s));
    double worst = 0;
    for (double c : h) {
        if (std::isnan(c)) return c;
        worst = std::max(worst, c);
    }
    return worst;
}

/// The widened copy of count elements of T (P doubles each).
template <class T> void widen(const T* in, double* out, std::size_t count, cudaStream_t s) {
    using R = real_t<T>;
    widen_kernel<R><<<kGrid, kThreads, 0, s>>>(reinterpret_cast<const R*>(in), out, count * parts_v<T>);
    BATCHSVD_CUDA_CHECK(cudaGetLastError());
}

/// C = alpha op(A) op(B) + beta C in double or complex double (P), alpha and beta real.
template <int P>
void gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, index_t m, index_t n, index_t k,
          double alpha, const double* A, index_t lda, const double* B, index_t ldb, double beta, double* C,
          index_t ldc) {
    if constexpr (P == 1) {
        check(cublasDgemm(h, ta, tb, int(m), int(n), int(k), &alpha, A, int(lda), B, int(ldb), &beta, C, int(ldc)),
              "cublasDgemm");
    } else {
        const cuDoubleComplex a = make_cuDoubleComplex(alpha, 0), b = make_cuDoubleComplex(beta, 0);
        check(cublasZgemm(h, ta, tb, int(m), int(n), int(k), &a, reinterpret_cast<const cuDoubleComplex*>(A),
                          int(lda), reinterpret_cast<const cuDoubleComplex*>(B), int(ldb), &b,
                          reinterpret_cast<cuDoubleComplex*>(C), int(ldc)),
              "cublasZgemm");
    }
}

/// ||I - Q^H Q||_1 for the rows x k matrix Q (or, when rowwise, ||I - Q Q^H||_1 for the
/// k x rows matrix Q), widened, ld ldq.
template <int P>
double orthogonality(cublasHandle_t h, const double* q, index_t rows, index_t k, index_t ldq, bool rowwise,
                     cudaStream_t s) {
    const cublasOperation_t herm = P == 1 ? CUBLAS_OP_T : CUBLAS_OP_C;
    Buf<double> g(std::size_t(k) * k * P, s);
    identity_kernel<P><<<kGrid, kThreads, 0, s>>>(g.get(), k);
    BATCHSVD_CUDA_CHECK(cudaGetLastError());
    if (rowwise) gemm<P>(h, CUBLAS_OP_N, herm, k, k, rows, -1.0, q, ldq, q, ldq, 1.0, g.get(), k);
    else gemm<P>(h, herm, CUBLAS_OP_N, k, k, rows, -1.0, q, ldq, q, ldq, 1.0, g.get(), k);
    return norm1<P>(g.get(), k, k, k, s);
}


/// The Q factor (rows x cols, orthonormal columns) of a Gaussian rows x cols matrix, in place in
/// q (P doubles an element, ld rows).
template <int P>
void gaussian_q(cusolverDnHandle_t h, double* q, index_t rows, index_t cols, std::mt19937_64& g,
                cudaStream_t s) {
    std::normal_distribution<double> nd;
    std::vector<double> host(std::size_t(rows) * cols * P);
    for (auto& x : host) x = nd(g);
    BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(q, host.data(), host.size() * sizeof(double), cudaMemcpyHostToDevice, s));
    int lw_qr = 0, lw_q = 0;
    Buf<double> tau(std::size_t(cols) * P, s);
    Buf<int> info(1, s);
    if constexpr (P == 1) {
        check(cusolverDnDgeqrf_bufferSize(h, int(rows), int(cols), q, int(rows), &lw_qr), "geqrf_bufferSize");
        check(cusolverDnDorgqr_bufferSize(h, int(rows), int(cols), int(cols), q, int(rows), tau.get(), &lw_q),
              "orgqr_bufferSize");
        Buf<double> work(std::size_t(std::max(lw_qr, lw_q)), s);
        check(cusolverDnDgeqrf(h, int(rows), int(cols), q, int(rows), tau.get(), work.get(), lw_qr, info.get()), "geqrf");
        check(cusolverDnDorgqr(h, int(rows), int(cols), int(cols), q, int(rows), tau.get(), work.get(), lw_q, info.get()),
              "orgqr");
    } else {
        auto* z = reinterpret_cast<cuDoubleComplex*>(q);
        auto* zt = reinterpret_cast<cuDoubleComplex*>(tau.get());
        check(cusolverDnZgeqrf_bufferSize(h, int(rows), int(cols), z, int(rows), &lw_qr), "geqrf_bufferSize");
        check(cusolverDnZungqr_bufferSize(h, int(rows), int(cols), int(cols), z, int(rows), zt, &lw_q),
              "ungqr_bufferSize");
        Buf<double> work(std::size_t(std::max(lw_qr, lw_q)) * 2, s);
        auto* zw = reinterpret_cast<cuDoubleComplex*>(work.get());
        check(cusolverDnZgeqrf(h, int(rows), int(cols), z, int(rows), zt, zw, lw_qr, info.get()), "geqrf");
        check(cusolverDnZungqr(h, int(rows), int(cols), int(cols), z, int(rows), zt, zw, lw_q, info.get()), "ungqr");
    }
    int hinfo = 0;
    BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(&hinfo, info.get(), sizeof(int), cudaMemcpyDeviceToHost, s));
    BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(s));  // also keeps `host` alive until its copy is done
    if (hinfo != 0) throw std::runtime_error("gpu_generate: QR of a Gaussian matrix failed (info " + std::to_string(hinfo) + ")");
}

}  // namespace

template <class T>
std::vector<T> gpu_generate(testing::Family f, index_t m, index_t n, double cond, std::uint64_t seed,
                            cudaStream_t s) {
    using R = real_t<T>;
    constexpr int P = parts_v<T>;
    if (f == testing::Family::random) throw std::invalid_argument("gpu_generate: the random family is generated on the host");
    const index_t k = std::min(m, n);
    std::mt19937_64 g(seed);
    const std::vector<double> sigma = testing::family_singular_values(f, k, cond, g());
    const SolverHandle sh(s);
    const cusolverDnHandle_t h = sh.h;
    Buf<double> x(std::size_t(m) * k * P, s), y(std::size_t(n) * k * P, s), a(std::size_t(m) * n * P, s),
        sd(k, s);
    gaussian_q<P>(h, x.get(), m, k, g, s);
    gaussian_q<P>(h, y.get(), n, k, g, s);
    BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(sd.get(), sigma.data(), k * sizeof(double), cudaMemcpyHostToDevice, s));
    scale_columns_kernel<double, P><<<kGrid, kThreads, 0, s>>>(x.get(), m, k, sd.get());
    BATCHSVD_CUDA_CHECK(cudaGetLastError());
    {
        Handles hb(s);
        gemm<P>(hb.blas, CUBLAS_OP_N, P == 1 ? CUBLAS_OP_T : CUBLAS_OP_C, m, n, k, 1.0, x.get(), m, y.get(), n, 0.0, a.get(), m);
    }
    std::vector<double> wide(std::size_t(m) * n * P);
    BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(wide.data(), a.get(), wide.size() * sizeof(double), cudaMemcpyDeviceToHost, s));
    BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(s));
    std::vector<T> out(std::size_t(m) * n);
    for (std::size_t i = 0; i < out.size(); ++i) {
        if constexpr (P == 1) out[i] = T(wide[i]);
        else out[i] = T(R(wide[2 * i]), R(wide[2 * i + 1]));
    }
    return out;
}

template <class T> std::vector<double> gpu_reference_values(index_t m, index_t n, const T* a, cudaStream_t s) {
    constexpr int P = parts_v<T>;
    const index_t M = std::max(m, n), N = std::min(m, n);  // gesvd needs rows >= columns
    Buf<double> w(std::size_t(m) * n * P, s), t(m < n ? std::size_t(m) * n * P : 0, s);
    widen(a, w.get(), std::size_t(m) * n, s);
    double* x = w.get();
    if (m < n) {  // A^H, n x m
        Handles hb(s);
        const cublasOperation_t herm = P == 1 ? CUBLAS_OP_T : CUBLAS_OP_C;
        if constexpr (P == 1) {
            const double one = 1, zero = 0;
            check(cublasDgeam(hb.blas, herm, CUBLAS_OP_N, int(n), int(m), &one, w.get(), int(m), &zero, nullptr, int(n),
                              t.get(), int(n)), "cublasDgeam");
        } else {
            const cuDoubleComplex one = make_cuDoubleComplex(1, 0), zero = make_cuDoubleComplex(0, 0);
            check(cublasZgeam(hb.blas, herm, CUBLAS_OP_N, int(n), int(m), &one,
                              reinterpret_cast<const cuDoubleComplex*>(w.get()), int(m), &zero, nullptr, int(n),
                              reinterpret_cast<cuDoubleComplex*>(t.get()), int(n)), "cublasZgeam");
        }
        x = t.get();
    }
    const SolverHandle sh(s);
    const cusolverDnHandle_t h = sh.h;
    int lw = 0;
    if constexpr (P == 1) check(cusolverDnDgesvd_bufferSize(h, int(M), int(N), &lw), "gesvd_bufferSize");
    else check(cusolverDnZgesvd_bufferSize(h, int(M), int(N), &lw), "gesvd_bufferSize");
    Buf<double> work(std::size_t(lw) * P, s), sv(N, s), rwork(N, s);
    Buf<int> info(1, s);
    if constexpr (P == 1)
        check(cusolverDnDgesvd(h, 'N', 'N', int(M), int(N), x, int(M), sv.get(), nullptr, int(M), nullptr, int(N), work.get(), lw,
                               rwork.get(), info.get()), "cusolverDnDgesvd");
    else
        check(cusolverDnZgesvd(h, 'N', 'N', int(M), int(N), reinterpret_cast<cuDoubleComplex*>(x), int(M), sv.get(),
                               nullptr, int(M), nullptr, int(N), reinterpret_cast<cuDoubleComplex*>(work.get()), lw, rwork.get(),
                               info.get()), "cusolverDnZgesvd");
    std::vector<double> out(N);
    int hinfo = 0;
    BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(out.data(), sv.get(), N * sizeof(double), cudaMemcpyDeviceToHost, s));
    BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(&hinfo, info.get(), sizeof(int), cudaMemcpyDeviceToHost, s));
    BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(s));
    if (hinfo != 0) std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
    return out;
}

template <class T>
testing::Errors gpu_measure(index_t m, index_t n, const T* a, const real_t<T>* s, const T* u, const T* v,
                            index_t ldv, bool vh, const std::vector<double>& s_ref, cudaStream_t stream) {
    using R = real_t<T>;
    constexpr int P = parts_v<T>;
    const index_t k = std::min(m, n);
    testing::Errors e;
    std::vector<R> hs(k);
    BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(hs.data(), s, k * sizeof(R), cudaMemcpyDeviceToHost, stream));
    BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (index_t r = 0; r < k; ++r)
        if (std::isnan(hs[r]) || hs[r] < 0 || (r + 1 < k && !(hs[r] >= hs[r + 1]))) e.sorted = false;

    Handles hb(stream);
    const cublasOperation_t herm = P == 1 ? CUBLAS_OP_T : CUBLAS_OP_C;
    const index_t vcols = vh ? n : k;  // V^H is k x n, V is n x k; both ld ldv
    Buf<double> aw(std::size_t(m) * n * P, stream), uw(std::size_t(m) * k * P, stream),
        vw(std::size_t(ldv) * vcols * P, stream);
    widen(a, aw.get(), std::size_t(m) * n, stream);
    widen(u, uw.get(), std::size_t(m) * k, stream);
    widen(v, vw.get(), std::size_t(ldv) * vcols, stream);
    // Orthogonality first: U is scaled by S for the residual below.
    e.e2 = orthogonality<P>(hb.blas, uw.get(), m, k, m, false, stream) / double(std::max<index_t>(m, 1));
    e.e3 = orthogonality<P>(hb.blas, vw.get(), n, k, ldv, vh, stream) / double(std::max<index_t>(n, 1));
    const double norm_a = norm1<P>(aw.get(), m, n, m, stream);
    scale_columns_kernel<R, P><<<kGrid, kThreads, 0, stream>>>(uw.get(), m, k, s);
    BATCHSVD_CUDA_CHECK(cudaGetLastError());
    // A - (U S) V^H, in place in the widened A.
    gemm<P>(hb.blas, CUBLAS_OP_N, vh ? CUBLAS_OP_N : herm, m, n, k, -1.0, uw.get(), m, vw.get(), ldv, 1.0, aw.get(), m);
    e.e1 = norm1<P>(aw.get(), m, n, m, stream) / (double(n) * (norm_a > 0 ? norm_a : 1.0));
    double acc = 0;
    for (index_t r = 0; r < k && r < index_t(s_ref.size()); ++r) {
        const double d = double(hs[r]) - s_ref[r];
        acc += d * d;
    }
    const double scale = !s_ref.empty() && s_ref[0] > 1 ? s_ref[0] : 1.0;
    e.e4 = k ? std::sqrt(acc) / (double(k) * scale) : 0.0;
    if (index_t(s_ref.size()) < k) e.e4 = std::numeric_limits<double>::quiet_NaN();
    return e;
}

#define BATCHSVD_GPU_ERRORS_(T)                                                                           \
    template std::vector<double> gpu_reference_values<T>(index_t, index_t, const T*, cudaStream_t);       \
    template testing::Errors gpu_measure<T>(index_t, index_t, const T*, const real_t<T>*, const T*,      \
                                            const T*, index_t, bool, const std::vector<double>&, cudaStream_t); \
    template std::vector<T> gpu_generate<T>(testing::Family, index_t, index_t, double, std::uint64_t, cudaStream_t);
BATCHSVD_GPU_ERRORS_(float)
BATCHSVD_GPU_ERRORS_(double)
BATCHSVD_GPU_ERRORS_(std::complex<float>)
BATCHSVD_GPU_ERRORS_(std::complex<double>)
#undef BATCHSVD_GPU_ERRORS_

}  // namespace batchsvd::bench
