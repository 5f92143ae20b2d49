// SPDX-License-Identifier: BSD-3-Clause
// Eigensolver probe: the bisection eigensolver (src/cuda/precondition/eigensolver_bisect.cuh),
// which the preconditioner uses past the split form's largest order, against cuSOLVER's
// cusolverDnXsyevBatched and, where it fits (orders up to 336), the split form
// (eigensolver_split.cuh). For each n:batch it builds random float32 Gram matrices G = A^T A on
// the device (A uniform in [-1, 1]; `n:batch:01` uniform in [0, 1), one dominant eigenvalue;
// `n:batch:geo` columns of A graded down to 1e-10) and times each variant on its own copy of G,
// median of 5 runs after a warm-up (CUDA events):
//   cusolver  one cusolverDnXsyevBatched over the batch;
//   bisect    symmetric_eig_bisect over the batch in one chunk, with its phases from the
//             launcher's marks (reduce, vectors, gather + Newton-Schulz + store, T factors +
//             back-transform);
//   split     launch_symmetric_eig_split, where the order fits.
// Output: CSV on stdout (`n,batch,variant,ms,reduce_ms,vectors_ms,ns_ms,back_ms,bad_info`; n
// carries a `u` or `g` suffix for the :01 and :geo inputs), then `# quality` lines: for matrices
// 0 and 1, in double on the host, ||G Z - Z diag(lambda)||_F / ||G||_F and ||Z^T Z - I||_F of
// bisect and cusolver, and their largest eigenvalue difference relative to lambda_max.
//
// Build (needs the CUDA backend; not built by default):
//   cmake -S . -B build-probes -G Ninja -DBATCHSVD_BUILD_PROBES=ON -DCMAKE_CUDA_ARCHITECTURES=90
//   cmake --build build-probes --target batchsvd_probe_bisect_eig
// Run on a GPU:
//   build-probes/bench/probes/batchsvd_probe_bisect_eig [n:batch[:01|:geo] ...] > probe.csv
//   (default cases 512:50 384:50 640:50 768:50 1024:10 256:1000; PROBE_ONLY_BISECT=1 runs the
//   bisection form alone, e.g. under compute-sanitizer). Results:
//   bench/results/h100/2026-11-26-bisection-eigensolver/probe_*.csv.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <curand.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "cuda/precondition/eigensolver_bisect.cuh"
#include "cuda/precondition/eigensolver_split.cuh"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::fprintf(stderr, "%d %s\n", __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)
#define CB(x) do { if ((x) != CUBLAS_STATUS_SUCCESS) { std::fprintf(stderr, "%d cublas\n", __LINE__); std::exit(1); } } while (0)
#define CS(x) do { cusolverStatus_t s_ = (x); if (s_ != CUSOLVER_STATUS_SUCCESS) { std::fprintf(stderr, "%d cusolver %d\n", __LINE__, int(s_)); std::exit(1); } } while (0)
#define CR(x) do { if ((x) != CURAND_STATUS_SUCCESS) { std::fprintf(stderr, "%d curand\n", __LINE__); std::exit(1); } } while (0)

__global__ void grade_columns(float* a, int n, std::size_t total) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < total; i += std::size_t(gridDim.x) * blockDim.x) {
        const int col = int((i / n) % n);
        a[i] *= exp10f(-10.0f * col / float(n > 1 ? n - 1 : 1));
    }
}

__global__ void affine(float* a, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
        a[i] = 2.f * a[i] - 1.f;
}

static double median(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

// residual and orthogonality of (vectors z, values l) for the n x n matrix g (host, double)
static void quality(const float* g, const float* z, const float* l, int n, double& res, double& orth) {
    double gn = 0, r2 = 0, o2 = 0;
    for (int i = 0; i < n * n; ++i) gn += double(g[i]) * g[i];
    std::vector<double> col(n);
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < n; ++i) col[i] = 0;
        for (int k = 0; k < n; ++k) {
            const double zk = z[k + std::size_t(j) * n];
            for (int i = 0; i < n; ++i) col[i] += double(g[i + std::size_t(k) * n]) * zk;
        }
        for (int i = 0; i < n; ++i) { const double d = col[i] - double(l[j]) * z[i + std::size_t(j) * n]; r2 += d * d; }
        for (int i = 0; i <= j; ++i) {
            double s = 0;
            for (int k = 0; k < n; ++k) s += double(z[k + std::size_t(i) * n]) * z[k + std::size_t(j) * n];
            const double d = s - (i == j);
            o2 += (i == j ? 1 : 2) * d * d;
        }
    }
    res = std::sqrt(r2 / gn);
    orth = std::sqrt(o2);
}

int main(int argc, char** argv) {
    std::vector<std::string> cases;
    for (int i = 1; i < argc; ++i) cases.push_back(argv[i]);
    if (cases.empty()) cases = {"512:50", "384:50", "640:50", "768:50", "1024:10", "256:1000"};
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    std::printf("gpu,%s\n", prop.name);
    std::printf("n,batch,variant,ms,reduce_ms,vectors_ms,ns_ms,back_ms,bad_info\n");
    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    cublasHandle_t blas;
    CB(cublasCreate(&blas));
    CB(cublasSetStream(blas, st));
    CB(cublasSetMathMode(blas, CUBLAS_DEFAULT_MATH));
    cusolverDnHandle_t sol;
    CS(cusolverDnCreate(&sol));
    CS(cusolverDnSetStream(sol, st));
    cusolverDnParams_t par;
    CS(cusolverDnCreateParams(&par));
    curandGenerator_t gen;
    CR(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT));
    CR(curandSetPseudoRandomGeneratorSeed(gen, 1234));
    cudaEvent_t e0, e1, marks[4];
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (auto& m : marks) CK(cudaEventCreate(&m));
    int optin = 0;
    CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    for (const auto& c : cases) {
        const int n = std::stoi(c.substr(0, c.find(':'))), batch = std::stoi(c.substr(c.find(':') + 1));
        const bool unit = c.size() > 3 && c.substr(c.size() - 3) == ":01";
        const bool geo = c.size() > 4 && c.substr(c.size() - 4) == ":geo";
        const std::size_t nn = std::size_t(n) * n;
        float *A, *G, *W, *lam;
        int* info;
        CK(cudaMalloc(&A, nn * batch * 4));
        CK(cudaMalloc(&G, nn * batch * 4));
        CK(cudaMalloc(&W, nn * batch * 4));
        CK(cudaMalloc(&lam, std::size_t(n) * batch * 4));
        CK(cudaMalloc(&info, batch * 4));
        CR(curandGenerateUniform(gen, A, nn * batch));
        if (!unit) affine<<<1024, 256>>>(A, nn * batch);
        if (geo) grade_columns<<<1024, 256>>>(A, n, nn * batch);
        const float one = 1, zero = 0;
        CB(cublasSgemmStridedBatched(blas, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, &one, A, n, nn, A, n, nn, &zero, G, n, nn, batch));
        CK(cudaStreamSynchronize(st));
        std::vector<float> hg(2 * nn);
        CK(cudaMemcpy(hg.data(), G, 2 * nn * 4, cudaMemcpyDeviceToHost));
        const auto timed = [&](const std::function<void()>& f, std::vector<double>* phases) {
            std::vector<double> t, p[4];
            for (int r = 0; r < 6; ++r) {
                CK(cudaMemcpyAsync(W, G, nn * batch * 4, cudaMemcpyDeviceToDevice, st));
                CK(cudaEventRecord(e0, st));
                f();
                CK(cudaEventRecord(e1, st));
                CK(cudaEventSynchronize(e1));
                float ms = 0;
                CK(cudaEventElapsedTime(&ms, e0, e1));
                if (r > 0) t.push_back(ms);
                if (phases && r > 0) {
                    cudaEvent_t prev = e0;
                    for (int q = 0; q < 4; ++q) {
                        CK(cudaEventElapsedTime(&ms, prev, marks[q]));
                        p[q].push_back(ms);
                        prev = marks[q];
                    }
                }
            }
            if (phases) for (int q = 0; q < 4; ++q) phases->push_back(median(p[q]));
            return median(t);
        };
        const auto bad_infos = [&] {
            std::vector<int> hi(batch);
            CK(cudaMemcpy(hi.data(), info, batch * 4, cudaMemcpyDeviceToHost));
            int bad = 0;
            for (int x : hi) bad += x != 0;
            return bad;
        };
        std::vector<float> zb(2 * nn), lb(2 * n), zc(2 * nn), lc(2 * n);
        // bisect
        {
            const std::size_t per = batchsvd::cuda::bisect_eig_matrix_bytes<float>(n);
            unsigned char* ws;
            CK(cudaMalloc(&ws, per * batch));
            std::vector<double> ph;
            const double ms = timed([&] { batchsvd::cuda::symmetric_eig_bisect<float>(W, lam, info, n, batch, ws, batch, blas, st, marks); }, &ph);
            std::printf("%d%s,%d,bisect,%.3f,%.3f,%.3f,%.3f,%.3f,%d\n", n, unit ? "u" : geo ? "g" : "", batch, ms, ph[0], ph[1], ph[2], ph[3], bad_infos());
            CK(cudaMemcpy(zb.data(), W, 2 * nn * 4, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(lb.data(), lam, 2 * n * 4, cudaMemcpyDeviceToHost));
            CK(cudaFree(ws));
        }
        if (std::getenv("PROBE_ONLY_BISECT")) {
            CK(cudaFree(A)); CK(cudaFree(G)); CK(cudaFree(W)); CK(cudaFree(lam)); CK(cudaFree(info));
            continue;
        }
        // split
        if (n <= batchsvd::cuda::split_eig_max_order<float>(std::size_t(optin))) {
            const std::size_t per = batchsvd::cuda::split_eig_matrix_bytes<float>(n);
            const int chunk = std::min(batch, 512);
            unsigned char* ws;
            CK(cudaMalloc(&ws, per * chunk));
            const double ms = timed([&] { CK(batchsvd::cuda::launch_symmetric_eig_split(W, lam, info, n, batch, ws, chunk, st)); }, nullptr);
            std::printf("%d%s,%d,split,%.3f,,,,,%d\n", n, unit ? "u" : geo ? "g" : "", batch, ms, bad_infos());
            CK(cudaFree(ws));
        }
        // cusolver
        {
            std::size_t dbytes = 0, hbytes = 0;
            CS(cusolverDnXsyevBatched_bufferSize(sol, par, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n, CUDA_R_32F, W, n,
                                                 CUDA_R_32F, lam, CUDA_R_32F, &dbytes, &hbytes, batch));
            void* dw;
            CK(cudaMalloc(&dw, std::max<std::size_t>(dbytes, 1)));
            std::vector<char> hw(std::max<std::size_t>(hbytes, 1));
            const double ms = timed([&] {
                CS(cusolverDnXsyevBatched(sol, par, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n, CUDA_R_32F, W, n, CUDA_R_32F,
                                          lam, CUDA_R_32F, dw, dbytes, hw.data(), hbytes, info, batch));
            }, nullptr);
            std::printf("%d%s,%d,cusolver,%.3f,,,,,%d\n", n, unit ? "u" : geo ? "g" : "", batch, ms, bad_infos());
            CK(cudaMemcpy(zc.data(), W, 2 * nn * 4, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(lc.data(), lam, 2 * n * 4, cudaMemcpyDeviceToHost));
            CK(cudaFree(dw));
        }
        for (int b = 0; b < std::min(batch, 2); ++b) {
            double rb, ob, rc, oc, dl = 0;
            quality(hg.data() + b * nn, zb.data() + b * nn, lb.data() + b * n, n, rb, ob);
            quality(hg.data() + b * nn, zc.data() + b * nn, lc.data() + b * n, n, rc, oc);
            for (int j = 0; j < n; ++j) dl = std::max(dl, double(std::fabs(lb[b * n + j] - lc[b * n + j])));
            std::printf("# quality n=%d matrix %d: bisect residual %.3g orth %.3g | cusolver residual %.3g orth %.3g | eig diff %.3g (of lambda_max %.3g)\n",
                        n, b, rb, ob, rc, oc, dl / lc[b * n + n - 1], double(lc[b * n + n - 1]));
        }
        CK(cudaFree(A)); CK(cudaFree(G)); CK(cudaFree(W)); CK(cudaFree(lam)); CK(cudaFree(info));
    }
    return 0;
}
