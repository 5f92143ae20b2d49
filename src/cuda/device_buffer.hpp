// RAII device memory for the CUDA backend: stream-ordered (cudaMallocAsync / cudaFreeAsync on
// the caller's stream), with a plain cudaMalloc fallback for devices without memory pools.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "cuda/check.hpp"

namespace batchsvd::cuda {

template <class T> class DeviceBuffer {
public:
    DeviceBuffer() = default;
    DeviceBuffer(std::size_t count, cudaStream_t stream) : stream_(stream) {
        if (count == 0) return;
        cudaError_t e = cudaMallocAsync(reinterpret_cast<void**>(&ptr_), count * sizeof(T), stream);
        if (e == cudaErrorNotSupported) {
            (void)cudaGetLastError();
            async_ = false;
            e = cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T));
        }
        if (e != cudaSuccess) {
            ptr_ = nullptr;
            throw_cuda_error(e, "device workspace allocation", __FILE__, __LINE__);
        }
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
        ptr_ = nullptr;
    }
    T* get() const noexcept { return ptr_; }

private:
    void swap(DeviceBuffer& o) noexcept {
        std::swap(ptr_, o.ptr_);
        std::swap(stream_, o.stream_);
        std::swap(async_, o.async_);
    }
    T* ptr_ = nullptr;
    cudaStream_t stream_ = nullptr;
    bool async_ = true;
};

}  // namespace batchsvd::cuda
