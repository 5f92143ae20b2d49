// SPDX-License-Identifier: BSD-3-Clause
// RAII device memory for the CUDA backend: stream-ordered (allocated from the device's workspace
// pool, workspace_pool.hpp, and freed on the caller's stream), with a plain cudaMalloc fallback
// for devices without memory pools; the bytes held are counted (testing::live_device_bytes,
// fault_injection.hpp).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <utility>

#include "cuda/common/check.hpp"
#include "cuda/common/fault_injection.hpp"
#include "cuda/common/workspace_pool.hpp"

namespace batchsvd::cuda {

/// Device memory free now for the library's workspaces: the driver's free memory and what the
/// workspace pool holds unused (0 when it cannot be queried).
inline std::size_t free_device_bytes() {
    std::size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return free + workspace_pool_idle_bytes();
}

/// Matrices per chunk when each needs `per_matrix` bytes of device memory: as many as fit in
/// 80% of the free memory (at least 1), or BATCHSVD_CUDA_CHUNK when set (testing the chunked
/// code paths on batches that would fit).
inline index_t matrices_per_chunk(std::size_t per_matrix, index_t batch) {
    const char* env = std::getenv("BATCHSVD_CUDA_CHUNK");
    if (env && std::string(env) != "auto") {
        const long long c = std::atoll(env);
        if (c > 0) return std::min<index_t>(batch, index_t(c));
    }
    const double room = 0.8 * double(free_device_bytes());
    const double fit = per_matrix ? room / double(per_matrix) : double(batch);
    return std::max<index_t>(1, std::min<index_t>(batch, index_t(std::min(fit, 9.0e18))));
}

template <class T> class DeviceBuffer {
public:
    DeviceBuffer() = default;
    /// Throws Error{out_of_memory} naming the bytes asked for and free when the allocation
    /// fails (one `alloc` point of fault_injection.hpp: an injected fault allocates nothing).
    DeviceBuffer(std::size_t count, cudaStream_t stream) : stream_(stream) {
        if (count == 0) return;
        const std::size_t bytes = count * sizeof(T);
        const bool injected = detail::fault_point(testing::FaultKind::alloc);
        cudaError_t e = cudaErrorMemoryAllocation;
        if (!injected) {
            const cudaMemPool_t pool = workspace_pool();
            e = pool ? cudaMallocFromPoolAsync(reinterpret_cast<void**>(&ptr_), bytes, pool, stream)
                     : cudaErrorNotSupported;
            if (e == cudaErrorNotSupported) {
                (void)cudaGetLastError();
                async_ = false;
                e = cudaMalloc(reinterpret_cast<void**>(&ptr_), bytes);
            }
        }
        if (e != cudaSuccess) {
            ptr_ = nullptr;
            const std::string what = "device allocation of " + std::to_string(bytes) + " bytes (" +
                                     std::to_string(free_device_bytes()) + " free)";
            throw_cuda_error(e, what.c_str(), __FILE__, __LINE__, injected);
        }
        bytes_ = bytes;
        detail::live_device_bytes.fetch_add(bytes, std::memory_order_relaxed);
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept { swap(o); }
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        DeviceBuffer tmp(std::move(o));
        swap(tmp);
        return *this;
    }
    ~DeviceBuffer() { reset(); }

    void reset() noexcept {
        if (!ptr_) return;
        if (async_) {
            (void)cudaFreeAsync(ptr_, stream_);
        } else {
            (void)cudaStreamSynchronize(stream_);  // the work using it must be done
            (void)cudaFree(ptr_);
        }
        detail::live_device_bytes.fetch_sub(bytes_, std::memory_order_relaxed);
        ptr_ = nullptr;
        bytes_ = 0;
    }
    T* get() const noexcept { return ptr_; }

private:
    void swap(DeviceBuffer& o) noexcept {
        std::swap(ptr_, o.ptr_);
        std::swap(stream_, o.stream_);
        std::swap(async_, o.async_);
        std::swap(bytes_, o.bytes_);
    }
    T* ptr_ = nullptr;
    std::size_t bytes_ = 0;  ///< counted in testing::live_device_bytes
    cudaStream_t stream_ = nullptr;
    bool async_ = true;
};

}  // namespace batchsvd::cuda
