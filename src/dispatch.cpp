// SPDX-License-Identifier: BSD-3-Clause
// The public entry points: argument validation (every error a clear batchsvd::Error, never a
// crash) and the choice of backend.
#include <cmath>
#include <sstream>
#include <vector>

#include "argument_checks.hpp"
#include "batchsvd/batchsvd.hpp"
#include "cpu/bidiagonal/bidiagonal_cpu.hpp"
#include "cpu/svd_cpu.hpp"
#if BATCHSVD_WITH_CUDA
#include "cuda/svd_cuda.hpp"
#endif

namespace batchsvd {
namespace {

constexpr detail::ArgumentChecks gesvd_checks{"gesvd"};

[[noreturn]] void invalid(const std::string& what) { gesvd_checks.invalid(what); }

using detail::str;

/// Checks one strided operand of `rows` x `cols` per matrix.
template <class P>
void check_operand(const char* name, const P* data, index_t ld, index_t stride, index_t rows,
                   index_t cols, index_t batch) {
    gesvd_checks.operand(name, data, ld, stride, rows, cols, batch);
}

/// The options every entry point checks.
void check_options(const Options& opts) {
    if (!(opts.tol_factor > 0) || !std::isfinite(opts.tol_factor))
        invalid("tol_factor must be a positive finite number");
    if (opts.max_sweeps < 1) invalid("max_sweeps must be >= 1");
    if (opts.threads < 0) invalid("threads must be >= 0 (0: OpenMP's default)");
    if (opts.block_width < 0 || opts.block_width > 256)
        invalid("block_width must be 0 (automatic) or in [1, 256]");
    if (opts.method == SvdMethod::bidiagonal && (opts.compute_u || opts.compute_v))
        invalid("method bidiagonal computes singular values only: set compute_u and compute_v to false");
}

/// The bidiagonal route for singular values alone on the CPU backend (SvdMethod): forced, or
/// where it measured faster than the Jacobi iteration without vectors.
template <class T> bool cpu_values_by_bidiagonal(index_t m, index_t n, const Options& opts) {
    if (opts.compute_u || opts.compute_v || opts.method == SvdMethod::jacobi) return false;
    if (opts.method == SvdMethod::bidiagonal) return true;
    return cpu::bidiagonal_values_faster<T>(std::min(m, n));
}

#if BATCHSVD_WITH_CUDA
/// Options::devices: valid, distinct CUDA devices.
void check_devices(const std::vector<int>& devices, int count) {
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const int d = devices[i];
        if (d < 0 || d >= count)
            invalid("device " + std::to_string(d) + " in devices does not exist (" + std::to_string(count) +
                    " visible CUDA device" + (count == 1 ? ")" : "s)"));
        for (std::size_t j = 0; j < i; ++j)
            if (devices[j] == d) invalid("device " + std::to_string(d) + " is named twice in devices");
    }
}

using detail::Where;
using detail::where;
#endif

}  // namespace

const char* version() { return BATCHSVD_VERSION_STRING; }

const char* to_string(Backend b) {
    switch (b) {
        case Backend::automatic: return "automatic";
        case Backend::cpu: return "cpu";
        case Backend::cuda: return "cuda";
    }
    return "unknown";
}

std::vector<int> cuda_devices() {
    std::vector<int> all;
#if BATCHSVD_WITH_CUDA
    for (int d = 0; d < cuda::device_count(); ++d) all.push_back(d);
#endif
    return all;
}

bool cuda_available() {
#if BATCHSVD_WITH_CUDA
    return cuda::device_available();
#else
    return false;
#endif
}

void release_cached_memory() {
#if BATCHSVD_WITH_CUDA
    if (cuda::device_available()) cuda::release_workspace_pools();
#endif
}

std::size_t cached_memory_bytes(int device) {
#if BATCHSVD_WITH_CUDA
    if (cuda::device_available()) return cuda::workspace_pool_bytes(device);
#endif
    (void)device;
    return 0;
}

const char* default_backend_name() { return cuda_available() ? "cuda" : "cpu"; }

template <class T>
void gesvd(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s,
           index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
           const Options& opts) {
    if (m < 0 || n < 0 || batch < 0)
        invalid("negative size (m=" + str(m) + ", n=" + str(n) + ", batch=" + str(batch) + ")");
    check_options(opts);
    if (batch == 0) return;
    const index_t k = std::min(m, n);
    if (!info) invalid("info is null");
    check_operand("A", a.data, a.ld, a.stride, m, n, batch);
    if (k > 0 && !s) invalid("S is null");
    if (batch > 1 && s_stride < k) invalid("stride of S is smaller than min(m, n)");
    if (opts.compute_u) check_operand("U", u.data, u.ld, u.stride, m, k, batch);
    if (opts.compute_v) check_operand("V", v.data, v.ld, v.stride, n, k, batch);

#if BATCHSVD_WITH_CUDA
    const Where w = where({a.data, s, opts.compute_u ? u.data : nullptr,
                           opts.compute_v ? v.data : nullptr, info, opts.sweeps});
    if (w == Where::mixed)
        invalid("A, S, U, V, info and sweeps must all be host memory or all device memory");
    Backend backend = opts.backend;
    if (backend == Backend::automatic && w == Where::host && opts.devices.empty() &&
        opts.method == SvdMethod::bidiagonal)
        backend = Backend::cpu;  // (host memory: the bidiagonal method on the CPU, as for lists; Backend::cuda asks the GPU)
    if (backend == Backend::automatic)
        backend = (w == Where::device || cuda::device_available() || !opts.devices.empty()) ? Backend::cuda
                                                                                             : Backend::cpu;
    if (backend == Backend::cpu && !opts.devices.empty())
        invalid("devices names CUDA devices, but the backend is cpu");
    if (backend == Backend::cuda) {
        if (!cuda::device_available())
            throw Error(ErrorCode::backend_unavailable, "batchsvd::gesvd: no usable CUDA device");
        if (!opts.devices.empty()) {
            check_devices(opts.devices, cuda::device_count());
            if (w == Where::device) {
                const int home = cuda::pointer_device(info);
                for (const void* p : {static_cast<const void*>(a.data), static_cast<const void*>(s),
                                      opts.compute_u ? static_cast<const void*>(u.data) : nullptr,
                                      opts.compute_v ? static_cast<const void*>(v.data) : nullptr})
                    if (p && cuda::pointer_device(p) != home)
                        invalid("with devices, the operands in device memory must all be on one device");
            }
            cuda::gesvd_devices<T>(m, n, batch, a, s, s_stride, u, v, info, opts);
            return;
        }
        if (w == Where::device)
            cuda::gesvd_device<T>(m, n, batch, a, s, s_stride, u, v, info, opts);
        else
            cuda::gesvd_host<T>(m, n, batch, a, s, s_stride, u, v, info, opts);
        return;
    }
    if (w == Where::device) invalid("the cpu backend needs host memory, got device pointers");
#else
    if (!opts.devices.empty())
        throw Error(ErrorCode::backend_unavailable,
                    "batchsvd::gesvd: devices names CUDA devices, and this build has no CUDA backend");
    if (opts.backend == Backend::cuda)
        throw Error(ErrorCode::backend_unavailable,
                    "batchsvd::gesvd: this build has no CUDA backend (configure with "
                    "-DBATCHSVD_WITH_CUDA=ON)");
#endif
    if (cpu_values_by_bidiagonal<T>(m, n, opts)) {
        cpu::svdvals_bidiagonal<T>(m, n, batch, a, s, s_stride, info, opts);
        return;
    }
    cpu::gesvd<T>(m, n, batch, a, s, s_stride, u, v, info, opts);
}

template <class T>
void gesvd_vbatched(index_t batch, const index_t* m, const index_t* n, MatrixList<const T> a,
                    real_t<T>* const* s, MatrixList<T> u, MatrixList<T> v, int* info,
                    const Options& opts) {
    if (batch < 0) invalid("negative batch (" + str(batch) + ")");
    check_options(opts);
    if (!opts.devices.empty()) invalid("gesvd_vbatched takes no devices (one device, or the CPU)");
    if (batch == 0) return;
    if (!m || !n) invalid("the size arrays m and n must not be null");
    if (!info) invalid("info is null");
    if (!a.data || !a.ld) invalid("A's pointer and leading-dimension arrays must not be null");
    if (!s) invalid("the array of S pointers is null");
    if (opts.compute_u && (!u.data || !u.ld)) invalid("U's pointer and leading-dimension arrays must not be null");
    if (opts.compute_v && (!v.data || !v.ld)) invalid("V's pointer and leading-dimension arrays must not be null");
    for (index_t b = 0; b < batch; ++b) {
        const std::string which = "matrix " + str(b) + ": ";
        if (m[b] < 0 || n[b] < 0) invalid(which + "negative size (" + str(m[b]) + " x " + str(n[b]) + ")");
        const index_t k = std::min(m[b], n[b]);
        if (k == 0) continue;
        if (!a.data[b]) invalid(which + "A is null");
        if (a.ld[b] < m[b]) invalid(which + "leading dimension of A is " + str(a.ld[b]) + ", must be >= " + str(m[b]));
        if (!s[b]) invalid(which + "S is null");
        if (opts.compute_u && !u.data[b]) invalid(which + "U is null");
        if (opts.compute_u && u.ld[b] < m[b]) invalid(which + "leading dimension of U is " + str(u.ld[b]) + ", must be >= " + str(m[b]));
        if (opts.compute_v && !v.data[b]) invalid(which + "V is null");
        if (opts.compute_v && v.ld[b] < n[b]) invalid(which + "leading dimension of V is " + str(v.ld[b]) + ", must be >= " + str(n[b]));
    }
#if BATCHSVD_WITH_CUDA
    // Where the data is: every pointer of a non-empty matrix, and info.
    int host = 0, device = 0;
    cuda::PointerKinds kinds;
    auto count = [&](const void* p) {
        if (p) (kinds.is_device(p) ? device : host)++;
    };
    count(info);
    count(opts.sweeps);
    for (index_t b = 0; b < batch; ++b) {
        if (std::min(m[b], n[b]) == 0) continue;
        count(a.data[b]);
        count(s[b]);
        if (opts.compute_u) count(u.data[b]);
        if (opts.compute_v) count(v.data[b]);
        if (host && device) invalid("matrix " + str(b) + ": host and device memory mixed (all of A, S, U, V, info and sweeps must be one kind)");
    }
    Backend backend = opts.backend;
    if (backend == Backend::automatic && !device && opts.method == SvdMethod::bidiagonal)
        backend = Backend::cpu;  // (in lists the bidiagonal method runs on the CPU backend only)
    if (backend == Backend::automatic) backend = (device || cuda::device_available()) ? Backend::cuda : Backend::cpu;
    if (backend == Backend::cuda) {
        if (!cuda::device_available())
            throw Error(ErrorCode::backend_unavailable, "batchsvd::gesvd_vbatched: no usable CUDA device");
        if (opts.method == SvdMethod::bidiagonal)
            throw Error(ErrorCode::backend_unavailable,
                        "batchsvd::gesvd_vbatched: method bidiagonal runs on the CPU backend only in this version");
        cuda::gesvd_vbatched<T>(batch, m, n, a, s, u, v, info, opts, device > 0);
        return;
    }
    if (device) invalid("the cpu backend needs host memory, got device pointers");
#else
    if (opts.backend == Backend::cuda)
        throw Error(ErrorCode::backend_unavailable,
                    "batchsvd::gesvd_vbatched: this build has no CUDA backend (configure with -DBATCHSVD_WITH_CUDA=ON)");
#endif
    // Singular values alone: each matrix by the route SvdMethod gives its size (the result it
    // gets alone), the bidiagonal ones here, the rest in one Jacobi list call.
    std::vector<index_t> jacobi, bidiag;
    for (index_t b = 0; b < batch; ++b)
        (cpu_values_by_bidiagonal<T>(m[b], n[b], opts) && std::min(m[b], n[b]) > 0 ? bidiag : jacobi).push_back(b);
    if (!bidiag.empty()) {
        cpu::svdvals_bidiagonal_list<T>(index_t(bidiag.size()), bidiag.data(), m, n, a, s, info, opts);
        if (jacobi.empty()) return;
        const std::size_t q = jacobi.size();
        std::vector<index_t> mj(q), nj(q), lda(q), ldu(q), ldv(q);
        std::vector<const T*> aj(q);
        std::vector<real_t<T>*> sj(q);
        std::vector<T*> uj(q), vj(q);
        std::vector<int> infoj(q), sweepsj(q);
        for (std::size_t i = 0; i < q; ++i) {
            const index_t b = jacobi[i];
            mj[i] = m[b];
            nj[i] = n[b];
            aj[i] = a.data[b];
            lda[i] = a.ld[b];
            sj[i] = s[b];
        }
        Options oj = opts;
        oj.sweeps = opts.sweeps ? sweepsj.data() : nullptr;
        cpu::gesvd_vbatched<T>(index_t(q), mj.data(), nj.data(), MatrixList<const T>{aj.data(), lda.data()}, sj.data(),
                               MatrixList<T>{uj.data(), ldu.data()}, MatrixList<T>{vj.data(), ldv.data()}, infoj.data(),
                               oj);
        for (std::size_t i = 0; i < q; ++i) {
            info[jacobi[i]] = infoj[i];
            if (opts.sweeps) opts.sweeps[jacobi[i]] = sweepsj[i];
        }
        return;
    }
    cpu::gesvd_vbatched<T>(batch, m, n, a, s, u, v, info, opts);
}

template <class T>
void gesvd(index_t m, index_t n, index_t batch, const T* a, real_t<T>* s, T* u, T* v,
           int* info, const Options& opts) {
    const index_t k = std::min(m, n);
    gesvd<T>(m, n, batch, MatrixBatch<const T>{a, std::max<index_t>(1, m), m * n}, s, k,
             MatrixBatch<T>{u, std::max<index_t>(1, m), m * k},
             MatrixBatch<T>{v, std::max<index_t>(1, n), n * k}, info, opts);
}

#define BATCHSVD_INSTANTIATE_(T)                                                              \
    template void gesvd<T>(index_t, index_t, index_t, MatrixBatch<const T>, real_t<T>*,     \
                           index_t, MatrixBatch<T>, MatrixBatch<T>, int*, const Options&);  \
    template void gesvd<T>(index_t, index_t, index_t, const T*, real_t<T>*, T*, T*, int*,   \
                           const Options&);                                                  \
    template void gesvd_vbatched<T>(index_t, const index_t*, const index_t*, MatrixList<const T>, \
                                    real_t<T>* const*, MatrixList<T>, MatrixList<T>, int*,        \
                                    const Options&);
BATCHSVD_INSTANTIATE_(float)
BATCHSVD_INSTANTIATE_(double)
BATCHSVD_INSTANTIATE_(std::complex<float>)
BATCHSVD_INSTANTIATE_(std::complex<double>)
#undef BATCHSVD_INSTANTIATE_

}  // namespace batchsvd
