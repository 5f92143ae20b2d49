// SPDX-License-Identifier: BSD-3-Clause
// The public entry point of gebrd: argument validation and the backend (the CPU's in this
// version).
#include <algorithm>
#include <string>

#include "batchsvd/bidiagonal.hpp"
#include "cpu/bidiagonal/bidiagonal_cpu.hpp"
#if BATCHSVD_WITH_CUDA
#include "cuda/svd_cuda.hpp"
#endif

namespace batchsvd {
namespace {

[[noreturn]] void invalid(const std::string& what) {
    throw Error(ErrorCode::invalid_argument, "batchsvd::gebrd: " + what);
}
std::string str(index_t x) { return std::to_string(x); }

}  // namespace

template <class T>
void gebrd(index_t m, index_t n, index_t batch, MatrixBatch<T> a, BidiagonalBatch<T> out, int* info,
           const Options& opts) {
    if (m < 0 || n < 0 || batch < 0)
        invalid("negative size (m=" + str(m) + ", n=" + str(n) + ", batch=" + str(batch) + ")");
    if (opts.threads < 0) invalid("threads must be >= 0 (0: OpenMP's default)");
    if (!opts.devices.empty()) invalid("devices is not supported: gebrd runs on the CPU backend");
    if (batch == 0) return;
    if (!info) invalid("info is null");
    const index_t k = std::min(m, n);
    if (k > 0) {
        if (!a.data) invalid("A is null");
        if (a.ld < std::max<index_t>(1, m)) invalid("leading dimension of A is " + str(a.ld) + ", must be >= " + str(m));
        if (batch > 1 && a.stride < a.ld * (n - 1) + m) invalid("stride of A is smaller than one matrix");
        if (!out.d) invalid("d is null");
        if (k > 1 && !out.e) invalid("e is null");
        if (batch > 1 && out.stride < k) invalid("stride of d, e, tauq and taup is smaller than min(m, n)");
    }
    if (opts.backend == Backend::cuda)
        throw Error(ErrorCode::backend_unavailable, "batchsvd::gebrd: runs on the CPU backend only in this version");
#if BATCHSVD_WITH_CUDA
    for (const void* p : {static_cast<const void*>(a.data), static_cast<const void*>(out.d),
                          static_cast<const void*>(out.e), static_cast<const void*>(out.tauq),
                          static_cast<const void*>(out.taup), static_cast<const void*>(info)})
        if (p && cuda::is_device_pointer(p))
            throw Error(ErrorCode::backend_unavailable,
                        "batchsvd::gebrd: runs on the CPU backend only in this version: pass host memory");
#endif
    cpu::gebrd<T>(m, n, batch, a, out, info, opts);
}

#define BATCHSVD_INSTANTIATE_(T) \
    template void gebrd<T>(index_t, index_t, index_t, MatrixBatch<T>, BidiagonalBatch<T>, int*, const Options&);
BATCHSVD_INSTANTIATE_(float)
BATCHSVD_INSTANTIATE_(double)
BATCHSVD_INSTANTIATE_(std::complex<float>)
BATCHSVD_INSTANTIATE_(std::complex<double>)
#undef BATCHSVD_INSTANTIATE_

}  // namespace batchsvd
