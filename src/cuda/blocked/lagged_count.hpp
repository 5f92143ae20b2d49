// SPDX-License-Identifier: BSD-3-Clause
// Reading a device counter on the host one iteration late, so that the stream never drains
// while the host decides whether to go on: the blocked path's sweeps (blocked_path.cu) enqueue
// sweep s + 1 before they wait for sweep s's count of matrices still iterating.
#pragma once

#include <cuda_runtime.h>

#include "cuda/common/check.hpp"
#include "cuda/common/device_buffer.hpp"
#include "cuda/common/event.hpp"

namespace batchsvd::cuda {

/// Page-locked host ints, one block per host thread for the life of the thread: a
/// cudaMemcpyAsync into pageable memory would wait for the copy, and cudaFreeHost after every
/// solve would synchronise the whole device. Portable: any device's stream may write it. Two
/// ints for each of kSlots counts that one thread drives at once (LaggedCount's slot).
class PinnedInts {
public:
    static constexpr int kSlots = 2;
    static constexpr int kCount = 2 * kSlots;
    static int* for_this_thread() {
        thread_local PinnedInts block;
        return block.p_;
    }
    PinnedInts(const PinnedInts&) = delete;
    PinnedInts& operator=(const PinnedInts&) = delete;

private:
    PinnedInts() {
        BATCHSVD_CUDA_CHECK_ALLOC(cudaHostAlloc(reinterpret_cast<void**>(&p_), kCount * sizeof(int), cudaHostAllocPortable));
    }
    ~PinnedInts() { (void)cudaFreeHost(p_); }  // at thread exit; errors after the runtime's teardown are moot
    int* p_ = nullptr;
};

/// Counts of sweeps s = 0, 1, ...: count(s) lands in a device int that the caller's kernel
/// fills (device(s), zeroed by reset(s)); push(s) enqueues its copy to the host; value(s)
/// waits for it. Two slots, so value(s) must be read before push(s + 2). The destructor waits
/// for the last push (also when a solve is left by an exception): the host block is the
/// thread's, and a copy still in flight must not land in a later solve's slot. Counts that
/// one thread drives at the same time take different slots (0 <= slot < PinnedInts::kSlots).
class LaggedCount {
public:
    explicit LaggedCount(cudaStream_t stream, int slot = 0)
        : dev_(2, stream), host_(PinnedInts::for_this_thread() + 2 * slot), stream_(stream) {}
    LaggedCount(const LaggedCount&) = delete;
    LaggedCount& operator=(const LaggedCount&) = delete;
    ~LaggedCount() {
        if (last_ >= 0) (void)cudaEventSynchronize(done_[last_ & 1].get());
    }
    int* device(int s) const { return dev_.get() + (s & 1); }
    /// Zero the device slot of sweep s (before the kernel that counts into it).
    void reset(int s) const { BATCHSVD_CUDA_CHECK(cudaMemsetAsync(device(s), 0, sizeof(int), stream_)); }
    void push(int s) {
        BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(host_ + (s & 1), device(s), sizeof(int), cudaMemcpyDeviceToHost, stream_));
        BATCHSVD_CUDA_CHECK(cudaEventRecord(done_[s & 1].get(), stream_));
        last_ = s;
    }
    int value(int s) const {
        BATCHSVD_CUDA_CHECK(cudaEventSynchronize(done_[s & 1].get()));
        return host_[s & 1];
    }

private:
    DeviceBuffer<int> dev_;
    int* host_;
    cudaStream_t stream_;
    int last_ = -1;
    Event done_[2];
};

}  // namespace batchsvd::cuda
