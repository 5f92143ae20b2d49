// SPDX-License-Identifier: BSD-3-Clause
#include "cuda/common/workspace_pool.hpp"

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <mutex>
#include <string>

#include "cuda/common/check.hpp"
#include "cuda/common/device_scope.hpp"
#include "cuda/svd_cuda.hpp"

namespace batchsvd::cuda {
namespace {

std::mutex& pools_mutex() {
    static auto* m = new std::mutex();  // never destroyed: pools may be used until exit
    return *m;
}

/// Each device's pool, or nullptr where it has none; never destroyed (the driver reclaims the
/// memory at exit, and a static destructor would run after the CUDA runtime's).
std::map<int, cudaMemPool_t>& pools() {
    static auto* p = new std::map<int, cudaMemPool_t>();
    return *p;
}

bool keep_workspace() {
    const char* v = std::getenv("BATCHSVD_CUDA_KEEP_WORKSPACE");
    return !(v && std::string(v) == "0");
}

cudaMemPool_t make_pool(int device) {
    int supported = 0;
    BATCHSVD_CUDA_CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device));
    if (!supported) return nullptr;
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t pool = nullptr;
    BATCHSVD_CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
    std::uint64_t keep = keep_workspace() ? std::numeric_limits<std::uint64_t>::max() : 0;
    BATCHSVD_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    // Reuse across streams only of memory whose free is done: a dependency the pool inserted
    // between two streams of one call (the blocked path's halves, the devices' shares) would
    // serialise them.
    int no = 0;
    BATCHSVD_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowInternalDependencies, &no));
    return pool;
}

std::size_t pool_attribute(cudaMemPool_t pool, cudaMemPoolAttr what) {
    std::uint64_t v = 0;
    if (pool) BATCHSVD_CUDA_CHECK(cudaMemPoolGetAttribute(pool, what, &v));
    return std::size_t(v);
}

}  // namespace

cudaMemPool_t workspace_pool() {
    int device = 0;
    BATCHSVD_CUDA_CHECK(cudaGetDevice(&device));
    const std::lock_guard<std::mutex> lock(pools_mutex());
    auto it = pools().find(device);
    if (it == pools().end()) it = pools().emplace(device, make_pool(device)).first;
    return it->second;
}

std::size_t workspace_pool_idle_bytes() {
    const cudaMemPool_t pool = workspace_pool();
    const std::size_t reserved = pool_attribute(pool, cudaMemPoolAttrReservedMemCurrent);
    const std::size_t used = pool_attribute(pool, cudaMemPoolAttrUsedMemCurrent);
    return reserved > used ? reserved - used : 0;
}

std::size_t workspace_pool_bytes(int device) {
    const std::lock_guard<std::mutex> lock(pools_mutex());
    const auto it = pools().find(device);
    return it == pools().end() ? 0 : pool_attribute(it->second, cudaMemPoolAttrReservedMemCurrent);
}

void release_workspace_pools() {
    const std::lock_guard<std::mutex> lock(pools_mutex());
    for (const auto& [device, pool] : pools()) {
        if (!pool) continue;
        const DeviceScope at(device);
        BATCHSVD_CUDA_CHECK(cudaDeviceSynchronize());  // frees still queued complete first
        BATCHSVD_CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
    }
}

}  // namespace batchsvd::cuda
