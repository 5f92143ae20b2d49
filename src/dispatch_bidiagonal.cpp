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

template <class T>
void gebrd_vbatched(index_t batch, const index_t* m, const index_t* n, MatrixList<T> a, BidiagonalList<T> out, int* info,
                    const Options& opts) {
    auto bad = [](const std::string& what) {
        throw Error(ErrorCode::invalid_argument, "batchsvd::gebrd_vbatched: " + what);
    };
    if (batch < 0) bad("negative batch (" + str(batch) + ")");
    if (opts.threads < 0) bad("threads must be >= 0 (0: OpenMP's default)");
    if (!opts.devices.empty()) bad("devices is not supported: gebrd runs on the CPU backend");
    if (batch == 0) return;
    if (!m || !n) bad("the size arrays m and n must not be null");
    if (!info) bad("info is null");
    if (!a.data || !a.ld) bad("A's pointer and leading-dimension arrays must not be null");
    if (!out.d || !out.e) bad("the arrays of d and e pointers must not be null");
    for (index_t b = 0; b < batch; ++b) {
        const std::string which = "matrix " + str(b) + ": ";
        if (m[b] < 0 || n[b] < 0) bad(which + "negative size (" + str(m[b]) + " x " + str(n[b]) + ")");
        const index_t k = std::min(m[b], n[b]);
        if (k == 0) continue;
        if (!a.data[b]) bad(which + "A is null");
        if (a.ld[b] < m[b]) bad(which + "leading dimension of A is " + str(a.ld[b]) + ", must be >= " + str(m[b]));
        if (!out.d[b]) bad(which + "d is null");
        if (k > 1 && !out.e[b]) bad(which + "e is null");
    }
    if (opts.backend == Backend::cuda)
        throw Error(ErrorCode::backend_unavailable, "batchsvd::gebrd_vbatched: runs on the CPU backend only in this version");
#if BATCHSVD_WITH_CUDA
    for (index_t b = 0; b < batch; ++b)
        if (std::min(m[b], n[b]) > 0 && cuda::is_device_pointer(a.data[b]))
            throw Error(ErrorCode::backend_unavailable,
                        "batchsvd::gebrd_vbatched: runs on the CPU backend only in this version: pass host memory");
#endif
    cpu::gebrd_vbatched<T>(batch, m, n, a, out, info, opts);
}

#define BATCHSVD_INSTANTIATE_(T)                                                                                   \
    template void gebrd<T>(index_t, index_t, index_t, MatrixBatch<T>, BidiagonalBatch<T>, int*, const Options&); \
    template void gebrd_vbatched<T>(index_t, const index_t*, const index_t*, MatrixList<T>, BidiagonalList<T>, int*, \
                                    const Options&);
BATCHSVD_INSTANTIATE_(float)
BATCHSVD_INSTANTIATE_(double)
BATCHSVD_INSTANTIATE_(std::complex<float>)
BATCHSVD_INSTANTIATE_(std::complex<double>)
#undef BATCHSVD_INSTANTIATE_

}  // namespace batchsvd
