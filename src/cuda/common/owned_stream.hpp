// SPDX-License-Identifier: BSD-3-Clause
// A CUDA stream of the library's own (RAII): the host-memory pipeline's two streams
// (dispatch.cu) and the blocked path's two halves (blocked_path.cu).
#pragma once

#include <cuda_runtime.h>

#include "cuda/common/check.hpp"

namespace batchsvd::cuda {

/// A non-blocking stream, synchronised and destroyed on scope exit.
struct OwnedStream {
    cudaStream_t s = nullptr;
    OwnedStream() { BATCHSVD_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
    OwnedStream(const OwnedStream&) = delete;
    OwnedStream& operator=(const OwnedStream&) = delete;
    ~OwnedStream() {
        if (!s) return;
        (void)cudaStreamSynchronize(s);
        (void)cudaStreamDestroy(s);
    }
};

}  // namespace batchsvd::cuda
