// SPDX-License-Identifier: BSD-3-Clause
#include "cuda/common/mirror.hpp"

#include "cuda/common/check.hpp"
#include "cuda/common/device_buffer.hpp"
#include "cuda/common/host_staging.hpp"

namespace batchsvd::cuda {

void on_host_copies(const std::vector<MirrorOperand>& ops, cudaStream_t stream,
                    const std::function<void(const std::vector<void*>&)>& fn) {
    std::vector<std::vector<unsigned char>> host(ops.size());
    std::vector<void*> copies(ops.size(), nullptr);
    for (std::size_t i = 0; i < ops.size(); ++i) {
        if (!ops[i].ptr || ops[i].bytes == 0) continue;
        host[i].resize(ops[i].bytes);
        copies[i] = host[i].data();
        BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(copies[i], ops[i].ptr, ops[i].bytes, cudaMemcpyDeviceToHost, stream));
    }
    BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(stream));
    fn(copies);
    for (std::size_t i = 0; i < ops.size(); ++i)
        if (copies[i] && ops[i].output)
            BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(const_cast<void*>(ops[i].ptr), copies[i], ops[i].bytes,
                                                cudaMemcpyHostToDevice, stream));
    BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void on_device_copies(const std::vector<MirrorOperand>& ops, cudaStream_t stream, int threads,
                      const std::function<void(const std::vector<void*>&)>& fn) {
    std::vector<DeviceBuffer<unsigned char>> dev;
    dev.reserve(ops.size());
    std::vector<void*> copies(ops.size(), nullptr);
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const bool used = ops[i].ptr && ops[i].bytes > 0;
        dev.emplace_back(used ? ops[i].bytes : 0, stream);
        if (!used) continue;
        copies[i] = dev.back().get();
        copy_async(copies[i], ops[i].ptr, ops[i].bytes, stream, threads);
    }
    fn(copies);
    for (std::size_t i = 0; i < ops.size(); ++i)
        if (copies[i] && ops[i].output) copy_async(const_cast<void*>(ops[i].ptr), copies[i], ops[i].bytes, stream, threads);
    BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace batchsvd::cuda
