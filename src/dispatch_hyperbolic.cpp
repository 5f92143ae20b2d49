// SPDX-License-Identifier: BSD-3-Clause
// The public entry points of the hyperbolic SVD and eigh_indefinite: argument validation
// (every error a clear batchsvd::Error) and the backend, which is the CPU's in this version.
#include <algorithm>
#include <cmath>
#include <string>

#include "batchsvd/hyperbolic.hpp"
#include "argument_checks.hpp"
#include "cpu/hyperbolic/hyperbolic_cpu.hpp"

namespace batchsvd {
namespace {

using detail::str;

/// The shared checks, and the options these functions take.
struct Checker : detail::ArgumentChecks {
    void options(const Options& opts) const {
        if (!(opts.tol_factor > 0) || !std::isfinite(opts.tol_factor))
            invalid("tol_factor must be a positive finite number");
        if (opts.max_sweeps < 1) invalid("max_sweeps must be >= 1");
        if (opts.threads < 0) invalid("threads must be >= 0 (0: OpenMP's default)");
        if (!opts.devices.empty()) invalid("devices is not supported: this function runs on the CPU backend");
    }
};

}  // namespace

template <class T>
void hsvd(index_t m, index_t n, index_t batch, MatrixBatch<const T> g, SignatureBatch j, real_t<T>* s,
          index_t s_stride, int* j_out, index_t j_out_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
          const Options& opts) {
    const Checker c{{"hsvd"}};
    if (m < 0 || n < 0 || batch < 0)
        c.invalid("negative size (m=" + str(m) + ", n=" + str(n) + ", batch=" + str(batch) + ")");
    if (m < n) c.invalid("G must have at least as many rows as columns (m=" + str(m) + ", n=" + str(n) + ")");
    c.options(opts);
    if (batch == 0) return;
    if (!info) c.invalid("info is null");
    c.operand("G", g.data, g.ld, g.stride, m, n, batch);
    if (n > 0) {
        if (!s) c.invalid("S is null");
        if (batch > 1 && s_stride < n) c.invalid("stride of S is smaller than n");
        if (!j.data) c.invalid("the signature J is null");
        if (j.stride < 0 || (batch > 1 && j.stride != 0 && j.stride < n))
            c.invalid("stride of J must be 0 (one signature for every matrix) or >= n");
        if (j_out && batch > 1 && j_out_stride < n) c.invalid("stride of J' is smaller than n");
    }
    if (opts.compute_u) c.operand("U", u.data, u.ld, u.stride, m, n, batch);
    if (opts.compute_v) c.operand("V", v.data, v.ld, v.stride, n, n, batch);
    c.host_only({g.data, s, j.data, j_out, opts.compute_u ? u.data : nullptr, opts.compute_v ? v.data : nullptr, info,
                 opts.sweeps},
                opts);
    const index_t signatures = j.stride == 0 ? 1 : batch;
    for (index_t b = 0; b < signatures && n > 0; ++b)
        for (index_t i = 0; i < n; ++i) {
            const int x = j.data[b * j.stride + i];
            if (x != 1 && x != -1)
                c.invalid("signature entry " + str(i) + " of matrix " + str(b) + " is " + std::to_string(x) +
                          ", must be +1 or -1");
        }
    cpu::hsvd<T>(m, n, batch, g, j, s, s_stride, j_out, j_out_stride, u, v, info, opts);
}

template <class T>
void eigh_indefinite(index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* w, index_t w_stride,
                     MatrixBatch<T> z, int* info, const Options& opts) {
    const Checker c{{"eigh_indefinite"}};
    if (n < 0 || batch < 0) c.invalid("negative size (n=" + str(n) + ", batch=" + str(batch) + ")");
    c.options(opts);
    if (batch == 0) return;
    if (!info) c.invalid("info is null");
    c.operand("A", a.data, a.ld, a.stride, n, n, batch);
    if (n > 0 && !w) c.invalid("W (the eigenvalues) is null");
    if (n > 0 && batch > 1 && w_stride < n) c.invalid("stride of W is smaller than n");
    if (opts.compute_u) c.operand("Z", z.data, z.ld, z.stride, n, n, batch);
    c.host_only({a.data, w, opts.compute_u ? z.data : nullptr, info, opts.sweeps}, opts);
    cpu::eigh_indefinite<T>(n, batch, a, w, w_stride, z, info, opts);
}

#define BATCHSVD_INSTANTIATE_(T)                                                                                      \
    template void hsvd<T>(index_t, index_t, index_t, MatrixBatch<const T>, SignatureBatch, real_t<T>*, index_t, int*, \
                          index_t, MatrixBatch<T>, MatrixBatch<T>, int*, const Options&);                             \
    template void eigh_indefinite<T>(index_t, index_t, MatrixBatch<const T>, real_t<T>*, index_t, MatrixBatch<T>,     \
                                     int*, const Options&);
BATCHSVD_INSTANTIATE_(float)
BATCHSVD_INSTANTIATE_(double)
BATCHSVD_INSTANTIATE_(std::complex<float>)
BATCHSVD_INSTANTIATE_(std::complex<double>)
#undef BATCHSVD_INSTANTIATE_

}  // namespace batchsvd
