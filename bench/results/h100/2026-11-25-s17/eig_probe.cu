// Experiment (session 17): why does the preconditioned blocked path need 5.1 sweeps on the GPU
// at 1000 x 256^2 float64 where the NumPy model (bench/blocked_sweeps_model.py) needs 4? For
// random uniform squares it compares, on the first K matrices of a batch, the eigenbases V0 of
// G = A^T A from: cuSOLVER's cusolverDnXsyevBatched in float32 (what precondition.cu uses, run
// on the whole batch), LAPACK ssyevd on the same float32 G (what the model uses), LAPACK dsyevd
// on G in float64, and cuSOLVER's followed by the refinement step of precondition.cu (host
// copy of refine_kernel); each made orthogonal by three Newton-Schulz steps in float64. For
// each it prints the raw vectors' orthogonality and residual, the relative off-diagonal of
// (A V0)^T (A V0) over the leading and trailing halves, and the sweeps batchsvd needs on A V0
// (CUDA backend, preconditioning off, max_sweeps scan).
//   eig_probe [n:batch ...]   (default 128:1000 256:1000)
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

extern "C" {
void ssyevd_(const char*, const char*, const int*, float*, const int*, float*, float*, const int*, int*, const int*, int*);
void dsyevd_(const char*, const char*, const int*, double*, const int*, double*, double*, const int*, int*, const int*, int*);
void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*, const int*,
            const double*, const int*, const double*, double*, const int*);
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::fprintf(stderr, "%d %s\n", __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)
#define CB(x) do { if ((x) != CUBLAS_STATUS_SUCCESS) { std::fprintf(stderr, "%d cublas\n", __LINE__); std::exit(1); } } while (0)
#define CS(x) do { cusolverStatus_t s_ = (x); if (s_ != CUSOLVER_STATUS_SUCCESS) { std::fprintf(stderr, "%d cusolver %d\n", __LINE__, int(s_)); std::exit(1); } } while (0)

using Mat = std::vector<double>;

Mat mul(const Mat& A, const Mat& B, int m, int n, int k, bool ta = false) {  // op(A) (m x k) B (k x n)
    Mat C(std::size_t(m) * n);
    const double one = 1, zero = 0;
    const int lda = ta ? k : m;
    dgemm_(ta ? "T" : "N", "N", &m, &n, &k, &one, A.data(), &lda, B.data(), &k, &zero, C.data(), &m);
    return C;
}
Mat newton_schulz(Mat X, int n, int steps) {
    for (int s = 0; s < steps; ++s) {
        Mat P = mul(X, X, n, n, n, true);
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) P[i + j * n] = ((i == j ? 3.0 : 0.0) - P[i + j * n]) * 0.5;
        X = mul(X, P, n, n, n);
    }
    return X;
}
double orth(const Mat& X, int n) {
    Mat P = mul(X, X, n, n, n, true);
    double w = 0;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) w = std::max(w, std::abs(P[i + j * n] - (i == j)));
    return w;
}
/// Max relative off-diagonal of W^T W among columns [c0, c1) x [0, n).
double offrel(const Mat& W, int n, int c0, int c1) {
    Mat G = mul(W, W, n, n, n, true);
    double w = 0;
    for (int j = c0; j < c1; ++j)
        for (int i = 0; i < n; ++i)
            if (i != j) w = std::max(w, std::abs(G[i + j * n]) / std::sqrt(G[i + i * n] * G[j + j * n]));
    return w;
}
/// The refinement step of precondition.cu (refine_kernel), on the host. Returns X (I + E).
Mat refine(const Mat& A, const Mat& X, int n, bool& fell, double cap = 1e-2, double guard = 1e-2, bool cluster = true) {
    Mat Y = mul(A, X, n, n, n), S = mul(Y, Y, n, n, n, true), P = mul(X, X, n, n, n, true);
    std::vector<double> l(n);
    double off2 = 0, r2 = 0, lmax = 0;
    for (int i = 0; i < n; ++i) lmax = std::max(lmax, l[i] = S[i + i * n] / P[i + i * n]);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            if (i != j) off2 += S[i + j * n] * S[i + j * n];
            const double r = (i == j) - P[i + j * n];
            r2 += r * r;
        }
    const double delta = cluster ? 2 * (std::sqrt(off2) + lmax * std::sqrt(r2)) : 0.0;
    Mat F(std::size_t(n) * n);
    double e2 = 0;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            const double r = (i == j) - P[i + j * n];
            double e = r / 2;
            if (i != j) {
                const double gap = l[j] - l[i];
                if (std::abs(gap) > delta && std::abs(S[i + j * n]) + lmax * std::abs(r) <= cap * std::abs(gap))
                    e = (S[i + j * n] + l[j] * r) / gap;
            }
            e2 += e * e;
            F[i + j * n] = (i == j) + e;
        }
    fell = !(e2 <= guard * guard);
    if (fell)
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) F[i + j * n] = (i == j) + ((i == j) - P[i + j * n]) / 2;
    return mul(X, F, n, n, n);
}

double mean_sweeps(const double* a_dev, int n, int count) {
    double *s, *dummy = nullptr;
    int* info;
    CK(cudaMalloc(&s, sizeof(double) * n * count));
    CK(cudaMalloc(&info, sizeof(int) * count));
    std::vector<int> h(count), first(count, -1);
    batchsvd::Options o;
    o.backend = batchsvd::Backend::cuda;
    o.compute_u = o.compute_v = false;
    o.precondition = batchsvd::PreconditionMode::never;
    for (int sw = 1; sw <= 40; ++sw) {
        o.max_sweeps = sw;
        batchsvd::gesvd<double>(n, n, count, a_dev, s, dummy, dummy, info, o);
        CK(cudaMemcpy(h.data(), info, count * sizeof(int), cudaMemcpyDeviceToHost));
        bool all = true;
        for (int i = 0; i < count; ++i) {
            if (h[i] == 0 && first[i] < 0) first[i] = sw;
            all = all && first[i] > 0;
        }
        if (all) break;
    }
    CK(cudaFree(s));
    CK(cudaFree(info));
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
    if (cases.empty()) cases = {{128, 1000}, {256, 1000}};
    constexpr int K = 16;
    cublasHandle_t blas;
    CB(cublasCreate(&blas));
    cusolverDnHandle_t sol;
    CS(cusolverDnCreate(&sol));
    cusolverDnParams_t params;
    CS(cusolverDnCreateParams(&params));
    std::mt19937_64 rng(std::random_device{}());
    std::printf("n,batch,variant,orth_raw,resid_raw,off_lead,off_trail,refine_fell,sweeps,orth_after_refine\n");
    for (auto [n, batch] : cases) {
        const std::size_t nn = std::size_t(n) * n, tot = nn * batch;
        std::vector<double> ha(tot);
        std::uniform_real_distribution<double> uni(0, 1);
        for (auto& x : ha) x = uni(rng);
        double *A, *G, *W;
        float *G32, *L32;
        int* info;
        CK(cudaMalloc(&A, tot * 8));
        CK(cudaMalloc(&G, tot * 8));
        CK(cudaMalloc(&W, K * nn * 8));
        CK(cudaMalloc(&G32, tot * 4));
        CK(cudaMalloc(&L32, std::size_t(n) * batch * 4));
        CK(cudaMalloc(&info, batch * 4));
        CK(cudaMemcpy(A, ha.data(), tot * 8, cudaMemcpyHostToDevice));
        const double one = 1, zero = 0;
        CB(cublasDgemmStridedBatched(blas, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, &one, A, n, nn, A, n, nn, &zero, G, n, nn, batch));
        std::vector<double> hg(K * nn);
        CK(cudaMemcpy(hg.data(), G, K * nn * 8, cudaMemcpyDeviceToHost));
        std::vector<float> hg32(tot);
        {
            std::vector<double> all(tot);
            CK(cudaMemcpy(all.data(), G, tot * 8, cudaMemcpyDeviceToHost));
            for (std::size_t i = 0; i < tot; ++i) hg32[i] = float(all[i]);
        }
        CK(cudaMemcpy(G32, hg32.data(), tot * 4, cudaMemcpyHostToDevice));
        std::size_t db = 0, hb = 0;
        CS(cusolverDnXsyevBatched_bufferSize(sol, params, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n, CUDA_R_32F, G32, n,
                                             CUDA_R_32F, L32, CUDA_R_32F, &db, &hb, batch));
        void* dw;
        CK(cudaMalloc(&dw, std::max<std::size_t>(db, 1)));
        std::vector<char> hw(std::max<std::size_t>(hb, 1));
        CS(cusolverDnXsyevBatched(sol, params, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n, CUDA_R_32F, G32, n,
                                  CUDA_R_32F, L32, CUDA_R_32F, dw, db, hw.data(), hb, info, batch));
        std::vector<float> hcu(K * nn), hl(std::size_t(n) * K);
        CK(cudaMemcpy(hcu.data(), G32, K * nn * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hl.data(), L32, std::size_t(n) * K * 4, cudaMemcpyDeviceToHost));
        std::vector<int> hinfo(K);
        CK(cudaMemcpy(hinfo.data(), info, K * 4, cudaMemcpyDeviceToHost));
        std::fprintf(stderr, "n %d: cuSOLVER info of the first: %d, host workspace %zu bytes\n", n, hinfo[0], hb);
        const char* names[8] = {"cusolver_f32", "lapack_ssyevd_f32", "lapack_dsyevd_f64", "cusolver_f32_refined", "refined_no_cap_no_guard", "refined_twice_no_cap", "refined_cap0.1_no_cluster", "refined_thrice_no_cap"};
        for (int v = 0; v < 8; ++v) {
            std::vector<Mat> w(K);
            double o_raw = 0, r_raw = 0, off_l = 0, off_t = 0, o_ref = 0;
            int fell_count = 0;
            for (int b = 0; b < K; ++b) {
                const double* g = &hg[b * nn];
                Mat X(nn);
                std::vector<double> lam(n);
                if (v == 0 || v >= 3) {
                    for (std::size_t i = 0; i < nn; ++i) X[i] = hcu[b * nn + i];
                    for (int i = 0; i < n; ++i) lam[i] = hl[std::size_t(b) * n + i];
                } else if (v == 1) {
                    std::vector<float> a(hg32.begin() + b * nn, hg32.begin() + (b + 1) * nn), wv(n);
                    int lw = 1 + 6 * n + 2 * n * n, li = 3 + 5 * n, inf = 0;
                    std::vector<float> work(lw);
                    std::vector<int> iw(li);
                    ssyevd_("V", "U", &n, a.data(), &n, wv.data(), work.data(), &lw, iw.data(), &li, &inf);
                    for (std::size_t i = 0; i < nn; ++i) X[i] = a[i];
                    for (int i = 0; i < n; ++i) lam[i] = wv[i];
                } else {
                    Mat a(g, g + nn);
                    int lw = 1 + 6 * n + 2 * n * n, li = 3 + 5 * n, inf = 0;
                    std::vector<double> work(lw);
                    std::vector<int> iw(li);
                    dsyevd_("V", "U", &n, a.data(), &n, lam.data(), work.data(), &lw, iw.data(), &li, &inf);
                    X = a;
                }
                // raw quality (ascending order), then descending
                o_raw = std::max(o_raw, orth(X, n));
                Mat GX = mul(Mat(g, g + nn), X, n, n, n);
                double gmax = 0, rmax = 0;
                for (std::size_t i = 0; i < nn; ++i) gmax = std::max(gmax, std::abs(g[i]));
                for (int j = 0; j < n; ++j)
                    for (int i = 0; i < n; ++i) rmax = std::max(rmax, std::abs(GX[i + j * n] - X[i + j * n] * lam[j]));
                r_raw = std::max(r_raw, rmax / gmax);
                Mat D(nn);
                for (int j = 0; j < n; ++j)
                    for (int i = 0; i < n; ++i) D[i + j * n] = X[i + (n - 1 - j) * n];
                Mat Ab(ha.begin() + b * nn, ha.begin() + (b + 1) * nn);
                if (v >= 3) {
                    bool fell = false;
                    const double inf = HUGE_VAL;
                    if (v == 3) D = refine(Ab, D, n, fell);
                    if (v == 4) D = refine(Ab, D, n, fell, inf, inf);
                    if (v == 5 || v == 7)
                        for (int it = 0; it < (v == 5 ? 2 : 3); ++it) D = refine(Ab, D, n, fell, inf, inf);
                    if (v == 6) D = refine(Ab, D, n, fell, 0.1, inf, false);
                    fell_count += fell;
                    o_ref = std::max(o_ref, orth(D, n));
                }
                D = newton_schulz(D, n, 4);
                w[b] = mul(Ab, D, n, n, n);
                off_l = std::max(off_l, offrel(w[b], n, 0, n / 2));
                off_t = std::max(off_t, offrel(w[b], n, n / 2, n));
            }
            for (int b = 0; b < K; ++b) CK(cudaMemcpy(W + b * nn, w[b].data(), nn * 8, cudaMemcpyHostToDevice));
            const double sw = mean_sweeps(W, n, K);
            std::printf("%d,%d,%s,%.2e,%.2e,%.2e,%.2e,%d,%.2f,%.2e\n", n, batch, names[v], o_raw, r_raw, off_l, off_t, fell_count, sw, o_ref);
            std::fflush(stdout);
        }
        std::printf("%d,%d,A itself,,,,,,%.2f\n", n, batch, mean_sweeps(A, n, K));
        CK(cudaFree(A)); CK(cudaFree(G)); CK(cudaFree(W)); CK(cudaFree(G32)); CK(cudaFree(L32)); CK(cudaFree(info)); CK(cudaFree(dw));
    }
    return 0;
}
