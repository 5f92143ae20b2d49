// Preconditioning of the blocked path (precondition.hpp): G = W^H W (cuBLAS), G rounded to
// single precision, its eigenvectors (cuSOLVER's batched syev/heev, ascending eigenvalues),
// V0 = those vectors in descending order in the working precision, made orthogonal to working
// precision by two Newton-Schulz steps V0 <- V0 (3I - V0^H V0) / 2 (each takes an orthogonality
// error d to about 1.5 d^2: single precision's ~1e-6 to ~1e-12, then to rounding), W <- W V0,
// V_W <- V0. Every product is a strided-batched GEMM on the tensor cores in double precision.
#include "cuda/precondition.hpp"

#include <algorithm>
#include <climits>
#include <type_traits>
#include <vector>

#include "cuda/blocked_kernels.cuh"
#include "cuda/check.hpp"
#include "cuda/device_attribute.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/library_handles.hpp"

namespace batchsvd::cuda {

namespace {

/// The single-precision type of the eigensolve for working type DT.
template <class DT> using low_t = std::conditional_t<core::is_complex_v<DT>, dev_complex<float>, float>;

template <class DT> constexpr cudaDataType cuda_type() {
    if constexpr (std::is_same_v<DT, float>) return CUDA_R_32F;
    else if constexpr (std::is_same_v<DT, double>) return CUDA_R_64F;
    else if constexpr (std::is_same_v<DT, dev_complex<float>>) return CUDA_C_32F;
    else return CUDA_C_64F;
}

/// C = op(A) B for `batch` column-major matrices (strides sa, sb, sc); op = A^H when adjoint.
template <class DT>
void gemm_batched(cublasHandle_t h, bool adjoint, int m, int n, int k, const DT* A, int lda, long long sa,
                  const DT* B, int ldb, long long sb, DT* C, int ldc, long long sc, int batch) {
    using R = core::real_of_t<DT>;
    const cublasOperation_t op = !adjoint ? CUBLAS_OP_N : core::is_complex_v<DT> ? CUBLAS_OP_C : CUBLAS_OP_T;
    if constexpr (std::is_same_v<DT, float>) {
        const float one = 1, zero = 0;
        BATCHSVD_CUBLAS_CHECK(cublasSgemmStridedBatched(h, op, CUBLAS_OP_N, m, n, k, &one, A, lda, sa, B, ldb, sb,
                                                        &zero, C, ldc, sc, batch));
    } else if constexpr (std::is_same_v<DT, double>) {
        const double one = 1, zero = 0;
        BATCHSVD_CUBLAS_CHECK(cublasDgemmStridedBatched(h, op, CUBLAS_OP_N, m, n, k, &one, A, lda, sa, B, ldb, sb,
                                                        &zero, C, ldc, sc, batch));
    } else if constexpr (std::is_same_v<R, float>) {
        const cuComplex one{1, 0}, zero{0, 0};
        BATCHSVD_CUBLAS_CHECK(cublasCgemmStridedBatched(h, op, CUBLAS_OP_N, m, n, k, &one,
                                                        reinterpret_cast<const cuComplex*>(A), lda, sa,
                                                        reinterpret_cast<const cuComplex*>(B), ldb, sb, &zero,
                                                        reinterpret_cast<cuComplex*>(C), ldc, sc, batch));
    } else {
        const cuDoubleComplex one{1, 0}, zero{0, 0};
        BATCHSVD_CUBLAS_CHECK(cublasZgemmStridedBatched(h, op, CUBLAS_OP_N, m, n, k, &one,
                                                        reinterpret_cast<const cuDoubleComplex*>(A), lda, sa,
                                                        reinterpret_cast<const cuDoubleComplex*>(B), ldb, sb, &zero,
                                                        reinterpret_cast<cuDoubleComplex*>(C), ldc, sc, batch));
    }
}

template <class To, class From> __device__ __forceinline__ To convert(const From& x) {
    if constexpr (core::is_complex_v<From>) {
        using R = core::real_of_t<To>;
        return To(R(x.real()), R(x.imag()));
    } else {
        return To(x);
    }
}

/// The batch of N x N Gram matrices in single precision, each scaled by a power of two that
/// brings W's largest entry to [1, 2) (so its entries are at most 4M: a double-precision G of
/// entries up to 2^300 (scale_exponent) would overflow a float, one of tiny entries underflow);
/// a matrix with a non-finite entry (whose W was never loaded) gets zeros, so that no garbage
/// reaches the eigensolver.
template <class DT>
__global__ void gram_to_low_kernel(const DT* X, low_t<DT>* G, const BlockedState* state, index_t nn, index_t total) {
    using R = core::real_of_t<DT>;
    for (index_t i = index_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += index_t(gridDim.x) * blockDim.x) {
        const BlockedState& st = state[i / nn];
        const R amax = detail::max_abs_from_bits<R>(st.maxbits);  // of A; W = A 2^scale_exponent
        const int e = amax > 0 ? -2 * (ilogb(amax) + detail::scale_exponent(amax)) : 0;
        G[i] = st.nonfinite ? low_t<DT>(0.0f) : convert<low_t<DT>>(detail::scale_pow2(X[i], e));
    }
}

/// V0 of each matrix (one block a matrix): the eigenvectors E (ascending eigenvalues) in
/// descending order, in the working precision; the identity where the matrix is not finite,
/// the eigensolve reported failure (info != 0) or a vector entry is not finite.
template <class DT>
__global__ void __launch_bounds__(256) eigenbasis_kernel(const low_t<DT>* E, const int* info, const BlockedState* state,
                                                         DT* V0, int N, index_t batch) {
    using R = core::real_of_t<DT>;
    const index_t nn = index_t(N) * N;
    for (index_t b = blockIdx.x; b < batch; b += gridDim.x) {
        const low_t<DT>* e = E + b * nn;
        DT* v = V0 + b * nn;
        bool bad = state[b].nonfinite || info[b] != 0;
        for (index_t i = threadIdx.x; i < nn && !bad; i += blockDim.x) bad = !core::is_finite(e[i]);
        bad = __syncthreads_or(bad);
        for (index_t i = threadIdx.x; i < nn; i += blockDim.x) {
            const int r = int(i % N), c = int(i / N);
            v[i] = bad ? DT(R(r == c ? 1 : 0)) : convert<DT>(e[r + index_t(N - 1 - c) * N]);
        }
    }
}

/// Y = (3 I - X) / 2 for a batch of N x N matrices (the Newton-Schulz step's middle factor).
template <class DT> __global__ void newton_schulz_middle_kernel(const DT* X, DT* Y, int N, index_t total) {
    using R = core::real_of_t<DT>;
    const index_t nn = index_t(N) * N;
    for (index_t i = index_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += index_t(gridDim.x) * blockDim.x) {
        const index_t k = i % nn;
        const DT half = core::scale(X[i], R(-0.5));  // 1.5 I - X / 2
        Y[i] = k % N == k / N ? detail::add(half, DT(R(1.5))) : half;
    }
}

/// Blocks for a grid-stride loop over `total` elements.
unsigned stride_blocks(index_t total) {
    return unsigned(std::clamp<index_t>((total + 255) / 256, 1, index_t(device_attribute(cudaDevAttrMultiProcessorCount)) * 16));
}

/// Matrices of one cuSOLVER batched eigensolve (its sizes must keep n * lda * batch <= INT32_MAX).
index_t eigensolve_batch(index_t N, index_t batch) { return std::max<index_t>(1, std::min<index_t>(batch, INT_MAX / (N * N))); }

}  // namespace

std::size_t precondition_workspace_bytes(index_t M, index_t N, std::size_t tsize) {
    const std::size_t nn = std::size_t(N) * std::size_t(N), mn = std::size_t(M) * std::size_t(N);
    // X and Z (N x N), Y (M x N, M >= N), the single-precision G (half the bytes), its
    // eigenvalues, cuSOLVER's info.
    return (2 * nn + mn) * tsize + nn * (tsize / 2) + std::size_t(N) * sizeof(float) + sizeof(int);
}

template <class DT> void precondition_working_matrices(const BlockedParams<DT>& p, cudaStream_t stream) {
    using LT = low_t<DT>;
    const index_t M = p.out.M, N = p.out.N, batch = p.out.batch, nn = N * N, mn = M * N;
    if (batch > INT_MAX || M > INT_MAX) throw Error(ErrorCode::invalid_argument, "batchsvd: batch too large to precondition");
    const LibraryHandles handles(stream);
    const HandleSet& h = handles.get();
    DeviceBuffer<DT> x(batch * nn, stream), y(batch * mn, stream), z(batch * nn, stream);
    DeviceBuffer<LT> g(batch * nn, stream);
    DeviceBuffer<float> lambda(batch * N, stream);
    DeviceBuffer<int> info(batch, stream);
    const int b = int(batch), n = int(N), m = int(M);

    // G = W^H W, in single precision.
    gemm_batched<DT>(h.blas, true, n, n, m, p.W, m, mn, p.W, m, mn, x.get(), n, nn, b);
    gram_to_low_kernel<DT><<<stride_blocks(batch * nn), 256, 0, stream>>>(x.get(), g.get(), p.state, nn, batch * nn);
    BATCHSVD_CUDA_CHECK_LAUNCH("gram_to_low_kernel");

    // Its eigenvectors, over batches that keep cuSOLVER's index arithmetic in 32 bits.
    const index_t part = eigensolve_batch(N, batch);
    std::size_t dbytes = 0, hbytes = 0;
    constexpr cudaDataType lt = cuda_type<LT>();
    BATCHSVD_CUSOLVER_CHECK(cusolverDnXsyevBatched_bufferSize(h.solver, h.params, CUSOLVER_EIG_MODE_VECTOR,
                                                              CUBLAS_FILL_MODE_UPPER, N, lt, g.get(), N, CUDA_R_32F,
                                                              lambda.get(), lt, &dbytes, &hbytes, part));
    DeviceBuffer<unsigned char> dwork(dbytes, stream);
    std::vector<unsigned char> hwork(std::max<std::size_t>(hbytes, 1));
    for (index_t first = 0; first < batch; first += part) {
        // (A host workspace is not reused before the eigensolve that reads it is done.)
        if (first > 0 && hbytes > 0) BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(stream));
        const index_t count = std::min(part, batch - first);
        BATCHSVD_CUSOLVER_CHECK(cusolverDnXsyevBatched(h.solver, h.params, CUSOLVER_EIG_MODE_VECTOR,
                                                       CUBLAS_FILL_MODE_UPPER, N, lt, g.get() + first * nn, N,
                                                       CUDA_R_32F, lambda.get() + first * N, lt, dwork.get(), dbytes,
                                                       hwork.data(), hbytes, info.get() + first, count));
    }
    if (hbytes > 0) BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(stream));  // before hwork goes
    const unsigned per_matrix = unsigned(std::min<index_t>(batch, index_t(1) << 20));
    eigenbasis_kernel<DT><<<per_matrix, 256, 0, stream>>>(g.get(), info.get(), p.state, x.get(), n, batch);
    BATCHSVD_CUDA_CHECK_LAUNCH("eigenbasis_kernel");

    // Two Newton-Schulz steps: X <- X (3I - X^H X) / 2.
    for (int step = 0; step < 2; ++step) {
        gemm_batched<DT>(h.blas, true, n, n, n, x.get(), n, nn, x.get(), n, nn, y.get(), n, nn, b);
        newton_schulz_middle_kernel<DT><<<stride_blocks(batch * nn), 256, 0, stream>>>(y.get(), z.get(), n, batch * nn);
        BATCHSVD_CUDA_CHECK_LAUNCH("newton_schulz_middle_kernel");
        gemm_batched<DT>(h.blas, false, n, n, n, x.get(), n, nn, z.get(), n, nn, y.get(), n, nn, b);
        std::swap(x, y);  // (every product above has stride N^2, which both buffers hold)
    }
    // Two swaps: x is its own buffer again, holding V0; y is the M x N one.

    // W <- W V0, V_W <- V0.
    gemm_batched<DT>(h.blas, false, m, n, n, p.W, m, mn, x.get(), n, nn, y.get(), m, mn, b);
    BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(p.W, y.get(), std::size_t(batch * mn) * sizeof(DT), cudaMemcpyDeviceToDevice, stream));
    if (p.V)
        BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(p.V, x.get(), std::size_t(batch * nn) * sizeof(DT), cudaMemcpyDeviceToDevice, stream));
}

#define BATCHSVD_PRECONDITION_INSTANTIATE_(DT) \
    template void precondition_working_matrices<DT>(const BlockedParams<DT>&, cudaStream_t);
BATCHSVD_PRECONDITION_INSTANTIATE_(float)
BATCHSVD_PRECONDITION_INSTANTIATE_(double)
BATCHSVD_PRECONDITION_INSTANTIATE_(dev_complex<float>)
BATCHSVD_PRECONDITION_INSTANTIATE_(dev_complex<double>)
#undef BATCHSVD_PRECONDITION_INSTANTIATE_

}  // namespace batchsvd::cuda
