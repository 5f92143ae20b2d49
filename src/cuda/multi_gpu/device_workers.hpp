// SPDX-License-Identifier: BSD-3-Clause
// One host thread per device, for the life of the process, that runs the shares of a batch
// over several devices (batch_over_devices.cpp). Kept rather than started per call: a thread's
// first blocked solve allocates its pinned sweep counters (cudaHostAlloc, lagged_count.hpp),
// which a thread's exit frees with cudaFreeHost, a device-wide synchronisation; and each
// worker keeps one non-blocking stream of its device.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <future>

namespace batchsvd::cuda {

/// Runs job(stream) on the worker of `device` (with `device` current, `stream` the worker's)
/// after the jobs already queued there; the future holds its exception, if any. The workers
/// and their streams are made on first use and never destroyed (the threads wait for work
/// until the process ends, like the pooled handles of library_handles.hpp).
std::future<void> run_on_device_worker(int device, std::function<void(cudaStream_t)> job);

}  // namespace batchsvd::cuda
