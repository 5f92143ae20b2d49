// SPDX-License-Identifier: BSD-3-Clause
// Running one backend's function on the other side's copies of a call's operands: device
// memory for a function of the CPU backend (the shapes a GPU path does not take yet), or host
// memory for a CUDA path asked for with Backend::cuda. Each operand is copied as the region
// from its first entry to its last, outputs included, so that what lies between entries
// (gaps of the caller's strides) comes back unchanged.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <vector>

#include "batchsvd/batchsvd.hpp"

namespace batchsvd::cuda {

struct MirrorOperand {
    const void* ptr;      ///< the caller's pointer (null: not used)
    std::size_t bytes;    ///< the region's size
    bool output;          ///< copied back after the call
};

/// Entries of a strided batch's region: batch matrices of rows x cols, ld and stride apart.
inline std::size_t region_entries(index_t rows, index_t cols, index_t ld, index_t stride, index_t batch) {
    if (rows <= 0 || cols <= 0 || batch <= 0) return 0;
    return std::size_t((batch - 1) * stride + (cols - 1) * ld + rows);
}

/// fn(copies) on host copies of device operands (copies[i] stands for ops[i].ptr; null where
/// that is null); outputs copied back, the stream synchronised before return.
void on_host_copies(const std::vector<MirrorOperand>& ops, cudaStream_t stream,
                    const std::function<void(const std::vector<void*>&)>& fn);

/// fn(copies) on device copies of host operands: fn enqueues its work on `stream`; outputs
/// copied back, the stream synchronised before return.
void on_device_copies(const std::vector<MirrorOperand>& ops, cudaStream_t stream, int threads,
                      const std::function<void(const std::vector<void*>&)>& fn);

}  // namespace batchsvd::cuda
