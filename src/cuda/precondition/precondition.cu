// SPDX-License-Identifier: BSD-3-Clause
// Preconditioning of the blocked path (precondition.hpp): G = W^H W (cuBLAS), G rounded to
// single precision, its eigenvectors (ascending eigenvalues) by eigensolver_form's choice:
// eigensolver_fused.cuh below order 160 real, 128 complex where the matrix fits its shared
// memory, eigensolver_split.cuh where its packed triangle does, eigensolver_bisect.cuh up to
// order 512 in batches of two or more, else cuSOLVER's batched syev/heev;
// X = those vectors in descending order in the working precision; in single precision from
// order 256 (refine_wanted), one step of Ogita and Aishima's refinement in the working
// precision (refine_kernel: X <- X (I + E), which corrects the eigenvectors that G resolves,
// and X's orthogonality, to first order); two
// Newton-Schulz steps X <- X (3I - X^H X) / 2, three after a refinement (each takes an
// orthogonality error d to about 0.75 d^2), with a safeguard that drops the preconditioning
// of a matrix whose X the last step cannot finish; V0 = X, W <- W V0, V_W <- V0. Every product is a
// strided-batched GEMM (cuBLAS; the tensor cores in double precision).
#include "cuda/precondition/precondition.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda/common/batched_gemm.hpp"
#include "cuda/blocked/blocked_kernels.cuh"
#include "cuda/common/check.hpp"
#include "cuda/common/device_attribute.hpp"
#include "cuda/common/device_buffer.hpp"
#include "cuda/common/planning_batch.hpp"
#include "cuda/common/library_handles.hpp"
#include "cuda/precondition/eigensolver_fused.cuh"
#include "cuda/precondition/eigensolver_bisect.cuh"
#include "cuda/precondition/eigensolver_split.cuh"
#include "cuda/precondition/newton_schulz.cuh"

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
    gemm_strided<DT>(h, adjoint, false, m, n, k, 1, A, lda, sa, B, ldb, sb, 0, C, ldc, sc, batch);
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
        for (int c = 0; c < N; ++c)  // (two loops: no 64-bit division an element)
            for (int r = threadIdx.x; r < N; r += blockDim.x)
                v[r + index_t(c) * N] = bad ? DT(R(r == c ? 1 : 0)) : convert<DT>(e[r + index_t(N - 1 - c) * N]);
    }
}

/// The preconditioner's safeguard: the last Newton-Schulz step flags a matrix whose X was not
/// orthogonal enough for that step to finish it (||X^H X - I||_F above sqrt(N u / 2): the step
/// leaves about 0.75 times its square, and N u is the orthogonality the sweeps keep);
/// reset_flagged_kernel then makes those V0 the identity, so that such a matrix is solved
/// without preconditioning rather than with a V0 that is not orthogonal to rounding. No
/// eigensolver is known to trip it; it covers inputs nobody has tried.
template <class DT> __global__ void __launch_bounds__(256) reset_flagged_kernel(DT* V0, const int* flags, int N, index_t batch) {
    using R = core::real_of_t<DT>;
    const index_t nn = index_t(N) * N;
    for (index_t b = blockIdx.x; b < batch; b += gridDim.x)
        if (flags[b])
            for (int c = 0; c < N; ++c)
                for (int r = threadIdx.x; r < N; r += blockDim.x) V0[b * nn + r + index_t(c) * N] = DT(R(r == c ? 1 : 0));
}

/// Largest ||E||_F the refinement step keeps (refine_kernel): the orthogonality error of X F
/// is then about ||E||^2 <= 1e-2, which three Newton-Schulz steps take to rounding (1e-2 ->
/// 7.5e-5 -> 4.2e-9 -> 1.3e-17).
inline constexpr double kRefineNormGuard = 0.1;

/// One step of Ogita and Aishima's iterative refinement of an eigenbasis ("Iterative
/// refinement for symmetric eigenvalue decomposition", Japan J. Indust. Appl. Math. 35, 2018,
/// Algorithm 1), one block a matrix. From S = X^H G X (here (W X)^H (W X), G = W^H W never
/// formed) and P = X^H X, with R = I - P:
///   lambda_i = s_ii / p_ii,  e_ii = r_ii / 2,
///   e_ij = (s_ij + lambda_j r_ij) / (lambda_j - lambda_i)  where the two are separated,
///   e_ij = r_ij / 2                                        where they are not,
/// and F = I + E in place of S, so that X F is X with its eigenvector errors corrected to first
/// order and its orthogonality error R to first order (E + E^H = R). Separated means
/// |lambda_j - lambda_i| > delta = 2 (||off(S)||_F + lambda_max ||R||_F) (the paper's delta,
/// with Frobenius norms for 2-norms; it bounds every |e_ij| by 1/2). Where ||E||_F exceeds
/// kRefineNormGuard (a poor start, or a NaN), the step falls back to E = R / 2 (a Newton-Schulz
/// step); a non-finite matrix gets F = I. The products are in the working precision, so the
/// directions that G resolves get more than the single-precision eigensolve could give them;
/// the smallest are left to the Jacobi sweeps, as before. Differs from the paper: one step,
/// not iterated to convergence (the sweeps finish), and the guard.
template <class DT>
__global__ void __launch_bounds__(256) refine_kernel(DT* S, const DT* P, core::real_of_t<DT>* lam,
                                                     const BlockedState* state, int N, index_t batch) {
    using R = core::real_of_t<DT>;
    __shared__ R red[256 / 32 + 1];
    const index_t nn = index_t(N) * N;
    const auto identity = [](int r, int c) { return DT(R(r == c ? 1 : 0)); };
    for (index_t b = blockIdx.x; b < batch; b += gridDim.x) {
        DT* s = S + b * nn;
        const DT* pm = P + b * nn;
        R* l = lam + b * N;
        const auto r_of = [&](int r, int c) {  // R = I - P
            const DT minus = core::scale(pm[r + index_t(c) * N], R(-1));
            return r == c ? detail::add(minus, DT(R(1))) : minus;
        };
        if (state[b].nonfinite) {
            for (int c = 0; c < N; ++c)
                for (int r = threadIdx.x; r < N; r += blockDim.x) s[r + index_t(c) * N] = identity(r, c);
            continue;
        }
        // Pass 1: the eigenvalue estimates, ||off(S)||_F, ||R||_F.
        R off2 = 0, r2 = 0, lmax = 0;
        for (int i = threadIdx.x; i < N; i += blockDim.x) {
            l[i] = core::real_part(s[i + index_t(i) * N]) / core::real_part(pm[i + index_t(i) * N]);
            lmax = fmax(lmax, l[i]);
        }
        for (int c = 0; c < N; ++c)
            for (int r = threadIdx.x; r < N; r += blockDim.x) {
                if (r != c) off2 += core::abs2(s[r + index_t(c) * N]);
                r2 += core::abs2(r_of(r, c));
            }
        off2 = detail::block_sum<256>(off2, red);
        r2 = detail::block_sum<256>(r2, red);
        lmax = detail::block_max<256>(lmax, red);  // (__syncthreads inside: l[] is visible below)
        const R delta = 2 * (sqrt(off2) + lmax * sqrt(r2));
        // Pass 2: F = I + E in place of S, and ||E||_F.
        R e2 = 0;
        for (int c = 0; c < N; ++c)
            for (int r = threadIdx.x; r < N; r += blockDim.x) {
                const DT rij = r_of(r, c);
                DT e = core::scale(rij, R(0.5));
                const R gap = l[c] - l[r];
                if (r != c && fabs(gap) > delta)
                    e = core::scale(core::axpy(DT(l[c]), rij, s[r + index_t(c) * N]), R(1) / gap);
                e2 += core::abs2(e);
                s[r + index_t(c) * N] = r == c ? detail::add(e, DT(R(1))) : e;
            }
        e2 = detail::block_sum<256>(e2, red);
        if (!(e2 <= R(kRefineNormGuard * kRefineNormGuard)))  // (NaN falls back too)
            for (int c = 0; c < N; ++c)
                for (int r = threadIdx.x; r < N; r += blockDim.x)
                    s[r + index_t(c) * N] = detail::add(core::scale(r_of(r, c), R(0.5)), identity(r, c));
        __syncthreads();  // this matrix's l[] and s[] are done before the block moves on
    }
}

/// Matrices of one cuSOLVER batched eigensolve (its sizes must keep n * lda * batch <= INT32_MAX).
index_t eigensolve_batch(index_t N, index_t batch) { return std::max<index_t>(1, std::min<index_t>(batch, INT_MAX / (N * N))); }

}  // namespace

std::size_t precondition_workspace_bytes(index_t M, index_t N, std::size_t tsize) {
    const std::size_t nn = std::size_t(N) * std::size_t(N), mn = std::size_t(M) * std::size_t(N);
    // X and Y (M x N, M >= N: either may take W V0 and become W), Z (N x N), the
    // single-precision G (half the bytes), its eigenvalues (float) and the refinement's (real),
    // cuSOLVER's info. (W's own buffer is freed when W V0 replaces it.)
    return (nn + 2 * mn) * tsize + nn * (tsize / 2) + std::size_t(N) * (sizeof(float) + tsize) + sizeof(int);
}

namespace {

inline constexpr index_t kRefineMinOrder = 256;

/// Whether the refinement step runs: in single precision (float32, complex64) from order
/// kRefineMinOrder. H100, 2026-11-25 (1000 matrices a case, refinement on against off):
/// float32 256^2 69.2 against 74.6 ms (sweeps 4.1 -> 3.4), complex64 256^2 145.8 against
/// 154.9; in double precision it costs what it saves (float64 256^2 97.0 against 96.9, sweeps
/// 5.1 -> 4.2; complex128 256^2 222.1 against 217.4), and below 256 the sweeps hardly fall
/// (float64 128^2 4.00 -> 3.81). BATCHSVD_CUDA_PRECONDITION_REFINE=0 or 1 leaves it out or
/// takes it at every order and precision (benchmarks and tests).
template <class DT> bool refine_wanted(index_t N) {
    const char* v = std::getenv("BATCHSVD_CUDA_PRECONDITION_REFINE");
    if (v && std::string(v) == "0") return false;
    if (v && std::string(v) == "1") return true;
    return std::is_same_v<core::real_of_t<DT>, float> && N >= kRefineMinOrder;
}

/// The bisection form's range by default: orders past the split form up to
/// kPreconditionBisectUpTo, batches of two or more. H100, 2026-11-26 (the whole solve with the
/// bisection form against BATCHSVD_CUDA_EIGENSOLVER=cusolver in one run): float64 50 x 512^2
/// 43.1 against 59.8 ms, complex64 50 x 400^2 43.8 against 58.0, but float64 20 x 1024^2 341
/// against 212 (past 512 its reduction runs one thread a row, and its time grows faster than
/// cuSOLVER's). One matrix goes to cuSOLVER, whose eigensolve of a single matrix is fast
/// (1 x 512^2 11.7 against 19.4 ms). docs/paths/precondition.md has the measurements.
template <class DT> bool bisect_form_wanted(index_t N, index_t batch) { return N <= kPreconditionBisectUpTo && batch >= 2; }

/// The eigensolver for order N: the fused form below order 160 real, 128 complex (where it fits:
/// order 236 real, 166 complex on an H100 or H200), the split form from there wherever its
/// packed triangle fits (336 real, 237 complex), then the bisection form where
/// bisect_form_wanted, else cuSOLVER's. The fused form beats cuSOLVER's syevBatched (H100,
/// 2026-11-26, 1000 random Gram matrices: 128^2 4.52 against 7.36 ms); where both fit, the
/// split form runs the QL recurrences of many matrices on an SM (one warp each) and won from
/// those orders (H100, 2026-11-26, 1000 x N^2 in the library, the whole solve: float64 192^2
/// 36.5-36.9 ms against 41.8-42.0, complex64 160^2 40.7-41.6 against 42.2-43.0).
/// docs/paths/precondition.md has the measurements.
/// BATCHSVD_CUDA_EIGENSOLVER=cusolver takes cuSOLVER's, =split the split form wherever it fits,
/// also where the fused form would, =bisect the bisection form up to its largest order (1024)
/// (benchmarks and tests).
template <class DT> PreconditionEigensolver eigensolver_form(index_t N, index_t batch) {
    const char* v = std::getenv("BATCHSVD_CUDA_EIGENSOLVER");
    if (v && std::string(v) == "cusolver") return PreconditionEigensolver::cusolver;
    const std::size_t optin = std::size_t(device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin));
    const bool split_fits = N <= split_eig_max_order<low_t<DT>>(optin);
    if (v && std::string(v) == "split" && split_fits) return PreconditionEigensolver::split;
    if (v && std::string(v) == "bisect" && N <= kBisectMaxOrder) return PreconditionEigensolver::bisect;
    constexpr index_t split_from = core::is_complex_v<DT> ? 128 : 160;
    if (N < split_from && N <= symmetric_eig_max_order<low_t<DT>>(optin)) return PreconditionEigensolver::fused;
    if (split_fits) return PreconditionEigensolver::split;
    return bisect_form_wanted<DT>(N, batch) ? PreconditionEigensolver::bisect : PreconditionEigensolver::cusolver;
}

/// Matrices a chunk of an eigensolver's workspace holds (per bytes a matrix): at most a quarter
/// of the device memory free now.
index_t workspace_chunk(std::size_t per, index_t batch) {
    const std::size_t free_bytes = free_device_bytes();
    return std::clamp<index_t>(index_t(free_bytes / 4 / per), 1, std::min<index_t>(batch, INT_MAX));
}

/// The split eigensolver on the batch, its workspace in chunks (workspace_chunk).
template <class LT> void split_eigensolve(LT* g, float* lambda, int* info, int n, index_t batch, cudaStream_t stream) {
    const std::size_t per = split_eig_matrix_bytes<LT>(n);
    const index_t chunk = workspace_chunk(per, batch);
    DeviceBuffer<unsigned char> ws(std::size_t(chunk) * per, stream);
    BATCHSVD_CUDA_CHECK_LAUNCHER(launch_symmetric_eig_split(g, lambda, info, n, batch, ws.get(), chunk, stream));
}

/// The bisection form on the batch, its workspace in chunks (workspace_chunk).
template <class LT>
void bisect_eigensolve(LT* g, float* lambda, int* info, int n, index_t batch, cublasHandle_t blas, cudaStream_t stream) {
    const std::size_t per = bisect_eig_matrix_bytes<LT>(n);
    const index_t chunk = workspace_chunk(per, batch);
    DeviceBuffer<unsigned char> ws(std::size_t(chunk) * per, stream);
    symmetric_eig_bisect(g, lambda, info, n, batch, ws.get(), chunk, blas, stream);
}

}  // namespace

template <class DT>
void precondition_working_matrices(BlockedParams<DT>& p, DeviceBuffer<DT>& w, const HandleSet& h, cudaStream_t stream) {
    using LT = low_t<DT>;
    using R = core::real_of_t<DT>;
    const index_t M = p.out.M, N = p.out.N, batch = p.out.batch, nn = N * N, mn = M * N;
    if (batch > INT_MAX || M > INT_MAX) throw Error(ErrorCode::invalid_argument, "batchsvd: batch too large to precondition");
    DeviceBuffer<DT> x(batch * mn, stream), y(batch * mn, stream), z(batch * nn, stream);
    DeviceBuffer<LT> g(batch * nn, stream);
    DeviceBuffer<float> lambda(batch * N, stream);
    DeviceBuffer<R> lam(batch * N, stream);
    DeviceBuffer<int> info(batch, stream);
    const int b = int(batch), n = int(N), m = int(M);

    // G = W^H W, in single precision.
    gemm_batched<DT>(h.blas, true, n, n, m, p.W, m, mn, p.W, m, mn, x.get(), n, nn, b);
    gram_to_low_kernel<DT><<<grid_stride_blocks(batch * nn), 256, 0, stream>>>(x.get(), g.get(), p.state, nn, batch * nn);
    BATCHSVD_CUDA_CHECK_LAUNCH("gram_to_low_kernel");

    const unsigned per_matrix = unsigned(std::min<index_t>(batch, index_t(1) << 20));
    const PreconditionEigensolver form = eigensolver_form<DT>(N, planning_batch(batch));  // the call's batch
    if (form == PreconditionEigensolver::fused) {
        // Its eigenvectors, by our own kernels, where they fit.
        BATCHSVD_CUDA_CHECK_LAUNCHER(launch_symmetric_eig(g.get(), lambda.get(), info.get(), n, batch, per_matrix, stream));
    } else if (form == PreconditionEigensolver::split) {
        split_eigensolve(g.get(), lambda.get(), info.get(), n, batch, stream);
    } else if (form == PreconditionEigensolver::bisect) {
        bisect_eigensolve(g.get(), lambda.get(), info.get(), n, batch, h.blas, stream);
    } else {
        // Its eigenvectors by cuSOLVER, over batches that keep its index arithmetic in 32 bits.
        const index_t part = eigensolve_batch(N, batch);
        std::size_t dbytes = 0, hbytes = 0;
        constexpr cudaDataType lt = cuda_type<LT>();
        BATCHSVD_CUSOLVER_CHECK(cusolverDnXsyevBatched_bufferSize(h.solver, h.params, CUSOLVER_EIG_MODE_VECTOR,
                                                                  CUBLAS_FILL_MODE_UPPER, N, lt, g.get(), N, CUDA_R_32F,
                                                                  lambda.get(), lt, &dbytes, &hbytes, part));
        DeviceBuffer<unsigned char> dwork(dbytes, stream);
        // Zeroed: syevBatched's tridiagonalisation (sytrd4_gpu) reads workspace it has not
        // written (compute-sanitizer initcheck, CUDA 13.0), values it then does not use.
        if (dbytes > 0) BATCHSVD_CUDA_CHECK(cudaMemsetAsync(dwork.get(), 0, dbytes, stream));
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
    }
    eigenbasis_kernel<DT><<<per_matrix, 256, 0, stream>>>(g.get(), info.get(), p.state, x.get(), n, batch);
    BATCHSVD_CUDA_CHECK_LAUNCH("eigenbasis_kernel");
    if (std::getenv("BATCHSVD_CUDA_PRECONDITION_FAULT"))  // (a test hook: the first basis zero, for the safeguard)
        BATCHSVD_CUDA_CHECK(cudaMemsetAsync(x.get(), 0, std::size_t(nn) * sizeof(DT), stream));
    DT* cur = x.get();  // the basis so far, N x N (stride N^2 in any of the buffers)

    // The refinement step in the working precision: Y = W X, S = Y^H Y, P = X^H X, F from S and
    // P (refine_kernel), X <- X F.
    const bool refine = refine_wanted<DT>(N);
    if (refine) {
        gemm_batched<DT>(h.blas, false, m, n, n, p.W, m, mn, cur, n, nn, y.get(), m, mn, b);
        gemm_batched<DT>(h.blas, true, n, n, m, y.get(), m, mn, y.get(), m, mn, z.get(), n, nn, b);
        gemm_batched<DT>(h.blas, true, n, n, n, cur, n, nn, cur, n, nn, y.get(), n, nn, b);
        refine_kernel<DT><<<per_matrix, 256, 0, stream>>>(z.get(), y.get(), lam.get(), p.state, n, batch);
        BATCHSVD_CUDA_CHECK_LAUNCH("refine_kernel");
        gemm_batched<DT>(h.blas, false, n, n, n, cur, n, nn, z.get(), n, nn, y.get(), n, nn, b);
        cur = y.get();
    }

    // Newton-Schulz steps, X <- X (3I - X^H X) / 2, the last into V_W when it is kept: two
    // from the single-precision vectors (orthogonal to ~1e-6), three after the refinement
    // (~1e-2 at worst, kRefineNormGuard).
    const int ns_steps = refine ? 3 : 2;
    for (int step = 0; step < ns_steps; ++step) {
        const bool last = step == ns_steps - 1;
        DT* next = last && p.V ? p.V : cur == x.get() ? y.get() : x.get();
        // (The eigensolve's info is spent: the last step's flags take it.)
        newton_schulz_step<DT>(h.blas, stream, n, b, cur, nn, z.get(), nn, next, nn, last ? info.get() : nullptr);
        cur = next;
    }

    reset_flagged_kernel<DT><<<per_matrix, 256, 0, stream>>>(cur, info.get(), n, batch);
    BATCHSVD_CUDA_CHECK_LAUNCH("reset_flagged_kernel");

    // W <- W V0: the product lands in whichever M x N buffer does not hold V0, which then
    // becomes the working matrix (W's old buffer is freed with it, stream-ordered).
    DeviceBuffer<DT>& out = cur == x.get() ? y : x;
    gemm_batched<DT>(h.blas, false, m, n, n, p.W, m, mn, cur, n, nn, out.get(), m, mn, b);
    std::swap(w, out);
    p.W = w.get();
}

template <class DT> PreconditionEigensolver precondition_eigensolver(index_t N, index_t batch) {
    return eigensolver_form<DT>(N, batch);
}

#define BATCHSVD_PRECONDITION_INSTANTIATE_(DT) \
    template void precondition_working_matrices<DT>(BlockedParams<DT>&, DeviceBuffer<DT>&, const HandleSet&, cudaStream_t); \
    template PreconditionEigensolver precondition_eigensolver<DT>(index_t, index_t);
BATCHSVD_PRECONDITION_INSTANTIATE_(float)
BATCHSVD_PRECONDITION_INSTANTIATE_(double)
BATCHSVD_PRECONDITION_INSTANTIATE_(dev_complex<float>)
BATCHSVD_PRECONDITION_INSTANTIATE_(dev_complex<double>)
#undef BATCHSVD_PRECONDITION_INSTANTIATE_

}  // namespace batchsvd::cuda
