// SPDX-License-Identifier: BSD-3-Clause
// Host driver of the blocked CUDA path: workspace, the scan/load passes, the preconditioning
// when asked (precondition.cu), one launch per round-robin step, a convergence check per
// sweep, and the finalisation (BlockedSolve); a large preconditioned batch as two halves on
// two streams, their sweeps interleaved (run_blocked; dispatch.cu's blocked_halves decides).
#include "cuda/blocked/blocked_path.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "cuda/blocked/blocked_kernels.cuh"
#include "cuda/common/check.hpp"
#include "cuda/common/device_attribute.hpp"
#include "cuda/common/device_buffer.hpp"
#include "cuda/blocked/lagged_count.hpp"
#include "cuda/common/library_handles.hpp"
#include "cuda/common/owned_stream.hpp"
#include "cuda/precondition/precondition.hpp"
#include "cuda/common/smem_limit.hpp"

namespace batchsvd::cuda {

__global__ void blocked_sweep_end_kernel(BlockedState* state, index_t batch, int max_sweeps,
                                         int* active_count) {
    const index_t b = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (b >= batch) return;
    BlockedState& s = state[b];
    if (!s.active) return;
    s.sweeps += 1;
    if (!s.rotated) {
        s.active = 0;
        s.converged = 1;
    } else if (s.sweeps >= max_sweeps) {
        s.active = 0;
    }
    s.rotated = 0;
    if (s.active) atomicAdd(active_count, 1);
}

int blocked_block_width(int requested) { return requested > 16 ? 32 : 16; }

namespace {

constexpr unsigned kMaxGridY = 65535;  ///< grid.y limit: larger batches loop over it

/// Elements per matrix of run_blocked's workspace buffers.
struct BlockedCounts {
    std::size_t w, v, norms, ints, scratch;
};
BlockedCounts blocked_counts(index_t M, index_t N, bool need_vw) {
    return {std::size_t(M * N), need_vw ? std::size_t(N * N) : 0, std::size_t(N + 1),
            std::size_t(2 * N + 8), std::size_t(N)};
}

/// BATCHSVD_CUDA_BLOCKED_SKIP=0 turns the skipping of pairs known to be converged off
/// (benchmarks compare the skipping with its absence).
bool skip_converged_pairs() {
    const char* v = std::getenv("BATCHSVD_CUDA_BLOCKED_SKIP");
    return !(v && std::string(v) == "0");
}

}  // namespace

std::size_t blocked_workspace_bytes(index_t M, index_t N, bool need_vw, std::size_t tsize,
                                    std::size_t rsize) {
    const BlockedCounts c = blocked_counts(M, N, need_vw);
    const std::size_t stamps = std::size_t((N + 15) / 16);  // BlockedParams::block_stamp, at the narrower width
    return (c.w + c.v + c.scratch) * tsize + c.norms * rsize + (c.ints + stamps) * sizeof(int) +
           sizeof(BlockedState);
}

template <class DT> void load_working_matrices(const BlockedParams<DT>& p, cudaStream_t stream) {
    const index_t M = p.out.M, N = p.out.N, batch = p.out.batch;
    // Enough blocks per matrix to fill the GPU when the batch is small.
    const unsigned gy = unsigned(std::min<index_t>(batch, kMaxGridY));
    const index_t per_block = index_t(kBlockedThreads) * 8;
    const index_t want = std::max<index_t>(1, 1024 / std::max<index_t>(batch, 1));
    const unsigned gx = unsigned(std::clamp<index_t>((M * N + per_block - 1) / per_block, 1, want));
    blocked_scan_kernel<DT><<<dim3(gx, gy), kBlockedThreads, 0, stream>>>(p);
    BATCHSVD_CUDA_CHECK_LAUNCH("blocked_scan_kernel");
    blocked_load_kernel<DT><<<dim3(gx, gy), kBlockedThreads, 0, stream>>>(p);
    BATCHSVD_CUDA_CHECK_LAUNCH("blocked_load_kernel");
}

namespace {

/// BATCHSVD_CUDA_BLOCKED_PHASES (benchmarking only: the results are wrong): "none", "gram" or
/// "eigen" make the pair kernel stop after that part, so that timing one sweep of each gives
/// the time of the Gram, eigensolver and update parts (bench/gpu_bench.cu --breakdown).
int blocked_phases_from_env() {
    const char* v = std::getenv("BATCHSVD_CUDA_BLOCKED_PHASES");
    if (!v) return kBlockedAllPhases;
    const std::string s(v);
    return s == "none" ? 0 : s == "gram" ? 1 : s == "eigen" ? 3 : kBlockedAllPhases;
}

/// BATCHSVD_CUDA_SWEEP_LOG=1 (diagnostics, for benchmarks: it waits for every sweep): after
/// each sweep, one line on stderr with the block pairs whose Gram matrix was formed, those that
/// rotated (where the pair kernel counts them: kBlockedPairRecords, not float64), and the
/// matrices still iterating.
class SweepLog {
public:
    SweepLog(cudaStream_t stream, bool pairs_counted) : stream_(stream) {
        const char* v = std::getenv("BATCHSVD_CUDA_SWEEP_LOG");
        on_ = v && std::string(v) == "1";
        if (!on_ || !pairs_counted) return;
        buffer_ = DeviceBuffer<int>(2, stream);
        BATCHSVD_CUDA_CHECK(cudaMemsetAsync(buffer_.get(), 0, 2 * sizeof(int), stream));
    }
    int* counters() const { return buffer_.get(); }
    void print(int sweep, index_t pairs, const int* active) {
        if (!on_) return;
        int host[3] = {0, 0, 0};
        if (buffer_.get())
            BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(host, buffer_.get(), 2 * sizeof(int), cudaMemcpyDeviceToHost, stream_));
        BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(host + 2, active, sizeof(int), cudaMemcpyDeviceToHost, stream_));
        BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(stream_));
        if (!buffer_.get()) {
            std::fprintf(stderr, "blocked sweep %d: pairs not counted, matrices still iterating %d\n", sweep + 1, host[2]);
            return;
        }
        BATCHSVD_CUDA_CHECK(cudaMemsetAsync(buffer_.get(), 0, 2 * sizeof(int), stream_));
        std::fprintf(stderr, "blocked sweep %d: pairs formed %d rotated %d of %lld, matrices still iterating %d\n",
                     sweep + 1, host[0], host[1], static_cast<long long>(pairs), host[2]);
    }

private:
    cudaStream_t stream_;
    bool on_ = false;
    DeviceBuffer<int> buffer_;
};

/// Blocks that share one block pair (BlockedParams::split): 1, or while the doubled count of
/// blocks still fits the device at once (the pair kernel's occupancy) and leaves each block at
/// least 128 rows, up to the portable cluster size 8. One float64 4096^2 matrix (64 pairs of
/// 32 columns, 3 blocks an SM) gets 4, one 1024^2 (16 columns) or 2048^2 (32) gets 8, batches
/// of hundreds 1. Measured on the H100 (2026-11-25): one float64 4096^2 with 32 columns in
/// 1659, 1536 and 1703 ms at 2, 4 and 8; one 1024^2 with 16 columns in 75.8, 55.8 and 51.8 ms
/// at 1, 2 and 8, one 2048^2 in 453, 323 and 325 ms.
/// BATCHSVD_CUDA_BLOCKED_SPLIT = 1, 2, 4 or 8 sets it (benchmarks).
template <class K> int blocked_split(K kernel, std::size_t smem, unsigned pairs, unsigned gy, index_t M) {
    if (const char* v = std::getenv("BATCHSVD_CUDA_BLOCKED_SPLIT")) {
        const int s = std::atoi(v);
        if (s == 1 || s == 2 || s == 4 || s == 8) return s;
    }
    int per_sm = 0;
    BATCHSVD_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kBlockedThreads, smem));
    const index_t slots = index_t(per_sm) * device_attribute(cudaDevAttrMultiProcessorCount);
    int split = 1;
    while (split < 8 && index_t(pairs) * gy * (2 * split) <= slots && M >= index_t(128) * (2 * split)) split *= 2;
    return split;
}

/// The pair kernel for a split pair (Batch = false) or a batch that fills the device alone
/// (blocked_pair_min_blocks).
template <class DT, int NB, bool Batch> auto configured_pair_kernel(std::size_t smem) {
    const auto kernel = [] {  // only the variant in use is instantiated (as in warp_path.cu)
        constexpr int min_blocks = blocked_pair_min_blocks<DT, NB, Batch>();
        if constexpr (min_blocks > 0) return &blocked_pair_kernel_capped<DT, NB, min_blocks>;
        else return &blocked_pair_kernel<DT, NB>;
    }();
    if (smem > 48 * 1024)
        BATCHSVD_CUDA_CHECK(allow_dynamic_smem(kernel, smem));
    return kernel;
}

}  // namespace

namespace {

/// One blocked solve, stepped by its caller one sweep at a time (run_blocked runs one; the
/// sliced driver interleaves two). The constructor allocates the workspace and enqueues the
/// scan, load and preconditioning; advance() enqueues the next sweep and, from the second,
/// waits for the previous sweep's count of matrices still iterating (lagged_count.hpp); then
/// finish() enqueues the finalisation. The destructor waits for the last count's copy.
template <class DT> class BlockedSolve {
    using R = core::real_of_t<DT>;

public:
    BlockedSolve(const JacobiParams<DT>& q, int nb, bool precondition, cudaStream_t stream, int count_slot)
        : stream_(stream), max_sweeps_(q.max_sweeps) {
        const index_t M = q.M, N = q.N, batch = q.batch;
        if (nb != 16 && nb != 32)
            throw Error(ErrorCode::invalid_argument, "batchsvd CUDA backend: blocked path block width must be 16 or 32");
        const BlockedCounts c = blocked_counts(M, N, q.need_vw);
        w_ = DeviceBuffer<DT>(batch * c.w, stream);
        v_ = DeviceBuffer<DT>(batch * c.v, stream);
        state_ = DeviceBuffer<BlockedState>(batch, stream);
        norms_ = DeviceBuffer<R>(batch * c.norms, stream);
        ints_ = DeviceBuffer<int>(batch * c.ints, stream);
        scratch_ = DeviceBuffer<DT>(batch * c.scratch, stream);
        BATCHSVD_CUDA_CHECK(cudaMemsetAsync(state_.get(), 0, batch * sizeof(BlockedState), stream));

        BlockedParams<DT>& p = p_;
        p.out = q;
        p.W = w_.get();
        p.V = v_.get();
        p.state = state_.get();
        p.norms = norms_.get();
        p.ints = ints_.get();
        p.scratch = scratch_.get();
        p.nb = nb;
        p.nblk = int((N + nb - 1) / nb);
        p.v_rows = int(N);
        p.phases = blocked_phases_from_env();
        // The skipping's stamps, -1 (every byte 0xff) at the start. Not in float64
        // (kBlockedPairRecords), not when timing a sweep's parts, nor with two blocks (their
        // one pair's check is the matrix's).
        if (kBlockedPairRecords<DT> && skip_converged_pairs() && p.phases == kBlockedAllPhases && p.nblk > 2) {
            const std::size_t count = std::size_t(batch) * std::size_t(p.nblk);
            stamps_ = DeviceBuffer<int>(count, stream);
            BATCHSVD_CUDA_CHECK(cudaMemsetAsync(stamps_.get(), 0xff, count * sizeof(int), stream));
            p.block_stamp = stamps_.get();
        }

        load_working_matrices(p, stream);
        if (precondition) {
            handles_.emplace(stream);
            precondition_working_matrices(p, w_, handles_->get(), stream);
        }
        const unsigned gy = unsigned(std::min<index_t>(batch, kMaxGridY));

        const std::size_t smem = blocked_pair_smem<DT>(nb);
        const auto split_kernel =
            nb == 16 ? configured_pair_kernel<DT, 16, false>(smem) : configured_pair_kernel<DT, 32, false>(smem);
        steps_ = core::round_robin_steps(p.nblk);
        pairs_ = unsigned(core::round_robin_pairs(p.nblk));
        p.split = blocked_split(split_kernel, smem, pairs_, gy, M);
        pair_kernel_ = p.split > 1 ? split_kernel
                       : nb == 16  ? configured_pair_kernel<DT, 16, true>(smem)
                                   : configured_pair_kernel<DT, 32, true>(smem);
        cluster_.id = cudaLaunchAttributeClusterDimension;
        cluster_.val.clusterDim.x = unsigned(p.split);
        cluster_.val.clusterDim.y = 1;
        cluster_.val.clusterDim.z = 1;
        config_.gridDim = dim3(pairs_ * unsigned(p.split), gy);
        config_.blockDim = dim3(kBlockedThreads);
        config_.dynamicSmemBytes = smem;
        config_.stream = stream;
        config_.attrs = &cluster_;
        config_.numAttrs = p.split > 1 ? 1 : 0;  // a plain launch when a pair has one block
        still_.emplace(stream, count_slot);
        log_.emplace(stream, kBlockedPairRecords<DT>);
        p.pair_log = log_->counters();
    }
    BlockedSolve(const BlockedSolve&) = delete;
    BlockedSolve& operator=(const BlockedSolve&) = delete;

    /// Enqueues sweep s + 1 before waiting for sweep s's count, so that the device does not
    /// idle while the host decides; when the count says that every matrix has stopped, the
    /// sweep already enqueued finds them all masked (its blocks return at once) and its end
    /// counts nothing. Returns whether another sweep is wanted.
    bool advance() {
        if (sweep_ >= max_sweeps_) return false;
        const int sweep = sweep_++;
        const index_t batch = p_.out.batch;
        p_.stamp_base = sweep * steps_;
        for (int step = 0; step < steps_; ++step) {
            BATCHSVD_CUDA_CHECK(cudaLaunchKernelEx(&config_, pair_kernel_, p_, step));
            BATCHSVD_CUDA_CHECK_LAUNCH("blocked_pair_kernel");
        }
        still_->reset(sweep);
        blocked_sweep_end_kernel<<<unsigned((batch + 255) / 256), 256, 0, stream_>>>(p_.state, batch, max_sweeps_,
                                                                                    still_->device(sweep));
        BATCHSVD_CUDA_CHECK_LAUNCH("blocked_sweep_end_kernel");
        still_->push(sweep);
        log_->print(sweep, index_t(pairs_) * steps_ * batch, still_->device(sweep));
        if (sweep > 0 && still_->value(sweep - 1) == 0) return false;
        return sweep_ < max_sweeps_;
    }

    void finish() { finalize_working_matrices(p_, stream_); }

private:
    cudaStream_t stream_;
    int max_sweeps_;
    DeviceBuffer<DT> w_, v_, scratch_;
    DeviceBuffer<BlockedState> state_;
    DeviceBuffer<R> norms_;
    DeviceBuffer<int> ints_, stamps_;
    BlockedParams<DT> p_{};
    int steps_ = 0;
    unsigned pairs_ = 0;
    int sweep_ = 0;
    void (*pair_kernel_)(BlockedParams<DT>, int) = nullptr;
    cudaLaunchAttribute cluster_{};
    cudaLaunchConfig_t config_{};
    std::optional<LibraryHandles> handles_;  // the preconditioner's, held for the solve
    std::optional<LaggedCount> still_;       // (declared after the buffers: destroyed first)
    std::optional<SweepLog> log_;
};

}  // namespace

template <class DT>
void run_blocked(const JacobiParams<DT>& q, int nb, bool precondition, bool halves, cudaStream_t stream) {
    if (!halves || q.batch < 2) {
        BlockedSolve<DT> solve(q, nb, precondition, stream, 0);
        while (solve.advance()) {
        }
        solve.finish();
        return;
    }
    // Two halves, each on a stream that starts after everything already on `stream`, which
    // then waits for both. The second half is set up (its eigensolve may hold the host) once
    // the first's first sweep is enqueued; then their sweeps alternate.
    const Event forked;
    BATCHSVD_CUDA_CHECK(cudaEventRecord(forked.get(), stream));
    OwnedStream streams[2];
    for (OwnedStream& h : streams) BATCHSVD_CUDA_CHECK(cudaStreamWaitEvent(h.s, forked.get(), 0));
    const index_t first_count = q.batch / 2;
    JacobiParams<DT> part[2] = {q, q};
    part[0].batch = first_count;
    part[1].batch = q.batch - first_count;
    auto at = [](auto* ptr, index_t offset) { return ptr ? ptr + offset : ptr; };
    part[1].a = at(q.a, first_count * q.stride_a);
    part[1].s = at(q.s, first_count * q.s_stride);
    part[1].u = at(q.u, first_count * q.stride_u);
    part[1].v = at(q.v, first_count * q.stride_v);
    part[1].info = at(q.info, first_count);
    part[1].sweeps = at(q.sweeps, first_count);
    std::optional<BlockedSolve<DT>> solve[2];
    bool more[2];
    solve[0].emplace(part[0], nb, precondition, streams[0].s, 0);
    more[0] = solve[0]->advance();
    solve[1].emplace(part[1], nb, precondition, streams[1].s, 1);
    more[1] = solve[1]->advance();
    while (more[0] || more[1])
        for (int i = 0; i < 2; ++i)
            if (more[i]) more[i] = solve[i]->advance();
    const Event done[2];
    for (int i = 0; i < 2; ++i) {
        solve[i]->finish();
        BATCHSVD_CUDA_CHECK(cudaEventRecord(done[i].get(), streams[i].s));
        BATCHSVD_CUDA_CHECK(cudaStreamWaitEvent(stream, done[i].get(), 0));
    }
}

template <class DT> void run_table_steps(const BlockedParams<DT>& p, int pairs, int first, int count, cudaStream_t stream) {
    if (p.nb != 16 && p.nb != 32)
        throw Error(ErrorCode::invalid_argument, "batchsvd CUDA backend: blocked path block width must be 16 or 32");
    const std::size_t smem = blocked_pair_smem<DT>(p.nb);
    const auto split_kernel =
        p.nb == 16 ? configured_pair_kernel<DT, 16, false>(smem) : configured_pair_kernel<DT, 32, false>(smem);
    BlockedParams<DT> q = p;
    q.split = blocked_split(split_kernel, smem, unsigned(pairs), 1, p.out.M);
    const auto kernel = q.split > 1 ? split_kernel
                        : p.nb == 16 ? configured_pair_kernel<DT, 16, true>(smem)
                                     : configured_pair_kernel<DT, 32, true>(smem);
    cudaLaunchAttribute cluster{};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = unsigned(q.split);
    cluster.val.clusterDim.y = 1;
    cluster.val.clusterDim.z = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(unsigned(pairs) * unsigned(q.split), 1);
    config.blockDim = dim3(kBlockedThreads);
    config.dynamicSmemBytes = smem;
    config.stream = stream;
    config.attrs = &cluster;
    config.numAttrs = q.split > 1 ? 1 : 0;
    for (int step = first; step < first + count; ++step) {
        BATCHSVD_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, q, step));
        BATCHSVD_CUDA_CHECK_LAUNCH("blocked_pair_kernel");
    }
}

void end_blocked_sweep(BlockedState* state, index_t batch, int max_sweeps, int* active_count, cudaStream_t stream) {
    blocked_sweep_end_kernel<<<unsigned((batch + 255) / 256), 256, 0, stream>>>(state, batch, max_sweeps, active_count);
    BATCHSVD_CUDA_CHECK_LAUNCH("blocked_sweep_end_kernel");
}

/// Whether the finalisation runs over the whole device (wide_final) rather than one block a
/// matrix: fewer matrices than multiprocessors. BATCHSVD_CUDA_WIDE_FINAL=0 or 1 forces either
/// (tests: the two give the same bits).
static bool wide_finalisation(index_t batch) {
    const char* v = std::getenv("BATCHSVD_CUDA_WIDE_FINAL");
    if (v && std::string(v) == "0") return false;
    if (v && std::string(v) == "1") return batch < 65536;
    return batch < index_t(device_attribute(cudaDevAttrMultiProcessorCount));
}

template <class DT> void finalize_working_matrices(const BlockedParams<DT>& p, cudaStream_t stream) {
    const index_t batch = p.out.batch;
    if (batch > 0 && wide_finalisation(batch)) {
        constexpr int warps = kBlockedThreads / 32;
        const dim3 by_warp(unsigned((p.out.N + warps - 1) / warps), unsigned(batch));
        const dim3 by_thread(unsigned((p.out.N + kBlockedThreads - 1) / kBlockedThreads), unsigned(batch));
        wide_final::norms_kernel<DT><<<by_warp, kBlockedThreads, 0, stream>>>(p);
        BATCHSVD_CUDA_CHECK_LAUNCH("wide_final::norms_kernel");
        wide_final::sigma_kernel<DT><<<by_thread, kBlockedThreads, 0, stream>>>(p);
        BATCHSVD_CUDA_CHECK_LAUNCH("wide_final::sigma_kernel");
        wide_final::rank_kernel<DT><<<by_thread, kBlockedThreads, 0, stream>>>(p);
        BATCHSVD_CUDA_CHECK_LAUNCH("wide_final::rank_kernel");
        wide_final::write_kernel<DT><<<by_warp, kBlockedThreads, 0, stream>>>(p);
        BATCHSVD_CUDA_CHECK_LAUNCH("wide_final::write_kernel");
        wide_final::rest_kernel<DT><<<unsigned(batch), kBlockedThreads, 0, stream>>>(p);
        BATCHSVD_CUDA_CHECK_LAUNCH("wide_final::rest_kernel");
        return;
    }
    const unsigned fin_blocks = unsigned(std::min<index_t>(batch, index_t(1) << 20));
    blocked_finalize_kernel<DT><<<fin_blocks, kBlockedThreads, 0, stream>>>(p);
    BATCHSVD_CUDA_CHECK_LAUNCH("blocked_finalize_kernel");
}

#define BATCHSVD_BLOCKED_INSTANTIATE_(DT)                                              \
    template void run_blocked<DT>(const JacobiParams<DT>&, int, bool, bool, cudaStream_t); \
    template void load_working_matrices<DT>(const BlockedParams<DT>&, cudaStream_t);    \
    template void run_table_steps<DT>(const BlockedParams<DT>&, int, int, int, cudaStream_t); \
    template void finalize_working_matrices<DT>(const BlockedParams<DT>&, cudaStream_t);
BATCHSVD_BLOCKED_INSTANTIATE_(float)
BATCHSVD_BLOCKED_INSTANTIATE_(double)
BATCHSVD_BLOCKED_INSTANTIATE_(dev_complex<float>)
BATCHSVD_BLOCKED_INSTANTIATE_(dev_complex<double>)
#undef BATCHSVD_BLOCKED_INSTANTIATE_

}  // namespace batchsvd::cuda
