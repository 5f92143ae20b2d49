// The preconditioner's single-precision symmetric eigensolver (src/cuda/symmetric_eigensolver.cuh),
// by itself on the device: for each case a batch of symmetric matrices, and per matrix info = 0,
// the eigenvalues ascending, ||G Z - Z diag(lambda)||_F / ||G||_F and ||Z^T Z - I||_F within
// 4 max(n, 8) u (u = 2^-24; the preconditioner needs about 1e-4), and where the spectrum is known
// (G = Q diag(lambda) Q^T, Q a random orthogonal matrix in double) the eigenvalues within
// the same bound times ||G||_2. Non-finite input gives info = -1 and leaves its neighbours alone. Skips
// without a GPU.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cuda/symmetric_eigensolver.cuh"
#include "cuda_test_support.hpp"

namespace batchsvd::test {
namespace {

using Mat = std::vector<double>;  // column-major n x n

struct EigResult {
    std::vector<float> vectors, values;
    std::vector<int> info;
    bool ran = false;
};

/// The kernel on a batch of n x n matrices (consecutive), the outputs poisoned beforehand.
EigResult run_kernel(const std::vector<float>& g, int n, int batch) {
    EigResult r;
    const std::size_t nn = std::size_t(n) * n;
    DeviceArray<float> dg(nn * batch), dl(std::size_t(n) * batch);
    DeviceArray<int> di(batch);
    if (!dg.p || !dl.p || !di.p) {
        ADD_FAILURE() << "device allocation failed";
        return r;
    }
    EXPECT_EQ(cudaMemcpy(dg.p, g.data(), nn * batch * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaMemset(dl.p, 0xff, std::size_t(n) * batch * sizeof(float)), cudaSuccess);  // NaN
    EXPECT_EQ(cudaMemset(di.p, 0x7f, batch * sizeof(int)), cudaSuccess);
    EXPECT_EQ(cuda::launch_symmetric_eig(dg.p, dl.p, di.p, n, batch, unsigned(std::min(batch, 64)), nullptr), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    r.vectors.resize(nn * batch);
    r.values.resize(std::size_t(n) * batch);
    r.info.resize(batch);
    EXPECT_EQ(cudaMemcpy(r.vectors.data(), dg.p, nn * batch * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(r.values.data(), dl.p, std::size_t(n) * batch * sizeof(float), cudaMemcpyDeviceToHost),
              cudaSuccess);
    EXPECT_EQ(cudaMemcpy(r.info.data(), di.p, batch * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
    r.ran = true;
    return r;
}

/// The largest order the kernel takes on this device (as precondition.cu computes it).
int max_order() {
    int dev = 0, optin = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    int n = 1;
    while (cuda::symmetric_eig_smem_bytes(n + 1) <= std::size_t(optin) - 64) ++n;
    return n;
}

class CudaSymmetricEig : public ::testing::Test {
  protected:
    std::mt19937_64 gen{std::random_device{}()};
    double normal() { return std::normal_distribution<double>(0.0, 1.0)(gen); }

    /// A random orthogonal matrix (Gram-Schmidt, twice, on a Gaussian matrix).
    Mat orthogonal(int n) {
        Mat q(std::size_t(n) * n);
        for (auto& x : q) x = normal();
        for (int j = 0; j < n; ++j)
            for (int pass = 0; pass < 2; ++pass) {
                for (int k = 0; k < j; ++k) {
                    double dot = 0;
                    for (int i = 0; i < n; ++i) dot += q[i + k * n] * q[i + j * n];
                    for (int i = 0; i < n; ++i) q[i + j * n] -= dot * q[i + k * n];
                }
                double nrm = 0;
                for (int i = 0; i < n; ++i) nrm += q[i + j * n] * q[i + j * n];
                for (int i = 0; i < n; ++i) q[i + j * n] /= std::sqrt(nrm);
            }
        return q;
    }
    /// Q diag(lambda) Q^T.
    Mat with_spectrum(const std::vector<double>& lambda) {
        const int n = int(lambda.size());
        const Mat q = orthogonal(n);
        Mat g(std::size_t(n) * n, 0.0);
        for (int k = 0; k < n; ++k)
            for (int j = 0; j < n; ++j)
                for (int i = 0; i < n; ++i) g[i + j * n] += q[i + k * n] * lambda[k] * q[j + k * n];
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < j; ++i) g[i + j * n] = g[j + i * n];  // exactly symmetric
        return g;
    }
    /// A^T A, A n x n uniform on [-1, 1] (the preconditioner's Gram matrices).
    Mat gram(int n) {
        Mat a(std::size_t(n) * n), g(std::size_t(n) * n, 0.0);
        for (auto& x : a) x = std::uniform_real_distribution<double>(-1, 1)(gen);
        for (int j = 0; j < n; ++j)
            for (int i = 0; i <= j; ++i) {
                double s = 0;
                for (int k = 0; k < n; ++k) s += a[k + i * n] * a[k + j * n];
                g[i + j * n] = g[j + i * n] = s;
            }
        return g;
    }

    /// Runs the batch and checks every matrix; known[b], where not empty, is matrix b's spectrum.
    void check(const std::vector<Mat>& mats, int n, const std::vector<std::vector<double>>& known, const std::string& what) {
        SCOPED_TRACE(what + ", n = " + std::to_string(n));
        const int batch = int(mats.size());
        const std::size_t nn = std::size_t(n) * n;
        std::vector<float> g(nn * batch);
        for (int b = 0; b < batch; ++b)
            for (std::size_t i = 0; i < nn; ++i) g[b * nn + i] = float(mats[b][i]);
        const EigResult r = run_kernel(g, n, batch);
        if (!r.ran) return;
        const double u = std::ldexp(1.0, -24), tol = 4.0 * std::max(n, 8) * u;
        double worst_res = 0, worst_orth = 0, worst_val = 0;
        for (int b = 0; b < batch; ++b) {
            ASSERT_EQ(r.info[b], 0) << "matrix " << b;
            const float* z = r.vectors.data() + b * nn;
            const float* l = r.values.data() + std::size_t(b) * n;
            double gnorm = 0;  // of the float input
            for (std::size_t i = 0; i < nn; ++i) gnorm += double(g[b * nn + i]) * g[b * nn + i];
            gnorm = std::sqrt(gnorm);
            double res = 0, orth = 0;
            for (int j = 0; j < n; ++j) {
                if (j > 0) EXPECT_LE(l[j - 1], l[j]) << "not ascending, matrix " << b;
                for (int i = 0; i < n; ++i) {
                    double gz = 0, ztz = 0;
                    for (int k = 0; k < n; ++k) {
                        gz += double(g[b * nn + i + std::size_t(k) * n]) * z[k + std::size_t(j) * n];
                        ztz += double(z[k + std::size_t(i) * n]) * z[k + std::size_t(j) * n];
                    }
                    const double rr = gz - double(l[j]) * z[i + std::size_t(j) * n];
                    res += rr * rr;
                    orth += (ztz - (i == j)) * (ztz - (i == j));
                }
            }
            res = gnorm > 0 ? std::sqrt(res) / gnorm : std::sqrt(res);
            orth = std::sqrt(orth);
            EXPECT_LE(res, tol) << "residual, matrix " << b;
            EXPECT_LE(orth, tol) << "orthogonality, matrix " << b;
            worst_res = std::max(worst_res, res);
            worst_orth = std::max(worst_orth, orth);
            if (!known[b].empty()) {
                std::vector<double> want = known[b];
                std::sort(want.begin(), want.end());
                double lmax = 0;
                for (double x : want) lmax = std::max(lmax, std::fabs(x));
                for (int j = 0; j < n; ++j) {
                    const double err = std::fabs(l[j] - want[j]) / std::max(lmax, 1e-300);
                    EXPECT_LE(err, tol) << "eigenvalue " << j << ", matrix " << b;
                    worst_val = std::max(worst_val, err);
                }
            }
        }
        std::cout << "[ eig      ] " << what << " n=" << n << " batch=" << batch << ": residual " << worst_res / u
                  << " u, orthogonality " << worst_orth / u << " u, eigenvalues " << worst_val / u << " u (bound "
                  << tol / u << " u)\n";
    }
};

TEST_F(CudaSymmetricEig, GramMatricesAtManyOrders) {
    SKIP_WITHOUT_CUDA("the symmetric eigensolver");
    for (int n : {1, 2, 3, 5, 31, 64, 97, 128, 163, 200, max_order()}) {
        std::vector<Mat> mats;
        for (int b = 0; b < 5; ++b) mats.push_back(gram(n));
        check(mats, n, std::vector<std::vector<double>>(mats.size()), "random Gram");
    }
}

TEST_F(CudaSymmetricEig, KnownSpectra) {
    SKIP_WITHOUT_CUDA("the symmetric eigensolver");
    for (int n : {4, 60, 128, 199}) {
        std::vector<Mat> mats;
        std::vector<std::vector<double>> spectra;
        auto add = [&](std::vector<double> l) {
            mats.push_back(with_spectrum(l));
            spectra.push_back(std::move(l));
        };
        std::vector<double> l(n);
        for (int i = 0; i < n; ++i) l[i] = std::pow(10.0, -10.0 * i / std::max(n - 1, 1));  // graded
        add(l);
        for (int i = 0; i < n; ++i) l[i] = 1 + 1e-7 * i;  // one tight cluster
        add(l);
        for (int i = 0; i < n; ++i) l[i] = i < n / 2 ? 2.0 : -1.0;  // two multiple eigenvalues, indefinite
        add(l);
        for (int i = 0; i < n; ++i) l[i] = i == 0 ? 5.0 : 0.0;  // rank one
        add(l);
        for (int i = 0; i < n; ++i) l[i] = i % 7 - 3.0;  // integers, repeated
        add(l);
        check(mats, n, spectra, "known spectra");
    }
}

/// Matrices that skip parts of the algorithm: diagonal (every reflector is the identity),
/// tridiagonal, the identity, zero.
TEST_F(CudaSymmetricEig, StructuredMatrices) {
    SKIP_WITHOUT_CUDA("the symmetric eigensolver");
    for (int n : {3, 64, 150}) {
        std::vector<Mat> mats;
        std::vector<std::vector<double>> spectra;
        Mat diag(std::size_t(n) * n, 0.0), tri(std::size_t(n) * n, 0.0), eye(std::size_t(n) * n, 0.0);
        std::vector<double> dl(n), ones(n, 1.0);
        for (int i = 0; i < n; ++i) {
            dl[i] = normal();
            diag[i + i * n] = dl[i];
            eye[i + i * n] = 1;
            tri[i + i * n] = normal();
            if (i + 1 < n) tri[i + 1 + i * n] = tri[i + (i + 1) * n] = normal();
        }
        mats = {diag, tri, eye, Mat(std::size_t(n) * n, 0.0)};
        spectra = {dl, {}, ones, std::vector<double>(n, 0.0)};
        check(mats, n, spectra, "structured");
    }
}

TEST_F(CudaSymmetricEig, NonFiniteInputReportsInfo) {
    SKIP_WITHOUT_CUDA("the symmetric eigensolver");
    const int n = 40, batch = 3;
    const std::size_t nn = std::size_t(n) * n;
    std::vector<float> g(nn * batch);
    for (int b = 0; b < batch; ++b) {
        const Mat m = gram(n);
        for (std::size_t i = 0; i < nn; ++i) g[b * nn + i] = float(m[i]);
    }
    g[0 * nn + 5] = std::numeric_limits<float>::quiet_NaN();
    g[2 * nn + 77] = std::numeric_limits<float>::infinity();
    const EigResult r = run_kernel(g, n, batch);
    if (!r.ran) return;
    EXPECT_EQ(r.info[0], -1);
    EXPECT_EQ(r.info[1], 0);
    EXPECT_EQ(r.info[2], -1);
    for (int j = 1; j < n; ++j) EXPECT_LE(r.values[n + j - 1], r.values[n + j]);
}

}  // namespace
}  // namespace batchsvd::test
