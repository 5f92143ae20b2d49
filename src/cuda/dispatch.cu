// SPDX-License-Identifier: BSD-3-Clause
// The CUDA backend's entry (svd_cuda.hpp) and its routing rule (`route`): each call goes to
// one path, tried in this order: QR pre-processing of tall or wide panels (qr/), the tiny
// kernel for max(m, n) <= 4 (tiny/), the warp kernel for small matrices in registers (warp/),
// the rows kernel for what the warp kernel cannot hold up to 48 columns (rows/), then the
// fused shared-memory kernel (fused/) or the blocked path (blocked/, preconditioned by
// precondition/ where that measured faster), whichever fits and measured faster.
// docs/architecture.md has the rule as one table with the measurement behind each threshold.
// Host data is staged through device memory, or streamed in chunks when it is large.
#include "cuda/svd_cuda.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <vector>

#include "cuda/bidiagonal/bidiagonal_path.hpp"
#include "cuda/blocked/blocked_path.hpp"
#include "cuda/common/check.hpp"
#include "cuda/common/device_attribute.hpp"
#include "cuda/common/device_buffer.hpp"
#include "cuda/common/host_staging.hpp"
#include "cuda/fused/fused_plan.hpp"
#include "cuda/fused/fused_launch.cuh"
#include "cuda/common/owned_stream.hpp"
#include "cuda/common/phase_log.hpp"
#include "cuda/common/planning_batch.hpp"
#include "cuda/precondition/precondition.hpp"
#include "cuda/dispatch_rules.hpp"
#include "cuda/qr/qr_path.hpp"
#include "cuda/rows/rows_path.hpp"
#include "cuda/tiny/tiny_kernel.cuh"
#include "cuda/warp/warp_path.hpp"
#include "cuda/common/smem_limit.hpp"

namespace batchsvd::cuda {

bool device_available() {
    static const bool available = [] {
        int count = 0;
        const cudaError_t e = cudaGetDeviceCount(&count);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return false;
        }
        return count > 0;
    }();
    return available;
}

int device_count() {
    if (!device_available()) return 0;
    int count = 0;
    BATCHSVD_CUDA_CHECK(cudaGetDeviceCount(&count));
    return count;
}

int pointer_device(const void* p) {
    cudaPointerAttributes attr{};
    BATCHSVD_CUDA_CHECK(cudaPointerGetAttributes(&attr, p));
    return attr.device;
}

bool is_device_pointer(const void* p) {
    if (!p || !device_available()) return false;
    cudaPointerAttributes attr{};
    const cudaError_t e = cudaPointerGetAttributes(&attr, p);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged;
}

int tiny_max_order() {
    static const bool off = std::getenv("BATCHSVD_CUDA_NO_TINY") != nullptr;
    return off ? 0 : kTinyMax;
}

namespace {

/// Elements of one strided operand: from the first element of matrix 0 to the last of the
/// last matrix.
index_t span(index_t ld, index_t stride, index_t rows, index_t cols, index_t batch) {
    if (rows == 0 || cols == 0 || batch == 0) return 0;
    return (batch - 1) * stride + (cols - 1) * ld + rows;
}
bool packed(index_t ld, index_t stride, index_t rows, index_t cols, index_t batch) {
    return ld == rows && (batch == 1 || stride == rows * cols);
}

}  // namespace

template <class T>
JacobiParams<device_scalar_t<T>> common_params(index_t m, index_t n, index_t batch,
                                               MatrixBatch<const T> a, real_t<T>* s,
                                               index_t s_stride, MatrixBatch<T> u,
                                               MatrixBatch<T> v, int* info, const Options& opts,
                                               bool need_vw) {
    using DT = device_scalar_t<T>;
    using R = real_t<T>;
    JacobiParams<DT> p{};
    p.a = reinterpret_cast<const DT*>(a.data);
    p.lda = a.ld;
    p.stride_a = a.stride;
    p.s = s;
    p.s_stride = s_stride;
    p.u = reinterpret_cast<DT*>(u.data);
    p.ldu = u.ld;
    p.stride_u = u.stride;
    p.v = reinterpret_cast<DT*>(v.data);
    p.ldv = v.ld;
    p.stride_v = v.stride;
    p.info = info;
    p.sweeps = opts.sweeps;
    p.batch = batch;
    p.m = int(m);
    p.n = int(n);
    p.M = int(std::max(m, n));
    p.N = int(std::min(m, n));
    p.transpose = m < n;
    p.compute_u = opts.compute_u;
    p.compute_v = opts.compute_v;
    p.need_vw = need_vw;
    // The same threshold as the CPU backend (k u, whatever the column length).
    p.tol = core::convergence_tolerance<R>(opts.tol_factor);
    p.max_sweeps = opts.max_sweeps;
    return p;
}

namespace {

/// QR pre-processing on the GPU (qr_path.cu): always with qr = always; with qr = automatic where
/// it measured faster than solving the whole matrix by Jacobi (H100, batch 1000):
/// - real types: tall matrices (M >= 2N, M >= 128) whose panel fits in one block's shared
///   memory (float64 1000 x 16 2.25 against 9.98 ms, 200 x 16 0.45 against 0.87, 256 x 64 14.0
///   against 21.2, 128 x 32 1.5 against 2.0; float32 1000 x 16 1.61 against 2.85). Below 128
///   rows the fused kernel is as fast or faster (float64 100 x 16 0.38 against 0.37, 48 x 16
///   0.29 against 0.34; float32 0.27 against 0.31); panels beyond shared memory are factored
///   in global memory, which measured slower (2000 x 16 8.56 against 7.62 ms, 500 x 100 103
///   against 78 ms).
/// - complex types: as real ones, and also from M >= 3N below 128 rows and, at 16 columns,
///   beyond shared memory (complex64 100 x 16 0.41 against 0.95 ms, 64 x 16 0.34 against 0.44,
///   48 x 16 0.41 against 0.44, 2000 x 16 8.8 against 9.3; complex128 100 x 16 0.58 against
///   1.47, 48 x 16 0.52 against 0.61, 1000 x 16 8.1 against 11.5, 2000 x 16 15.7 against 20.6;
///   2026-11-24). Wider complex panels beyond shared memory were not measured and stay with
///   Jacobi.
/// - but up to 4:1 where the blocked path is preconditioned (use_precondition) that wins
///   (2026-11-26, H200 and H100, 1000 matrices, ms, QR against the blocked path
///   preconditioned): float64 128 x 64 5.67 against 2.91, 256 x 64 10.2 against 3.71;
///   float32 256 x 64 4.85 against 3.39, 200 x 100 12.8 against 9.79; complex64 256 x 64 10.3
///   against 5.25; complex128 128 x 64 10.6 against 5.86.
template <class T> bool use_precondition(index_t M, index_t N, index_t batch, const Options& opts);

/// Whether the automatic rule sends an M x N batch (M >= N) to the preconditioned blocked path
/// ahead of QR (use_qr) and of the fused kernel (blocked_beats_fused): where use_precondition
/// takes it, up to 4:1 (the measurements are use_qr's and blocked_beats_fused's). Under the
/// automatic rule only: `always` and `never` choose whether the blocked path preconditions,
/// not whether a matrix takes it.
template <class T> bool preconditioned_route(index_t M, index_t N, index_t batch, const Options& opts) {
    return opts.precondition == PreconditionMode::automatic && M <= 4 * N && use_precondition<T>(M, N, batch, opts);
}

template <class T> bool use_qr(index_t m, index_t n, index_t batch, const Options& opts) {
    if (opts.qr == QrMode::always) return true;
    if (opts.qr == QrMode::never || opts.variant != JacobiVariant::automatic) return false;
    const index_t M = std::max(m, n), N = std::min(m, n);
    if (preconditioned_route<T>(M, N, batch, opts)) return false;
    const bool fits = std::size_t(M) * std::size_t(N) * sizeof(T) <= qr_panel_smem_limit();
    const bool real_rule = M >= 2 * N && M >= 128 && fits;
    if constexpr (core::is_complex_v<T>) return real_rule || (M >= 3 * N && (fits || N <= 16));
    else return real_rule;
}

/// The tiny kernel is used up to kTinyMax rows and columns, unless the environment turns it
/// off (benchmarking the fused kernel on the same sizes).
bool use_tiny(index_t m, index_t n) { return std::max(m, n) <= tiny_max_order(); }

/// The warp kernel's plan for an m x n batch: the sizes warp_plan takes, unless the blocked
/// variant is forced or BATCHSVD_CUDA_NO_WARP is set (read on every call: benchmarks and tests
/// compare it with the fused kernel on the same sizes).
template <class T> WarpPlan choose_warp(index_t m, index_t n, const Options& opts) {
    if (opts.variant == JacobiVariant::blocked || std::getenv("BATCHSVD_CUDA_NO_WARP")) return {};
    return warp_plan<T>(std::max(m, n), std::min(m, n));
}

/// The rows kernel's plan for an m x n batch: the sizes rows_plan takes, unless the blocked
/// variant is forced or BATCHSVD_CUDA_NO_ROWS is set (read on every call: benchmarks and tests
/// compare it with the fused kernel and the blocked path on the same sizes). Up to 32 columns
/// it measured faster than the fused kernel only, so there it leaves to the preconditioned
/// blocked path what that takes (rows_plan has the measurements).
template <class T> RowsPlan choose_rows(index_t m, index_t n, index_t batch, const Options& opts) {
    if (opts.variant == JacobiVariant::blocked || std::getenv("BATCHSVD_CUDA_NO_ROWS")) return {};
    const index_t M = std::max(m, n), N = std::min(m, n);
    if (N <= 32 && opts.variant == JacobiVariant::automatic && preconditioned_route<T>(M, N, batch, opts)) return {};
    return rows_plan<T>(M, N, m >= n ? opts.compute_v : opts.compute_u);
}

template <class T>
void launch_tiny(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s,
                 index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
                 const Options& opts, bool need_vw, cudaStream_t stream) {
    using DT = device_scalar_t<T>;
    const auto p = common_params<T>(m, n, batch, a, s, s_stride, u, v, info, opts, need_vw);
    const index_t blocks = (batch + kTinyThreads - 1) / kTinyThreads;
    if (blocks > INT_MAX)
        throw Error(ErrorCode::invalid_argument, "batchsvd::gesvd: batch too large for one launch");
    // Register arrays of the matrix's own order: at 10^6 x 3x3 float32 this took the kernel
    // from 4.6x to 3.6x the memory floor (H100, 2026-11-24; docs/paths/tiny.md).
    const index_t order = std::max(m, n);
    const auto kernel = order > 3 ? &tiny_jacobi_kernel<DT, kTinyMax>
                        : order == 3 ? &tiny_jacobi_kernel<DT, 3>
                                     : &tiny_jacobi_kernel<DT, 2>;
    kernel<<<unsigned(blocks), kTinyThreads, tiny_smem_bytes<DT>(), stream>>>(p);
    BATCHSVD_CUDA_CHECK_LAUNCH("tiny_jacobi_kernel");
}

template <class T>
void launch_fused(const FusedPlan& pl, index_t m, index_t n, index_t batch, MatrixBatch<const T> a,
                  real_t<T>* s, index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
                  const Options& opts, bool need_vw, cudaStream_t stream) {
    auto p = common_params<T>(m, n, batch, a, s, s_stride, u, v, info, opts, need_vw);
    p.G = pl.G;
    p.P = pl.P;
    p.team_threads = pl.team_threads;
    p.teams_per_block = pl.teams_per_block;
    p.layout = pl.layout;
    const auto kernel = configured_fused_kernel<T>(pl);
    kernel<<<pl.grid, pl.block, pl.smem, stream>>>(p);
    BATCHSVD_CUDA_CHECK_LAUNCH("jacobi_block_per_matrix_kernel");
}

/// Runs solve(p) over consecutive chunks of the batch, each of as many matrices as
/// `per_matrix` bytes of workspace allow (matrices_per_chunk), p being the chunk's parameters
/// (its operands' pointers moved to its first matrix; null pointers stay null).
template <class T, class Solve>
void over_chunks(std::size_t per_matrix, index_t m, index_t n, index_t batch, MatrixBatch<const T> a,
                 real_t<T>* s, index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
                 const Options& opts, bool need_vw, Solve&& solve) {
    const index_t chunk = matrices_per_chunk(per_matrix, batch);
    auto at = [](auto* p, index_t offset) { return p ? p + offset : p; };
    Options o = opts;
    for (index_t first = 0; first < batch; first += chunk) {
        const index_t count = std::min(chunk, batch - first);
        o.sweeps = at(opts.sweeps, first);
        solve(common_params<T>(m, n, count, {at(a.data, first * a.stride), a.ld, a.stride},
                               at(s, first * s_stride), s_stride,
                               {at(u.data, first * u.stride), u.ld, u.stride},
                               {at(v.data, first * v.stride), v.ld, v.stride}, info + first, o,
                               need_vw));
    }
}

/// Block width of the blocked path for N columns and a batch: Options::block_width when set,
/// else the measured rule (H100, 2026-11-25, 1000 square matrices unless said; ms, the width
/// chosen against the other; docs/paths/blocked.md has the tables). 32-column blocks halve
/// the round-robin steps, so the passes over W and V and the eigensolver's dependent inner
/// steps (6 x 63 a sweep against 28 x 31 at 128^2), but each inner step costs four times the
/// work, and an odd block count leaves one pair of every step with a phantom partner (half a
/// launch idle at 3 blocks). So 32 wins where ceil(N / 32) is even (float64 128^2 22.1
/// against 28.1), 16 where it is odd (float64 96^2 12.7 against 18.2), and 32 always from
/// order 176 in float64 (65.8 against 81.7 at 176) and from 112 in float32 and complex64
/// (float32 160^2 48.2 against 61.3). complex128 keeps 16 (128^2 60.5 against 62.4; one
/// 1024^2 90.6 against 161). 32 also only while the batch's 32-column pairs, each split over
/// up to 8 blocks of a cluster (blocked_path.cu), give every SM one (batch x ceil(N / 64) x 8
/// >= SMs; one float64 1024^2 gives 128, under the H100's 132: 51.9 against 70.6). In single
/// precision 32-column blocks lose more orthogonality on graded matrices (geo, kappa 1e5,
/// worst e1-e4 at 1000 x 512^2 float32 22.7u against 14.1u with 16 columns), so beyond order
/// 512, where they were not measured, float32 and complex64 keep 16.
template <class T> int block_width_for(const Options& opts, index_t N, index_t batch) {
    if (opts.block_width > 0) return blocked_block_width(opts.block_width);
    if constexpr (std::is_same_v<T, std::complex<double>>) return 16;
    const index_t always = std::is_same_v<T, double> ? 176 : 112;
    const index_t upto = std::is_same_v<real_t<T>, float> ? 512 : index_t(1) << 40;
    const bool even_blocks = ((N + 31) / 32) % 2 == 0;
    if (N > upto || (N < always && !even_blocks)) return 16;
    return batch * ((N + 63) / 64) * 8 >= index_t(device_attribute(cudaDevAttrMultiProcessorCount)) ? 32 : 16;
}

/// The smallest order at which the preconditioning measured faster (use_precondition), with our
/// eigensolver, for an M x N batch (M >= N) of `batch` matrices. Square from order 40 (the
/// default route against the blocked path preconditioned, 1000 matrices, ms; H200 and H100,
/// 2026-11-26): float64 40 (1.95 against 1.81; 48^2 3.44 against 2.15, 64^2 3.84 against
/// 2.86), float32 56 (2.55 against 1.84; 72^2 6.67 against 4.13), complex128 40 (7.67 against
/// 3.08), complex64 56 (4.69 against 2.90). Below (H100, 2026-11-27, commit dfae098,
/// bench/results/h100/2026-11-27-warp-teams/precondition_orders_dfae098.csv; the fused kernel
/// or the blocked path unpreconditioned against it preconditioned): from 33 in large
/// batches (from 4000 matrices, between the two batches measured; 10000 matrices: float64 33^2 13.8 against 12.1, 39^2 17.3 against 13.7; float32
/// 33^2 10.7 against 8.2, 52^2 26.8 against 13.0) but not in 1000 (float64 33^2 1.53 against
/// 1.62, 39^2 1.92 against 1.88; float32 33^2 1.20 against 1.26, 41^2 1.74 against 1.51);
/// complex from 33 in both (complex64 1000 x 33^2 2.64 against 1.95, complex128 6.23
/// against 2.75); real tall shapes (2:1 to 4:1) from 25 (float64 10000 x 50 x 25 7.70 against
/// 4.65, 124 x 31 16.0 against 7.1; float32 100 x 25 6.20 against 4.43), not at 16 (float64
/// 64 x 16 2.30 against 3.41). Where the warp kernel takes a size (it is tried first), this
/// rule does not matter.
template <class T> index_t precondition_min_order(index_t M, index_t N, index_t batch) {
    if constexpr (!core::is_complex_v<T>)
        if (M >= 2 * N) return 25;
    if constexpr (core::is_complex_v<T>) return 33;
    else if (batch >= 4000) return 33;
    else return std::is_same_v<T, double> ? 40 : 41;
}

/// Whether the blocked path starts from a single-precision eigenbasis of W^H W
/// (precondition.hpp): as Options::precondition says, and under `automatic` where it measured
/// faster (H100, 2026-11-26, the same binary with it forced on and off; ms, on against off):
/// at every order from precondition_min_order up to 4096 and nearly every batch measured,
/// squares and tall shapes up to 8:1 alike (float64 1000 x 112^2 16.7 against 22.2, one
/// 4096^2 887 against 1454, 100 x 4096 x 512 346 against 744; complex128 50 x 512^2 111
/// against 223). The rule leaves out what lost or was not measured: orders below 128 in
/// batches under 100, small batches of orders 257-1023 (below), orders above 4096, and shapes
/// taller than 8:1. docs/paths/precondition.md has the measurements.
template <class T> bool use_precondition(index_t M, index_t N, index_t batch, const Options& opts) {
    if (opts.precondition != PreconditionMode::automatic) return opts.precondition == PreconditionMode::always;
    if (N < precondition_min_order<T>(M, N, batch) || N > 4096 || M > 8 * N) return false;  // (beyond: not measured)
    if (N < 128 && batch < 100) return false;
    // Batches of 2-19 matrices of orders 257-1023 lose with cuSOLVER's eigensolve (float64 5 x
    // 512^2 32.4 against 24.2 ms) and with the split form (5 x 300^2 9.70 against 9.57); with
    // the bisection form they win from 4 matrices (4 x 400^2 14.4 against 16.7, 10 x 512^2
    // 26.0 against 34.8) but not below (2 x 512^2 20.1 against 16.9, 3 x 512^2 20.7 against
    // 17.3). H100, 2026-11-26, on against off. (A constant range, not the device's: this rule
    // must not need a device.)
    const bool bisect = precondition_bisect_orders<device_scalar_t<T>>(N);
    return !(N > 256 && N < 1024 && batch > 1 && batch < (bisect ? 4 : 20));
}

/// Whether the blocked path solves a batch as two interleaved halves, each on a stream of its
/// own (run_blocked): large preconditioned batches (at least 2^23 / N^2 matrices: 512 at
/// order 128, 128 at 256) from order 128, whose halves the rule still preconditions, up to
/// order 256 and past it wherever the preconditioner's eigensolve is ours. One half's
/// eigensolve and sweeps then overlap the other's (H100, 2026-11-26, ms, two halves against
/// one stream: float64 1000 x 320^2 135.7-135.9 against 138.7, 50 x 512^2 43.0-43.6 against
/// 47.3; complex64 1000 x 200^2 84.1-84.3 against 87.6-88.0). Where the eigensolve is
/// cuSOLVER's, its host waits leave the device idle more than the overlap gains (float64 40 x
/// 1024^2 344.9 against 331.6), and smaller batches lost (float64 200 x 128^2 4.18 against
/// 3.80-3.93, H200). docs/paths/blocked.md has the measurements.
/// Not past kHalvesMaxBytes of matrices in this part of the call (`own`: a device's share, not
/// the whole call's batch): with the workspace pool's memory reused from call to call
/// (workspace_pool.hpp), two halves lost to one stream there (H100, 2026-11-27, ms, halves
/// against one stream: float64 1000 x 384^2 254.0 against 226.8, 1000 x 512^2 608.5 against
/// 540.9, float32 1000 x 512^2 395.9 against 391.9) and still won below it (float64 1000 x
/// 256^2 68.6 against 71.5, 250 x 512^2 139.4 against 144.8;
/// bench/results/h100/2026-11-27-workspace-pool/). (Halves and one stream give a matrix the
/// same arithmetic; the preconditioner's cuBLAS products may round differently by count.)
/// BATCHSVD_CUDA_BLOCKED_SLICES=1 or 2 forces one stream or two halves (benchmarks and tests).
constexpr double kHalvesMaxBytes = 512.0 * 1024 * 1024;
template <class T> bool blocked_halves(index_t M, index_t N, index_t batch, index_t own, bool precondition,
                                       const Options& opts) {
    const char* v = std::getenv("BATCHSVD_CUDA_BLOCKED_SLICES");
    if (v && std::string(v) == "1") return false;
    if (v && std::string(v) == "2") return true;
    return precondition && N >= 128 &&
           (N <= 256 || precondition_eigensolver<device_scalar_t<T>>(N, batch / 2) != PreconditionEigensolver::cusolver) &&
           batch * N * N >= (index_t(1) << 23) && double(own) * double(M) * double(N) * sizeof(T) <= kHalvesMaxBytes &&
           use_precondition<T>(M, N, batch / 2, opts);
}

/// Device bytes per matrix of the blocked path's workspace, with the preconditioner's when it
/// may run (for a batch that allows it: the callers size chunks by this).
template <class T> std::size_t blocked_bytes(index_t M, index_t N, bool need_vw, const Options& opts) {
    std::size_t bytes = blocked_workspace_bytes(M, N, need_vw, sizeof(T), sizeof(real_t<T>));
    if (use_precondition<T>(M, N, index_t(1) << 40, opts)) bytes += precondition_workspace_bytes(M, N, sizeof(T));
    return bytes;
}

/// The blocked path (blocked_kernels.cuh) for matrices the fused kernel cannot hold, over as
/// many chunks of the batch as its workspace needs.
template <class T>
void launch_blocked(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s,
                    index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
                    const Options& opts, bool need_vw, cudaStream_t stream) {
    if (std::max(m, n) > INT_MAX / 2 || std::min(m, n) > (1 << 20))
        throw Error(ErrorCode::invalid_argument, "batchsvd::gesvd: matrix too large for the CUDA backend");
    const index_t M = std::max(m, n), N = std::min(m, n);
    const std::size_t per = blocked_bytes<T>(M, N, need_vw, opts);
    const index_t plan = planning_batch(batch);  // the call's, for every chunk alike
    const int nb = block_width_for<T>(opts, N, plan);
    const bool pre = use_precondition<T>(M, N, plan, opts);
    const bool halves = blocked_halves<T>(M, N, plan, batch, pre, opts);
    over_chunks<T>(per, m, n, batch, a, s, s_stride, u, v, info, opts, need_vw,
                   [&](const auto& p) { run_blocked(p, nb, pre, halves, stream); });
}

/// QR pre-processing (qr_path.cu), over as many chunks as its workspace (and that of the
/// SVD of R) needs.
template <class T>
void launch_qr(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s,
               index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
               const Options& opts, bool need_vw, cudaStream_t stream) {
    const std::size_t per = qr_workspace_bytes(std::max(m, n), std::min(m, n), need_vw, sizeof(T),
                                               sizeof(real_t<T>));
    over_chunks<T>(per, m, n, batch, a, s, s_stride, u, v, info, opts, need_vw,
                   [&](const auto& p) { run_qr<T>(p, opts, stream); });
}

/// Which path solves an m x n batch (min(m, n) > 0): the one rule behind the solve
/// (gesvd_device), its workspace (host_solve_bytes) and its name (solve_path).
enum class Path { qr, tiny, warp, rows, fused, blocked };
struct Route {
    Path path = Path::fused;
    WarpPlan warp;  ///< Path::warp
    RowsPlan rows;  ///< Path::rows
    FusedPlan plan; ///< Path::fused
};
/// Where the fused kernel fits but the blocked path (its pair kernel on the FP64 tensor cores
/// in double precision) is faster, by measurement (H100, 2026-11-25, 1000 square matrices,
/// ms, blocked against fused, the blocked path with block_width_for's width;
/// docs/architecture.md has the tables): float64 and complex128 from order 48 (float64 48^2
/// 3.46 against 3.57; the fused kernel wins at 44, 3.15 against 3.32), float32 from 53 to 64
/// and from 89, complex64 from 48 to 64 and from 89 (float32 64^2 2.67 against 5.33, 96^2
/// 12.7 against 17.7; the fused kernel wins at 88, 10.5 against 12.2). Where blocks of 32
/// columns fit evenly (block_width_for) the blocked path wins early; at 65-88 columns in
/// single precision its three-block or five-block sweeps leave pairs idle. Measured on square
/// matrices, so applied only within a quarter of square (M <= 5N/4). The blocked path also
/// wins wherever it is preconditioned (preconditioned_route; 2026-11-26: float32 1000 x 80^2
/// 4.62 against the fused kernel's 8.28), tall shapes up to 4:1 included (float64 1000 x 256 x
/// 64 3.71 against 20.6 in the fused kernel and 10.2 through QR, use_qr).
template <class T> bool blocked_beats_fused(index_t M, index_t N, index_t batch, const Options& opts) {
    if (preconditioned_route<T>(M, N, batch, opts)) return true;
    if (4 * M > 5 * N) return false;
    if constexpr (std::is_same_v<T, double>) return N >= 48;
    else if constexpr (std::is_same_v<T, float>) return (N > 52 && N <= 64) || N > 88;
    else if constexpr (std::is_same_v<T, std::complex<float>>) return (N >= 48 && N <= 64) || N > 88;
    else return N >= 48;
}

/// (The choices by the call's batch, planning_batch; the fused kernel's grid by this part's.)
template <class T> Route route(index_t m, index_t n, index_t batch, const Options& opts) {
    Route r;
    const index_t plan = planning_batch(batch);
    if (use_qr<T>(m, n, plan, opts)) r.path = Path::qr;
    else if (use_tiny(m, n)) r.path = Path::tiny;
    else if ((r.warp = choose_warp<T>(m, n, opts)).fits) r.path = Path::warp;
    else if ((r.rows = choose_rows<T>(m, n, plan, opts)).fits) r.path = Path::rows;
    else {
        r.plan = make_fused_plan<T>(m, n, batch, m >= n ? opts.compute_v : opts.compute_u);
        const bool faster = opts.variant == JacobiVariant::automatic &&
                            blocked_beats_fused<T>(std::max(m, n), std::min(m, n), plan, opts);
        r.path = !r.plan.fits || opts.variant == JacobiVariant::blocked || faster ? Path::blocked : Path::fused;
    }
    return r;
}

/// Singular values alone by bidiagonalisation (SvdMethod): forced, or where it measured faster
/// than the Jacobi iteration without vectors (bidiagonal_values_faster).
template <class T> bool values_by_bidiagonal(index_t m, index_t n, index_t batch, const Options& opts) {
    if (opts.compute_u || opts.compute_v || opts.method == SvdMethod::jacobi) return false;
    return opts.method == SvdMethod::bidiagonal || bidiagonal_values_faster<T>(m, n, planning_batch(batch));
}

}  // namespace

template <class T>
void gesvd_device(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s,
                  index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
                  const Options& opts) {
    if (batch <= 0) return;
    const PlanningScope scope(batch);
    cudaStream_t stream = static_cast<cudaStream_t>(opts.stream);
    if (std::min(m, n) == 0) {  // nothing to decompose: every matrix "converged"
        BATCHSVD_CUDA_CHECK(cudaMemsetAsync(info, 0, batch * sizeof(int), stream));
        if (opts.sweeps) BATCHSVD_CUDA_CHECK(cudaMemsetAsync(opts.sweeps, 0, batch * sizeof(int), stream));
        return;
    }
    if (values_by_bidiagonal<T>(m, n, batch, opts))
        return svdvals_bidiagonal<T>(m, n, batch, a, s, s_stride, info, opts);
    const bool need_vw = m >= n ? opts.compute_v : opts.compute_u;
    const Route r = route<T>(m, n, batch, opts);
    switch (r.path) {
        case Path::qr:  // QR pre-processing, then the SVD of R (qr_path.cu)
            return launch_qr<T>(m, n, batch, a, s, s_stride, u, v, info, opts, need_vw, stream);
        case Path::tiny:
            return launch_tiny<T>(m, n, batch, a, s, s_stride, u, v, info, opts, need_vw, stream);
        case Path::warp:
            return launch_warp<T>(r.warp, common_params<T>(m, n, batch, a, s, s_stride, u, v, info, opts, need_vw),
                                  stream);
        case Path::rows:
            return launch_rows<T>(r.rows, common_params<T>(m, n, batch, a, s, s_stride, u, v, info, opts, need_vw),
                                  stream);
        case Path::blocked:
            return launch_blocked<T>(m, n, batch, a, s, s_stride, u, v, info, opts, need_vw, stream);
        case Path::fused:
            return launch_fused<T>(r.plan, m, n, batch, a, s, s_stride, u, v, info, opts, need_vw, stream);
    }
}

namespace {

/// Element counts of one chunk's host operands, from its first matrix to the end of its last,
/// and which outputs have gaps between their matrices (those are copied in before the solve,
/// so that the gaps survive the copy back).
struct ChunkSpans {
    index_t na = 0, ns = 0, nu = 0, nv = 0;
    bool s_gaps = false, u_gaps = false, v_gaps = false;
};
template <class T>
ChunkSpans chunk_spans(index_t m, index_t n, index_t count, MatrixBatch<const T> a,
                       index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, const Options& opts) {
    const index_t k = std::min(m, n);
    ChunkSpans sp;
    sp.na = span(a.ld, a.stride, m, n, count);
    sp.ns = span(1, s_stride, k, 1, count);
    sp.nu = opts.compute_u ? span(u.ld, u.stride, m, k, count) : 0;
    sp.nv = opts.compute_v ? span(v.ld, v.stride, n, k, count) : 0;
    sp.s_gaps = sp.ns && !(s_stride == k || count == 1);
    sp.u_gaps = sp.nu && !packed(u.ld, u.stride, m, k, count);
    sp.v_gaps = sp.nv && !packed(v.ld, v.stride, n, k, count);
    return sp;
}

/// Device copies of one chunk's operands (same layout as the host's).
template <class T> struct DeviceChunk {
    DeviceBuffer<T> a, u, v;
    DeviceBuffer<real_t<T>> s;
    DeviceBuffer<int> info, sweeps;  ///< sweeps: empty unless Options::sweeps is set
    DeviceChunk(const ChunkSpans& sp, index_t count, bool with_sweeps, cudaStream_t st)
        : a(sp.na, st), u(sp.nu, st), v(sp.nv, st), s(sp.ns, st), info(count, st),
          sweeps(with_sweeps ? count : 0, st) {}
};

/// Enqueues on `stream` the first half of one chunk of `count` matrices whose operands start at
/// ha, hs, hu, hv (the caller's memory, with the caller's layout: host memory, or another
/// device's, for a share of several devices, gesvd_devices): the inputs in (and
/// the outputs with gaps between matrices, so that the gaps survive), then the solve.
template <class T>
void enqueue_in_and_solve(index_t m, index_t n, index_t count, const ChunkSpans& sp, const T* ha,
                          const real_t<T>* hs, const T* hu, const T* hv, MatrixBatch<const T> a,
                          index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, DeviceChunk<T>& d,
                          const Options& opts, cudaStream_t stream, PhaseLog* log = nullptr) {
    using R = real_t<T>;
    copy_async(d.a.get(), ha, sp.na * sizeof(T), stream, opts.threads);
    if (sp.s_gaps)
        copy_async(d.s.get(), hs, sp.ns * sizeof(R), stream, opts.threads);
    if (sp.u_gaps)
        copy_async(d.u.get(), hu, sp.nu * sizeof(T), stream, opts.threads);
    if (sp.v_gaps)
        copy_async(d.v.get(), hv, sp.nv * sizeof(T), stream, opts.threads);
    if (log) log->mark("copied in", stream);
    Options o = opts;
    o.stream = stream;
    o.sweeps = opts.sweeps ? d.sweeps.get() : nullptr;
    gesvd_device<T>(m, n, count, MatrixBatch<const T>{d.a.get(), a.ld, a.stride}, d.s.get(), s_stride,
                    MatrixBatch<T>{d.u.get(), u.ld, u.stride}, MatrixBatch<T>{d.v.get(), v.ld, v.stride},
                    d.info.get(), o);
}

/// The second half: the chunk's outputs back to the caller's memory. (From pageable memory
/// the copies return when done, staged through pinned pieces by `threads` host threads
/// (copy_async); from pinned memory they are asynchronous.)
template <class T>
void enqueue_out(index_t count, const ChunkSpans& sp, real_t<T>* hs, T* hu, T* hv, int* hinfo,
                 int* hsweeps, const DeviceChunk<T>& d, cudaStream_t stream, int threads) {
    using R = real_t<T>;
    copy_async(hs, d.s.get(), sp.ns * sizeof(R), stream, threads);
    if (sp.nu) copy_async(hu, d.u.get(), sp.nu * sizeof(T), stream, threads);
    if (sp.nv) copy_async(hv, d.v.get(), sp.nv * sizeof(T), stream, threads);
    copy_async(hinfo, d.info.get(), count * sizeof(int), stream, threads);
    if (hsweeps)
        copy_async(hsweeps, d.sweeps.get(), count * sizeof(int), stream, threads);
}

/// Device bytes one matrix needs when solved from host memory: its operands and the chosen
/// path's workspace.
template <class T>
std::size_t host_solve_bytes(index_t m, index_t n, MatrixBatch<const T> a, index_t s_stride,
                             MatrixBatch<T> u, MatrixBatch<T> v, const Options& opts) {
    const index_t M = std::max(m, n), N = std::min(m, n);
    const bool need_vw = m >= n ? opts.compute_v : opts.compute_u;
    std::size_t bytes = sizeof(T) * std::size_t(std::max(a.stride, m * n)) + sizeof(real_t<T>) * std::size_t(std::max(s_stride, N)) + sizeof(int);
    if (opts.compute_u) bytes += sizeof(T) * std::size_t(std::max(u.stride, m * N));
    if (opts.compute_v) bytes += sizeof(T) * std::size_t(std::max(v.stride, n * N));
    if (values_by_bidiagonal<T>(m, n, 1, opts)) return bytes + bidiagonal_values_bytes<T>(m, n);
    const Path path = route<T>(m, n, 1, opts).path;
    if (path == Path::qr) bytes += qr_workspace_bytes(M, N, need_vw, sizeof(T), sizeof(real_t<T>));
    if (path == Path::blocked) bytes += blocked_bytes<T>(M, N, need_vw, opts);
    return bytes;
}

/// Host batches of at least this many bytes of operands are streamed in kStreamChunks chunks
/// even when they fit on the device, so that the copies overlap the solve (stream_host_batch).
constexpr double kStreamBytes = 64.0 * 1024 * 1024;
constexpr index_t kStreamChunks = 8;
/// ... for orders below this only (stream_host_batch).
constexpr index_t kStreamMaxOrder = 128;

/// Whether a batch that fits on the device is streamed from the caller's memory in chunks
/// (gesvd_host): kStreamBytes of operands, kStreamChunks matrices, orders below
/// kStreamMaxOrder, from host memory. H100, 2026-11-26, from pinned host memory, ms, streamed
/// against at once: float64 10000 x 32^2 4.59 against 7.37; 1000 x 128^2 34.3 against 20.4,
/// 1000 x 256^2 136.6 against 107.5, 50 x 512^2 176.5 against 45.3
/// (bench/results/h100/2026-11-26-multi-gpu/). From order 128 the solve outweighs the copies,
/// and an eighth of the batch fills the device less well than the whole. Not from another
/// device's memory (a share of several devices, `peer`), whose copies over NVLink are short
/// against an eighth's solve: 2 H100s, 2026-11-27, 10000 x 32^2 float64 from GPU 0, 1.917 ms
/// with the other share streamed against 1.692 at once (one GPU 2.16-2.18;
/// bench/results/h100/2026-11-27-peer-shares/). BATCHSVD_CUDA_HOST_STREAM=0 or 1 never or
/// always streams a batch that fits (of kStreamChunks matrices or more; benchmarks and tests).
bool stream_host_batch(double operand_bytes, index_t batch, index_t k, bool peer) {
    if (batch < kStreamChunks) return false;
    const char* v = std::getenv("BATCHSVD_CUDA_HOST_STREAM");
    if (v && std::string(v) == "0") return false;
    if (v && std::string(v) == "1") return true;
    return !peer && operand_bytes >= kStreamBytes && k < kStreamMaxOrder;
}

/// A batch from host memory in chunks of matrices (larger than the device, or with copies
/// worth hiding: gesvd_host) on two streams,
/// copied straight between the caller's memory and the device, software-pipelined so that
/// one chunk's solve overlaps the previous chunk's copies out and the next chunk's copies in
/// (the overlap is complete for pinned memory; pageable memory's copies are staged by the
/// driver and hold the host thread, which still leaves the GPU the other chunk's solve).
template <class T>
void gesvd_host_streamed(index_t m, index_t n, index_t batch, index_t chunk, MatrixBatch<const T> a,
                         real_t<T>* s, index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v,
                         int* info, const Options& opts) {
    const ChunkSpans full = chunk_spans<T>(m, n, chunk, a, s_stride, u, v, opts);
    struct Slot {
        OwnedStream stream;  // first member: destroyed last, after the buffers that use it
        DeviceChunk<T> d;
        index_t first = 0, count = 0;
        ChunkSpans sp;
        Slot(const ChunkSpans& f, index_t chunk, bool with_sweeps) : d(f, chunk, with_sweeps, nullptr) {}
        Slot(const Slot&) = delete;
        Slot& operator=(const Slot&) = delete;
        // Work still queued (after an error) ends before its buffers are freed.
        ~Slot() { (void)cudaStreamSynchronize(stream.s); }
    };
    // The device buffers are allocated on the legacy stream, before any chunk runs.
    const bool with_sweeps = opts.sweeps != nullptr;
    Slot slots[2] = {Slot(full, chunk, with_sweeps), Slot(full, chunk, with_sweeps)};
    BATCHSVD_CUDA_CHECK(cudaDeviceSynchronize());
    auto out = [&](Slot& sl) {
        const index_t f = sl.first;
        enqueue_out<T>(sl.count, sl.sp, s + f * s_stride, sl.sp.nu ? u.data + f * u.stride : nullptr,
                       sl.sp.nv ? v.data + f * v.stride : nullptr, info + f,
                       opts.sweeps ? opts.sweeps + f : nullptr, sl.d, sl.stream.s, opts.threads);
    };
    Slot* pending = nullptr;  // the chunk whose outputs are still to be copied out
    for (index_t first = 0, c = 0; first < batch; first += chunk, ++c) {
        Slot& sl = slots[c % 2];
        BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(sl.stream.s));  // its last chunk is out
        sl.first = first;
        sl.count = std::min(chunk, batch - first);
        sl.sp = chunk_spans<T>(m, n, sl.count, a, s_stride, u, v, opts);
        enqueue_in_and_solve<T>(m, n, sl.count, sl.sp, a.data + first * a.stride, s + first * s_stride,
                                sl.sp.nu ? u.data + first * u.stride : nullptr,
                                sl.sp.nv ? v.data + first * v.stride : nullptr, a, s_stride, u, v,
                                sl.d, opts, sl.stream.s);
        if (pending) out(*pending);
        pending = &sl;
    }
    if (pending) out(*pending);
    for (Slot& sl : slots) BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(sl.stream.s));
}

}  // namespace

template <class T>
void gesvd_host(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s,
                index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
                const Options& opts) {
    if (batch <= 0) return;
    const PlanningScope scope(batch);
    const index_t k = std::min(m, n);
    if (k == 0) {
        std::fill(info, info + batch, 0);
        if (opts.sweeps) std::fill(opts.sweeps, opts.sweeps + batch, 0);
        return;
    }
    cudaStream_t stream = static_cast<cudaStream_t>(opts.stream);
    const std::size_t per = host_solve_bytes<T>(m, n, a, s_stride, u, v, opts);
    // Streamed in chunks when the batch does not fit, and also when its copies are large
    // enough to hide behind the solve: at 10^6 x 32 x 32 float64 (24 GB of operands) on the
    // H100, 8 overlapped chunks took 728 ms against 1102 ms in one shot (copy in, solve, copy
    // out) and 650 ms with the batch resident on the device.
    index_t chunk = batch;
    if (matrices_per_chunk(per, batch) < batch) chunk = matrices_per_chunk(2 * per, batch);
    else if (stream_host_batch(double(per) * double(batch), batch, k, is_device_pointer(a.data)))
        chunk = (batch + kStreamChunks - 1) / kStreamChunks;
    if (chunk < batch) {
        BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(stream));  // after the caller's earlier work
        gesvd_host_streamed<T>(m, n, batch, chunk, a, s, s_stride, u, v, info, opts);
        return;
    }
    // BATCHSVD_CUDA_SHARE_LOG=1: the phases of a batch staged at once (diagnostics, phase_log.hpp).
    const bool logging = log_switch("BATCHSVD_CUDA_SHARE_LOG");
    int device = 0;
    if (logging) BATCHSVD_CUDA_CHECK(cudaGetDevice(&device));
    PhaseLog log(logging, logging ? "staged " + std::to_string(batch) + " on device " + std::to_string(device) : std::string());
    const ChunkSpans sp = chunk_spans<T>(m, n, batch, a, s_stride, u, v, opts);
    DeviceChunk<T> d(sp, batch, opts.sweeps != nullptr, stream);
    log.mark("allocated", stream);
    enqueue_in_and_solve<T>(m, n, batch, sp, a.data, s, u.data, v.data, a, s_stride, u, v, d, opts, stream,
                            log.on() ? &log : nullptr);
    log.mark("solved", stream);
    enqueue_out<T>(batch, sp, s, u.data, v.data, info, opts.sweeps, d, stream, opts.threads);
    BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(stream));
    log.mark("copied out", nullptr);
}

template <class T> bool fits_fused_kernel(index_t m, index_t n, bool need_v) {
    return make_fused_plan<T>(m, n, 1, need_v).fits;
}

template <class T> FusedPlanInfo fused_plan_info(index_t m, index_t n, index_t batch, bool need_v) {
    const FusedPlan pl = make_fused_plan<T>(m, n, batch, need_v);
    FusedPlanInfo info;
    info.fits = pl.fits;
    if (!pl.fits) return info;
    info.lanes_per_pair = pl.G;
    info.team_threads = pl.team_threads;
    info.teams_per_block = pl.teams_per_block;
    info.block_threads = int(pl.block);
    info.smem_per_block = pl.smem;
    BATCHSVD_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &info.blocks_per_sm, configured_fused_kernel<T>(pl), int(pl.block), pl.smem));
    return info;
}

template <class T> std::string solve_path(index_t m, index_t n, index_t batch, const Options& opts) {
    if (std::min(m, n) == 0) return "none";
    if (values_by_bidiagonal<T>(m, n, batch, opts))
        return bidiagonal_values_fit<T>(m, n) ? "bidiagonal" : "bidiagonal global";
    const Route r = route<T>(m, n, batch, opts);
    switch (r.path) {
        case Path::qr: return "qr";
        case Path::tiny: return "tiny";
        case Path::warp: return "warp nc" + std::to_string(r.warp.nc) + " rpl" + std::to_string(r.warp.rpl);
        case Path::rows: return "rows nc" + std::to_string(r.rows.nc) + " threads" + std::to_string(r.rows.threads);
        case Path::blocked:
            return "blocked nb" + std::to_string(block_width_for<T>(opts, std::min(m, n), batch)) +
                   (preconditions<T>(m, n, batch, opts) ? " pre" : "");
        case Path::fused: break;
    }
    return "fused G" + std::to_string(r.plan.G) + " team" + std::to_string(r.plan.team_threads) + "x" +
           std::to_string(r.plan.teams_per_block);
}

template <class T> BlockedChoice blocked_choice(index_t m, index_t n, index_t batch, const Options& opts) {
    BlockedChoice c;
    if (std::min(m, n) == 0 || route<T>(m, n, batch, opts).path != Path::blocked) return c;
    c.blocked = true;
    c.nb = block_width_for<T>(opts, std::min(m, n), batch);
    c.precondition = preconditions<T>(m, n, batch, opts);
    return c;
}

template <class T> bool single_pass_path(index_t m, index_t n, index_t batch, const Options& opts) {
    if (std::min(m, n) == 0) return false;
    const Path p = route<T>(m, n, batch, opts).path;
    return p == Path::tiny || p == Path::warp || p == Path::rows || p == Path::fused;
}

template <class T> bool preconditions(index_t m, index_t n, index_t batch, const Options& opts) {
    return use_precondition<T>(std::max(m, n), std::min(m, n), batch, opts);
}

template <class T> index_t largest_fused_square(bool need_v) {
    index_t lo = 1, hi = 2048;  // fits(lo), !fits(hi)
    if (!fits_fused_kernel<T>(1, 1, need_v)) return 0;
    while (hi - lo > 1) {
        const index_t mid = (lo + hi) / 2;
        (fits_fused_kernel<T>(mid, mid, need_v) ? lo : hi) = mid;
    }
    return lo;
}

#define BATCHSVD_CUDA_INSTANTIATE_(T)                                                          \
    template void gesvd_device<T>(index_t, index_t, index_t, MatrixBatch<const T>, real_t<T>*, \
                                  index_t, MatrixBatch<T>, MatrixBatch<T>, int*, const Options&); \
    template void gesvd_host<T>(index_t, index_t, index_t, MatrixBatch<const T>, real_t<T>*,   \
                                index_t, MatrixBatch<T>, MatrixBatch<T>, int*, const Options&); \
    template bool fits_fused_kernel<T>(index_t, index_t, bool);                                \
    template index_t largest_fused_square<T>(bool);                                            \
    template FusedPlanInfo fused_plan_info<T>(index_t, index_t, index_t, bool);                \
    template std::string solve_path<T>(index_t, index_t, index_t, const Options&);             \
    template bool preconditions<T>(index_t, index_t, index_t, const Options&);                \
    template BlockedChoice blocked_choice<T>(index_t, index_t, index_t, const Options&);       \
    template bool single_pass_path<T>(index_t, index_t, index_t, const Options&);             \
    template JacobiParams<device_scalar_t<T>> common_params<T>(index_t, index_t, index_t, MatrixBatch<const T>, \
                                                              real_t<T>*, index_t, MatrixBatch<T>, \
                                                              MatrixBatch<T>, int*, const Options&, bool);
BATCHSVD_CUDA_INSTANTIATE_(float)
BATCHSVD_CUDA_INSTANTIATE_(double)
BATCHSVD_CUDA_INSTANTIATE_(std::complex<float>)
BATCHSVD_CUDA_INSTANTIATE_(std::complex<double>)
#undef BATCHSVD_CUDA_INSTANTIATE_

}  // namespace batchsvd::cuda
