// SPDX-License-Identifier: BSD-3-Clause
// A CUDA event of the library's own (RAII): the blocked path's lagged counts and halves
// (blocked/), the shares of several devices (multi_gpu/) and the groups of a variable-size
// batch (vbatched/) order streams by it.
#pragma once

#include <cuda_runtime.h>

#include "cuda/common/check.hpp"

namespace batchsvd::cuda {

/// A CUDA event of the current device, without timing, destroyed on scope exit.
class Event {
public:
    Event() { BATCHSVD_CUDA_CHECK(cudaEventCreateWithFlags(&e_, cudaEventDisableTiming)); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    ~Event() { (void)cudaEventDestroy(e_); }
    cudaEvent_t get() const noexcept { return e_; }

private:
    cudaEvent_t e_ = nullptr;
};

}  // namespace batchsvd::cuda
