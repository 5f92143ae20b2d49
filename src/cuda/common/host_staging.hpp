// SPDX-License-Identifier: BSD-3-Clause
// Copies between pageable host memory (a NumPy array, a std::vector) and the device through
// pinned buffers of the library's own, each filled or drained by several host threads while
// the previous one travels. The driver's own copies from and to pageable memory run on one
// thread and, for memory never touched before (a fresh output array), take its page faults
// one at a time: 10^6 x 32^2 float64 from NumPy arrays spent about 6 of its 6.35 s copying.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace batchsvd::cuda {

/// cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream), through the staging buffers
/// where one side is pageable host memory, the other device memory, and the copy is large
/// (host_staging.cpp), and as a peer copy (cudaMemcpyPeerAsync) between two devices' memory,
/// which works for stream-ordered allocations too. A staged copy returns when the host memory may be reused (in) or holds
/// the data (out), as the driver's copies from and to pageable memory do; other copies are
/// asynchronous as cudaMemcpyAsync's. BATCHSVD_CUDA_STAGING=0 turns staging off (the
/// driver's copies), BATCHSVD_CUDA_STAGING_PIECE=BYTES sets the piece size (tests).
/// threads: the host threads that fill and drain a piece; 0: OpenMP's default, at most 16.
void copy_async(void* dst, const void* src, std::size_t bytes, cudaStream_t stream, int threads = 0);

}  // namespace batchsvd::cuda
