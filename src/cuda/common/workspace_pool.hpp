// SPDX-License-Identifier: BSD-3-Clause
// The memory pool of each device that the CUDA backend's workspaces come from (DeviceBuffer):
// one of the library's own, which keeps the memory its calls freed for the next call instead
// of giving it back to the driver at each synchronisation (as the device's default pool does).
// Mapping gigabytes again at every call cost 6 ms of 75 on one H100 at 1000 x 256^2 float64,
// and 7 of 30 ms on four (bench/results/h100/2026-11-27-workspace-pool/). What a call freed
// is reused by a later allocation only when its frees are done (no dependency between streams
// is inserted). batchsvd::release_cached_memory gives it back; BATCHSVD_CUDA_KEEP_WORKSPACE=0
// gives it back at every synchronisation, as the default pool.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace batchsvd::cuda {

/// The current device's workspace pool (made on first use), or nullptr where the device has
/// no memory pools (DeviceBuffer then uses cudaMalloc).
cudaMemPool_t workspace_pool();

/// Bytes the current device's workspace pool holds and no buffer uses (ready for the next
/// allocation, so counted as free: free_device_bytes).
std::size_t workspace_pool_idle_bytes();

// release_workspace_pools and workspace_pool_bytes, the public functions' CUDA side, are
// declared in svd_cuda.hpp (plain C++, for src/dispatch.cpp).

}  // namespace batchsvd::cuda
