// SPDX-License-Identifier: BSD-3-Clause
// Eigensolver probe: the preconditioner's float32 eigensolve at the orders of the fused and split
// forms (src/cuda/precondition/eigensolver_fused.cuh, eigensolver_split.cuh) against cuSOLVER,
// with each form's phases. For each n:batch it builds random Gram matrices G = A^T A (A uniform
// in [-1, 1], float32, on the device) and times, median of 5 runs after a warm-up, with CUDA
// events around all streams:
//   batched   one cusolverDnXsyevBatched over the batch;
//   chunksS   the batch in S = 2, 4 chunks, one syevBatched each, on S streams with S handles;
//   loop1_S   syevBatched with batch 1 per matrix, round-robin over S = 1, 4, 8 streams/handles,
//   syevd_S   and cusolverDnXsyevd per matrix the same way (both only with SYEV_PROBE_LOOPS
//             set, for batches up to 100);
//   own       the fused form (launch_symmetric_eig, one block a matrix), where it fits;
//   split     the split form (launch_symmetric_eig_split), where it fits, in chunks of
//             SYEV_PROBE_CHUNK matrices (default 512).
// Every variant writes to its own copy of G and checks info; the eigenvalues of matrix 0 are
// compared between variants. Output: CSV on stdout (`n,batch,variant,streams,ms,eig_rel_diff`)
// and comment lines: `# own` / `# split` the mean cycles of each phase from the kernels' stats
// (tridiagonalisation or reduction, forming Q, QL recurrence; sweeps, rotations), `# phases`
// each split kernel timed apart (the reduction with every threads-a-row shape that fits).
// The bisection form (orders past 336) has its own probe, bisect_probe.cu.
//
// Build (needs the CUDA backend; not built by default):
//   cmake -S . -B build-probes -G Ninja -DBATCHSVD_BUILD_PROBES=ON -DCMAKE_CUDA_ARCHITECTURES=90
//   cmake --build build-probes --target batchsvd_probe_syev
// Run on a GPU:
//   build-probes/bench/probes/batchsvd_probe_syev [n:batch ...] > probe.csv
//   (default cases 128:1000 256:1000 512:50 512:10); plot the fused form against syevBatched
//   with `python3 bench/probes/plot_syev.py probe.csv probe.png`. Results:
//   bench/results/h100/2026-11-26-fused-eigensolver/syev_probe_*.csv,
//   bench/results/h100/2026-11-26-split-eigensolver*/.
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cusolverDn.h>
#include <curand.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "cuda/precondition/eigensolver_fused.cuh"
#include "cuda/precondition/eigensolver_split.cuh"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::fprintf(stderr, "%d %s\n", __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)
#define CB(x) do { if ((x) != CUBLAS_STATUS_SUCCESS) { std::fprintf(stderr, "%d cublas\n", __LINE__); std::exit(1); } } while (0)
#define CS(x) do { cusolverStatus_t s_ = (x); if (s_ != CUSOLVER_STATUS_SUCCESS) { std::fprintf(stderr, "%d cusolver %d\n", __LINE__, int(s_)); std::exit(1); } } while (0)
#define CR(x) do { if ((x) != CURAND_STATUS_SUCCESS) { std::fprintf(stderr, "%d curand\n", __LINE__); std::exit(1); } } while (0)

__global__ void affine(float* a, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
        a[i] = 2.f * a[i] - 1.f;
}

struct Ctx {
    cudaStream_t s;
    cusolverDnHandle_t h;
    cusolverDnParams_t p;
    void* dwork = nullptr;
    std::size_t dbytes = 0;
    std::vector<char> hwork;
};

int main(int argc, char** argv) {
    std::vector<std::string> cases;
    for (int i = 1; i < argc; ++i) cases.push_back(argv[i]);
    if (cases.empty()) cases = {"128:1000", "256:1000", "512:50", "512:10"};
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    std::printf("gpu,%s\n", prop.name);
    std::printf("n,batch,variant,streams,ms,eig_rel_diff\n");
    const int S_MAX = 8;
    std::vector<Ctx> ctx(S_MAX);
    for (auto& c : ctx) {
        CK(cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking));
        CS(cusolverDnCreate(&c.h));
        CS(cusolverDnSetStream(c.h, c.s));
        CS(cusolverDnCreateParams(&c.p));
    }
    cublasHandle_t blas;
    CB(cublasCreate(&blas));
    curandGenerator_t gen;
    CR(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT));
    CR(curandSetPseudoRandomGeneratorSeed(gen, 1234));
    for (const auto& cs : cases) {
        const int n = std::stoi(cs.substr(0, cs.find(':')));
        const int batch = std::stoi(cs.substr(cs.find(':') + 1));
        const std::size_t nn = std::size_t(n) * n;
        float *A, *G, *W, *lam;
        int* info;
        CK(cudaMalloc(&A, nn * batch * 4));
        CK(cudaMalloc(&G, nn * batch * 4));
        CK(cudaMalloc(&W, nn * batch * 4));
        CK(cudaMalloc(&lam, std::size_t(n) * batch * 4));
        CK(cudaMalloc(&info, batch * 4));
        CR(curandGenerateUniform(gen, A, nn * batch));
        affine<<<1024, 256>>>(A, nn * batch);
        CK(cudaGetLastError());
        const float one = 1, zero = 0;
        CB(cublasSgemmStridedBatched(blas, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, &one, A, n, nn, A, n, nn, &zero, G, n, nn, batch));
        CK(cudaDeviceSynchronize());
        std::vector<float> ref;
        auto run_variant = [&](const char* name, int S, const std::function<void()>& body) {
            cudaEvent_t e0, e1;
            CK(cudaEventCreate(&e0));
            CK(cudaEventCreate(&e1));
            std::vector<cudaEvent_t> done(S);
            for (auto& e : done) CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
            std::vector<float> times;
            for (int rep = 0; rep < 6; ++rep) {
                CK(cudaMemcpy(W, G, nn * batch * 4, cudaMemcpyDeviceToDevice));
                CK(cudaMemset(info, 0xff, batch * 4));
                CK(cudaDeviceSynchronize());
                CK(cudaEventRecord(e0, ctx[0].s));
                for (int k = 1; k < S; ++k) CK(cudaStreamWaitEvent(ctx[k].s, e0));
                body();
                for (int k = 1; k < S; ++k) {
                    CK(cudaEventRecord(done[k], ctx[k].s));
                    CK(cudaStreamWaitEvent(ctx[0].s, done[k]));
                }
                CK(cudaEventRecord(e1, ctx[0].s));
                CK(cudaEventSynchronize(e1));
                float ms;
                CK(cudaEventElapsedTime(&ms, e0, e1));
                if (rep > 0) times.push_back(ms);
            }
            std::vector<int> hinfo(batch);
            CK(cudaMemcpy(hinfo.data(), info, batch * 4, cudaMemcpyDeviceToHost));
            int bad = 0;
            for (int v : hinfo) bad += v != 0;
            std::vector<float> l(n);
            CK(cudaMemcpy(l.data(), lam, n * 4, cudaMemcpyDeviceToHost));
            double diff = 0;
            if (ref.empty()) ref = l;
            for (int i = 0; i < n; ++i) diff = std::max(diff, std::abs(double(l[i]) - ref[i]) / std::abs(double(ref[n - 1])));
            std::sort(times.begin(), times.end());
            std::printf("%d,%d,%s,%d,%.3f,%.1e%s\n", n, batch, name, S, times[times.size() / 2], diff, bad ? " INFO_FAILED" : "");
            std::fflush(stdout);
            CK(cudaEventDestroy(e0));
            CK(cudaEventDestroy(e1));
            for (auto& e : done) CK(cudaEventDestroy(e));
        };
        // Workspaces: the largest any variant needs, per context.
        for (auto& c : ctx) {
            std::size_t d1 = 0, h1 = 0, d2 = 0, h2 = 0, d3 = 0, h3 = 0;
            CS(cusolverDnXsyevBatched_bufferSize(c.h, c.p, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n, CUDA_R_32F, W, n,
                                                 CUDA_R_32F, lam, CUDA_R_32F, &d1, &h1, batch));
            CS(cusolverDnXsyevBatched_bufferSize(c.h, c.p, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n, CUDA_R_32F, W, n,
                                                 CUDA_R_32F, lam, CUDA_R_32F, &d2, &h2, 1));
            CS(cusolverDnXsyevd_bufferSize(c.h, c.p, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n, CUDA_R_32F, W, n,
                                           CUDA_R_32F, lam, CUDA_R_32F, &d3, &h3));
            if (c.dwork) CK(cudaFree(c.dwork));
            c.dbytes = std::max({d1, d2, d3});
            CK(cudaMalloc(&c.dwork, c.dbytes));
            c.hwork.assign(std::max({h1, h2, h3, std::size_t(1)}), 0);
        }
        auto batched = [&](Ctx& c, int first, int count) {
            CS(cusolverDnXsyevBatched(c.h, c.p, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n, CUDA_R_32F, W + first * nn, n,
                                      CUDA_R_32F, lam + std::size_t(first) * n, CUDA_R_32F, c.dwork, c.dbytes, c.hwork.data(),
                                      c.hwork.size(), info + first, count));
        };
        run_variant("batched", 1, [&] { batched(ctx[0], 0, batch); });
        // One instrumented run of an eigensolver on G: the batch's mean of its five counters
        // (cycles of its three phases, sweeps, rotations).
        auto mean_stats = [&](const auto& launch) {
            long long* st;
            CK(cudaMalloc(&st, std::size_t(batch) * 5 * 8));
            CK(cudaMemcpy(W, G, nn * batch * 4, cudaMemcpyDeviceToDevice));
            CK(launch(st));
            CK(cudaDeviceSynchronize());
            std::vector<long long> h(std::size_t(batch) * 5);
            CK(cudaMemcpy(h.data(), st, h.size() * 8, cudaMemcpyDeviceToHost));
            CK(cudaFree(st));
            std::array<double, 5> sum{};
            for (int b = 0; b < batch; ++b)
                for (int k = 0; k < 5; ++k) sum[k] += double(h[b * 5 + k]) / batch;
            return sum;
        };
        {
            int optin = 0;
            CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
            const std::size_t bytes = batchsvd::cuda::symmetric_eig_smem_bytes<float>(n);
            if (bytes + 64 <= std::size_t(optin)) {
                run_variant("own", 1, [&] { CK(batchsvd::cuda::launch_symmetric_eig(W, lam, info, n, batch, batch, ctx[0].s)); });
                const auto sum = mean_stats([&](long long* st) {
                    return batchsvd::cuda::launch_symmetric_eig(W, lam, info, n, batch, batch, ctx[0].s, st);
                });
                std::printf("# own n=%d: mean cycles tridiagonalize %.0f, form Q %.0f, QL %.0f; sweeps %.1f, rotations %.0f (%.1f cycles a rotation)\n",
                            n, sum[0], sum[1], sum[2], sum[3], sum[4], sum[2] / sum[4]);
            }
        }
        {
            int optin = 0;
            CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
            if (n <= batchsvd::cuda::split_eig_max_order<float>(std::size_t(optin))) {
                const char* ch = std::getenv("SYEV_PROBE_CHUNK");
                const long chunk = std::min<long>(batch, ch ? std::atol(ch) : 512);
                unsigned char* ws;
                CK(cudaMalloc(&ws, batchsvd::cuda::split_eig_matrix_bytes<float>(n) * chunk));
                run_variant("split", 1, [&] { CK(batchsvd::cuda::launch_symmetric_eig_split(W, lam, info, n, batch, ws, chunk, ctx[0].s)); });
                const auto sum = mean_stats([&](long long* st) {
                    return batchsvd::cuda::launch_symmetric_eig_split(W, lam, info, n, batch, ws, chunk, ctx[0].s, st);
                });
                std::printf("# split n=%d chunk=%ld: mean cycles reduce %.0f, form Q (32 rows) %.0f, QL recurrence %.0f; sweeps %.1f, rotations %.0f (%.1f cycles a rotation)\n",
                            n, chunk, sum[0], sum[1], sum[2], sum[3], sum[4], sum[2] / sum[4]);
                // Each kernel of the split form timed apart (one chunk of the whole batch when the
                // workspace fits, else `chunk`), median of 5 after a warm-up; the reduction with
                // each number of threads a row that fits (the last one's output goes on).
                {
                    namespace bc = batchsvd::cuda;
                    const long ch2 = chunk;
                    const int groups = (n + bc::kSplitRows - 1) / bc::kSplitRows;
                    const bc::SplitReduceShape chosen = bc::split_eig_reduce_shape<float>(n, std::size_t(optin));
                    std::vector<bc::SplitReduceShape> shapes;
                    for (int sb = 1; sb <= chosen.subs; sb *= 2) shapes.push_back({chosen.rows, sb});
                    const int R = int(shapes.size());
                    const std::size_t vb = bc::split_eig_vectors_smem_bytes<float>(n);
                    const std::size_t qb = std::size_t(bc::detail::kSplitQlWarps) * 2 * n * sizeof(float);
                    std::vector<int> occ(R + 2);
                    for (int k = 0; k < R; ++k) {
                        const auto red = bc::detail::split_reduce_kernel<float>(shapes[k]);
                        const std::size_t rb = bc::split_eig_reduce_smem_bytes<float>(n, shapes[k].subs);
                        CK(cudaFuncSetAttribute(red, cudaFuncAttributeMaxDynamicSharedMemorySize, int(rb)));
                        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ[k], red, shapes[k].threads(), rb));
                    }
                    CK(cudaFuncSetAttribute(bc::detail::ql_vectors_kernel<float>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(vb)));
                    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ[R], bc::detail::ql_rotations_kernel<float>, 32 * bc::detail::kSplitQlWarps, qb));
                    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ[R + 1], bc::detail::ql_vectors_kernel<float>, 32, vb));
                    std::vector<cudaEvent_t> ev(R + 3);
                    for (auto& e : ev) CK(cudaEventCreate(&e));
                    std::vector<std::vector<float>> t(R + 2);
                    for (int rep = 0; rep < 6; ++rep) {
                        CK(cudaMemcpy(W, G, nn * batch * 4, cudaMemcpyDeviceToDevice));
                        std::vector<float> tt(R + 2, 0.f);
                        for (long first = 0; first < batch; first += ch2) {
                            const long count = std::min<long>(ch2, batch - first);
                            float* g = W + first * nn;
                            CK(cudaEventRecord(ev[0], ctx[0].s));
                            for (int k = 0; k < R; ++k) {
                                bc::detail::split_reduce_kernel<float>(shapes[k])<<<unsigned(count), shapes[k].threads(),
                                    bc::split_eig_reduce_smem_bytes<float>(n, shapes[k].subs), ctx[0].s>>>(g, ws, info + first, n, count, nullptr);
                                CK(cudaGetLastError());
                                CK(cudaEventRecord(ev[k + 1], ctx[0].s));
                            }
                            bc::detail::ql_rotations_kernel<float><<<unsigned((count + bc::detail::kSplitQlWarps - 1) / bc::detail::kSplitQlWarps),
                                                                     32 * bc::detail::kSplitQlWarps, qb, ctx[0].s>>>(ws, lam + first * n, info + first, n, count, nullptr);
                            CK(cudaGetLastError());
                            CK(cudaEventRecord(ev[R + 1], ctx[0].s));
                            bc::detail::ql_vectors_kernel<float><<<unsigned(count * groups), 32, vb, ctx[0].s>>>(g, ws, info + first, n, count, nullptr);
                            CK(cudaGetLastError());
                            CK(cudaEventRecord(ev[R + 2], ctx[0].s));
                            CK(cudaEventSynchronize(ev[R + 2]));
                            for (int k = 0; k < R + 2; ++k) {
                                float ms;
                                CK(cudaEventElapsedTime(&ms, ev[k], ev[k + 1]));
                                tt[k] += ms;
                            }
                        }
                        if (rep > 0)
                            for (int k = 0; k < R + 2; ++k) t[k].push_back(tt[k]);
                    }
                    for (auto& v : t) std::sort(v.begin(), v.end());
                    std::printf("# phases n=%d chunk=%ld:", n, ch2);
                    for (int k = 0; k < R; ++k)
                        std::printf(" reduce %dx%d %.3f ms (%d blocks an SM),", shapes[k].rows, shapes[k].subs, t[k][2], occ[k]);
                    std::printf(" QL rotations %.3f ms (%d), vectors %.3f ms (%d)\n", t[R][2], occ[R], t[R + 1][2], occ[R + 1]);
                    for (auto& e : ev) CK(cudaEventDestroy(e));
                }
                CK(cudaFree(ws));
            }
        }
        for (int S : {2, 4}) {
            if (batch < 2 * S) continue;
            run_variant("chunks", S, [&] {
                const int part = (batch + S - 1) / S;
                for (int k = 0; k < S; ++k) {
                    const int f = k * part, c = std::min(part, batch - f);
                    if (c > 0) batched(ctx[k], f, c);
                }
            });
        }
        if (batch <= 100 && std::getenv("SYEV_PROBE_LOOPS")) {
            for (int S : {1, 4, 8}) {
                run_variant("loop1", S, [&] { for (int j = 0; j < batch; ++j) batched(ctx[j % S], j, 1); });
                run_variant("syevd", S, [&] {
                    for (int j = 0; j < batch; ++j) {
                        Ctx& c = ctx[j % S];
                        CS(cusolverDnXsyevd(c.h, c.p, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n, CUDA_R_32F, W + j * nn, n,
                                            CUDA_R_32F, lam + std::size_t(j) * n, CUDA_R_32F, c.dwork, c.dbytes, c.hwork.data(),
                                            c.hwork.size(), info + j));
                    }
                });
            }
        }
        CK(cudaFree(A)); CK(cudaFree(G)); CK(cudaFree(W)); CK(cudaFree(lam)); CK(cudaFree(info));
    }
    return 0;
}
