// SPDX-License-Identifier: BSD-3-Clause
// gesvd_vbatched on the CUDA backend: the matrices are cut into uniform groups (exact sizes and
// zero-padded size classes, size_classes.hpp); each group is gathered into a packed batch,
// solved by the one-size entry points (gesvd_device, gesvd_host) as one batch, and scattered
// back into the caller's matrices. kWorkers host threads, each with a stream of its own, take
// the groups, the most work first: the groups run at once on the device, and one group's host
// synchronisations (the blocked path's lagged convergence count) do not hold the others. Where
// every group is of order 64 or less, each thread queues its groups on kSmallStreams streams in
// turn (worker_plan).
// Device data: one table of every member's operands is copied once, on the caller's stream
// after its earlier work, and the workers' streams wait for it. Host data: each group is
// packed on the host and staged through the device by gesvd_host. Either way the call returns
// when every group is done.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <complex>
#include <cstdlib>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "core/scalar.hpp"
#include "cuda/common/check.hpp"
#include "cuda/common/device_buffer.hpp"
#include "cuda/common/event.hpp"
#include "cuda/common/owned_stream.hpp"
#include "cuda/svd_cuda.hpp"
#include "cuda/vbatched/pack_kernels.cuh"
#include "cuda/vbatched/size_classes.hpp"

namespace batchsvd::cuda {
namespace {

using vbatched::Entry;
using vbatched::Group;

/// Host threads (and streams) that solve groups at once: H100, 2026-11-27, float64, ms, four
/// workers against one (bench/results/h100/2026-11-27-vbatched/workers*.csv): 2000 matrices, m
/// and n in 16-256, 196 against 480; 20000 of orders 2-512, 1279 against 1528. Groups of order
/// 64 or less each fill a small part of the device (a warp or a block a matrix), so each worker
/// queues them on kSmallStreams streams in turn: 10000 matrices of orders 2-64, the library
/// call took 17.1-18.0 ms with four workers of eight streams, 17.3-19.6 with two streams a worker,
/// 18.3-20.5 with one, 21-26 with two workers and 32-36 with one
/// (bench/results/h100/2026-11-27-vbatched/list_call_profile_58695b7.log: those orders go to
/// the blocked path from 33, whose host waits for its convergence counts hold a worker).
/// BATCHSVD_VBATCHED_WORKERS=1..16 and BATCHSVD_VBATCHED_STREAMS=1..32 (streams a worker)
/// set the counts for every call (benchmarks).
constexpr int kWorkers = 4;
constexpr int kSmallStreams = 8;
constexpr index_t kSmallOrder = 64;

struct WorkerPlan {
    int workers = 1;
    int streams = 1;  ///< a worker's streams, taken in turn
};

int env_count(const char* name, int most) {
    const char* v = std::getenv(name);
    const int n = v ? std::atoi(v) : 0;
    return n >= 1 && n <= most ? n : 0;
}

WorkerPlan worker_plan(const std::vector<Group>& groups) {
    const bool small = std::all_of(groups.begin(), groups.end(),
                                   [](const Group& g) { return std::max(g.rows, g.cols) <= kSmallOrder; });
    WorkerPlan p{kWorkers, small ? kSmallStreams : 1};
    if (const int w = env_count("BATCHSVD_VBATCHED_WORKERS", 16)) p.workers = w;
    if (const int st = env_count("BATCHSVD_VBATCHED_STREAMS", 32)) p.streams = st;
    return p;
}

template <class T> struct Call {
    const index_t* m;
    const index_t* n;
    MatrixList<const T> a;
    real_t<T>* const* s;
    MatrixList<T> u, v;
    int* info;
    const Options& opts;

    Entry entry(index_t b, bool transpose) const {
        const index_t k = std::min(m[b], n[b]);
        return Entry{a.data[b], a.ld[b], k ? s[b] : nullptr,
                     opts.compute_u && k ? u.data[b] : nullptr, opts.compute_u ? u.ld[b] : 1,
                     opts.compute_v && k ? v.data[b] : nullptr, opts.compute_v ? v.ld[b] : 1,
                     b, transpose ? n[b] : m[b], transpose ? m[b] : n[b]};
    }
};

/// A group's options: its stream and packed sweeps; U and V swapped for a transposed class; a
/// padded class is preconditioned only where its right vectors are computed, which the scatter
/// checks for exact padding (size_classes.hpp).
Options group_options(const Options& opts, const Group& g, cudaStream_t st, int* sweeps) {
    Options o = opts;
    o.stream = st;
    o.sweeps = sweeps;
    o.devices.clear();
    if (g.transpose) std::swap(o.compute_u, o.compute_v);
    if (g.padded && !o.compute_v) o.precondition = PreconditionMode::never;
    return o;
}

/// Exact-size groups of `members` (any count: the matrices a size class gave back).
std::vector<Group> exact_groups(const std::vector<index_t>& members, const index_t* m, const index_t* n) {
    std::map<std::pair<index_t, index_t>, std::vector<index_t>> by_size;
    for (index_t b : members) by_size[{m[b], n[b]}].push_back(b);
    std::vector<Group> g;
    for (auto& [size, idx] : by_size) g.push_back(Group{size.first, size.second, false, false, std::move(idx)});
    return g;
}

/// One group from device data, its members' entries at `entries` (device memory), on `st`.
/// Returns the padded members to solve again at their exact size.
template <class T>
std::vector<index_t> solve_group_device(const Group& g, const Entry* entries, const Call<T>& call, cudaStream_t st) {
    using DT = device_scalar_t<T>;
    using R = real_t<T>;
    const index_t c = index_t(g.members.size()), rows = g.rows, cols = g.cols, kk = std::min(rows, cols);
    int* sweeps = call.opts.sweeps;
    if (kk == 0) {
        vbatched::empty_status_kernel<<<unsigned(std::clamp<index_t>((c + 255) / 256, 1, 1024)), 256, 0, st>>>(
            entries, c, call.info, sweeps);
        BATCHSVD_CUDA_CHECK_LAUNCH("vbatched empty_status_kernel");
        return {};
    }
    DeviceBuffer<int> psweeps(sweeps ? std::size_t(c) : 0, st), pinfo(std::size_t(c), st),
        flags(g.padded ? std::size_t(c) : 0, st);
    const Options o = group_options(call.opts, g, st, psweeps.get());
    DeviceBuffer<T> pa(std::size_t(c * rows * cols), st), pl(o.compute_u ? std::size_t(c * rows * kk) : 0, st),
        pr(o.compute_v ? std::size_t(c * cols * kk) : 0, st);
    DeviceBuffer<R> ps(std::size_t(c * kk), st);
    const dim3 grid = vbatched::pack_grid(rows * cols, c);
    if (g.transpose)
        vbatched::gather_kernel<DT, true><<<grid, 256, 0, st>>>(entries, c, rows, cols, reinterpret_cast<DT*>(pa.get()));
    else
        vbatched::gather_kernel<DT, false><<<grid, 256, 0, st>>>(entries, c, rows, cols, reinterpret_cast<DT*>(pa.get()));
    BATCHSVD_CUDA_CHECK_LAUNCH("vbatched gather_kernel");
    gesvd_device<T>(rows, cols, c, MatrixBatch<const T>{pa.get(), rows, rows * cols}, ps.get(), kk,
                    MatrixBatch<T>{pl.get(), rows, rows * kk}, MatrixBatch<T>{pr.get(), cols, cols * kk}, pinfo.get(), o);
    if (g.padded) BATCHSVD_CUDA_CHECK(cudaMemsetAsync(flags.get(), 0, std::size_t(c) * sizeof(int), st));
    vbatched::scatter_kernel<DT><<<vbatched::pack_grid(rows * kk, c), 256, 0, st>>>(
        entries, c, rows, cols, g.transpose, ps.get(), reinterpret_cast<const DT*>(pl.get()),
        reinterpret_cast<const DT*>(pr.get()), pinfo.get(), psweeps.get(), call.info, sweeps, flags.get());
    BATCHSVD_CUDA_CHECK_LAUNCH("vbatched scatter_kernel");
    if (!g.padded) return {};
    std::vector<int> host(static_cast<std::size_t>(c));
    BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(host.data(), flags.get(), host.size() * sizeof(int), cudaMemcpyDeviceToHost, st));
    BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(st));
    std::vector<index_t> again;
    for (index_t j = 0; j < c; ++j)
        if (host[std::size_t(j)]) again.push_back(g.members[std::size_t(j)]);
    return again;
}

/// One group from host data: packed on the host, solved by gesvd_host on `st`, scattered back.
/// Returns the padded members to solve again at their exact size.
template <class T>
std::vector<index_t> solve_group_host(const Group& g, const Call<T>& call, cudaStream_t st) {
    using R = real_t<T>;
    const index_t c = index_t(g.members.size()), rows = g.rows, cols = g.cols, kk = std::min(rows, cols);
    if (kk == 0) {
        for (index_t b : g.members) {
            call.info[b] = 0;
            if (call.opts.sweeps) call.opts.sweeps[b] = 0;
        }
        return {};
    }
    std::vector<int> psweeps(call.opts.sweeps ? std::size_t(c) : 0), pinfo(static_cast<std::size_t>(c));
    const Options o = group_options(call.opts, g, st, psweeps.empty() ? nullptr : psweeps.data());
    std::vector<T> pa(std::size_t(c * rows * cols), T(0)), pl(o.compute_u ? std::size_t(c * rows * kk) : 0),
        pr(o.compute_v ? std::size_t(c * cols * kk) : 0);
    std::vector<R> ps(std::size_t(c * kk));
    for (index_t j = 0; j < c; ++j) {
        const Entry e = call.entry(g.members[std::size_t(j)], g.transpose);
        const T* a = static_cast<const T*>(e.a);
        T* p = pa.data() + j * rows * cols;
        for (index_t col = 0; col < e.cols; ++col)
            for (index_t r = 0; r < e.rows; ++r)
                p[r + col * rows] = g.transpose ? core::conj_of(a[col + r * e.lda]) : a[r + col * e.lda];
    }
    gesvd_host<T>(rows, cols, c, MatrixBatch<const T>{pa.data(), rows, rows * cols}, ps.data(), kk,
                  MatrixBatch<T>{pl.empty() ? nullptr : pl.data(), rows, rows * kk},
                  MatrixBatch<T>{pr.empty() ? nullptr : pr.data(), cols, cols * kk}, pinfo.data(), o);
    std::vector<index_t> again;
    for (index_t j = 0; j < c; ++j) {
        const Entry e = call.entry(g.members[std::size_t(j)], g.transpose);
        const index_t k = std::min(e.rows, e.cols);
        const bool padded = e.rows < rows || e.cols < cols;
        call.info[e.index] = pinfo[std::size_t(j)];
        if (call.opts.sweeps) call.opts.sweeps[e.index] = psweeps[std::size_t(j)];
        R* s = static_cast<R*>(e.s);
        bool zero = false;
        for (index_t i = 0; i < k; ++i) {
            s[i] = ps[std::size_t(j * kk + i)];
            zero = zero || s[i] == R(0);
        }
        // (the padding rows of the first k vectors: exactly zero, else solved again)
        for (index_t col = 0; col < k && padded && !zero; ++col) {
            if (!pl.empty())
                for (index_t r = e.rows; r < rows; ++r) zero = zero || pl[std::size_t(j * rows * kk + col * rows + r)] != T(0);
            if (!pr.empty())
                for (index_t r = e.cols; r < cols; ++r) zero = zero || pr[std::size_t(j * cols * kk + col * cols + r)] != T(0);
        }
        if (padded && zero) again.push_back(e.index);
        T* left = static_cast<T*>(g.transpose ? e.v : e.u);
        const index_t ldl = g.transpose ? e.ldv : e.ldu;
        if (!pl.empty() && left)
            for (index_t col = 0; col < k; ++col)
                std::copy_n(pl.data() + j * rows * kk + col * rows, e.rows, left + col * ldl);
        T* right = static_cast<T*>(g.transpose ? e.u : e.v);
        const index_t ldr = g.transpose ? e.ldu : e.ldv;
        if (!pr.empty() && right)
            for (index_t col = 0; col < k; ++col)
                std::copy_n(pr.data() + j * cols * kk + col * cols, e.cols, right + col * ldr);
    }
    return again;
}

/// Runs job(i, stream) for i in [0, jobs) on up to plan.workers threads (this one included),
/// each on the current device with plan.streams streams of its own, taken in turn, that first
/// wait for `ready` (when set). Every job runs unless one throws; the first error is rethrown.
template <class Job>
void run_workers(std::size_t jobs, WorkerPlan plan, cudaEvent_t ready, Job&& job) {
    int device = 0;
    BATCHSVD_CUDA_CHECK(cudaGetDevice(&device));
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr first_error;
    std::mutex error_mutex;
    const std::size_t streams = std::max<std::size_t>(1, std::min<std::size_t>(std::size_t(plan.streams), jobs));
    auto work = [&] {
        try {
            BATCHSVD_CUDA_CHECK(cudaSetDevice(device));
            std::vector<OwnedStream> own(streams);
            for (const OwnedStream& st : own)
                if (ready) BATCHSVD_CUDA_CHECK(cudaStreamWaitEvent(st.s, ready, 0));
            std::size_t turn = 0;
            for (std::size_t i; !failed && (i = next.fetch_add(1)) < jobs;) job(i, own[turn++ % streams].s);
            for (const OwnedStream& st : own) BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(st.s));
        } catch (...) {
            const std::lock_guard<std::mutex> lock(error_mutex);
            if (!first_error) first_error = std::current_exception();
            failed = true;
        }
    };
    std::vector<std::thread> threads;
    const std::size_t extra = jobs ? std::min<std::size_t>(std::size_t(plan.workers), jobs) - 1 : 0;
    for (std::size_t t = 0; t < extra; ++t) {
        try {
            threads.emplace_back(work);
        } catch (const std::system_error&) {
            break;  // fewer threads: the others take the jobs
        }
    }
    work();
    for (std::thread& t : threads) t.join();
    if (first_error) std::rethrow_exception(first_error);
}

}  // namespace

template <class T>
void gesvd_vbatched(index_t batch, const index_t* m, const index_t* n, MatrixList<const T> a,
                    real_t<T>* const* s, MatrixList<T> u, MatrixList<T> v, int* info, const Options& opts,
                    bool device_data) {
    const Call<T> call{m, n, a, s, u, v, info, opts};
    const std::vector<Group> groups = vbatched::plan_groups(batch, m, n);
    cudaStream_t caller = static_cast<cudaStream_t>(opts.stream);
    if (!device_data) {
        BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(caller));  // the caller's earlier work, as gesvd_host
        run_workers(groups.size(), worker_plan(groups), nullptr, [&](std::size_t i, cudaStream_t st) {
            const std::vector<index_t> again = solve_group_host(groups[i], call, st);
            for (const Group& g : exact_groups(again, m, n)) solve_group_host(g, call, st);
        });
        return;
    }
    // Every group's entries in one table, copied to the device once (from pageable memory: the
    // copy returns once `host` is staged).
    std::vector<Entry> host;
    std::vector<std::size_t> first_entry;
    for (const Group& g : groups) {
        first_entry.push_back(host.size());
        for (index_t b : g.members) host.push_back(call.entry(b, g.transpose));
    }
    const DeviceBuffer<Entry> table(host.size(), caller);  // (freed after the workers' streams are synchronised)
    BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(table.get(), host.data(), host.size() * sizeof(Entry), cudaMemcpyHostToDevice, caller));
    const Event ready;
    BATCHSVD_CUDA_CHECK(cudaEventRecord(ready.get(), caller));
    run_workers(groups.size(), worker_plan(groups), ready.get(), [&](std::size_t i, cudaStream_t st) {
        const std::vector<index_t> again = solve_group_device(groups[i], table.get() + first_entry[i], call, st);
        if (again.empty()) return;
        // (the rare padded member with a zero singular value: its own exact-size batch)
        for (const Group& g : exact_groups(again, m, n)) {
            std::vector<Entry> es;
            for (index_t b : g.members) es.push_back(call.entry(b, false));
            const DeviceBuffer<Entry> t(es.size(), st);
            BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(t.get(), es.data(), es.size() * sizeof(Entry), cudaMemcpyHostToDevice, st));
            solve_group_device(g, t.get(), call, st);
            BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(st));  // before `es` and `t` go
        }
    });
}

#define BATCHSVD_INSTANTIATE_(T)                                                                     \
    template void gesvd_vbatched<T>(index_t, const index_t*, const index_t*, MatrixList<const T>,  \
                                    real_t<T>* const*, MatrixList<T>, MatrixList<T>, int*, const Options&, bool);
BATCHSVD_INSTANTIATE_(float)
BATCHSVD_INSTANTIATE_(double)
BATCHSVD_INSTANTIATE_(std::complex<float>)
BATCHSVD_INSTANTIATE_(std::complex<double>)
#undef BATCHSVD_INSTANTIATE_

}  // namespace batchsvd::cuda
