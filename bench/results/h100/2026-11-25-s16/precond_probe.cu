// Experiment (session 16): is an approximate eigenbasis of A^T A a preconditioner worth its
// cost for the blocked path? For float64 batches of random uniform squares it times, in one
// run on one GPU:
//   base   batchsvd::gesvd on A (U, V);
//   syev   cusolverDnXsyevBatched on G = A^T A, in float32 (G rounded) and in float64;
//   pre    G (DGEMM), the float32 eigenvectors, two Newton-Schulz steps in float64
//          (V0 <- V0 (3I - V0^T V0) / 2) so that V0 is orthogonal to working precision,
//          W = A V0 (DGEMM), batchsvd::gesvd on W, V = V0 V_W (DGEMM): the whole pipeline;
// and the sweeps batchsvd needs on A and on W (first 16 matrices, max_sweeps scan), and the
// pipeline's residual and V orthogonality on the first 8 matrices.
//   precond_probe [n:batch ...]      (default 128:1000 256:1000 512:50)
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "batchsvd/batchsvd.hpp"

#define CK(x)                                                                              \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(1);                                                                  \
        }                                                                                  \
    } while (0)
#define CB(x)                                                                    \
    do {                                                                         \
        cublasStatus_t s_ = (x);                                                 \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                       \
            std::fprintf(stderr, "%s:%d cublas %d\n", __FILE__, __LINE__, int(s_)); \
            std::exit(1);                                                        \
        }                                                                        \
    } while (0)
#define CS(x)                                                                      \
    do {                                                                           \
        cusolverStatus_t s_ = (x);                                                 \
        if (s_ != CUSOLVER_STATUS_SUCCESS) {                                       \
            std::fprintf(stderr, "%s:%d cusolver %d\n", __FILE__, __LINE__, int(s_)); \
            std::exit(1);                                                          \
        }                                                                          \
    } while (0)

template <class T> struct Dev {
    T* p = nullptr;
    explicit Dev(std::size_t n) { CK(cudaMalloc(&p, std::max<std::size_t>(n, 1) * sizeof(T))); }
    ~Dev() { cudaFree(p); }
    Dev(const Dev&) = delete;
    Dev& operator=(const Dev&) = delete;
};

__global__ void to_float(const double* x, float* y, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
        y[i] = float(x[i]);
}
__global__ void to_double(const float* x, double* y, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
        y[i] = double(x[i]);
}
/// Y = (3 I - X) / 2 for a batch of n x n matrices.
__global__ void ns_middle(const double* X, double* Y, int n, std::size_t total) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < total; i += std::size_t(gridDim.x) * blockDim.x) {
        const std::size_t k = i % (std::size_t(n) * n);
        const bool diag = k % n == k / n;
        Y[i] = ((diag ? 3.0 : 0.0) - X[i]) * 0.5;
    }
}
/// Columns of V reversed (ascending eigenvalues to descending), batch of n x n.
__global__ void reverse_cols(const double* X, double* Y, int n, std::size_t total) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < total; i += std::size_t(gridDim.x) * blockDim.x) {
        const std::size_t b = i / (std::size_t(n) * n), k = i % (std::size_t(n) * n);
        const std::size_t r = k % n, c = k / n;
        Y[i] = X[b * n * n + r + (n - 1 - c) * n];
    }
}

struct Timer {
    cudaEvent_t a, b;
    Timer() {
        CK(cudaEventCreate(&a));
        CK(cudaEventCreate(&b));
    }
    ~Timer() {
        cudaEventDestroy(a);
        cudaEventDestroy(b);
    }
    template <class F> double median(int reps, F&& f) {
        f();  // warm-up
        CK(cudaDeviceSynchronize());
        std::vector<double> t;
        for (int r = 0; r < reps; ++r) {
            CK(cudaEventRecord(a));
            f();
            CK(cudaEventRecord(b));
            CK(cudaEventSynchronize(b));
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, a, b));
            t.push_back(ms);
        }
        std::sort(t.begin(), t.end());
        return t[t.size() / 2];
    }
};

static cublasHandle_t g_blas;

/// C = op(A) op(B), batches of n x n (stride n^2).
void gemm(bool ta, const double* A, const double* B, double* C, int n, int batch) {
    const double one = 1, zero = 0;
    const long long s = (long long)n * n;
    CB(cublasDgemmStridedBatched(g_blas, ta ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, A, n, s, B, n, s,
                                 &zero, C, n, s, batch));
}

/// Mean sweeps on the first `count` matrices of a (device, n x n each): max_sweeps scan.
double mean_sweeps(const double* a, int n, int count) {
    Dev<double> s(std::size_t(count) * n);
    Dev<int> info(count);
    std::vector<int> h(count), first(count, -1);
    batchsvd::Options o;
    o.backend = batchsvd::Backend::cuda;
    o.compute_u = o.compute_v = false;
    for (int sw = 1; sw <= 40; ++sw) {
        o.max_sweeps = sw;
        batchsvd::gesvd<double>(n, n, count, a, s.p, nullptr, nullptr, info.p, o);
        CK(cudaMemcpy(h.data(), info.p, count * sizeof(int), cudaMemcpyDeviceToHost));
        bool all = true;
        for (int i = 0; i < count; ++i) {
            if (h[i] == 0 && first[i] < 0) first[i] = sw;
            all = all && first[i] > 0;
        }
        if (all) break;
    }
    double t = 0;
    for (int f : first) t += f > 0 ? f : 41;
    return t / count;
}

int main(int argc, char** argv) {
    std::vector<std::pair<int, int>> cases;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto c = a.find(':');
        cases.push_back({std::atoi(a.substr(0, c).c_str()), std::atoi(a.substr(c + 1).c_str())});
    }
    if (cases.empty()) cases = {{128, 1000}, {256, 1000}, {512, 50}};
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    std::printf("# %s\n", prop.name);
    CB(cublasCreate(&g_blas));
    cusolverDnHandle_t sol;
    CS(cusolverDnCreate(&sol));
    cusolverDnParams_t params;
    CS(cusolverDnCreateParams(&params));
    Timer tm;
    std::mt19937_64 rng(std::random_device{}());
    std::printf("n,batch,base_ms,syev32_ms,syev64_ms,pre_gram_ms,pre_syev_ms,pre_ns_ms,pre_w_ms,pre_svd_ms,pre_v_ms,"
                "pre_total_ms,sweeps_A,sweeps_W,pre_resid,pre_orthV,base_resid\n");
    for (auto [n, batch] : cases) {
        const std::size_t nn = std::size_t(n) * n, tot = nn * batch;
        std::vector<double> h(tot);
        std::uniform_real_distribution<double> uni(0, 1);
        for (auto& x : h) x = uni(rng);
        Dev<double> A(tot), G(tot), V0(tot), T1(tot), T2(tot), W(tot), U(tot), V(tot), VW(tot), S(std::size_t(n) * batch),
            E(std::size_t(n) * batch);
        Dev<float> G32(tot), E32(std::size_t(n) * batch);
        Dev<int> info(batch);
        CK(cudaMemcpy(A.p, h.data(), tot * sizeof(double), cudaMemcpyHostToDevice));
        batchsvd::Options o;
        o.backend = batchsvd::Backend::cuda;
        const double base = tm.median(3, [&] { batchsvd::gesvd<double>(n, n, batch, A.p, S.p, U.p, V.p, info.p, o); });

        // cuSOLVER batched syev, float32 and float64 (workspace sized once).
        std::size_t d32 = 0, h32 = 0, d64 = 0, h64 = 0;
        CS(cusolverDnXsyevBatched_bufferSize(sol, params, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n, CUDA_R_32F, G32.p,
                                             n, CUDA_R_32F, E32.p, CUDA_R_32F, &d32, &h32, batch));
        CS(cusolverDnXsyevBatched_bufferSize(sol, params, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n, CUDA_R_64F, G.p, n,
                                             CUDA_R_64F, E.p, CUDA_R_64F, &d64, &h64, batch));
        Dev<char> dw(std::max(d32, d64));
        std::vector<char> hw(std::max<std::size_t>(std::max(h32, h64), 1));
        const auto gram = [&] { gemm(true, A.p, A.p, G.p, n, batch); };
        const auto run_syev32 = [&] {
            to_float<<<1024, 256>>>(G.p, G32.p, tot);
            CS(cusolverDnXsyevBatched(sol, params, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n, CUDA_R_32F, G32.p, n,
                                      CUDA_R_32F, E32.p, CUDA_R_32F, dw.p, d32, hw.data(), h32, info.p, batch));
            to_double<<<1024, 256>>>(G32.p, T1.p, tot);
            reverse_cols<<<1024, 256>>>(T1.p, V0.p, n, tot);
        };
        const auto ns = [&] {
            for (int k = 0; k < 2; ++k) {
                gemm(true, V0.p, V0.p, T1.p, n, batch);
                ns_middle<<<1024, 256>>>(T1.p, T2.p, n, tot);
                gemm(false, V0.p, T2.p, T1.p, n, batch);
                CK(cudaMemcpyAsync(V0.p, T1.p, tot * sizeof(double), cudaMemcpyDeviceToDevice));
            }
        };
        const auto wprod = [&] { gemm(false, A.p, V0.p, W.p, n, batch); };
        const auto svdw = [&] { batchsvd::gesvd<double>(n, n, batch, W.p, S.p, U.p, VW.p, info.p, o); };
        const auto vprod = [&] { gemm(false, V0.p, VW.p, V.p, n, batch); };
        gram();
        // float32 syev timing estimate on 10 matrices first: skip the batch if it would take > 3 s.
        double full32 = NAN, full64 = NAN;
        {
            const double t10 = tm.median(1, [&] {
                CS(cusolverDnXsyevBatched(sol, params, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n, CUDA_R_32F, G32.p, n,
                                          CUDA_R_32F, E32.p, CUDA_R_32F, dw.p, d32, hw.data(), h32, info.p, 10));
            });
            std::fprintf(stderr, "n %d: syev32 on 10 matrices %.2f ms\n", n, t10);
            if (t10 * batch / 10 < 3000) full32 = tm.median(3, [&] { gram(); run_syev32(); });
        }
        {
            CK(cudaMemcpy(T2.p, G.p, tot * sizeof(double), cudaMemcpyDeviceToDevice));
            const double t10 = tm.median(1, [&] {
                CK(cudaMemcpy(G.p, T2.p, 10 * nn * sizeof(double), cudaMemcpyDeviceToDevice));
                CS(cusolverDnXsyevBatched(sol, params, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n, CUDA_R_64F, G.p, n,
                                          CUDA_R_64F, E.p, CUDA_R_64F, dw.p, d64, hw.data(), h64, info.p, 10));
            });
            std::fprintf(stderr, "n %d: syev64 on 10 matrices %.2f ms\n", n, t10);
            if (t10 * batch / 10 < 3000)
                full64 = tm.median(3, [&] {
                    gram();
                    CS(cusolverDnXsyevBatched(sol, params, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n, CUDA_R_64F, G.p,
                                              n, CUDA_R_64F, E.p, CUDA_R_64F, dw.p, d64, hw.data(), h64, info.p, batch));
                });
        }
        double t_gram = tm.median(3, gram), t_syev = NAN, t_ns = NAN, t_w = NAN, t_svd = NAN, t_v = NAN, total = NAN;
        double sw_a = mean_sweeps(A.p, n, std::min(batch, 16)), sw_w = NAN, resid = NAN, orth = NAN, base_resid = NAN;
        if (!std::isnan(full32)) {
            gram();
            t_syev = tm.median(3, [&] { run_syev32(); });  // (overwrites G32 only; G kept)
            t_ns = tm.median(1, [&] { run_syev32(); ns(); }) - t_syev;
            t_w = tm.median(3, wprod);
            t_svd = tm.median(3, svdw);
            t_v = tm.median(3, vprod);
            total = tm.median(3, [&] { gram(); run_syev32(); ns(); wprod(); svdw(); vprod(); });
            sw_w = mean_sweeps(W.p, n, std::min(batch, 16));
            // Residual and orthogonality on the first 8 matrices (host, plain loops).
            const int c = std::min(batch, 8);
            std::vector<double> ha(c * nn), hu(c * nn), hv(c * nn), hs(std::size_t(c) * n);
            for (int which = 0; which < 2; ++which) {
                if (which == 1) batchsvd::gesvd<double>(n, n, batch, A.p, S.p, U.p, V.p, info.p, o);
                CK(cudaMemcpy(ha.data(), A.p, c * nn * sizeof(double), cudaMemcpyDeviceToHost));
                CK(cudaMemcpy(hu.data(), U.p, c * nn * sizeof(double), cudaMemcpyDeviceToHost));
                CK(cudaMemcpy(hv.data(), V.p, c * nn * sizeof(double), cudaMemcpyDeviceToHost));
                CK(cudaMemcpy(hs.data(), S.p, c * n * sizeof(double), cudaMemcpyDeviceToHost));
                double worst_r = 0, worst_o = 0;
                for (int b = 0; b < c; ++b) {
                    const double* a = &ha[b * nn];
                    const double* u = &hu[b * nn];
                    const double* v = &hv[b * nn];
                    const double* s = &hs[std::size_t(b) * n];
                    double num = 0, den = 0, o2 = 0;
                    for (int j = 0; j < n; ++j)
                        for (int i = 0; i < n; ++i) {
                            double r = a[i + j * n], g = i == j ? -1.0 : 0.0;
                            for (int k = 0; k < n; ++k) {
                                r -= u[i + k * n] * s[k] * v[j + k * n];
                                g += v[k + i * n] * v[k + j * n];
                            }
                            num += r * r;
                            den += a[i + j * n] * a[i + j * n];
                            o2 = std::max(o2, std::abs(g));
                        }
                    worst_r = std::max(worst_r, std::sqrt(num / den));
                    worst_o = std::max(worst_o, o2);
                }
                if (which == 0) {
                    resid = worst_r;
                    orth = worst_o;
                } else {
                    base_resid = worst_r;
                }
            }
        }
        std::printf("%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.2f,%.2f,%.2e,%.2e,%.2e\n", n, batch, base,
                    full32, full64, t_gram, t_syev, t_ns, t_w, t_svd, t_v, total, sw_a, sw_w, resid, orth, base_resid);
        std::fflush(stdout);
    }
    cusolverDnDestroyParams(params);
    cusolverDnDestroy(sol);
    cublasDestroy(g_blas);
    return 0;
}
