// CUDA backend: launches the tiny-matrix kernel (tiny_kernel.cuh, max(m, n) <= 4), or plans
// and launches the fused shared-memory Jacobi kernel (jacobi_kernel.cuh), or, for matrices
// that do not fit in one block's shared memory (or when Options::variant is blocked), runs the
// blocked path (blocked_path.cu); host data is staged through device memory.
#include "cuda/svd_cuda.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <vector>

#include "cuda/blocked_path.hpp"
#include "cuda/check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/fused_plan.hpp"
#include "cuda/jacobi_kernel.cuh"
#include "cuda/qr_path.hpp"
#include "cuda/tiny_kernel.cuh"

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

int pow2_ceil(index_t x) {
    int p = 1;
    while (p < x && p < (1 << 30)) p <<= 1;
    return p;
}
int pow2_floor(int x) {
    int p = 1;
    while (p * 2 <= x) p <<= 1;
    return p;
}

/// Lanes per column pair forced through the environment (tuning and benchmarking only).
int lanes_override() {
    static const int v = [] {
        const char* s = std::getenv("BATCHSVD_CUDA_LANES");
        if (!s) return 0;
        const int x = std::atoi(s);
        return (x >= 1 && x <= 32 && (x & (x - 1)) == 0) ? x : 0;
    }();
    return v;
}

/// Elements of one strided operand: from the first element of matrix 0 to the last of the
/// last matrix.
index_t span(index_t ld, index_t stride, index_t rows, index_t cols, index_t batch) {
    if (rows == 0 || cols == 0 || batch == 0) return 0;
    return (batch - 1) * stride + (cols - 1) * ld + rows;
}
bool packed(index_t ld, index_t stride, index_t rows, index_t cols, index_t batch) {
    return ld == rows && (batch == 1 || stride == rows * cols);
}

struct Plan {
    bool fits = false;
    int M = 0, N = 0, G = 0, P = 0, team_threads = 0, teams_per_block = 0;
    TeamLayout layout;
    unsigned grid = 0, block = 0;
    std::size_t smem = 0;
    /// Kernel variant: <= kSmallThreads threads per block with E = 4 register rows per lane
    /// (registers capped for occupancy) or E = 8 (for long columns per lane), else large.
    enum class Variant { small4, small8, large } variant = Variant::large;
};

/// Launch bounds of the two kernel variants.
constexpr int kSmallThreads = 128;
/// Blocks per SM the small E = 4 variant is compiled for (registers <= 65536 / (128 * this)): as many
/// as fit without spilling the sweep loop, by the compiler's resource report.
template <class DT> constexpr int small_min_blocks() {
    if constexpr (core::is_complex_v<DT>) return sizeof(core::real_of_t<DT>) == 8 ? 4 : 6;
    else return sizeof(DT) == 8 ? 5 : 8;
}
constexpr int kLargeThreads = 512;

/// Forces the large variant (tuning and benchmarking only).
bool force_large() {
    static const bool v = std::getenv("BATCHSVD_CUDA_LARGE") != nullptr;
    return v;
}

template <class T>
Plan make_plan(index_t m, index_t n, index_t batch, bool need_vw) {
    using DT = device_scalar_t<T>;
    using R = real_t<T>;
    Plan pl;
    const index_t M = std::max(m, n), N = std::min(m, n);
    if (M > (1 << 24) || M * N > (index_t(1) << 30)) return pl;  // far beyond shared memory
    pl.M = int(M);
    pl.N = int(N);
    pl.P = core::round_robin_pairs(pl.N);
    if (pl.P > 1024) return pl;
    // Lanes per column pair, measured on an H100 (bench/results/h100/lanes.log and
    // lanes8.log): real types run fastest with 1 lane up to 8 rows (16 in float64), 2 lanes up
    // to 32 rows (more rows per lane: fewer redundant rotation computations and shuffles) and
    // 8 lanes above; complex ones (4x the flops per row) with 4 rows per lane. The cap of 512
    // threads per team applies after this.
    int G;
    if constexpr (core::is_complex_v<DT>) G = pow2_ceil((M + 3) / 4);
    else G = M <= (sizeof(DT) == 8 ? 16 : 8) ? 1 : M <= 32 ? 2 : 8;
    G = std::min(G, 32);
    if (lanes_override()) G = lanes_override();
    if (pl.P > kLargeThreads) return pl;
    G = std::min(G, pow2_floor(kLargeThreads / pl.P));
    pl.G = G;
    const int raw = pl.P * G;
    if (raw <= 32) {
        pl.team_threads = pow2_ceil(raw);
        pl.teams_per_block = 128 / pl.team_threads;
    } else {
        pl.team_threads = (raw + 31) / 32 * 32;
        pl.teams_per_block = 1;
    }
    pl.layout = team_layout(pl.M, pl.N, need_vw, sizeof(DT), sizeof(R));

    int dev = 0, optin = 0, per_sm = 0;
    BATCHSVD_CUDA_CHECK(cudaGetDevice(&dev));
    BATCHSVD_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    BATCHSVD_CUDA_CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    if (pl.layout.bytes > std::size_t(optin)) return pl;
    // Teams packed into one block share its shared memory: keep a block to a quarter of an
    // SM's, so that blocks, not just teams, fill the SM without leaving much unused.
    const index_t pack = std::max<index_t>(1, index_t(per_sm / 4) / index_t(pl.layout.bytes));
    pl.teams_per_block = int(std::min<index_t>(
        {index_t(pl.teams_per_block), pack, index_t(optin / pl.layout.bytes), batch}));
    pl.teams_per_block = std::max(1, pl.teams_per_block);
    const index_t blocks = (batch + pl.teams_per_block - 1) / pl.teams_per_block;
    if (blocks > INT_MAX) return pl;
    pl.grid = unsigned(blocks);
    pl.block = unsigned(pl.team_threads * pl.teams_per_block);
    pl.smem = pl.layout.bytes * pl.teams_per_block;
    const int rows_per_lane = (pl.M + G - 1) / G;
    if (pl.block > kSmallThreads || force_large()) pl.variant = Plan::Variant::large;
    else pl.variant = rows_per_lane > 4 ? Plan::Variant::small8 : Plan::Variant::small4;
    pl.fits = true;
    return pl;
}

/// The kernel variant of a plan, with its shared-memory attributes set: the dynamic limit
/// raised past 48 KB where needed, and the largest carveout preferred, so that as many
/// matrices as fit share an SM (left to the driver, the carveout can hold one block).
template <class T> auto configured_kernel(const Plan& pl) {
    using DT = device_scalar_t<T>;
    const auto kernel =
        pl.variant == Plan::Variant::small4
            ? &jacobi_block_per_matrix_kernel<DT, kSmallThreads, small_min_blocks<DT>(), 4>
        : pl.variant == Plan::Variant::small8 ? &jacobi_block_per_matrix_kernel<DT, kSmallThreads, 3, 8>
                                              : &jacobi_block_per_matrix_kernel<DT, kLargeThreads, 1, 8>;
    if (pl.smem > 48 * 1024)
        BATCHSVD_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                 int(pl.smem)));
    BATCHSVD_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                             int(cudaSharedmemCarveoutMaxShared)));
    return kernel;
}

/// Kernel parameters common to the fused and the tiny kernel (the team fields are the fused
/// kernel's, filled by launch_fused).
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
    p.batch = batch;
    p.m = int(m);
    p.n = int(n);
    p.M = int(std::max(m, n));
    p.N = int(std::min(m, n));
    p.transpose = m < n;
    p.compute_u = opts.compute_u;
    p.compute_v = opts.compute_v;
    p.need_vw = need_vw;
    // The same threshold as the CPU backend, on the working matrix's column length.
    p.tol = core::convergence_tolerance<R>(opts.tol_factor, p.M);
    p.max_sweeps = opts.max_sweeps;
    return p;
}

/// The tiny kernel is used up to kTinyMax rows and columns, unless the environment turns it
/// off (benchmarking the fused kernel on the same sizes).
bool use_tiny(index_t m, index_t n) { return std::max(m, n) <= tiny_max_order(); }

template <class T>
void launch_tiny(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s,
                 index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
                 const Options& opts, bool need_vw, cudaStream_t stream) {
    using DT = device_scalar_t<T>;
    const auto p = common_params<T>(m, n, batch, a, s, s_stride, u, v, info, opts, need_vw);
    const index_t blocks = (batch + kTinyThreads - 1) / kTinyThreads;
    if (blocks > INT_MAX)
        throw Error(ErrorCode::invalid_argument, "batchsvd::gesvd: batch too large for one launch");
    tiny_jacobi_kernel<DT><<<unsigned(blocks), kTinyThreads, tiny_smem_bytes<DT>(), stream>>>(p);
    BATCHSVD_CUDA_CHECK_LAUNCH("tiny_jacobi_kernel");
}

template <class T>
void launch_fused(const Plan& pl, index_t m, index_t n, index_t batch, MatrixBatch<const T> a,
                  real_t<T>* s, index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
                  const Options& opts, bool need_vw, cudaStream_t stream) {
    auto p = common_params<T>(m, n, batch, a, s, s_stride, u, v, info, opts, need_vw);
    p.G = pl.G;
    p.P = pl.P;
    p.team_threads = pl.team_threads;
    p.teams_per_block = pl.teams_per_block;
    p.layout = pl.layout;
    const auto kernel = configured_kernel<T>(pl);
    kernel<<<pl.grid, pl.block, pl.smem, stream>>>(p);
    BATCHSVD_CUDA_CHECK_LAUNCH("jacobi_block_per_matrix_kernel");
}

/// The blocked path (blocked_kernels.cuh) for matrices the fused kernel cannot hold.
template <class T>
void launch_blocked(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s,
                    index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
                    const Options& opts, bool need_vw, cudaStream_t stream) {
    if (std::max(m, n) > INT_MAX / 2 || std::min(m, n) > (1 << 20))
        throw Error(ErrorCode::invalid_argument, "batchsvd::gesvd: matrix too large for the CUDA backend");
    const auto p = common_params<T>(m, n, batch, a, s, s_stride, u, v, info, opts, need_vw);
    run_blocked(p, blocked_block_width(opts.block_width), stream);
}

}  // namespace

template <class T>
void gesvd_device(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s,
                  index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
                  const Options& opts) {
    if (batch <= 0) return;
    cudaStream_t stream = static_cast<cudaStream_t>(opts.stream);
    if (std::min(m, n) == 0) {  // nothing to decompose: every matrix "converged"
        BATCHSVD_CUDA_CHECK(cudaMemsetAsync(info, 0, batch * sizeof(int), stream));
        return;
    }
    const bool tall = m >= n;
    const bool need_vw = tall ? opts.compute_v : opts.compute_u;
    if (opts.qr == QrMode::always) {  // QR pre-processing, then the SVD of R (qr_path.cu)
        const auto p = common_params<T>(m, n, batch, a, s, s_stride, u, v, info, opts, need_vw);
        run_qr<T>(p, batch, s, s_stride, u, v, info, opts, stream);
        return;
    }
    if (use_tiny(m, n)) {
        launch_tiny<T>(m, n, batch, a, s, s_stride, u, v, info, opts, need_vw, stream);
        return;
    }
    const Plan pl = make_plan<T>(m, n, batch, need_vw);
    if (!pl.fits || opts.variant == JacobiVariant::blocked) {
        launch_blocked<T>(m, n, batch, a, s, s_stride, u, v, info, opts, need_vw, stream);
        return;
    }
    launch_fused<T>(pl, m, n, batch, a, s, s_stride, u, v, info, opts, need_vw, stream);
}

template <class T>
void gesvd_host(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s,
                index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
                const Options& opts) {
    using R = real_t<T>;
    if (batch <= 0) return;
    const index_t k = std::min(m, n);
    if (k == 0) {
        std::fill(info, info + batch, 0);
        return;
    }
    cudaStream_t stream = static_cast<cudaStream_t>(opts.stream);
    const index_t na = span(a.ld, a.stride, m, n, batch);
    const index_t ns = span(1, s_stride, k, 1, batch);
    const index_t nu = opts.compute_u ? span(u.ld, u.stride, m, k, batch) : 0;
    const index_t nv = opts.compute_v ? span(v.ld, v.stride, n, k, batch) : 0;
    DeviceBuffer<T> da(na, stream), du(nu, stream), dv(nv, stream);
    DeviceBuffer<R> ds(ns, stream);
    DeviceBuffer<int> dinfo(batch, stream);
    BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(da.get(), a.data, na * sizeof(T), cudaMemcpyHostToDevice, stream));
    // Outputs with gaps between their matrices are copied in first, so that the gaps survive.
    if (ns && !(s_stride == k || batch == 1))
        BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(ds.get(), s, ns * sizeof(R), cudaMemcpyHostToDevice, stream));
    if (nu && !packed(u.ld, u.stride, m, k, batch))
        BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(du.get(), u.data, nu * sizeof(T), cudaMemcpyHostToDevice, stream));
    if (nv && !packed(v.ld, v.stride, n, k, batch))
        BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(dv.get(), v.data, nv * sizeof(T), cudaMemcpyHostToDevice, stream));
    Options o = opts;
    gesvd_device<T>(m, n, batch, MatrixBatch<const T>{da.get(), a.ld, a.stride}, ds.get(), s_stride,
                    MatrixBatch<T>{du.get(), u.ld, u.stride}, MatrixBatch<T>{dv.get(), v.ld, v.stride},
                    dinfo.get(), o);
    BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(s, ds.get(), ns * sizeof(R), cudaMemcpyDeviceToHost, stream));
    if (nu) BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(u.data, du.get(), nu * sizeof(T), cudaMemcpyDeviceToHost, stream));
    if (nv) BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(v.data, dv.get(), nv * sizeof(T), cudaMemcpyDeviceToHost, stream));
    BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(info, dinfo.get(), batch * sizeof(int), cudaMemcpyDeviceToHost, stream));
    BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template <class T> bool fits_fused_kernel(index_t m, index_t n, bool need_v) {
    return make_plan<T>(m, n, 1, need_v).fits;
}

template <class T> FusedPlanInfo fused_plan_info(index_t m, index_t n, index_t batch, bool need_v) {
    const Plan pl = make_plan<T>(m, n, batch, need_v);
    FusedPlanInfo info;
    info.fits = pl.fits;
    if (!pl.fits) return info;
    info.lanes_per_pair = pl.G;
    info.team_threads = pl.team_threads;
    info.teams_per_block = pl.teams_per_block;
    info.block_threads = int(pl.block);
    info.smem_per_block = pl.smem;
    BATCHSVD_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &info.blocks_per_sm, configured_kernel<T>(pl), int(pl.block), pl.smem));
    return info;
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
    template FusedPlanInfo fused_plan_info<T>(index_t, index_t, index_t, bool);
BATCHSVD_CUDA_INSTANTIATE_(float)
BATCHSVD_CUDA_INSTANTIATE_(double)
BATCHSVD_CUDA_INSTANTIATE_(std::complex<float>)
BATCHSVD_CUDA_INSTANTIATE_(std::complex<double>)
#undef BATCHSVD_CUDA_INSTANTIATE_

}  // namespace batchsvd::cuda
