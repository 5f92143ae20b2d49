// SPDX-License-Identifier: BSD-3-Clause
// CUDA backend entry, seen by the dispatcher (plain C++: no CUDA headers here).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "batchsvd/batchsvd.hpp"

namespace batchsvd::cuda {

/// True when a CUDA device can be used (driver present, at least one device).
bool device_available();

/// True when p points to device or managed memory (false for host memory and nullptr).
bool is_device_pointer(const void* p);

/// is_device_pointer for a call's pointers (gesvd's, gesvd_vbatched's): one driver query an allocation, the
/// pointers into an allocation already seen answered from its address range. One object a
/// call (the allocations must not change while it is used); not thread-safe.
class PointerKinds {
public:
    bool is_device(const void* p);

    struct Range {
        std::uintptr_t start, end;
    };

private:
    std::vector<Range> ranges_;  ///< device allocations seen, by start
};

/// Whether kernels of the current device may read and write the memory of every pointer given
/// (null ones skipped): device memory of the current device, or memory of another device
/// allocated as cudaMalloc does (legacy allocations, which peer access, once enabled by the
/// caller, reaches). Not stream-ordered or virtual-memory allocations of another device, whose
/// access is granted per pool or per mapping (a stream-ordered allocation from a pool without
/// peer access faults when a peer touches it), nor host or managed memory. False where the
/// driver cannot tell.
bool current_device_reaches(std::initializer_list<const void*> pointers);

/// Number of visible CUDA devices (0 when none can be used).
int device_count();

/// batchsvd::release_cached_memory and cached_memory_bytes (common/workspace_pool.cpp): every
/// device's idle workspace memory back to the driver (after waiting for the devices), and the
/// bytes device `device`'s workspace pool holds, in use or idle (0 before its first use).
void release_workspace_pools();
std::size_t workspace_pool_bytes(int device);

/// The device whose memory `p` (device or managed memory) is.
int pointer_device(const void* p);

/// How the one-device rules solve an m x n batch when they take the blocked path: its block
/// width and whether it preconditions (blocked = false: another path).
struct BlockedChoice {
    bool blocked = false;
    int nb = 0;
    bool precondition = false;
};
template <class T> BlockedChoice blocked_choice(index_t m, index_t n, index_t batch, const Options& opts);

/// Whether the one-device rules solve an m x n batch in one kernel that reads each matrix once
/// and writes its results once (the tiny, warp and fused paths), so that a share of several
/// devices can be solved in place in another device's memory (batch_over_devices.cpp).
template <class T> bool single_pass_path(index_t m, index_t n, index_t batch, const Options& opts);

/// SVD of a batch shared by the devices opts.devices (valid, distinct ids; every pointer in
/// host memory, or every one in one device's memory): Options::devices says how.
template <class T>
void gesvd_devices(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s,
                   index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
                   const Options& opts);

/// SVD with every pointer (a, s, u, v, info) in device memory. Work is ordered on
/// opts.stream (workspace is stream-ordered). The tiny, warp and fused paths return once
/// enqueued; the blocked path waits for each sweep's count of unconverged matrices one sweep
/// late, so it returns with at most a sweep and the finalisation still queued.
template <class T>
void gesvd_device(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s,
                  index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
                  const Options& opts);

/// SVD with every pointer in host memory, or in another device's memory: staged through the
/// current device's memory, synchronous.
template <class T>
void gesvd_host(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s,
                index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
                const Options& opts);

/// gesvd_vbatched (arguments validated; device_data: every operand in device memory, else
/// every one in host memory): by groups of one size (vbatched/vbatched.cu), synchronous.
template <class T>
void gesvd_vbatched(index_t batch, const index_t* m, const index_t* n, MatrixList<const T> a,
                    real_t<T>* const* s, MatrixList<T> u, MatrixList<T> v, int* info, const Options& opts,
                    bool device_data);

}  // namespace batchsvd::cuda
