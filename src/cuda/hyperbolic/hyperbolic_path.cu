// SPDX-License-Identifier: BSD-3-Clause
#include "cuda/hyperbolic/hyperbolic_path.hpp"

#include <climits>
#include <cstdlib>

#include "cuda/common/check.hpp"
#include "cuda/common/device_buffer.hpp"
#include "cuda/common/smem_limit.hpp"
#include "cuda/dispatch_rules.hpp"
#include "cuda/fused/fused_launch.cuh"
#include "cuda/fused/fused_plan.hpp"
#include "cuda/hyperbolic/eigh_kernels.cuh"
#include "cuda/hyperbolic/hsvd_blocked_kernels.cuh"
#include "cuda/hyperbolic/hsvd_tiny_kernel.cuh"
#include "cuda/warp/warp_path.hpp"

namespace batchsvd::cuda {

namespace {

template <class T> WarpPlan plan_for(index_t m, index_t n) { return warp_hyperbolic_plan<T>(m, n); }

/// BATCHSVD_CUDA_HSVD_BLOCKED: every shape to the blocked iteration (tests run it on small
/// shapes; read on every call).
bool force_blocked() { return std::getenv("BATCHSVD_CUDA_HSVD_BLOCKED") != nullptr; }

/// The factorisation of every matrix (a warp a matrix, K rows a lane).
template <class DT, int K>
void launch_j_factor(const DT* a, index_t lda, index_t stride_a, int n, index_t batch, const EighWork<DT>& work,
                     cudaStream_t stream) {
    constexpr int warps = factor_warps<K>();
    const index_t blocks = (batch + warps - 1) / warps;
    if (blocks > INT_MAX) throw Error(ErrorCode::invalid_argument, "batchsvd::eigh_indefinite: batch too large");
    const std::size_t smem = factor_smem_bytes<DT, K>();
    if (smem > 48 * 1024) BATCHSVD_CUDA_CHECK(allow_dynamic_smem(&j_factor_kernel<DT, K>, smem));
    j_factor_kernel<DT, K><<<unsigned(blocks), 32 * warps, smem, stream>>>(a, lda, stride_a, n, batch, work);
    BATCHSVD_CUDA_CHECK_LAUNCH("j_factor_kernel");
}

/// Device memory the blocked iteration's workspace may take at once (the batch runs in chunks
/// of as many matrices).
constexpr std::size_t kBlockedWorkspace = std::size_t(1) << 30;

/// The blocked iteration (hsvd_blocked_kernels.cuh) on p's batch, a chunk of matrices at a
/// time (workspace within kBlockedWorkspace, grid.y within 65535). Reads a count back once a
/// sweep.
template <class DT> void run_hyperbolic_blocked(const JacobiParams<DT>& p, cudaStream_t stream) {
    using R = core::real_of_t<DT>;
    const index_t batch = p.batch;
    const int M = p.M, N = p.N;
    const std::size_t per = std::size_t(M) * N + (p.need_vw ? std::size_t(N) * N : 0);
    const index_t chunk = std::max<index_t>(
        1, std::min<index_t>({batch, index_t(65535), index_t(kBlockedWorkspace / (per * sizeof(DT)))}));
    DeviceBuffer<DT> ws(std::size_t(chunk) * per, stream);
    DeviceBuffer<int> source(std::size_t(chunk) * std::size_t(N), stream), active(1, stream);
    DeviceBuffer<HypBlockedState<R>> state(std::size_t(chunk), stream);
    const int nblk = (N + kHypBlock - 1) / kHypBlock;
    const int steps = core::round_robin_steps(nblk), pairs = core::round_robin_pairs(nblk);
    const std::size_t fin_smem = std::size_t(N) * (2 * sizeof(R) + 2 * sizeof(int));
    if (fin_smem > 48 * 1024) BATCHSVD_CUDA_CHECK(allow_dynamic_smem(&hyp_blocked_finalize_kernel<DT>, fin_smem));
    for (index_t b0 = 0; b0 < batch; b0 += chunk) {
        const index_t count = std::min(chunk, batch - b0);
        HypBlockedParams<DT> q{p, ws.get(), per, source.get(), state.get()};
        q.p.a += b0 * p.stride_a;
        q.p.s += b0 * p.s_stride;
        if (q.p.u) q.p.u += b0 * p.stride_u;
        if (q.p.v) q.p.v += b0 * p.stride_v;
        q.p.info += b0;
        if (q.p.sweeps) q.p.sweeps += b0;
        q.p.jsig += b0 * p.jsig_stride;
        if (q.p.jout) q.p.jout += b0 * p.jout_stride;
        q.p.batch = count;
        hyp_blocked_load_kernel<DT><<<unsigned(count), kHypThreads, 0, stream>>>(q);
        BATCHSVD_CUDA_CHECK_LAUNCH("hyp_blocked_load_kernel");
        for (int sweep = 0; sweep < p.max_sweeps; ++sweep) {
            for (int s = 0; s < steps; ++s) {
                hyp_blocked_pair_kernel<DT><<<dim3(unsigned(pairs), unsigned(count)), kHypThreads, 0, stream>>>(q, s);
                BATCHSVD_CUDA_CHECK_LAUNCH("hyp_blocked_pair_kernel");
            }
            BATCHSVD_CUDA_CHECK(cudaMemsetAsync(active.get(), 0, sizeof(int), stream));
            hyp_blocked_sweep_end_kernel<R><<<unsigned((count + 255) / 256), 256, 0, stream>>>(
                state.get(), count, p.max_sweeps, active.get());
            BATCHSVD_CUDA_CHECK_LAUNCH("hyp_blocked_sweep_end_kernel");
            int left = 0;
            BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(&left, active.get(), sizeof(int), cudaMemcpyDeviceToHost, stream));
            BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(stream));
            if (left == 0) break;
        }
        hyp_blocked_finalize_kernel<DT><<<unsigned(count), kHypThreads, fin_smem, stream>>>(q);
        BATCHSVD_CUDA_CHECK_LAUNCH("hyp_blocked_finalize_kernel");
    }
}

/// The tiny kernel's hyperbolic form on p's batch (m rows, m <= kTinyMax): register arrays of
/// the matrix's own order, as the SVD's tiny kernel.
template <class DT> void launch_tiny_hyperbolic(index_t m, const JacobiParams<DT>& p, cudaStream_t stream) {
    const index_t blocks = (p.batch + kTinyThreads - 1) / kTinyThreads;
    if (blocks > INT_MAX) throw Error(ErrorCode::invalid_argument, "batchsvd::hsvd: batch too large for one launch");
    const auto kernel = m > 3 ? &hsvd_tiny_kernel<DT, kTinyMax> : m == 3 ? &hsvd_tiny_kernel<DT, 3> : &hsvd_tiny_kernel<DT, 2>;
    kernel<<<unsigned(blocks), kTinyThreads, 0, stream>>>(p);
    BATCHSVD_CUDA_CHECK_LAUNCH("hsvd_tiny_kernel");
}

/// The fused kernel's hyperbolic form on p's batch (p.layout and the team set from pl).
template <class DT> void launch_fused_hyperbolic(const FusedPlan& pl, JacobiParams<DT> p, cudaStream_t stream) {
    p.G = pl.G;
    p.P = pl.P;
    p.team_threads = pl.team_threads;
    p.teams_per_block = pl.teams_per_block;
    p.layout = pl.layout;
    const auto kernel = configured_fused_kernel<DT, true>(pl);
    kernel<<<pl.grid, pl.block, pl.smem, stream>>>(p);
    BATCHSVD_CUDA_CHECK_LAUNCH("jacobi_block_per_matrix_kernel (hyperbolic)");
}

}  // namespace

// (The blocked iteration takes every shape; the limit keeps the kernels' index sums in int.)
template <class T> bool hsvd_on_device(index_t m, index_t n) { return m >= n && m * n <= (index_t(1) << 30); }

template <class T>
void hsvd_device(index_t m, index_t n, index_t batch, MatrixBatch<const T> g, SignatureBatch j, real_t<T>* s,
                 index_t s_stride, int* j_out, index_t j_out_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
                 const Options& opts) {
    cudaStream_t stream = static_cast<cudaStream_t>(opts.stream);
    if (batch <= 0) return;
    if (n == 0) {
        BATCHSVD_CUDA_CHECK(cudaMemsetAsync(info, 0, std::size_t(batch) * sizeof(int), stream));
        if (opts.sweeps) BATCHSVD_CUDA_CHECK(cudaMemsetAsync(opts.sweeps, 0, std::size_t(batch) * sizeof(int), stream));
        return;
    }
    auto p = common_params<T>(m, n, batch, g, s, s_stride, u, v, info, opts, opts.compute_v);
    p.jsig = j.data;
    p.jsig_stride = j.stride;
    p.jout = j_out;
    p.jout_stride = j_out_stride;
    const bool blocked = force_blocked();
    using DT = device_scalar_t<T>;
    if (m <= tiny_max_order() && !blocked) return launch_tiny_hyperbolic<DT>(m, p, stream);
    const WarpPlan wp = plan_for<T>(m, n);
    if (wp.fits && !blocked) {
        launch_warp_hyperbolic<T>(wp, p, stream);
        return;
    }
    // The fused kernel's hyperbolic form, on the SVD's plan for the shape, where it fits in
    // shared memory with V_W (planned with V_W even when V is not asked for, so that values
    // alone take the same path and give the same bits); else the blocked iteration.
    const FusedPlan pl = make_fused_plan<T>(m, n, batch, true);
    if (pl.fits && !blocked) return launch_fused_hyperbolic<DT>(pl, p, stream);
    run_hyperbolic_blocked<DT>(p, stream);
}

template <class T> bool eigh_indefinite_on_device(index_t n) { return n <= kFactorMaxOrder && hsvd_on_device<T>(n, n); }

template <class T>
std::vector<index_t> eigh_indefinite_device(index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* w,
                                            index_t w_stride, MatrixBatch<T> z, int* info, const Options& opts) {
    using DT = device_scalar_t<T>;
    using R = real_t<T>;
    cudaStream_t stream = static_cast<cudaStream_t>(opts.stream);
    if (batch <= 0) return {};
    if (n == 0) {
        BATCHSVD_CUDA_CHECK(cudaMemsetAsync(info, 0, std::size_t(batch) * sizeof(int), stream));
        if (opts.sweeps) BATCHSVD_CUDA_CHECK(cudaMemsetAsync(opts.sweeps, 0, std::size_t(batch) * sizeof(int), stream));
        return {};
    }
    const bool want_z = opts.compute_u;
    const std::size_t B = std::size_t(batch), nn = std::size_t(n) * std::size_t(n);
    DeviceBuffer<DT> g(B * nn, stream), uu(want_z ? B * nn : 0, stream);
    DeviceBuffer<int> ints(B * (2 * std::size_t(n) + 3), stream);
    DeviceBuffer<R> sigma(B * std::size_t(n), stream);
    EighWork<DT> work{};
    work.g = g.get();
    work.j = ints.get();
    work.jout = ints.get() + B * std::size_t(n);
    work.state = ints.get() + 2 * B * std::size_t(n);
    work.scale = work.state + B;
    work.hinfo = work.scale + B;
    work.sigma = sigma.get();
    work.u = uu.get();
    constexpr int threads = 128;
    const bool wide = n > 32;  // two rows a lane
    const DT* da = reinterpret_cast<const DT*>(a.data);
    if (wide) launch_j_factor<DT, 2>(da, a.ld, a.stride, int(n), batch, work, stream);
    else launch_j_factor<DT, 1>(da, a.ld, a.stride, int(n), batch, work, stream);
    // The HSVD of every G (the singular and zero ones too: the assembly ignores them).
    Options o = opts;
    o.compute_u = want_z;
    o.compute_v = false;
    hsvd_device<T>(n, n, batch, MatrixBatch<const T>{reinterpret_cast<const T*>(work.g), n, n * n},
                   SignatureBatch{work.j, n}, work.sigma, n, work.jout, n,
                   MatrixBatch<T>{reinterpret_cast<T*>(work.u), n, n * n}, MatrixBatch<T>{}, work.hinfo, o);
    const index_t warps_blocks = (batch * 32 + threads - 1) / threads;
    if (warps_blocks > INT_MAX) throw Error(ErrorCode::invalid_argument, "batchsvd::eigh_indefinite: batch too large");
    const auto assemble = wide ? &eigh_assemble_kernel<DT, 2> : &eigh_assemble_kernel<DT, 1>;
    assemble<<<unsigned(warps_blocks), threads, 0, stream>>>(int(n), batch, work, w, w_stride,
                                                             want_z ? reinterpret_cast<DT*>(z.data) : nullptr, z.ld,
                                                             z.stride, info, opts.sweeps);
    BATCHSVD_CUDA_CHECK_LAUNCH("eigh_assemble_kernel");
    std::vector<int> state(B);
    BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(state.data(), work.state, B * sizeof(int), cudaMemcpyDeviceToHost, stream));
    BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<index_t> left;
    for (index_t b = 0; b < batch; ++b)
        if (state[std::size_t(b)] == eigh_singular) left.push_back(b);
    return left;
}

std::vector<int> signatures_to_host(const int* j, index_t count, const Options& opts) {
    cudaStream_t stream = static_cast<cudaStream_t>(opts.stream);
    std::vector<int> h(std::size_t(count > 0 ? count : 0));
    if (count > 0) {
        BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(h.data(), j, h.size() * sizeof(int), cudaMemcpyDeviceToHost, stream));
        BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    return h;
}

#define BATCHSVD_HYPERBOLIC_INSTANTIATE_(T)                                                                          \
    template bool hsvd_on_device<T>(index_t, index_t);                                                               \
    template void hsvd_device<T>(index_t, index_t, index_t, MatrixBatch<const T>, SignatureBatch, real_t<T>*,       \
                                 index_t, int*, index_t, MatrixBatch<T>, MatrixBatch<T>, int*, const Options&);     \
    template bool eigh_indefinite_on_device<T>(index_t);                                                             \
    template std::vector<index_t> eigh_indefinite_device<T>(index_t, index_t, MatrixBatch<const T>, real_t<T>*,     \
                                                            index_t, MatrixBatch<T>, int*, const Options&);
BATCHSVD_HYPERBOLIC_INSTANTIATE_(float)
BATCHSVD_HYPERBOLIC_INSTANTIATE_(double)
BATCHSVD_HYPERBOLIC_INSTANTIATE_(std::complex<float>)
BATCHSVD_HYPERBOLIC_INSTANTIATE_(std::complex<double>)
#undef BATCHSVD_HYPERBOLIC_INSTANTIATE_

}  // namespace batchsvd::cuda
