// SPDX-License-Identifier: BSD-3-Clause
// The public entry points of the hyperbolic SVD and eigh_indefinite: argument validation
// (every error a clear batchsvd::Error) and the backend: the CPU's for host memory unless
// Backend::cuda, the CUDA backend's for device memory. Shapes the GPU kernels do not hold yet
// run on the CPU backend through host copies of device memory (and stay on the CPU for host
// memory with Backend::cuda); docs/hyperbolic.md.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "batchsvd/hyperbolic.hpp"
#include "argument_checks.hpp"
#include "cpu/hyperbolic/hyperbolic_cpu.hpp"
#if BATCHSVD_WITH_CUDA
#include "cuda/common/mirror.hpp"
#include "cuda/hyperbolic/hyperbolic_path.hpp"
#include "cuda/svd_cuda.hpp"
#endif

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
        if (!opts.devices.empty()) invalid("devices is not supported: this function runs on one device or the CPU");
    }
    /// Every signature entry +1 or -1 (sig: host memory, `signatures` of n entries stride apart).
    void signatures(const int* sig, index_t stride, index_t signatures, index_t n) const {
        for (index_t b = 0; b < signatures; ++b)
            for (index_t i = 0; i < n; ++i) {
                const int x = sig[b * stride + i];
                if (x != 1 && x != -1)
                    invalid("signature entry " + str(i) + " of matrix " + str(b) + " is " + std::to_string(x) +
                            ", must be +1 or -1");
            }
    }
};

#if BATCHSVD_WITH_CUDA
std::size_t vector_region(index_t n, index_t stride, index_t batch) {
    return n <= 0 || batch <= 0 ? 0 : std::size_t((batch - 1) * stride + n);
}
#endif

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
    const index_t signatures = j.stride == 0 ? 1 : batch;
    const bool k = n > 0;
    const auto on_cpu = [&](MatrixBatch<const T> gg, const int* jj, real_t<T>* ss, int* jo, MatrixBatch<T> uu,
                            MatrixBatch<T> vv, int* inf, int* sw) {
        Options o = opts;
        o.sweeps = sw;
        cpu::hsvd<T>(m, n, batch, gg, SignatureBatch{jj, j.stride}, ss, s_stride, jo, j_out_stride, uu, vv, inf, o);
    };
#if BATCHSVD_WITH_CUDA
    const bool device = c.on_device({k ? g.data : nullptr, k ? s : nullptr, k ? j.data : nullptr, k ? j_out : nullptr,
                                     k && opts.compute_u ? u.data : nullptr, k && opts.compute_v ? v.data : nullptr,
                                     info, opts.sweeps},
                                    "G, J, S, J', U, V, info and sweeps", opts);
    if (device || opts.backend == Backend::cuda) {
        const std::size_t jcount = vector_region(n, j.stride, signatures);
        if (device) c.signatures(cuda::signatures_to_host(j.data, index_t(jcount), opts).data(), j.stride, signatures, n);
        else c.signatures(j.data, j.stride, signatures, n);
        const std::vector<cuda::MirrorOperand> ops{
            {g.data, cuda::region_entries(m, n, g.ld, g.stride, batch) * sizeof(T), false},
            {k ? j.data : nullptr, jcount * sizeof(int), false},
            {k ? s : nullptr, vector_region(n, s_stride, batch) * sizeof(real_t<T>), true},
            {k ? j_out : nullptr, vector_region(n, j_out_stride, batch) * sizeof(int), true},
            {k && opts.compute_u ? u.data : nullptr, cuda::region_entries(m, n, u.ld, u.stride, batch) * sizeof(T), true},
            {k && opts.compute_v ? v.data : nullptr, cuda::region_entries(n, n, v.ld, v.stride, batch) * sizeof(T), true},
            {info, std::size_t(batch) * sizeof(int), true},
            {opts.sweeps, opts.sweeps ? std::size_t(batch) * sizeof(int) : 0, true}};
        const auto args = [&](const std::vector<void*>& x, auto&& run) {
            run(MatrixBatch<const T>{static_cast<const T*>(x[0]), g.ld, g.stride}, static_cast<const int*>(x[1]),
                static_cast<real_t<T>*>(x[2]), static_cast<int*>(x[3]), MatrixBatch<T>{static_cast<T*>(x[4]), u.ld, u.stride},
                MatrixBatch<T>{static_cast<T*>(x[5]), v.ld, v.stride}, static_cast<int*>(x[6]), static_cast<int*>(x[7]));
        };
        const auto on_gpu = [&](MatrixBatch<const T> gg, const int* jj, real_t<T>* ss, int* jo, MatrixBatch<T> uu,
                                MatrixBatch<T> vv, int* inf, int* sw) {
            Options o = opts;
            o.sweeps = sw;
            cuda::hsvd_device<T>(m, n, batch, gg, SignatureBatch{jj, j.stride}, ss, s_stride, jo, j_out_stride, uu, vv,
                                 inf, o);
        };
        const cudaStream_t stream = static_cast<cudaStream_t>(opts.stream);
        const bool gpu_shape = cuda::hsvd_on_device<T>(m, n);
        if (device && gpu_shape) on_gpu(g, j.data, s, j_out, u, v, info, opts.sweeps);
        else if (device) cuda::on_host_copies(ops, stream, [&](const std::vector<void*>& x) { args(x, on_cpu); });
        else if (gpu_shape) cuda::on_device_copies(ops, stream, opts.threads, [&](const std::vector<void*>& x) { args(x, on_gpu); });
        else on_cpu(g, j.data, s, j_out, u, v, info, opts.sweeps);
        return;
    }
#else
    if (opts.backend == Backend::cuda)
        throw Error(ErrorCode::backend_unavailable,
                    "batchsvd::hsvd: this build has no CUDA backend (configure with -DBATCHSVD_WITH_CUDA=ON)");
#endif
    if (k) c.signatures(j.data, j.stride, signatures, n);
    on_cpu(g, j.data, s, j_out, u, v, info, opts.sweeps);
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
    const bool k = n > 0;
    // Matrices from..from+count-1 on the CPU backend (host memory).
    const auto on_cpu = [&](index_t from, index_t count, MatrixBatch<const T> aa, real_t<T>* ww, MatrixBatch<T> zz,
                            int* inf, int* sw) {
        Options o = opts;
        o.sweeps = sw ? sw + from : nullptr;
        cpu::eigh_indefinite<T>(n, count, MatrixBatch<const T>{aa.data + from * aa.stride, aa.ld, aa.stride},
                                ww + from * w_stride, w_stride,
                                MatrixBatch<T>{zz.data ? zz.data + from * zz.stride : nullptr, zz.ld, zz.stride},
                                inf + from, o);
    };
#if BATCHSVD_WITH_CUDA
    const bool device = c.on_device({k ? a.data : nullptr, k ? w : nullptr, k && opts.compute_u ? z.data : nullptr,
                                     info, opts.sweeps},
                                    "A, W, Z, info and sweeps", opts);
    if (device || opts.backend == Backend::cuda) {
        const cudaStream_t stream = static_cast<cudaStream_t>(opts.stream);
        MatrixBatch<T> zz{opts.compute_u ? z.data : nullptr, z.ld, z.stride};
        // The operands of matrices from..from+count-1.
        const auto ops = [&](index_t from, index_t count) {
            return std::vector<cuda::MirrorOperand>{
                {a.data + from * a.stride, cuda::region_entries(n, n, a.ld, a.stride, count) * sizeof(T), false},
                {k ? w + from * w_stride : nullptr, vector_region(n, w_stride, count) * sizeof(real_t<T>), true},
                {k && zz.data ? zz.data + from * z.stride : nullptr,
                 cuda::region_entries(n, n, z.ld, z.stride, count) * sizeof(T), true},
                {info + from, std::size_t(count) * sizeof(int), true},
                {opts.sweeps ? opts.sweeps + from : nullptr, opts.sweeps ? std::size_t(count) * sizeof(int) : 0, true}};
        };
        // cpu on host copies of device matrices from..from+count-1
        const auto cpu_on_copies = [&](index_t from, index_t count) {
            cuda::on_host_copies(ops(from, count), stream, [&](const std::vector<void*>& x) {
                on_cpu(0, count, MatrixBatch<const T>{static_cast<const T*>(x[0]), a.ld, a.stride},
                       static_cast<real_t<T>*>(x[1]), MatrixBatch<T>{static_cast<T*>(x[2]), z.ld, z.stride},
                       static_cast<int*>(x[3]), static_cast<int*>(x[4]));
            });
        };
        const bool gpu_shape = cuda::eigh_indefinite_on_device<T>(n);
        if (device && gpu_shape) {
            for (index_t b : cuda::eigh_indefinite_device<T>(n, batch, a, w, w_stride, zz, info, opts)) cpu_on_copies(b, 1);
        } else if (device) {
            cpu_on_copies(0, batch);
        } else if (gpu_shape) {
            std::vector<index_t> left;
            cuda::on_device_copies(ops(0, batch), stream, opts.threads, [&](const std::vector<void*>& x) {
                Options o = opts;
                o.sweeps = static_cast<int*>(x[4]);
                left = cuda::eigh_indefinite_device<T>(
                    n, batch, MatrixBatch<const T>{static_cast<const T*>(x[0]), a.ld, a.stride},
                    static_cast<real_t<T>*>(x[1]), w_stride, MatrixBatch<T>{static_cast<T*>(x[2]), z.ld, z.stride},
                    static_cast<int*>(x[3]), o);
            });
            for (index_t b : left) on_cpu(b, 1, a, w, zz, info, opts.sweeps);
        } else {
            on_cpu(0, batch, a, w, zz, info, opts.sweeps);
        }
        return;
    }
#else
    if (opts.backend == Backend::cuda)
        throw Error(ErrorCode::backend_unavailable,
                    "batchsvd::eigh_indefinite: this build has no CUDA backend (configure with -DBATCHSVD_WITH_CUDA=ON)");
#endif
    on_cpu(0, batch, a, w, MatrixBatch<T>{opts.compute_u ? z.data : nullptr, z.ld, z.stride}, info, opts.sweeps);
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
