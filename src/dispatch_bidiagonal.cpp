// SPDX-License-Identifier: BSD-3-Clause
// The public entry points of gebrd: argument validation and the backend (gebrd: the CPU's for
// host memory unless Backend::cuda, the CUDA backend's for device memory; gebrd_vbatched: the
// CPU's).
#include <algorithm>
#include <string>

#include "argument_checks.hpp"
#include "batchsvd/bidiagonal.hpp"
#include "cpu/bidiagonal/bidiagonal_cpu.hpp"
#if BATCHSVD_WITH_CUDA
#include "cuda/bidiagonal/bidiagonal_path.hpp"
#include "cuda/svd_cuda.hpp"
#endif

namespace batchsvd {

using detail::str;

template <class T>
void gebrd(index_t m, index_t n, index_t batch, MatrixBatch<T> a, BidiagonalBatch<T> out, int* info,
           const Options& opts) {
    const detail::ArgumentChecks c{"gebrd"};
    if (m < 0 || n < 0 || batch < 0)
        c.invalid("negative size (m=" + str(m) + ", n=" + str(n) + ", batch=" + str(batch) + ")");
    if (opts.threads < 0) c.invalid("threads must be >= 0 (0: OpenMP's default)");
    if (!opts.devices.empty()) c.invalid("devices is not supported: gebrd runs on one device or the CPU");
    if (batch == 0) return;
    if (!info) c.invalid("info is null");
    const index_t k = std::min(m, n);
    c.operand("A", a.data, a.ld, a.stride, m, n, batch);
    if (k > 0) {
        if (!out.d) c.invalid("d is null");
        if (k > 1 && !out.e) c.invalid("e is null");
        if (batch > 1 && out.stride < k) c.invalid("stride of d, e, tauq and taup is smaller than min(m, n)");
    }
#if BATCHSVD_WITH_CUDA
    {
        const bool device = c.on_device({k ? a.data : nullptr, k ? out.d : nullptr, k > 1 ? out.e : nullptr,
                                         k ? out.tauq : nullptr, k ? out.taup : nullptr, info},
                                        "A, d, e, tauq, taup and info", opts);
        if (device || opts.backend == Backend::cuda) {
            if (device) cuda::gebrd_device<T>(m, n, batch, a, out, info, opts);
            else cuda::gebrd_host<T>(m, n, batch, a, out, info, opts);
            return;
        }
    }
#else
    if (opts.backend == Backend::cuda)
        throw Error(ErrorCode::backend_unavailable,
                    "batchsvd::gebrd: this build has no CUDA backend (configure with -DBATCHSVD_WITH_CUDA=ON)");
#endif
    cpu::gebrd<T>(m, n, batch, a, out, info, opts);
}

template <class T>
void gebrd_vbatched(index_t batch, const index_t* m, const index_t* n, MatrixList<T> a, BidiagonalList<T> out, int* info,
                    const Options& opts) {
    const detail::ArgumentChecks c{"gebrd_vbatched"};
    if (batch < 0) c.invalid("negative batch (" + str(batch) + ")");
    if (opts.threads < 0) c.invalid("threads must be >= 0 (0: OpenMP's default)");
    if (!opts.devices.empty()) c.invalid("devices is not supported: gebrd_vbatched runs on the CPU backend");
    if (batch == 0) return;
    if (!m || !n) c.invalid("the size arrays m and n must not be null");
    if (!info) c.invalid("info is null");
    if (!a.data || !a.ld) c.invalid("A's pointer and leading-dimension arrays must not be null");
    if (!out.d || !out.e) c.invalid("the arrays of d and e pointers must not be null");
    for (index_t b = 0; b < batch; ++b) {
        const std::string which = "matrix " + str(b) + ": ";
        if (m[b] < 0 || n[b] < 0) c.invalid(which + "negative size (" + str(m[b]) + " x " + str(n[b]) + ")");
        const index_t k = std::min(m[b], n[b]);
        if (k == 0) continue;
        if (!a.data[b]) c.invalid(which + "A is null");
        if (a.ld[b] < m[b]) c.invalid(which + "leading dimension of A is " + str(a.ld[b]) + ", must be >= " + str(m[b]));
        if (!out.d[b]) c.invalid(which + "d is null");
        if (k > 1 && !out.e[b]) c.invalid(which + "e is null");
    }
    c.host_only({info}, opts);
    for (index_t b = 0; b < batch; ++b)
        if (std::min(m[b], n[b]) > 0) c.host_only({a.data[b]}, opts);
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
