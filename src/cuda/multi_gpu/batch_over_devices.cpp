// SPDX-License-Identifier: BSD-3-Clause
// A batch shared by several devices of one host (Options::devices): one contiguous share per
// device, in proportion to its multiprocessors (a uniform batch's matrices cost alike, so
// equal devices get equal counts), each solved by the one-device entry points on a host
// thread (the caller's, or its device's worker, device_workers.hpp), under the call's PlanningScope so that each share chooses its paths as
// the whole batch would. Host data: gesvd_host on each device. Device data on a home device:
// the home share in place on the caller's stream (gesvd_device), every other share by
// gesvd_host on its device, which copies straight from and to the home device's memory
// (cudaMemcpyDefault: peer copies over NVLink or PCIe where peer access is enabled, else staged
// by the driver), after an event on the caller's stream.
#include "cuda/multi_gpu/batch_over_devices.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <future>
#include <optional>
#include <string>

#include "cuda/common/check.hpp"
#include "cuda/common/device_scope.hpp"
#include "cuda/common/event.hpp"
#include "cuda/common/owned_stream.hpp"
#include "cuda/common/phase_log.hpp"
#include "cuda/common/planning_batch.hpp"
#include "cuda/multi_gpu/device_workers.hpp"
#include "cuda/multi_gpu/one_matrix_over_devices.hpp"
#include "cuda/svd_cuda.hpp"

namespace batchsvd::cuda {

std::vector<Share> split_by_weight(index_t batch, const std::vector<int>& devices, const std::vector<double>& weights) {
    double total = 0;
    for (double w : weights) total += w;
    std::vector<Share> shares;
    double upto = 0;
    index_t first = 0;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        upto += weights[i];
        const index_t end = i + 1 == devices.size() ? batch : std::min<index_t>(batch, index_t(std::floor(double(batch) * upto / total)));
        if (end > first) shares.push_back({devices[i], first, end - first});
        first = std::max(first, end);
    }
    return shares;
}

namespace {

/// Lets the current device read and write `home`'s memory directly, where the two can; returns
/// whether it can.
bool enable_peer_access(int home) {
    int device = 0, can = 0;
    BATCHSVD_CUDA_CHECK(cudaGetDevice(&device));
    if (device == home) return true;
    BATCHSVD_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, device, home));
    if (!can) return false;
    const cudaError_t e = cudaDeviceEnablePeerAccess(home, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) (void)cudaGetLastError();
    else BATCHSVD_CUDA_CHECK(e);
    return true;
}

/// A share in another device's memory whose path reads each matrix once and writes its results
/// once (single_pass_path) is solved in place, its kernels reading and writing the home
/// device's memory over the peer link, where every operand is memory this device reaches
/// (current_device_reaches: allocations as cudaMalloc makes them, with peer access enabled),
/// instead of being copied to its device and back. 4 H100s
/// (NVLink), 2026-11-27, float64, ms, in place against copied: 10000 x 32^2 on 2 GPUs 1.36
/// against 1.67, on 4 1.01 against 1.16; 10000 x 16^2 0.36 against 0.44, 0.26 against 0.38
/// (bench/results/h100/2026-11-27-workspace-pool/). BATCHSVD_CUDA_PEER_IN_PLACE=0 copies
/// every share (benchmarks and tests).
bool peer_in_place_enabled() {
    const char* v = std::getenv("BATCHSVD_CUDA_PEER_IN_PLACE");
    return !(v && std::string(v) == "0");
}

/// Each device's weight: its multiprocessor count.
std::vector<double> device_weights(const std::vector<int>& devices) {
    std::vector<double> w;
    for (int d : devices) {
        int sms = 0;
        BATCHSVD_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d));
        w.push_back(double(std::max(sms, 1)));
    }
    return w;
}

}  // namespace

template <class T>
void gesvd_devices(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s,
                   index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
                   const Options& opts) {
    if (batch <= 0) return;
    const bool on_device = is_device_pointer(info);
    const int home = on_device ? pointer_device(info) : -1;
    const index_t k = std::min(m, n);
    if (k == 0) {  // nothing to decompose: every matrix "converged"
        if (!on_device) {
            std::fill(info, info + batch, 0);
            if (opts.sweeps) std::fill(opts.sweeps, opts.sweeps + batch, 0);
        } else {
            DeviceScope at(home);
            BATCHSVD_CUDA_CHECK(cudaMemsetAsync(info, 0, batch * sizeof(int), static_cast<cudaStream_t>(opts.stream)));
            if (opts.sweeps)
                BATCHSVD_CUDA_CHECK(cudaMemsetAsync(opts.sweeps, 0, batch * sizeof(int), static_cast<cudaStream_t>(opts.stream)));
        }
        return;
    }
#ifdef BATCHSVD_HAVE_NCCL
    if (batch == 1 && spread_one_matrix<T>(m, n, opts))  // one large matrix: spread its columns
        return gesvd_one_matrix_devices<T>(m, n, a, s, u, v, info, opts);
#endif
    const std::vector<double> weights = device_weights(opts.devices);
    const std::vector<Share> shares = split_by_weight(batch, opts.devices, weights);
    cudaStream_t caller = static_cast<cudaStream_t>(opts.stream);

    // Device data: the other devices start after the work queued on the caller's stream.
    std::optional<Event> ready;
    if (on_device) {
        DeviceScope at(home);
        ready.emplace();
        BATCHSVD_CUDA_CHECK(cudaEventRecord(ready->get(), caller));
    } else {
        BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(caller));  // the caller's earlier work, as gesvd_host
    }

    // One share: the home device's in place on the caller's stream; any other on `stream`
    // (its worker's), staged through its device's memory (gesvd_host).
    // BATCHSVD_CUDA_SHARE_LOG=1 (diagnostics, phase_log.hpp): when each share starts and ends,
    // from the call's start (the staged shares' phases from gesvd_host).
    const bool logging = log_switch("BATCHSVD_CUDA_SHARE_LOG");
    std::vector<PhaseLog> logs;
    for (const Share& sh : shares)
        logs.emplace_back(logging, logging ? "share of " + std::to_string(sh.count) + " on device " +
                                                 std::to_string(sh.device)
                                           : std::string());
    auto solve = [&](const Share& sh, cudaStream_t stream) {
        PhaseLog& log = logs[std::size_t(&sh - shares.data())];
        log.mark("started", nullptr);
        auto at = [&](auto* p, index_t stride) { return p ? p + sh.first * stride : p; };
        const MatrixBatch<const T> as{at(a.data, a.stride), a.ld, a.stride};
        const MatrixBatch<T> us{at(u.data, u.stride), u.ld, u.stride}, vs{at(v.data, v.stride), v.ld, v.stride};
        real_t<T>* ss = at(s, s_stride);
        int* is = info + sh.first;
        DeviceScope device(sh.device);
        const PlanningScope scope(batch);
        Options o = opts;
        o.devices.clear();
        o.sweeps = opts.sweeps ? opts.sweeps + sh.first : nullptr;
        if (on_device && sh.device == home) {
            gesvd_device<T>(m, n, sh.count, as, ss, s_stride, us, vs, is, o);
            log.mark("solved in place", stream);
            return;
        }
        const bool peer = on_device && enable_peer_access(home);
        if (ready) BATCHSVD_CUDA_CHECK(cudaStreamWaitEvent(stream, ready->get(), 0));
        o.stream = stream;
        if (peer && peer_in_place_enabled() && single_pass_path<T>(m, n, sh.count, o) &&
            current_device_reaches({as.data, ss, us.data, vs.data, is, o.sweeps})) {
            gesvd_device<T>(m, n, sh.count, as, ss, s_stride, us, vs, is, o);
            BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(stream));  // the share is back when this returns
            log.mark("solved in place over the peer link", nullptr);
            return;
        }
        gesvd_host<T>(m, n, sh.count, as, ss, s_stride, us, vs, is, o);
        log.mark("staged and solved", nullptr);
    };

    // The home device's share (device data) or the first (host data) on this thread, the
    // others on their devices' workers; every share runs to its end whatever the others do,
    // and the first error (in the devices' order) is thrown.
    std::size_t mine = 0;
    for (std::size_t i = 0; i < shares.size(); ++i)
        if (on_device && shares[i].device == home) mine = i;
    std::vector<std::future<void>> others(shares.size());
    std::vector<std::exception_ptr> errors(shares.size());
    for (std::size_t i = 0; i < shares.size(); ++i) {
        if (i == mine) continue;
        try {
            others[i] = run_on_device_worker(shares[i].device, [&, i](cudaStream_t st) { solve(shares[i], st); });
        } catch (...) {
            errors[i] = std::current_exception();
        }
    }
    try {
        if (on_device && shares[mine].device == home) solve(shares[mine], caller);
        else {  // (host data: a stream of this thread's own, of the share's device)
            const DeviceScope at(shares[mine].device);
            OwnedStream own;
            solve(shares[mine], own.s);
        }
    } catch (...) {
        errors[mine] = std::current_exception();
    }
    for (std::size_t i = 0; i < shares.size(); ++i) {
        if (!others[i].valid()) continue;
        try {
            others[i].get();
        } catch (...) {
            errors[i] = std::current_exception();
        }
    }
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
}

#define BATCHSVD_INSTANTIATE_(T)                                                                 \
    template void gesvd_devices<T>(index_t, index_t, index_t, MatrixBatch<const T>, real_t<T>*, \
                                   index_t, MatrixBatch<T>, MatrixBatch<T>, int*, const Options&);
BATCHSVD_INSTANTIATE_(float)
BATCHSVD_INSTANTIATE_(double)
BATCHSVD_INSTANTIATE_(std::complex<float>)
BATCHSVD_INSTANTIATE_(std::complex<double>)
#undef BATCHSVD_INSTANTIATE_

}  // namespace batchsvd::cuda
