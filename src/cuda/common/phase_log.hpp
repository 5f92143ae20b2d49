// SPDX-License-Identifier: BSD-3-Clause
// Diagnostics of the work over several devices: one line on stderr per phase, with the
// milliseconds since the previous phase, where an environment switch turns them on
// (BATCHSVD_CUDA_SPREAD_LOG for one matrix over several devices, BATCHSVD_CUDA_SHARE_LOG for
// the shares of a batch). A logged phase waits for its stream, so the times are the device's.
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cuda/common/check.hpp"

namespace batchsvd::cuda {

/// Whether the switch `name` is set to 1.
inline bool log_switch(const char* name) {
    const char* v = std::getenv(name);
    return v && std::string(v) == "1";
}

class PhaseLog {
public:
    /// `label` opens each line ("spread rank 1", "share device 2").
    PhaseLog(bool on, std::string label)
        : on_(on), label_(std::move(label)), last_(std::chrono::steady_clock::now()) {}
    bool on() const noexcept { return on_; }
    /// Ends a phase: waits for `stream` (when logging) and prints the time since the last.
    void mark(const char* what, cudaStream_t stream, long value = -1) {
        if (!on_) return;
        if (stream) BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(stream));
        const auto now = std::chrono::steady_clock::now();
        const double ms = std::chrono::duration<double, std::milli>(now - last_).count();
        last_ = now;
        if (value >= 0) std::fprintf(stderr, "%s: %s %ld: %.3f ms\n", label_.c_str(), what, value, ms);
        else std::fprintf(stderr, "%s: %s: %.3f ms\n", label_.c_str(), what, ms);
    }

private:
    bool on_;
    std::string label_;
    std::chrono::steady_clock::time_point last_;
};

}  // namespace batchsvd::cuda
