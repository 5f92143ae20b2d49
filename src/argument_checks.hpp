// SPDX-License-Identifier: BSD-3-Clause
// Argument checks shared by the public entry points (src/dispatch*.cpp): every bad argument a
// batchsvd::Error with code invalid_argument whose message names the function and the
// argument, the CPU-only functions' refusal of the CUDA backend and of device pointers, and
// where a call's operands are.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string>

#include "batchsvd/batchsvd.hpp"
#if BATCHSVD_WITH_CUDA
#include "cuda/svd_cuda.hpp"
#endif

namespace batchsvd::detail {

#if BATCHSVD_WITH_CUDA
/// Where a call's operands are (null pointers skipped): all host memory, all device memory, or
/// mixed (one driver query an allocation: cuda::PointerKinds).
enum class Where { host, device, mixed };
inline Where where(std::initializer_list<const void*> ptrs) {
    int host = 0, device = 0;
    cuda::PointerKinds kinds;
    for (const void* p : ptrs)
        if (p) (kinds.is_device(p) ? device : host)++;
    return device == 0 ? Where::host : host == 0 ? Where::device : Where::mixed;
}
#endif

inline std::string str(index_t x) { return std::to_string(x); }

struct ArgumentChecks {
    const char* fn;  ///< the function named in the messages, e.g. "gesvd"

    [[noreturn]] void invalid(const std::string& what) const {
        throw Error(ErrorCode::invalid_argument, std::string("batchsvd::") + fn + ": " + what);
    }

    /// One strided operand of `rows` x `cols` per matrix.
    template <class P>
    void operand(const char* name, const P* data, index_t ld, index_t stride, index_t rows, index_t cols,
                 index_t batch) const {
        if (rows == 0 || cols == 0) return;
        if (!data) invalid(std::string(name) + " is null");
        if (ld < std::max<index_t>(1, rows))
            invalid(std::string("leading dimension of ") + name + " is " + str(ld) + ", must be >= " +
                    str(std::max<index_t>(1, rows)));
        const index_t extent = ld * (cols - 1) + rows;
        if (batch > 1 && stride < extent)
            invalid(std::string("stride of ") + name + " is " + str(stride) + ", smaller than one matrix (" +
                    str(extent) + " elements): matrices would overlap");
    }

#if BATCHSVD_WITH_CUDA
    /// Where the operands of a function of both backends are: true for device memory, false for
    /// host memory (the CPU backend's unless Backend::cuda). Mixed memory and the cpu backend with
    /// device memory are invalid_argument; the CUDA backend without a usable device,
    /// backend_unavailable. `names`: the operands, for the message.
    bool on_device(std::initializer_list<const void*> ptrs, const std::string& names, const Options& opts) const {
        const Where w = where(ptrs);
        if (w == Where::mixed) invalid(names + " must all be host memory or all device memory");
        const bool device = w == Where::device;
        if (device && opts.backend == Backend::cpu) invalid("the cpu backend needs host memory, got device pointers");
        if ((device || opts.backend == Backend::cuda) && !cuda::device_available())
            throw Error(ErrorCode::backend_unavailable, std::string("batchsvd::") + fn + ": no usable CUDA device");
        return device;
    }
#endif

    /// A function of the CPU backend only: Backend::cuda and device pointers are backend_unavailable.
    void host_only(std::initializer_list<const void*> ptrs, const Options& opts) const {
        if (opts.backend == Backend::cuda)
            throw Error(ErrorCode::backend_unavailable,
                        std::string("batchsvd::") + fn + ": runs on the CPU backend only in this version");
#if BATCHSVD_WITH_CUDA
        for (const void* p : ptrs)
            if (p && cuda::is_device_pointer(p))
                throw Error(ErrorCode::backend_unavailable,
                            std::string("batchsvd::") + fn +
                                ": runs on the CPU backend only in this version: pass host memory, not device pointers");
#else
        (void)ptrs;
#endif
    }
};

}  // namespace batchsvd::detail
