// SPDX-License-Identifier: BSD-3-Clause
// The preconditioner's single-precision symmetric / Hermitian eigensolver
// (src/cuda/precondition/eigensolver_fused.cuh, its split form for larger orders,
// eigensolver_split.cuh, and its bisection form past those,
// eigensolver_bisect.cuh), by itself on the device, real and complex: for each case
// a batch of matrices, and per matrix info = 0, the eigenvalues ascending, ||G Z - Z
// diag(lambda)||_F / ||G||_F and ||Z^H Z - I||_F within 4 max(n, 8) u (u = 2^-24; the
// preconditioner needs about 1e-4), and where the spectrum is known (G = Q diag(lambda) Q^H,
// Q a random unitary matrix in double) the eigenvalues within the same bound times ||G||_2;
// for the bisection form the residual bound grows inside clusters it cannot resolve
// (cluster_allowance).
// Non-finite input gives info = -1 and leaves its neighbours alone. Skips without a GPU.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda/precondition/eigensolver_fused.cuh"
#include "cuda/precondition/eigensolver_bisect.cuh"
#include "cuda/precondition/eigensolver_split.cuh"
#include "cuda_test_support.hpp"
#include "testing/generators.hpp"

namespace batchsvd::test {
namespace {

using C = std::complex<double>;
using Mat = std::vector<C>;  // column-major n x n, host reference arithmetic

template <class T> struct EigResult {
    std::vector<T> vectors;
    std::vector<float> values;
    std::vector<int> info;
    bool ran = false;
};

/// The three forms of the eigensolver: one kernel (eigensolver_fused.cuh), three kernels
/// (eigensolver_split.cuh), bisection and inverse iteration
/// (eigensolver_bisect.cuh).
enum class Form { fused, split, bisect };
inline const char* name(Form f) { return f == Form::fused ? "fused" : f == Form::split ? "split" : "bisect"; }

/// The bisection form on a batch (default stream), its workspace poisoned; false (and a test
/// failure) where it throws or cuBLAS cannot start.
template <class D> bool run_bisect(D* g, float* lambda, int* info, int n, int batch, int chunk) {
    DeviceArray<unsigned char> ws(cuda::bisect_eig_matrix_bytes<D>(n) * chunk);
    cublasHandle_t blas = nullptr;
    if (!ws.p || cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) {
        ADD_FAILURE() << "device allocation or cuBLAS handle failed";
        return false;
    }
    bool ok = cudaMemset(ws.p, 0xff, cuda::bisect_eig_matrix_bytes<D>(n) * chunk) == cudaSuccess;
    try {
        cuda::symmetric_eig_bisect(g, lambda, info, n, batch, ws.p, chunk, blas, nullptr);
    } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
        ok = false;
    }
    ok = cudaDeviceSynchronize() == cudaSuccess && ok;  // (before ws goes)
    cublasDestroy(blas);
    EXPECT_TRUE(ok);
    return ok;
}

/// Matrices a chunk of the split form's workspace holds in the tests (so that batches of 3 or 5
/// take several chunks).
inline constexpr int kTestChunk = 2;

/// The kernel on a batch of n x n matrices (consecutive), the outputs poisoned beforehand.
template <class T> EigResult<T> run_kernel(const std::vector<T>& g, int n, int batch, Form form) {
    using D = cuda::device_scalar_t<T>;
    EigResult<T> r;
    const std::size_t nn = std::size_t(n) * n;
    DeviceArray<T> dg(nn * batch);
    DeviceArray<float> dl(std::size_t(n) * batch);
    DeviceArray<int> di(batch);
    if (!dg.p || !dl.p || !di.p) {
        ADD_FAILURE() << "device allocation failed";
        return r;
    }
    EXPECT_EQ(cudaMemcpy(dg.p, g.data(), nn * batch * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaMemset(dl.p, 0xff, std::size_t(n) * batch * sizeof(float)), cudaSuccess);  // NaN
    EXPECT_EQ(cudaMemset(di.p, 0x7f, batch * sizeof(int)), cudaSuccess);
    if (form == Form::bisect) {
        if (!run_bisect(reinterpret_cast<D*>(dg.p), dl.p, di.p, n, batch, kTestChunk)) return r;
    } else if (form == Form::fused) {
        EXPECT_EQ(cuda::launch_symmetric_eig(reinterpret_cast<D*>(dg.p), dl.p, di.p, n, batch,
                                             unsigned(std::min(batch, 64)), nullptr),
                  cudaSuccess);
    } else {
        DeviceArray<unsigned char> ws(cuda::split_eig_matrix_bytes<D>(n) * kTestChunk);
        if (!ws.p) {
            ADD_FAILURE() << "device allocation failed";
            return r;
        }
        EXPECT_EQ(cudaMemset(ws.p, 0xff, cuda::split_eig_matrix_bytes<D>(n) * kTestChunk), cudaSuccess);
        EXPECT_EQ(cuda::launch_symmetric_eig_split(reinterpret_cast<D*>(dg.p), dl.p, di.p, n, batch, ws.p, kTestChunk,
                                                   nullptr),
                  cudaSuccess);
        EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // (before ws goes)
    }
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    r.vectors.resize(nn * batch);
    r.values.resize(std::size_t(n) * batch);
    r.info.resize(batch);
    EXPECT_EQ(cudaMemcpy(r.vectors.data(), dg.p, nn * batch * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(r.values.data(), dl.p, std::size_t(n) * batch * sizeof(float), cudaMemcpyDeviceToHost),
              cudaSuccess);
    EXPECT_EQ(cudaMemcpy(r.info.data(), di.p, batch * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
    r.ran = true;
    return r;
}

/// The largest order a form takes on this device (as precondition.cu asks it).
template <class T> int max_order(Form form) {
    int dev = 0, optin = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    if (form == Form::bisect) return cuda::kBisectMaxOrder;
    return form == Form::fused ? cuda::symmetric_eig_max_order<cuda::device_scalar_t<T>>(std::size_t(optin))
                               : cuda::split_eig_max_order<cuda::device_scalar_t<T>>(std::size_t(optin));
}

/// The bisection form's residual allowance for a known spectrum l: inside a cluster it cannot
/// resolve its vectors are an orthonormal basis of the cluster's invariant subspace, not its
/// eigenvectors (eigensolver_bisect.cuh), so there the residual is up to the
/// cluster's width per vector. sqrt(n) times the widest run of l whose steps are below 3
/// kBisectClusterGap max|l| (its gap is relative to T's Gershgorin norm, at most 3 ||G||_2),
/// relative to max|l|.
double cluster_allowance(std::vector<double> l) {
    std::sort(l.begin(), l.end());
    double lmax = 0, widest = 0;
    for (double x : l) lmax = std::max(lmax, std::fabs(x));
    for (std::size_t i = 0, first = 0; i < l.size(); ++i) {
        if (i > 0 && l[i] - l[i - 1] >= 3.0 * cuda::kBisectClusterGap * lmax) first = i;
        widest = std::max(widest, l[i] - l[first]);
    }
    return lmax > 0 ? std::sqrt(double(l.size())) * widest / lmax : 0.0;
}

template <class T> class CudaSymmetricEig : public ::testing::Test {
  protected:
    static constexpr bool cplx = !std::is_same_v<T, float>;
    std::mt19937_64 gen{std::random_device{}()};
    C entry(double scale = 1) {  // a random entry, complex in complex tests
        std::normal_distribution<double> d(0.0, scale);
        return cplx ? C(d(gen), d(gen)) : C(d(gen), 0.0);
    }

    /// Q diag(lambda) Q^H, exactly Hermitian.
    Mat with_spectrum(const std::vector<double>& lambda) {
        const int n = int(lambda.size());
        Mat q(std::size_t(n) * n);
        const std::uint64_t seed = gen();
        if constexpr (cplx) q = testing::random_orthonormal<C>(n, n, seed);
        else {
            const std::vector<double> r = testing::random_orthonormal<double>(n, n, seed);
            std::copy(r.begin(), r.end(), q.begin());
        }
        Mat g(std::size_t(n) * n, 0.0);
        for (int k = 0; k < n; ++k)
            for (int j = 0; j < n; ++j)
                for (int i = 0; i < n; ++i) g[i + j * n] += q[i + k * n] * lambda[k] * std::conj(q[j + k * n]);
        hermitian(g, n);
        return g;
    }
    static void hermitian(Mat& g, int n) {
        for (int j = 0; j < n; ++j) {
            g[j + j * n] = g[j + j * n].real();
            for (int i = 0; i < j; ++i) g[i + j * n] = std::conj(g[j + i * n]);
        }
    }
    /// A^H A, A n x n with entries uniform on [lo, 1] (the preconditioner's Gram matrices; lo =
    /// 0 gives one eigenvalue far above the rest, whose gaps are then tiny relative to ||G||),
    /// column j scaled by 10^(-grade j / (n - 1)) (a graded spectrum, down to 10^(-2 grade)).
    Mat gram(int n, double lo = -1, double grade = 0) {
        std::uniform_real_distribution<double> u(lo, 1);
        Mat a(std::size_t(n) * n), g(std::size_t(n) * n, 0.0);
        for (auto& x : a) x = cplx ? C(u(gen), u(gen)) : C(u(gen), 0.0);
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) a[i + std::size_t(j) * n] *= std::pow(10.0, -grade * j / std::max(n - 1, 1));
        for (int j = 0; j < n; ++j)
            for (int i = 0; i <= j; ++i) {
                C s = 0;
                for (int k = 0; k < n; ++k) s += std::conj(a[k + i * n]) * a[k + j * n];
                g[i + j * n] = s;
                g[j + i * n] = std::conj(s);
            }
        hermitian(g, n);
        return g;
    }
    static T to_t(const C& x) {
        if constexpr (cplx) return T(float(x.real()), float(x.imag()));
        else return float(x.real());
    }

    /// Runs the batch and checks every matrix; known[b], where not empty, is matrix b's spectrum.
    void check(const std::vector<Mat>& mats, int n, const std::vector<std::vector<double>>& known, const std::string& what,
               Form form) {
        SCOPED_TRACE(what + ", n = " + std::to_string(n) + ", " + name(form));
        const int batch = int(mats.size());
        const std::size_t nn = std::size_t(n) * n;
        std::vector<T> g(nn * batch);
        for (int b = 0; b < batch; ++b)
            for (std::size_t i = 0; i < nn; ++i) g[b * nn + i] = to_t(mats[b][i]);
        const EigResult<T> r = run_kernel(g, n, batch, form);
        if (!r.ran) return;
        const double u = std::ldexp(1.0, -24), tol = 4.0 * std::max(n, 8) * u;
        double worst_res = 0, worst_orth = 0, worst_val = 0;
        const auto at = [&](const std::vector<T>& v, std::size_t i) { return C(std::complex<float>(v[i])); };
        for (int b = 0; b < batch; ++b) {
            ASSERT_EQ(r.info[b], 0) << "matrix " << b;
            const std::size_t o = b * nn;
            const float* l = r.values.data() + std::size_t(b) * n;
            double gnorm = 0;  // of the single-precision input
            for (std::size_t i = 0; i < nn; ++i) gnorm += std::norm(at(g, o + i));
            gnorm = std::sqrt(gnorm);
            double res = 0, orth = 0;
            for (int j = 0; j < n; ++j) {
                if (j > 0) EXPECT_LE(l[j - 1], l[j]) << "not ascending, matrix " << b;
                for (int i = 0; i < n; ++i) {
                    C gz = 0, zhz = 0;
                    for (int k = 0; k < n; ++k) {
                        gz += at(g, o + i + std::size_t(k) * n) * at(r.vectors, o + k + std::size_t(j) * n);
                        zhz += std::conj(at(r.vectors, o + k + std::size_t(i) * n)) * at(r.vectors, o + k + std::size_t(j) * n);
                    }
                    res += std::norm(gz - double(l[j]) * at(r.vectors, o + i + std::size_t(j) * n));
                    orth += std::norm(zhz - double(i == j));
                }
            }
            res = gnorm > 0 ? std::sqrt(res) / gnorm : std::sqrt(res);
            orth = std::sqrt(orth);
            const double allowance = form == Form::bisect && !known[b].empty() ? cluster_allowance(known[b]) : 0.0;
            EXPECT_LE(res, tol + allowance) << "residual, matrix " << b;
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
        std::cout << "[ eig      ] " << name(form) << ' ' << (cplx ? "complex " : "real ") << what << " n=" << n << " batch=" << batch
                  << ": residual " << worst_res / u << " u, orthogonality " << worst_orth / u << " u, eigenvalues "
                  << worst_val / u << " u (bound " << tol / u << " u)\n";
    }
};

using EigTypes = ::testing::Types<float, std::complex<float>>;
TYPED_TEST_SUITE(CudaSymmetricEig, EigTypes);

TYPED_TEST(CudaSymmetricEig, GramMatricesAtManyOrders) {
    SKIP_WITHOUT_CUDA("the symmetric eigensolver");
    for (Form form : {Form::fused, Form::split, Form::bisect}) {
        const int top = std::min(max_order<TypeParam>(form), 520);  // (520: the host check's time)
        for (int n : {1, 2, 3, 5, 31, 64, 97, 128, 163, 200, 237, 256, 301, 337, 400, top}) {
            if (n > top || (n > 200 && n < top && form == Form::fused) || (n > 301 && n < top && form == Form::split)) continue;
            std::vector<Mat> mats;
            for (int b = 0; b < 5; ++b) mats.push_back(this->gram(n));
            this->check(mats, n, std::vector<std::vector<double>>(mats.size()), "random Gram", form);
        }
    }
    for (int n : {64, 400}) {
        std::vector<Mat> mats;
        for (int b = 0; b < 3; ++b) mats.push_back(this->gram(n, 0.0));
        this->check(mats, n, std::vector<std::vector<double>>(mats.size()), "Gram of [0, 1) entries", Form::bisect);
        mats.clear();
        for (int b = 0; b < 4; ++b) mats.push_back(this->gram(n, -1.0, 10.0));
        this->check(mats, n, std::vector<std::vector<double>>(mats.size()), "Gram of graded columns", Form::bisect);
    }
}

TYPED_TEST(CudaSymmetricEig, KnownSpectra) {
    SKIP_WITHOUT_CUDA("the symmetric eigensolver");
    for (const auto& [n, form] : {std::pair{4, Form::fused}, {60, Form::fused}, {128, Form::fused}, {150, Form::fused},
                                  {4, Form::split}, {60, Form::split}, {150, Form::split}, {max_order<TypeParam>(Form::split), Form::split},
                                  {4, Form::bisect}, {60, Form::bisect}, {401, Form::bisect}}) {
        std::vector<Mat> mats;
        std::vector<std::vector<double>> spectra;
        auto add = [&](std::vector<double> l) {
            mats.push_back(this->with_spectrum(l));
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
        this->check(mats, n, spectra, "known spectra", form);
    }
}

/// Matrices that skip parts of the algorithm: diagonal (every reflector the identity, or a
/// phase), tridiagonal, the identity, zero.
TYPED_TEST(CudaSymmetricEig, StructuredMatrices) {
    SKIP_WITHOUT_CUDA("the symmetric eigensolver");
    for (const auto& [n, form] : {std::pair{3, Form::fused}, {64, Form::fused}, {150, Form::fused}, {3, Form::split},
                                  {150, Form::split}, {std::min(250, max_order<TypeParam>(Form::split)), Form::split},
                                  {3, Form::bisect}, {150, Form::bisect}, {390, Form::bisect}}) {
        Mat diag(std::size_t(n) * n, 0.0), tri(std::size_t(n) * n, 0.0), eye(std::size_t(n) * n, 0.0);
        std::vector<double> dl(n), ones(n, 1.0);
        for (int i = 0; i < n; ++i) {
            dl[i] = this->entry().real();
            diag[i + i * n] = dl[i];
            eye[i + i * n] = 1;
            tri[i + i * n] = this->entry().real();
            if (i + 1 < n) {
                tri[i + 1 + i * n] = this->entry();
                tri[i + (i + 1) * n] = std::conj(tri[i + 1 + i * n]);
            }
        }
        const std::vector<Mat> mats = {diag, tri, eye, Mat(std::size_t(n) * n, 0.0)};
        this->check(mats, n, {dl, {}, ones, std::vector<double>(n, 0.0)}, "structured", form);
    }
}

/// Orders beyond the split form's largest (its packed triangle past the shared memory) or the
/// bisection form's (one thread an eigenvalue in a block), and below 1, are refused before
/// anything runs.
TYPED_TEST(CudaSymmetricEig, FormsRefuseOrdersOutsideTheirRange) {
    SKIP_WITHOUT_CUDA("the symmetric eigensolver");
    using D = cuda::device_scalar_t<TypeParam>;
    for (const int n : {max_order<TypeParam>(Form::split) + 1, 0}) {
        SCOPED_TRACE("n = " + std::to_string(n));
        EXPECT_EQ(cuda::launch_symmetric_eig_split<D>(nullptr, nullptr, nullptr, n, 1, nullptr, 1, nullptr), cudaErrorInvalidValue);
    }
    for (const int n : {cuda::kBisectMaxOrder + 1, 0}) {
        SCOPED_TRACE("bisect, n = " + std::to_string(n));
        EXPECT_THROW(cuda::symmetric_eig_bisect<D>(nullptr, nullptr, nullptr, n, 1, nullptr, 1, nullptr, nullptr), Error);
    }
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TYPED_TEST(CudaSymmetricEig, NonFiniteInputReportsInfo) {
    SKIP_WITHOUT_CUDA("the symmetric eigensolver");
    using T = TypeParam;
    const int n = 40, batch = 3;
    const std::size_t nn = std::size_t(n) * n;
    std::vector<T> g(nn * batch);
    for (int b = 0; b < batch; ++b) {
        const Mat m = this->gram(n);
        for (std::size_t i = 0; i < nn; ++i) g[b * nn + i] = this->to_t(m[i]);
    }
    g[0 * nn + 5] = this->to_t(C(std::numeric_limits<double>::quiet_NaN(), 0));
    const double inf = std::numeric_limits<double>::infinity();
    g[2 * nn + 3 * n + 1] = this->to_t(this->cplx ? C(0, inf) : C(inf, 0));  // (row 1, column 3: upper triangle)
    for (Form form : {Form::fused, Form::split, Form::bisect}) {
        SCOPED_TRACE(name(form));
        const EigResult<T> r = run_kernel(g, n, batch, form);
        if (!r.ran) return;
        EXPECT_EQ(r.info[0], -1);
        EXPECT_EQ(r.info[1], 0);
        EXPECT_EQ(r.info[2], -1);
        for (int j = 1; j < n; ++j) EXPECT_LE(r.values[n + j - 1], r.values[n + j]);
    }
}

}  // namespace
}  // namespace batchsvd::test
