// SPDX-License-Identifier: BSD-3-Clause
// PointerKinds (svd_cuda.hpp): where many pointers live, with one driver query an allocation.
// cudaPointerGetAttributes costs about half a microsecond a pointer, which is 20 ms for the four
// pointers of each of 10000 matrices (gesvd_vbatched); the driver's cuPointerGetAttributes also
// gives the allocation's address range, and the pointers into a range already seen are
// classified by a search. Its entry point comes from the runtime, so nothing links libcuda.
// current_device_reaches (svd_cuda.hpp) asks the same query for the kind of allocation.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "cuda/common/check.hpp"
#include "cuda/svd_cuda.hpp"

namespace batchsvd::cuda {
namespace {

using GetAttributes = PFN_cuPointerGetAttributes_v7000;

GetAttributes driver_get_attributes() {
    static const GetAttributes fn = [] {
        void* p = nullptr;
        cudaDriverEntryPointQueryResult found{};
        if (cudaGetDriverEntryPointByVersion("cuPointerGetAttributes", &p, 7000, cudaEnableDefault, &found) !=
                cudaSuccess ||
            found != cudaDriverEntryPointSuccess) {
            (void)cudaGetLastError();
            return GetAttributes(nullptr);
        }
        return reinterpret_cast<GetAttributes>(p);
    }();
    return fn;
}

/// Orders an address against a range's start (std::upper_bound over ranges by start).
bool before_start(std::uintptr_t x, const PointerKinds::Range& r) { return x < r.start; }

}  // namespace

bool PointerKinds::is_device(const void* p) {
    if (!p) return false;
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    // The range that starts at or before a, if any, among the device ranges seen (sorted).
    auto it = std::upper_bound(ranges_.begin(), ranges_.end(), a, before_start);
    if (it != ranges_.begin() && a < std::prev(it)->end) return true;
    const GetAttributes get = device_available() ? driver_get_attributes() : nullptr;
    if (!get) return is_device_pointer(p);
    unsigned int type = 0, managed = 0;
    CUdeviceptr start = 0;
    std::size_t size = 0;
    CUpointer_attribute which[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                   CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    void* data[] = {&type, &managed, &start, &size};
    // (host memory the driver does not know is no error: the attributes stay 0)
    if (get(4, which, data, CUdeviceptr(a)) != CUDA_SUCCESS) return is_device_pointer(p);
    const bool device = type == CU_MEMORYTYPE_DEVICE || managed != 0;
    if (device && size > 0 && start <= a && a - start < size) {
        const Range r{std::uintptr_t(start), std::uintptr_t(start) + size};
        ranges_.insert(std::upper_bound(ranges_.begin(), ranges_.end(), r.start, before_start), r);
    }
    return device;
}

bool current_device_reaches(std::initializer_list<const void*> pointers) {
    const GetAttributes get = device_available() ? driver_get_attributes() : nullptr;
    if (!get) return false;
    int current = 0;
    BATCHSVD_CUDA_CHECK(cudaGetDevice(&current));
    for (const void* p : pointers) {
        if (!p) continue;
        unsigned int type = 0;
        int ordinal = -1;
        unsigned long long legacy = 0;  // (a bool; 8 bytes zeroed whatever its size)
        CUpointer_attribute which[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                       CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE};
        void* data[] = {&type, &ordinal, &legacy};
        if (get(3, which, data, CUdeviceptr(reinterpret_cast<std::uintptr_t>(p))) != CUDA_SUCCESS) return false;
        if (type != CU_MEMORYTYPE_DEVICE) return false;
        if (ordinal != current && !legacy) return false;
    }
    return true;
}

}  // namespace batchsvd::cuda
