// SPDX-License-Identifier: BSD-3-Clause
// One matrix over P devices: the blocked one-sided Jacobi iteration of the one-device path
// (blocked_kernels.cuh), its block columns spread over the devices (Novakovic, "A
// hierarchically blocked Jacobi SVD algorithm for single and multiple graphics processing
// units", section 5). The working matrix W (and V_W) is cut into 2P blocks of k sub-blocks of
// the path's width nb, two blocks a device; the blocks move between devices by the circle
// method (core::next_slots) and, while two blocks meet, the pair kernel orders their
// sub-blocks from core::sub_block_pair_table. Where the paper solves each pair of blocks by a
// full inner block sweep (its within-block pairs again at every step), this ordering meets
// every two sub-blocks once a sweep, with the one-device round robin's step count: each device
// does 1/P of a step's pairs.
//
// Per call: the root (rank 0) loads W (scan, scale, transpose; preconditioned as the
// one-device rules say), broadcasts the matrix's state and sends each device its blocks
// (NCCL send/recv); each sweep every device runs its steps and passes blocks to its
// neighbours; after a sweep an all-reduce adds up whether any pair rotated (every device then
// makes the same decision); at the end the root gathers the blocks and finalises as the
// one-device path does (norms, order, U, V, info, sweeps).
#include "cuda/multi_gpu/one_matrix_over_devices.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/block_ordering.hpp"
#include "cuda/blocked/blocked_kernels.cuh"
#include "cuda/blocked/blocked_path.hpp"
#include "cuda/common/check.hpp"
#include "cuda/common/device_buffer.hpp"
#include "cuda/common/device_scope.hpp"
#include "cuda/common/event.hpp"
#include "cuda/common/library_handles.hpp"
#include "cuda/common/owned_stream.hpp"
#include "cuda/common/phase_log.hpp"
#include "cuda/common/planning_batch.hpp"
#include "cuda/dispatch_rules.hpp"
#include "cuda/multi_gpu/device_workers.hpp"
#include "cuda/multi_gpu/nccl_library.hpp"
#include "cuda/precondition/precondition.hpp"

namespace batchsvd::cuda {

bool nccl_found() { return nccl_available(); }

index_t spread_min_order() {
    if (const char* v = std::getenv("BATCHSVD_CUDA_SPREAD_MIN_ORDER")) {
        const long long x = std::atoll(v);
        if (x >= 1) return index_t(x);
    }
    return 2048;
}

template <class T> bool spread_one_matrix(index_t m, index_t n, const Options& opts) {
    if (opts.devices.size() < 2 || std::min(m, n) < spread_min_order()) return false;
    if (!blocked_choice<T>(m, n, 1, opts).blocked) return false;
    return nccl_available();
}

namespace {

/// NCCL communicators of one device list, one rank a device in the list's order, made by
/// ncclCommInitAll on first use and kept for the process; calls over the same list take turns
/// (`busy`). After a failure the ranks abort their communicators and the set is dropped, so
/// the next call makes a new one.
struct CommSet {
    std::vector<int> devices;
    std::vector<ncclComm_t> comms;
    std::vector<int*> pinned;  ///< one pinned int a rank: the sweep's count of matrices still active
    std::mutex busy;
    bool aborted = false;  ///< (under busy) a failed call aborted the communicators
};

class CommRegistry {
public:
    std::shared_ptr<CommSet> get(const std::vector<int>& devices) {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = sets_.find(devices);
        if (it != sets_.end()) return it->second;
        auto set = make(devices);
        sets_[devices] = set;
        return set;
    }
    void drop(const std::shared_ptr<CommSet>& set) {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = sets_.find(set->devices);
        if (it != sets_.end() && it->second == set) sets_.erase(it);
    }

private:
    static std::shared_ptr<CommSet> make(const std::vector<int>& devices) {
        const NcclApi& api = nccl();
        auto set = std::make_shared<CommSet>();
        set->devices = devices;
        const int p = int(devices.size());
        set->comms.resize(std::size_t(p));
        nccl_check(api.CommInitAll(set->comms.data(), p, devices.data()), "ncclCommInitAll");
        // First use of every connection the solve makes (the root to every device, each device
        // to its neighbours, the all-reduce and the broadcast), while every device is surely
        // here: NCCL sets connections up on first use, and a device that failed later would
        // otherwise leave its peers waiting in that set-up rather than in a kernel that an
        // abort stops.
        // Per rank six ints: [0] all-reduce, [1] broadcast, [2] from the root, [3] from the left,
        // [4] from the right, [5] sent.
        std::vector<std::unique_ptr<OwnedStream>> own;  // (one a device, made there; outlive the buffers)
        std::vector<cudaStream_t> streams;
        std::vector<DeviceBuffer<int>> bufs;
        for (int r = 0; r < p; ++r) {
            DeviceScope at(devices[std::size_t(r)]);
            own.push_back(std::make_unique<OwnedStream>());
            streams.push_back(own.back()->s);
            cudaStream_t st = streams.back();
            bufs.emplace_back(6, st);
            BATCHSVD_CUDA_CHECK(cudaMemsetAsync(bufs.back().get(), 0, 6 * sizeof(int), st));
            int* pinned = nullptr;
            BATCHSVD_CUDA_CHECK_ALLOC(cudaMallocHost(reinterpret_cast<void**>(&pinned), sizeof(int)));
            set->pinned.push_back(pinned);  // (kept with the communicators, for the process)
        }
        nccl_check(api.GroupStart(), "ncclGroupStart");
        for (int r = 0; r < p; ++r) {
            int* b = bufs[std::size_t(r)].get();
            cudaStream_t st = streams[std::size_t(r)];
            ncclComm_t c = set->comms[std::size_t(r)];
            nccl_check(api.AllReduce(b, b, 1, ncclInt32, ncclSum, c, st), "ncclAllReduce");
            nccl_check(api.Broadcast(b + 1, b + 1, 1, ncclInt32, 0, c, st), "ncclBroadcast");
        }
        nccl_check(api.GroupEnd(), "ncclGroupEnd");
        if (p > 1) {
            nccl_check(api.GroupStart(), "ncclGroupStart");
            for (int r = 0; r < p; ++r) {
                int* b = bufs[std::size_t(r)].get();
                cudaStream_t st = streams[std::size_t(r)];
                ncclComm_t c = set->comms[std::size_t(r)];
                if (r == 0)
                    for (int q = 1; q < p; ++q) nccl_check(api.Send(b + 5, 1, ncclInt32, q, c, st), "ncclSend");
                else nccl_check(api.Recv(b + 2, 1, ncclInt32, 0, c, st), "ncclRecv");
                if (r > 0) {
                    nccl_check(api.Send(b + 5, 1, ncclInt32, r - 1, c, st), "ncclSend");
                    nccl_check(api.Recv(b + 3, 1, ncclInt32, r - 1, c, st), "ncclRecv");
                }
                if (r + 1 < p) {
                    nccl_check(api.Send(b + 5, 1, ncclInt32, r + 1, c, st), "ncclSend");
                    nccl_check(api.Recv(b + 4, 1, ncclInt32, r + 1, c, st), "ncclRecv");
                }
            }
            nccl_check(api.GroupEnd(), "ncclGroupEnd");
        }
        for (int r = 0; r < p; ++r) {
            DeviceScope at(devices[std::size_t(r)]);
            BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(streams[std::size_t(r)]));
            bufs[std::size_t(r)].reset();
        }
        return set;
    }

    std::mutex mutex_;
    std::map<std::vector<int>, std::shared_ptr<CommSet>> sets_;
};

CommRegistry& registry() {
    static CommRegistry* r = new CommRegistry;  // (never destroyed: the communicators live for the process)
    return *r;
}

/// Seconds a device waits for its stream before it gives up (BATCHSVD_NCCL_TIMEOUT_S; 0 = no
/// limit): a bound on a hang that no device reports.
double wait_limit_seconds() {
    if (const char* v = std::getenv("BATCHSVD_NCCL_TIMEOUT_S")) return std::max(0.0, std::atof(v));
    return 1800;
}

/// BATCHSVD_CUDA_SPREAD_LOG=1 (diagnostics; it waits for each phase): one line on stderr per
/// phase of each device (receiving its blocks, each sweep with the pairs that rotated, sending
/// them back) and of the root (load and preconditioning, communicators, finalisation), with
/// the milliseconds it took.
PhaseLog spread_log(int rank) {
    return PhaseLog(log_switch("BATCHSVD_CUDA_SPREAD_LOG"), "spread rank " + std::to_string(rank));
}

/// What the devices of one call share: the first error, and the flag every device's waits poll.
struct Agreement {
    std::atomic<bool> failed{false};
    std::mutex mutex;
    std::exception_ptr first;
    void fail(std::exception_ptr e) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!first) first = e;
        failed.store(true);
    }
};

/// Thrown by a device that stops because another one failed (the call rethrows the first
/// error instead).
struct PeerFailed {};

/// Declared after a rank's resources, so destroyed before them when an exception unwinds the
/// rank: marks the call failed and aborts the rank's communicator, which ends its NCCL kernels,
/// before any destructor waits for the rank's stream.
class AbortOnUnwind {
public:
    AbortOnUnwind(Agreement& agree, ncclComm_t comm, char& aborted)
        : agree_(agree), comm_(comm), aborted_(aborted), uncaught_(std::uncaught_exceptions()) {}
    ~AbortOnUnwind() {
        if (std::uncaught_exceptions() <= uncaught_) return;
        agree_.failed.store(true);
        (void)nccl().CommAbort(comm_);
        aborted_ = 1;
    }
    AbortOnUnwind(const AbortOnUnwind&) = delete;
    AbortOnUnwind& operator=(const AbortOnUnwind&) = delete;

private:
    Agreement& agree_;
    ncclComm_t comm_;
    char& aborted_;
    int uncaught_;
};

/// Waits for the work queued on `stream`, polling: a failure of another device (PeerFailed),
/// an asynchronous NCCL error and the time limit end the wait with an exception.
void wait_for(cudaStream_t stream, ncclComm_t comm, const Agreement& agree) {
    const Event done;
    BATCHSVD_CUDA_CHECK(cudaEventRecord(done.get(), stream));
    const double limit = wait_limit_seconds();
    const auto start = std::chrono::steady_clock::now();
    for (int polls = 0;; ++polls) {
        const cudaError_t e = cudaEventQuery(done.get());
        if (e == cudaSuccess) return;
        if (e != cudaErrorNotReady) BATCHSVD_CUDA_CHECK(e);
        if (agree.failed.load()) throw PeerFailed{};
        ncclResult_t async = ncclSuccess;
        nccl_check(nccl().CommGetAsyncError(comm, &async), "ncclCommGetAsyncError");
        if (async != ncclSuccess && async != ncclInProgress) nccl_check(async, "an exchange between devices");
        if (limit > 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > limit)
            throw Error(ErrorCode::device_error, "batchsvd CUDA backend: a device waited more than " +
                                                     std::to_string(limit) +
                                                     " s for the others (BATCHSVD_NCCL_TIMEOUT_S)");
        std::this_thread::sleep_for(std::chrono::microseconds(polls < 100 ? 10 : 100));
    }
}

/// The shape of the spread: 2P blocks of k sub-blocks of nb columns (k even), kc = k nb columns
/// a block; block b holds the working matrix's columns [b kc, b kc + width(b)), the rest of
/// its kc columns zero (they stay zero: a zero column never rotates).
struct Spread {
    int P = 1, k = 2, nb = 32;
    index_t M = 0, N = 0, kc = 0;
    bool need_vw = false;
    index_t width(int block) const { return std::clamp<index_t>(N - index_t(block) * kc, 0, kc); }
};

Spread make_spread(index_t M, index_t N, int P, int nb, bool need_vw) {
    Spread s;
    s.P = P;
    s.nb = nb;
    s.M = M;
    s.N = N;
    s.need_vw = need_vw;
    const index_t per = (N + index_t(2) * P * nb - 1) / (index_t(2) * P * nb);  // sub-blocks a block
    s.k = int(std::max<index_t>(2, per + (per & 1)));
    s.kc = index_t(s.k) * nb;
    return s;
}

/// Everything rank r of one call does, on its device and stream: receive its blocks, run the
/// sweeps (steps, exchanges, the sweep's verdict), send its blocks back to the root. The
/// root's full working matrices (root_w, root_v, root_state) are read and written on rank 0 only.
template <class DT>
void run_rank(const Spread& sp, int r, const JacobiParams<DT>& q, DT* root_w, DT* root_v, BlockedState* root_state,
              CommSet& set, Agreement& agree, char& aborted, cudaStream_t stream) {
    const NcclApi& api = nccl();
    PhaseLog log = spread_log(r);
    const int P = sp.P, k = sp.k;
    ncclComm_t comm = set.comms[std::size_t(r)];
    const index_t kc = sp.kc, M = sp.M, N = sp.N;
    const std::size_t wcount = std::size_t(M) * std::size_t(2 * kc), vcount = sp.need_vw ? std::size_t(N) * std::size_t(2 * kc) : 0;
    DeviceBuffer<DT> w[2] = {DeviceBuffer<DT>(wcount, stream), DeviceBuffer<DT>(wcount, stream)};
    DeviceBuffer<DT> v[2] = {DeviceBuffer<DT>(vcount, stream), DeviceBuffer<DT>(vcount, stream)};
    DeviceBuffer<BlockedState> own_state(r == 0 ? 0 : 1, stream);
    DeviceBuffer<int> table(std::size_t(2 * k - 1) * std::size_t(k) * 2, stream), active(1, stream);
    const std::vector<int> host_table = core::sub_block_pair_table(k);
    const AbortOnUnwind guard(agree, comm, aborted);
    BlockedState* state = r == 0 ? root_state : own_state.get();
    BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(table.get(), host_table.data(), host_table.size() * sizeof(int),
                                        cudaMemcpyHostToDevice, stream));
    // Columns past the matrix's last (a ragged last block) are zero. Only the first buffer is
    // cleared: exchanges move whole halves, zeros included, and write every half of the second
    // (core::block_moves), so no half there keeps stale columns.
    BATCHSVD_CUDA_CHECK(cudaMemsetAsync(w[0].get(), 0, wcount * sizeof(DT), stream));
    if (vcount) BATCHSVD_CUDA_CHECK(cudaMemsetAsync(v[0].get(), 0, vcount * sizeof(DT), stream));
    const std::size_t tsize = sizeof(DT);
    // Block b's columns in the root's W and V, and the two halves of a local buffer.
    auto root_w_block = [&](int b) { return root_w + index_t(b) * kc * M; };
    auto root_v_block = [&](int b) { return root_v + index_t(b) * kc * N; };
    auto half_w = [&](int buf, int half) { return w[buf].get() + index_t(half) * kc * M; };
    auto half_v = [&](int buf, int half) { return v[buf].get() + index_t(half) * kc * N; };
    auto copy = [&](DT* dst, const DT* src, index_t count) {
        if (count > 0)
            BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(dst, src, std::size_t(count) * tsize, cudaMemcpyDeviceToDevice, stream));
    };
    auto send = [&](const DT* src, index_t count, int peer) {
        if (count > 0) nccl_check(api.Send(src, std::size_t(count) * tsize, ncclUint8, peer, comm, stream), "ncclSend");
    };
    auto recv = [&](DT* dst, index_t count, int peer) {
        if (count > 0) nccl_check(api.Recv(dst, std::size_t(count) * tsize, ncclUint8, peer, comm, stream), "ncclRecv");
    };

    // The blocks at home (2r, 2r + 1) between the root's W and V and each device's first
    // buffer (`cur` of them at the end): to the devices before the sweeps, back after.
    auto home_blocks = [&](bool to_devices, int buf) {
        nccl_check(api.GroupStart(), "ncclGroupStart");
        for (int peer = r == 0 ? 1 : r; peer < (r == 0 ? P : r + 1); ++peer)
            for (int half = 0; half < 2; ++half) {
                const int b = 2 * peer + half;
                DT* root_wb = root_w_block(b);
                DT* root_vb = vcount ? root_v_block(b) : nullptr;
                DT* mine_w = half_w(buf, half);
                DT* mine_v = vcount ? half_v(buf, half) : nullptr;
                const index_t wn = sp.width(b) * M, vn = sp.width(b) * N;
                if (r == 0 && to_devices) {
                    send(root_wb, wn, peer);
                    if (vcount) send(root_vb, vn, peer);
                } else if (r == 0) {
                    recv(root_wb, wn, peer);
                    if (vcount) recv(root_vb, vn, peer);
                } else if (to_devices) {
                    recv(mine_w, wn, 0);
                    if (vcount) recv(mine_v, vn, 0);
                } else {
                    send(mine_w, wn, 0);
                    if (vcount) send(mine_v, vn, 0);
                }
            }
        nccl_check(api.GroupEnd(), "ncclGroupEnd");
        if (r == 0)  // the root's own blocks 0 and 1, copied on the device
            for (int half = 0; half < 2; ++half) {
                copy(to_devices ? half_w(buf, half) : root_w_block(half),
                     to_devices ? root_w_block(half) : half_w(buf, half), sp.width(half) * M);
                if (vcount)
                    copy(to_devices ? half_v(buf, half) : root_v_block(half),
                         to_devices ? root_v_block(half) : half_v(buf, half), sp.width(half) * N);
            }
    };

    // The root's state (scale, finiteness, active) to every device, then each device's blocks.
    nccl_check(api.Broadcast(root_state, state, sizeof(BlockedState), ncclUint8, 0, comm, stream), "ncclBroadcast");
    home_blocks(true, 0);
    log.mark("blocks received", stream);
    BlockedParams<DT> p{};
    p.out = q;
    p.out.M = int(M);
    p.out.N = int(2 * kc);
    p.out.batch = 1;
    p.state = state;
    p.nb = sp.nb;
    p.nblk = 2 * k;
    p.split = 1;
    p.phases = kBlockedAllPhases;
    p.pair_table = table.get();
    p.v_rows = int(N);

    // The blocks move as core::next_slots says (core::block_moves: this device's part).
    int cur = 0;
    const core::BlockMoves moves = core::block_moves(P, r);
    auto exchange = [&] {
        const int nxt = 1 - cur;
        // Whole halves, zero columns included: a ragged block must not find another block's
        // columns in the rest of the half it lands in.
        nccl_check(api.GroupStart(), "ncclGroupStart");
        for (const auto& [half, peer] : moves.send) {
            send(half_w(cur, half), kc * M, peer);
            if (vcount) send(half_v(cur, half), kc * N, peer);
        }
        for (const auto& [half, peer] : moves.recv) {
            recv(half_w(nxt, half), kc * M, peer);
            if (vcount) recv(half_v(nxt, half), kc * N, peer);
        }
        nccl_check(api.GroupEnd(), "ncclGroupEnd");
        for (const auto& [from, to] : moves.move) {
            copy(half_w(nxt, to), half_w(cur, from), kc * M);
            if (vcount) copy(half_v(nxt, to), half_v(cur, from), kc * N);
        }
        cur = nxt;
        p.W = w[cur].get();
        p.V = vcount ? v[cur].get() : nullptr;
    };
    p.W = w[cur].get();
    p.V = vcount ? v[cur].get() : nullptr;

    // The sweeps (the root's state said whether the matrix iterates at all: NaN or Inf do not).
    int* pinned = set.pinned[std::size_t(r)];
    for (int sweep = 0; sweep < q.max_sweeps; ++sweep) {
        for (int block_step = 0; block_step < 2 * P - 1; ++block_step) {
            const int first = block_step == 0 ? 0 : k - 1;
            run_table_steps(p, k, first, 2 * k - 1 - first, stream);
            if (P > 1) exchange();
        }
        // Any pair rotated on any device: the sum of the devices' flags (0 or 1 each).
        nccl_check(api.AllReduce(&state->rotated, &state->rotated, 1, ncclInt32, ncclSum, comm, stream), "ncclAllReduce");
        BATCHSVD_CUDA_CHECK(cudaMemsetAsync(active.get(), 0, sizeof(int), stream));
        end_blocked_sweep(state, 1, q.max_sweeps, active.get(), stream);
        BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(pinned, active.get(), sizeof(int), cudaMemcpyDeviceToHost, stream));
        wait_for(stream, comm, agree);
        log.mark("sweep", nullptr, sweep + 1);
        if (*pinned == 0) break;
    }

    // Every block is home again (2P - 1 moves a sweep): back to the root's W and V.
    home_blocks(false, cur);
    wait_for(stream, comm, agree);
    log.mark("blocks sent back", nullptr);
}

/// A 2-D copy of a rows x cols column-major matrix between any two memories.
void copy_matrix(void* dst, index_t ldd, const void* src, index_t lds, index_t rows, index_t cols, std::size_t tsize,
                 cudaStream_t stream) {
    if (rows <= 0 || cols <= 0) return;
    BATCHSVD_CUDA_CHECK(cudaMemcpy2DAsync(dst, std::size_t(ldd) * tsize, src, std::size_t(lds) * tsize,
                                          std::size_t(rows) * tsize, std::size_t(cols), cudaMemcpyDefault, stream));
}

bool on_device(const void* p, int device) {
    if (!p) return true;  // (an output not asked for)
    cudaPointerAttributes at{};
    if (cudaPointerGetAttributes(&at, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return at.type == cudaMemoryTypeDevice && at.device == device;
}

}  // namespace

template <class T>
void gesvd_one_matrix_devices(index_t m, index_t n, MatrixBatch<const T> a, real_t<T>* s, MatrixBatch<T> u,
                              MatrixBatch<T> v, int* info, const Options& opts) {
    using DT = device_scalar_t<T>;
    using R = real_t<T>;
    if (std::max(m, n) > INT_MAX / 2 || std::min(m, n) > (1 << 20))
        throw Error(ErrorCode::invalid_argument, "batchsvd::gesvd: matrix too large for the CUDA backend");
    const index_t M = std::max(m, n), N = std::min(m, n), K = N;
    const bool device_data = is_device_pointer(info);
    const int home = device_data ? pointer_device(info) : -1;
    // The root first: the operands' device where it is listed.
    std::vector<int> devices = opts.devices;
    if (auto it = std::find(devices.begin(), devices.end(), home); it != devices.end()) std::rotate(devices.begin(), it, it + 1);
    const int P = int(devices.size()), root = devices[0];
    cudaStream_t caller = static_cast<cudaStream_t>(opts.stream);
    const PlanningScope scope(1);

    // The caller's earlier work first.
    std::optional<Event> ready;
    if (device_data) {
        DeviceScope at(home);
        ready.emplace();
        BATCHSVD_CUDA_CHECK(cudaEventRecord(ready->get(), caller));
    } else {
        BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(caller));
    }

    const DeviceScope at_root(root);
    PhaseLog log = spread_log(-1);  // (the root's own phases)
    const bool in_place = device_data && home == root;
    std::optional<OwnedStream> own;
    if (!in_place) own.emplace();
    cudaStream_t stream = in_place ? caller : own->s;
    if (ready && !in_place) BATCHSVD_CUDA_CHECK(cudaStreamWaitEvent(stream, ready->get(), 0));

    // Operands on the root: the caller's where they are there, else staged copies.
    const bool need_vw = m >= n ? opts.compute_v : opts.compute_u;
    const bool want_u = opts.compute_u && u.data, want_v = opts.compute_v && v.data;
    const bool stage = !(on_device(a.data, root) && on_device(s, root) && on_device(info, root) &&
                         (!want_u || on_device(u.data, root)) && (!want_v || on_device(v.data, root)) &&
                         (!opts.sweeps || on_device(opts.sweeps, root)));
    DeviceBuffer<T> a_stage(stage ? std::size_t(m * n) : 0, stream), u_stage(stage && want_u ? std::size_t(m * K) : 0, stream),
        v_stage(stage && want_v ? std::size_t(n * K) : 0, stream);
    DeviceBuffer<R> s_stage(stage ? std::size_t(K) : 0, stream);
    DeviceBuffer<int> i_stage(stage ? 2 : 0, stream);
    MatrixBatch<const T> ra = a;
    MatrixBatch<T> ru = u, rv = v;
    R* rs = s;
    int* rinfo = info;
    Options o = opts;
    if (stage) {
        copy_matrix(a_stage.get(), m, a.data, a.ld, m, n, sizeof(T), stream);
        ra = {a_stage.get(), m, m * n};
        ru = {want_u ? u_stage.get() : nullptr, m, m * K};
        rv = {want_v ? v_stage.get() : nullptr, n, n * K};
        rs = s_stage.get();
        rinfo = i_stage.get();
        o.sweeps = opts.sweeps ? i_stage.get() + 1 : nullptr;
    }
    const JacobiParams<DT> q = common_params<T>(m, n, 1, ra, rs, K, ru, rv, rinfo, o, need_vw);
    const BlockedChoice choice = blocked_choice<T>(m, n, 1, opts);
    const int nb = choice.blocked ? choice.nb : 32;

    // The root's working matrices, loaded (and preconditioned) as the one-device path does.
    DeviceBuffer<DT> w(std::size_t(M * N), stream), vw(need_vw ? std::size_t(N * N) : 0, stream),
        scratch(std::size_t(N), stream);
    DeviceBuffer<BlockedState> state(1, stream);
    DeviceBuffer<core::real_of_t<DT>> norms(std::size_t(N + 1), stream);
    DeviceBuffer<int> ints(std::size_t(2 * N + 8), stream);
    BATCHSVD_CUDA_CHECK(cudaMemsetAsync(state.get(), 0, sizeof(BlockedState), stream));
    BlockedParams<DT> p{};
    p.out = q;
    p.W = w.get();
    p.V = vw.get();
    p.state = state.get();
    p.norms = norms.get();
    p.ints = ints.get();
    p.scratch = scratch.get();
    p.nb = nb;
    p.nblk = int((N + nb - 1) / nb);
    p.v_rows = int(N);
    p.split = 1;
    p.phases = kBlockedAllPhases;
    load_working_matrices(p, stream);
    if (choice.precondition) {
        const LibraryHandles handles(stream);
        precondition_working_matrices(p, w, handles.get(), stream);
    }
    BlockedState host_state{};
    BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(&host_state, state.get(), sizeof(BlockedState), cudaMemcpyDeviceToHost, stream));
    BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(stream));
    log.mark(choice.precondition ? "root: loaded and preconditioned" : "root: loaded", nullptr);

    if (host_state.active) {  // (NaN or Inf: straight to the finalisation, which writes NaN)
        const Spread sp = make_spread(M, N, P, nb, need_vw);
        std::shared_ptr<CommSet> set = registry().get(devices);
        std::lock_guard<std::mutex> turn(set->busy);
        log.mark("root: communicators", nullptr);
        if (set->aborted)
            throw Error(ErrorCode::device_error,
                        "batchsvd CUDA backend: a call over the same devices failed meanwhile; call again");
        Agreement agree;
        std::vector<char> aborted(std::size_t(P), 0);  // (each written by its rank's thread only)
        auto rank = [&](int r, cudaStream_t st) {
            try {
                run_rank<DT>(sp, r, q, p.W, p.V, p.state, *set, agree, aborted[std::size_t(r)], st);
            } catch (const PeerFailed&) {
                agree.failed.store(true);
            } catch (...) {
                agree.fail(std::current_exception());
            }
        };
        std::vector<std::future<void>> others;
        for (int r = 1; r < P; ++r) {
            try {
                others.push_back(run_on_device_worker(devices[std::size_t(r)], [&, r](cudaStream_t st) { rank(r, st); }));
            } catch (...) {
                agree.fail(std::current_exception());
            }
        }
        rank(0, stream);
        for (auto& f : others) f.get();
        if (agree.failed.load()) {
            // The ranks that got as far as their guard aborted their communicators on the way
            // out; abort the others' too, and drop the set: the next call makes a new one.
            registry().drop(set);
            set->aborted = true;
            for (int r = 0; r < P; ++r)
                if (!aborted[std::size_t(r)]) (void)nccl().CommAbort(set->comms[std::size_t(r)]);
        }
        if (agree.first) std::rethrow_exception(agree.first);
        if (agree.failed.load())
            throw Error(ErrorCode::device_error, "batchsvd CUDA backend: one matrix over several devices failed");
    }
    log.mark("root: devices done", nullptr);
    finalize_working_matrices(p, stream);
    log.mark("root: finalised", stream);

    if (stage) {
        copy_matrix(s, K, rs, K, K, 1, sizeof(R), stream);
        copy_matrix(info, 1, rinfo, 1, 1, 1, sizeof(int), stream);
        if (opts.sweeps) copy_matrix(opts.sweeps, 1, rinfo + 1, 1, 1, 1, sizeof(int), stream);
        if (want_u) copy_matrix(u.data, u.ld, ru.data, m, m, K, sizeof(T), stream);
        if (want_v) copy_matrix(v.data, v.ld, rv.data, n, n, K, sizeof(T), stream);
    }
    BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(stream));
}

#define BATCHSVD_INSTANTIATE_(T)                                                                         \
    template bool spread_one_matrix<T>(index_t, index_t, const Options&);                               \
    template void gesvd_one_matrix_devices<T>(index_t, index_t, MatrixBatch<const T>, real_t<T>*,      \
                                              MatrixBatch<T>, MatrixBatch<T>, int*, const Options&);
BATCHSVD_INSTANTIATE_(float)
BATCHSVD_INSTANTIATE_(double)
BATCHSVD_INSTANTIATE_(std::complex<float>)
BATCHSVD_INSTANTIATE_(std::complex<double>)
#undef BATCHSVD_INSTANTIATE_

}  // namespace batchsvd::cuda
