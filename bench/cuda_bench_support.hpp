// SPDX-License-Identifier: BSD-3-Clause
// What the host-side CUDA benchmarks share (multi_gpu_bench.cpp, vbatched_device_bench.cpp):
// every CUDA call checked (a failure names the call and exits with 2), device or pinned host
// buffers freed on scope exit, and the labels of a CSV row (GPU, date, commit).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#ifndef BATCHSVD_GIT_COMMIT
#define BATCHSVD_GIT_COMMIT "unknown"
#endif

namespace batchsvd::bench {

inline void cuda_check(cudaError_t e, const char* what, const char* program) {
    if (e == cudaSuccess) return;
    std::fprintf(stderr, "%s: %s failed: %s\n", program, what, cudaGetErrorString(e));
    std::exit(2);
}

/// Device or pinned host memory of `count` elements (at least one), freed on scope exit.
template <class T> struct Buffer {
    T* p = nullptr;
    bool host = false;
    Buffer(std::size_t count, bool on_host, const char* program) : host(on_host) {
        const std::size_t bytes = std::max<std::size_t>(count, 1) * sizeof(T);
        if (host) cuda_check(cudaHostAlloc(reinterpret_cast<void**>(&p), bytes, cudaHostAllocPortable), "cudaHostAlloc", program);
        else cuda_check(cudaMalloc(reinterpret_cast<void**>(&p), bytes), "cudaMalloc", program);
    }
    ~Buffer() { host ? (void)cudaFreeHost(p) : (void)cudaFree(p); }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
};

/// Median of reps runs of f timed by CUDA events on the default stream, each after refill
/// (outside the timing), after one warm-up.
inline double time_median(int reps, const std::function<void()>& refill, const std::function<void()>& f,
                          const char* program) {
    cudaEvent_t a, b;
    cuda_check(cudaEventCreate(&a), "cudaEventCreate", program);
    cuda_check(cudaEventCreate(&b), "cudaEventCreate", program);
    refill();
    f();
    cuda_check(cudaDeviceSynchronize(), "warm-up", program);
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
        refill();
        cuda_check(cudaDeviceSynchronize(), "refill", program);
        cuda_check(cudaEventRecord(a), "cudaEventRecord", program);
        f();
        cuda_check(cudaEventRecord(b), "cudaEventRecord", program);
        cuda_check(cudaEventSynchronize(b), "cudaEventSynchronize", program);
        float ms = 0;
        cuda_check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime", program);
        t.push_back(ms);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

/// x with prec significant digits for a CSV cell; NaN (not measured) as an empty cell.
inline std::string fmt(double x, int prec = 4) {
    if (std::isnan(x)) return "";
    char b[32];
    std::snprintf(b, sizeof b, "%.*g", prec, x);
    return b;
}

/// Today's date (UTC), YYYY-MM-DD.
inline std::string today() {
    const std::time_t t = std::time(nullptr);
    char buf[16];
    std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
    return buf;
}

/// The commit of a row: $BATCHSVD_GIT_COMMIT where set (a build carried to another machine
/// keeps the commit it was configured with), else the one compiled in.
inline std::string git_commit() {
    const char* env = std::getenv("BATCHSVD_GIT_COMMIT");
    return env && *env ? env : BATCHSVD_GIT_COMMIT;
}

/// Device 0's name.
inline std::string gpu_name(const char* program) {
    cudaDeviceProp p{};
    cuda_check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties", program);
    return p.name;
}

}  // namespace batchsvd::bench
