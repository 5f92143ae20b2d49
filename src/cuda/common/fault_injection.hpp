// SPDX-License-Identifier: BSD-3-Clause
// Injected faults for tests of the CUDA backend's error paths: a switch, off by default, that
// makes the N-th device allocation or the N-th library call fail as if the device had refused
// it. The points counted:
//   alloc: every DeviceBuffer allocation (device_buffer.hpp) and every other allocation through
//          BATCHSVD_CUDA_CHECK_ALLOC (the blocked path's pinned counts);
//   call:  every kernel launch checked by BATCHSVD_CUDA_CHECK_LAUNCH or
//          BATCHSVD_CUDA_CHECK_LAUNCHER (check.hpp) and every cuBLAS and cuSOLVER call checked
//          by BATCHSVD_CUBLAS_CHECK or BATCHSVD_CUSOLVER_CHECK (library_handles.hpp).
// A failed allocation throws Error{out_of_memory} (cudaErrorMemoryAllocation, nothing
// allocated); a failed launch throws Error{device_error} (cudaErrorLaunchOutOfResources, after
// the kernel was enqueued); a failed cuBLAS or cuSOLVER call throws Error{device_error}
// (CUBLAS_STATUS_EXECUTION_FAILED, CUSOLVER_STATUS_EXECUTION_FAILED; the call is not made).
// Each message is the one a real failure of that point gives, with "(injected)" added.
//
// Two ways to arm it: the functions below (C++ tests), or the environment variable
// BATCHSVD_CUDA_FAULT=alloc:N or call:N, read at the first point reached in the process
// (Python tests, scripts). Both count from the moment they arm, over the whole process (every
// host thread), and inject one fault: the points after it succeed again. When off, a point
// costs one relaxed atomic load. docs/reliability.md has the tests that use it.
#pragma once

#include <atomic>
#include <cstddef>

namespace batchsvd::cuda::testing {

enum class FaultKind { alloc, call };

/// From now on counts the points of both kinds from zero and makes the n-th point of `kind`
/// fail (n >= 1), once; n = 0 only counts. Replaces any earlier arming (the environment's too).
void arm_fault(FaultKind kind, long n);
/// Stops counting and injecting; the counts stay readable until the next arm_fault.
void disarm();
/// Points of `kind` reached since the last arm_fault (the failed one included).
long points_seen(FaultKind kind);
/// Faults injected since the last arm_fault: 0, or 1 once the armed point was reached.
long faults_injected();
/// Device bytes the library's DeviceBuffers hold now (every thread, every device).
std::size_t live_device_bytes();

}  // namespace batchsvd::cuda::testing

namespace batchsvd::cuda::detail {

/// 0: off; 1: counting (armed or not); 2: the environment not read yet.
extern std::atomic<int> fault_mode;
extern std::atomic<std::size_t> live_device_bytes;

/// Counts one point of `kind`; true when it is the armed one.
bool fault_point_slow(testing::FaultKind kind);

/// One point of `kind`: true when it must fail.
inline bool fault_point(testing::FaultKind kind) {
    if (fault_mode.load(std::memory_order_relaxed) == 0) [[likely]]
        return false;
    return fault_point_slow(kind);
}
/// The two kinds by name (for macros whose argument is called `call`).
inline bool alloc_fault_point() { return fault_point(testing::FaultKind::alloc); }
inline bool call_fault_point() { return fault_point(testing::FaultKind::call); }

}  // namespace batchsvd::cuda::detail
