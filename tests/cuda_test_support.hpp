// SPDX-License-Identifier: BSD-3-Clause
// What the GPU test files share: cases skip, with a message, where no CUDA device exists (CI
// and the development machine have none; they run on a GPU machine through
// scripts/gpu_check.sh), device memory freed on scope exit, and the Options that force a path.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <vector>

#include "batchsvd/batchsvd.hpp"
#include "testing/outputs.hpp"

/// Skips the current test when no CUDA device is present; `what` names what is not tested.
#define SKIP_WITHOUT_CUDA(what)                                                                   \
    do {                                                                                          \
        if (!::batchsvd::cuda_available())                                                       \
            GTEST_SKIP() << "no CUDA device on this machine: " what " not run (it runs on a GPU " \
                            "machine, see scripts/gpu_check.sh)";                                 \
    } while (0)

namespace batchsvd::test {

/// Everything one call writes, compared bitwise (testing/outputs.hpp).
using testing::Outputs;

/// cudaMalloc'd array, or with `stream_ordered` one from the device's default memory pool
/// (cudaMallocAsync, whose memory other devices may not access), freed on scope exit (p is
/// null when the allocation failed).
template <class T> struct DeviceArray {
    T* p = nullptr;
    std::size_t n = 0;
    bool pooled = false;
    explicit DeviceArray(std::size_t count, bool stream_ordered = false) : n(count), pooled(stream_ordered) {
        const cudaError_t e = !n ? cudaSuccess
                              : pooled ? cudaMallocAsync(&p, n * sizeof(T), nullptr)
                                       : cudaMalloc(&p, n * sizeof(T));
        if (e != cudaSuccess) p = nullptr;
        if (pooled && cudaStreamSynchronize(nullptr) != cudaSuccess) p = nullptr;
    }
    ~DeviceArray() {
        if (p && pooled) (void)cudaFreeAsync(p, nullptr), (void)cudaStreamSynchronize(nullptr);
        else if (p) cudaFree(p);
    }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
};

/// The device array's contents (every element; the test fails on a failed copy).
template <class T> std::vector<T> to_host(const DeviceArray<T>& d) {
    std::vector<T> h(d.n);
    EXPECT_EQ(cudaMemcpy(h.data(), d.p, d.n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
}
/// h copied into d (d.p not null and large enough, else the test fails).
template <class T> void to_device(DeviceArray<T>& d, const std::vector<T>& h) {
    ASSERT_TRUE(d.p);
    ASSERT_EQ(cudaMemcpy(d.p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
}
/// Bitwise equality of two host vectors (NaN payloads included).
template <class T> bool same_bits(const std::vector<T>& x, const std::vector<T>& y) {
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0;
}

/// Options that send every size past the tiny kernel to the blocked path (block width nb),
/// not preconditioned.
inline Options blocked_path(int nb = 0) {
    Options o;
    o.variant = JacobiVariant::blocked;
    o.block_width = nb;
    o.precondition = PreconditionMode::never;  // (the automatic rule takes most blocked sizes)
    return o;
}
/// Options that ask for QR pre-processing (then the SVD of R by the usual paths).
inline Options qr_always() {
    Options o;
    o.qr = QrMode::always;
    return o;
}
/// The blocked path started from a single-precision eigenbasis (Options::precondition).
inline Options preconditioned(int nb = 0) {
    Options o = blocked_path(nb);
    o.precondition = PreconditionMode::always;
    return o;
}

}  // namespace batchsvd::test
