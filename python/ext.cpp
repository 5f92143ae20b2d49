// SPDX-License-Identifier: BSD-3-Clause
// The Python extension module batchsvd._batchsvd (nanobind): raw entry points that run
// batchsvd::gesvd (a strided batch) and batchsvd::gesvd_vbatched (a list of matrices of
// different sizes) on arrays the Python layer has laid out (python/batchsvd/__init__.py).
// nanobind's ndarray takes NumPy, PyTorch, CuPy and JAX arrays (DLPack or the buffer
// protocol) without a copy; this file checks that every operand is large enough for the
// layout it is given, lives on one device and has the right dtype, then calls the C++ API.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <atomic>
#include <complex>
#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#if BATCHSVD_PYTHON_CUDA
#include <cuda_runtime.h>
#endif

#include "batchsvd/batchsvd.hpp"
#if BATCHSVD_PYTHON_JAX
#include "jax_ffi.hpp"
#endif

namespace nb = nanobind;
using batchsvd::index_t;

namespace {

using AnyArray = nb::ndarray<>;          // any framework, device, dtype and strides
using InArray = nb::ndarray<nb::ro>;     // the same, read-only allowed (the input A)

[[noreturn]] void fail(const std::string& what) { throw nb::value_error(("batchsvd: " + what).c_str()); }

/// The data pointer of the last input A handed to the library (tests check that arrays are
/// read in place: it must equal the framework's own pointer).
std::atomic<std::uintptr_t> last_input{0};
/// The same for the last list handed to gesvd_vbatched, one pointer a matrix (only touched
/// with the GIL held).
std::vector<std::uintptr_t> last_inputs;

/// Elements reachable from the data pointer (strides must be non-negative).
template <class X> index_t reachable(const X& x) {
    index_t last = 0;
    for (size_t d = 0; d < x.ndim(); ++d) {
        if (x.shape(d) == 0) return 0;
        if (x.stride(d) < 0) fail("negative strides are not supported");
        last += index_t(x.shape(d) - 1) * index_t(x.stride(d));
    }
    return last + 1;
}

/// Elements a strided batch of rows x cols matrices spans.
index_t span(index_t ld, index_t stride, index_t rows, index_t cols, index_t batch) {
    if (rows == 0 || cols == 0 || batch == 0) return 0;
    return (batch - 1) * stride + (cols - 1) * ld + rows;
}

template <class X> void check_room(const X& x, const char* name, index_t need) {
    if (reachable(x) < need)
        fail(std::string(name) + " is too small for its layout (" + std::to_string(reachable(x)) +
             " elements reachable, " + std::to_string(need) + " needed)");
}

template <class T, class X> bool has_dtype(const X& x) { return x.dtype() == nb::dtype<T>(); }

template <class T> struct Scalar { using type = T; };

/// Calls f(Scalar<T>{}) for the scalar type T of `dt` (the four LAPACK precisions); false for
/// any other dtype.
template <class F> bool with_scalar(const nb::dlpack::dtype& dt, F&& f) {
    if (dt == nb::dtype<float>()) f(Scalar<float>{});
    else if (dt == nb::dtype<double>()) f(Scalar<double>{});
    else if (dt == nb::dtype<std::complex<float>>()) f(Scalar<std::complex<float>>{});
    else if (dt == nb::dtype<std::complex<double>>()) f(Scalar<std::complex<double>>{});
    else return false;
    return true;
}

/// The dtype named by NumPy's name ("float32", ... and, with `int32`, "int32"); nullopt for
/// any other name.
std::optional<nb::dlpack::dtype> dtype_named(const std::string& name, bool int32 = false) {
    if (name == "float32") return nb::dtype<float>();
    if (name == "float64") return nb::dtype<double>();
    if (name == "complex64") return nb::dtype<std::complex<float>>();
    if (name == "complex128") return nb::dtype<std::complex<double>>();
    if (int32 && name == "int32") return nb::dtype<std::int32_t>();
    return std::nullopt;
}

/// Optional per-matrix sweep counts (Options::sweeps): int32, room for `batch` entries.
int* sweeps_pointer(const std::optional<AnyArray>& sweeps, index_t batch) {
    if (!sweeps) return nullptr;
    if (!has_dtype<std::int32_t>(*sweeps)) fail("sweeps must be int32");
    check_room(*sweeps, "sweeps", batch);
    return static_cast<int*>(sweeps->data());
}

template <class T>
void run(const InArray& a, const AnyArray& s, const std::optional<AnyArray>& u,
         const std::optional<AnyArray>& v, const AnyArray& info, index_t m, index_t n,
         index_t batch, index_t lda, index_t sa, index_t ldu, index_t su, index_t ldv, index_t sv,
         index_t ss, batchsvd::Options o, const std::optional<AnyArray>& sweeps) {
    using R = batchsvd::real_t<T>;
    if (!has_dtype<R>(s)) fail("S has the wrong dtype");
    if ((u && !has_dtype<T>(*u)) || (v && !has_dtype<T>(*v))) fail("U or V has the wrong dtype");
    if (!has_dtype<std::int32_t>(info)) fail("info must be int32");
    const index_t k = std::min(m, n);
    check_room(a, "A", span(lda, sa, m, n, batch));
    check_room(s, "S", span(1, ss, k, 1, batch));
    if (u) check_room(*u, "U", span(ldu, su, m, k, batch));
    if (v) check_room(*v, "V", span(ldv, sv, n, k, batch));
    check_room(info, "info", batch);
    o.sweeps = sweeps_pointer(sweeps, batch);
    last_input = reinterpret_cast<std::uintptr_t>(a.data());
    batchsvd::gesvd<T>(m, n, batch,
                       batchsvd::MatrixBatch<const T>{static_cast<const T*>(a.data()), lda, sa},
                       static_cast<R*>(s.data()), ss,
                       batchsvd::MatrixBatch<T>{u ? static_cast<T*>(u->data()) : nullptr, ldu, su},
                       batchsvd::MatrixBatch<T>{v ? static_cast<T*>(v->data()) : nullptr, ldv, sv},
                       static_cast<int*>(info.data()), o);
}

/// gesvd(a, s, u, v, info, m, n, batch, lda, stride_a, ldu, stride_u, ldv, stride_v,
///       stride_s, tol, max_sweeps, stream, devices, sweeps=None, threads=0): column-major
///       strided batches, as the C++ API (devices: Options::devices; sweeps: Options::sweeps,
///       int32, one entry a matrix, or None; threads: Options::threads).
void gesvd(const InArray& a, const AnyArray& s, const std::optional<AnyArray>& u,
           const std::optional<AnyArray>& v, const AnyArray& info, index_t m, index_t n,
           index_t batch, index_t lda, index_t sa, index_t ldu, index_t su, index_t ldv,
           index_t sv, index_t ss, double tol, int max_sweeps, std::uintptr_t stream,
           const std::vector<int>& devices, const std::optional<AnyArray>& sweeps, int threads, int method) {
    const int dev = a.device_type();
    auto same_device = [&](const auto& x) {
        return x.device_type() == dev && x.device_id() == a.device_id();
    };
    if (!same_device(s) || !same_device(info) || (u && !same_device(*u)) || (v && !same_device(*v)) ||
        (sweeps && !same_device(*sweeps)))
        fail("all arrays must be on the same device");
    if (dev != nb::device::cpu::value && dev != nb::device::cuda::value)
        fail("arrays must be in host memory or on a CUDA device");
    batchsvd::Options o;
    o.compute_u = u.has_value();
    o.compute_v = v.has_value();
    o.tol_factor = tol;
    o.max_sweeps = max_sweeps;
    o.threads = threads;
    if (method < 0 || method > 2) fail("method must be 0 (automatic), 1 (jacobi) or 2 (bidiagonal)");
    o.method = static_cast<batchsvd::SvdMethod>(method);
    o.stream = reinterpret_cast<void*>(stream);
    o.devices = devices;
    o.backend = dev == nb::device::cuda::value ? batchsvd::Backend::cuda : batchsvd::Backend::automatic;
    nb::gil_scoped_release release;
    const bool known = with_scalar(a.dtype(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        run<T>(a, s, u, v, info, m, n, batch, lda, sa, ldu, su, ldv, sv, ss, o, sweeps);
    });
    if (!known) fail("unsupported dtype: float32, float64, complex64 and complex128 are supported");
}

/// Where one array of a call lives.
struct Place {
    int type, id;
    const char* name;
};
template <class X> Place place_of(const X& x, const char* name) { return {int(x.device_type()), int(x.device_id()), name}; }

/// Whether every array of a call is on one CUDA device (true) or every one in host memory
/// (false); anything else fails.
bool on_one_cuda_device(const std::vector<Place>& places, const char* fn) {
    const Place& first = places.front();
    for (const Place& p : places) {
        if (p.type != nb::device::cpu::value && p.type != nb::device::cuda::value)
            fail(std::string(fn) + ": " + p.name + " must be in host memory or on a CUDA device");
        if (p.type != first.type || (p.type == nb::device::cuda::value && p.id != first.id))
            fail(std::string(fn) + ": " + p.name + " is not where " + first.name +
                 " is: the arrays of one call must all be in host memory or all on one CUDA device");
    }
    return first.type == nb::device::cuda::value;
}

/// hsvd(g, j, s, j_out, u, v, info, sweeps, m, n, batch, j_stride, tol, max_sweeps, threads,
/// stream): packed column-major batches (G and U m x n, ld m; V n x n, ld n; S and J' n a
/// matrix), j int32 with j_stride (0: one signature for all), as batchsvd::hsvd: host arrays
/// on the CPU backend, arrays of one CUDA device (the current one) on the GPU, on `stream`.
void hsvd(const InArray& g, const InArray& j, const AnyArray& s, const AnyArray& jout,
          const std::optional<AnyArray>& u, const std::optional<AnyArray>& v, const AnyArray& info,
          const AnyArray& sweeps, index_t m, index_t n, index_t batch, index_t j_stride, double tol,
          int max_sweeps, int threads, std::uintptr_t stream) {
    std::vector<Place> places{place_of(g, "G"), place_of(j, "J"), place_of(s, "S"), place_of(jout, "J'"),
                              place_of(info, "info"), place_of(sweeps, "sweeps")};
    if (u) places.push_back(place_of(*u, "U"));
    if (v) places.push_back(place_of(*v, "V"));
    const bool cuda = on_one_cuda_device(places, "hsvd");
    if (!has_dtype<std::int32_t>(j) || !has_dtype<std::int32_t>(jout) || !has_dtype<std::int32_t>(info) ||
        !has_dtype<std::int32_t>(sweeps))
        fail("J, J', info and sweeps must be int32");
    check_room(j, "J", j_stride == 0 ? n : span(1, j_stride, n, 1, batch));
    check_room(jout, "J'", span(1, n, n, 1, batch));
    check_room(info, "info", batch);
    check_room(sweeps, "sweeps", batch);
    batchsvd::Options o;
    o.compute_u = u.has_value();
    o.compute_v = v.has_value();
    o.tol_factor = tol;
    o.max_sweeps = max_sweeps;
    o.threads = threads;
    o.backend = cuda ? batchsvd::Backend::automatic : batchsvd::Backend::cpu;
    o.stream = reinterpret_cast<void*>(stream);
    o.sweeps = static_cast<int*>(sweeps.data());
    nb::gil_scoped_release release;
    const bool known = with_scalar(g.dtype(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        using R = batchsvd::real_t<T>;
        if (!has_dtype<R>(s) || (u && !has_dtype<T>(*u)) || (v && !has_dtype<T>(*v))) fail("S, U or V has the wrong dtype");
        check_room(g, "G", span(m, m * n, m, n, batch));
        check_room(s, "S", span(1, n, n, 1, batch));
        if (u) check_room(*u, "U", span(m, m * n, m, n, batch));
        if (v) check_room(*v, "V", span(n, n * n, n, n, batch));
        batchsvd::hsvd<T>(m, n, batch, batchsvd::MatrixBatch<const T>{static_cast<const T*>(g.data()), std::max<index_t>(m, 1), m * n},
                          batchsvd::SignatureBatch{static_cast<const int*>(j.data()), j_stride}, static_cast<R*>(s.data()), n,
                          static_cast<int*>(jout.data()), n,
                          batchsvd::MatrixBatch<T>{u ? static_cast<T*>(u->data()) : nullptr, std::max<index_t>(m, 1), m * n},
                          batchsvd::MatrixBatch<T>{v ? static_cast<T*>(v->data()) : nullptr, std::max<index_t>(n, 1), n * n},
                          static_cast<int*>(info.data()), o);
    });
    if (!known) fail("unsupported dtype: float32, float64, complex64 and complex128 are supported");
}

/// eigh_indefinite(a, w, z, info, sweeps, n, batch, tol, max_sweeps, threads, stream): packed
/// column-major n x n matrices (lower triangle read), as batchsvd::eigh_indefinite; host or
/// device arrays as hsvd's.
void eigh_indefinite(const InArray& a, const AnyArray& w, const std::optional<AnyArray>& z, const AnyArray& info,
                     const AnyArray& sweeps, index_t n, index_t batch, double tol, int max_sweeps, int threads,
                     std::uintptr_t stream) {
    std::vector<Place> places{place_of(a, "A"), place_of(w, "W"), place_of(info, "info"), place_of(sweeps, "sweeps")};
    if (z) places.push_back(place_of(*z, "Z"));
    const bool cuda = on_one_cuda_device(places, "eigh_indefinite");
    if (!has_dtype<std::int32_t>(info) || !has_dtype<std::int32_t>(sweeps)) fail("info and sweeps must be int32");
    check_room(info, "info", batch);
    check_room(sweeps, "sweeps", batch);
    batchsvd::Options o;
    o.compute_u = z.has_value();
    o.tol_factor = tol;
    o.max_sweeps = max_sweeps;
    o.threads = threads;
    o.backend = cuda ? batchsvd::Backend::automatic : batchsvd::Backend::cpu;
    o.stream = reinterpret_cast<void*>(stream);
    o.sweeps = static_cast<int*>(sweeps.data());
    nb::gil_scoped_release release;
    const bool known = with_scalar(a.dtype(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        using R = batchsvd::real_t<T>;
        if (!has_dtype<R>(w) || (z && !has_dtype<T>(*z))) fail("W or Z has the wrong dtype");
        const index_t ld = std::max<index_t>(n, 1);
        check_room(a, "A", span(n, n * n, n, n, batch));
        check_room(w, "W", span(1, n, n, 1, batch));
        if (z) check_room(*z, "Z", span(n, n * n, n, n, batch));
        batchsvd::eigh_indefinite<T>(n, batch, batchsvd::MatrixBatch<const T>{static_cast<const T*>(a.data()), ld, n * n},
                                     static_cast<R*>(w.data()), n,
                                     batchsvd::MatrixBatch<T>{z ? static_cast<T*>(z->data()) : nullptr, ld, n * n},
                                     static_cast<int*>(info.data()), o);
    });
    if (!known) fail("unsupported dtype: float32, float64, complex64 and complex128 are supported");
}

#if BATCHSVD_PYTHON_CUDA
void cuda_check(cudaError_t e, const char* what);
#endif

/// gebrd(a, d, e, tauq, taup, info, m, n, batch, threads, a_in, stream): packed column-major
/// matrices, overwritten in place, as batchsvd::gebrd (vectors k = min(m, n) apart); a_in,
/// where given, is copied into a first (arrays that cannot be written: JAX's). Host arrays on
/// the CPU backend, arrays of one CUDA device (the current one) on the GPU, on `stream`.
void gebrd(const AnyArray& a, const AnyArray& d, const AnyArray& e, const AnyArray& tauq, const AnyArray& taup,
           const AnyArray& info, index_t m, index_t n, index_t batch, int threads, const std::optional<InArray>& a_in,
           std::uintptr_t stream) {
    std::vector<Place> places{place_of(a, "A"), place_of(d, "d"), place_of(e, "e"), place_of(tauq, "tauq"),
                              place_of(taup, "taup"), place_of(info, "info")};
    if (a_in) places.push_back(place_of(*a_in, "the input"));
    const bool cuda = on_one_cuda_device(places, "gebrd");
    if (!has_dtype<std::int32_t>(info)) fail("info must be int32");
    check_room(info, "info", batch);
    const index_t k = std::min(m, n), st = std::max<index_t>(k, 1);
    batchsvd::Options o;
    o.threads = threads;
    o.backend = cuda ? batchsvd::Backend::automatic : batchsvd::Backend::cpu;
    o.stream = reinterpret_cast<void*>(stream);
    if (a_in) {
        if (a_in->dtype() != a.dtype()) fail("the input and A differ in dtype");
        check_room(*a_in, "the input", span(m, m * n, m, n, batch));
    }
    nb::gil_scoped_release release;
    const bool known = with_scalar(a.dtype(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        using R = batchsvd::real_t<T>;
        if (!has_dtype<R>(d) || !has_dtype<R>(e) || !has_dtype<T>(tauq) || !has_dtype<T>(taup))
            fail("d, e, tauq or taup has the wrong dtype");
        check_room(a, "A", span(m, m * n, m, n, batch));
        for (auto [x, name] : {std::pair<const AnyArray*, const char*>{&d, "d"}, {&e, "e"}, {&tauq, "tauq"}, {&taup, "taup"}})
            check_room(*x, name, span(1, st, k, 1, batch));
        if (a_in && a_in->data() != a.data()) {
            const std::size_t bytes = std::size_t(m * n * batch) * sizeof(T);
            if (!cuda) {
                std::memcpy(a.data(), a_in->data(), bytes);
            } else {
#if BATCHSVD_PYTHON_CUDA
                cuda_check(cudaMemcpyAsync(a.data(), a_in->data(), bytes, cudaMemcpyDeviceToDevice,
                                           reinterpret_cast<cudaStream_t>(stream)),
                           "cudaMemcpyAsync");
#else
                fail("gebrd: CUDA arrays, but this build of the extension has no CUDA");
#endif
            }
        }
        batchsvd::gebrd<T>(m, n, batch, batchsvd::MatrixBatch<T>{static_cast<T*>(a.data()), std::max<index_t>(m, 1), m * n},
                           batchsvd::BidiagonalBatch<T>{static_cast<R*>(d.data()), static_cast<R*>(e.data()),
                                                        static_cast<T*>(tauq.data()), static_cast<T*>(taup.data()), st},
                           static_cast<int*>(info.data()), o);
    });
    if (!known) fail("unsupported dtype: float32, float64, complex64 and complex128 are supported");
}

/// The operands of one gesvd_vbatched call, as the Python layer lays them out: matrix b is
/// the column-major rows[b] x cols[b] matrix at a[b] with leading dimension lda[b]; its
/// k = min(rows, cols) values go to s at s_offset[b]; its U (rows x k) to u at u_offset[b] and
/// its V (cols x k) to v at v_offset[b], both packed (ld = rows, cols), except where swap[b]
/// is set: then U goes to v at v_offset[b] and V to u at u_offset[b] (the Python layer solves
/// a row-major matrix as its transpose, whose U and V are the original's V and U).
struct ListLayout {
    index_t batch;
    const void* const* a;  // one data pointer a matrix
    const index_t* rows;
    const index_t* cols;
    const index_t* lda;
    const index_t* s_offset;
    const index_t* u_offset;
    const index_t* v_offset;
    const std::int64_t* swap;
};

/// Output buffers of gesvd_vbatched: one-dimensional with unit stride (one allocation each).
template <class X> void check_flat(const X& x, const char* name) {
    if (x.ndim() != 1 || (x.shape(0) > 1 && x.stride(0) != 1))
        fail(std::string(name) + " must be a one-dimensional array with unit stride");
}

[[noreturn]] void fail_matrix(size_t b, const std::string& what) {
    fail("matrix " + std::to_string(b) + ": " + what);
}

/// The checks on one matrix's sizes, offsets and leading dimension.
void check_matrix(const ListLayout& l, size_t b) {
    const index_t rows = l.rows[b], cols = l.cols[b];
    if (rows < 0 || cols < 0) fail_matrix(b, "negative size");
    if (l.s_offset[b] < 0 || l.u_offset[b] < 0 || l.v_offset[b] < 0) fail_matrix(b, "negative offset");
    if (l.lda[b] < std::max<index_t>(1, rows))
        fail_matrix(b, "leading dimension " + std::to_string(l.lda[b]) + " is below the rows");
}

template <class T>
void run_vbatched(const ListLayout& l, const AnyArray& s, const std::optional<AnyArray>& u,
                  const std::optional<AnyArray>& v, const AnyArray& info,
                  const std::optional<AnyArray>& sweeps, batchsvd::Options o) {
    using R = batchsvd::real_t<T>;
    const index_t batch = l.batch;
    const size_t count = size_t(batch);
    if (!has_dtype<R>(s)) fail("S has the wrong dtype");
    if ((u && !has_dtype<T>(*u)) || (v && !has_dtype<T>(*v))) fail("U or V has the wrong dtype");
    if (!has_dtype<std::int32_t>(info)) fail("info must be int32");
    check_flat(s, "S");
    if (u) check_flat(*u, "U");
    if (v) check_flat(*v, "V");
    check_room(info, "info", batch);
    o.sweeps = sweeps_pointer(sweeps, batch);

    std::vector<const T*> pa(count);
    std::vector<R*> ps(count);
    std::vector<T*> pu(count), pv(count);
    std::vector<index_t> ldu(count), ldv(count);
    index_t need_s = 0, need_u = 0, need_v = 0;
    R* const s0 = static_cast<R*>(s.data());
    T* const u0 = u ? static_cast<T*>(u->data()) : nullptr;
    T* const v0 = v ? static_cast<T*>(v->data()) : nullptr;
    for (size_t b = 0; b < count; ++b) {
        const index_t rows = l.rows[b], cols = l.cols[b], k = std::min(rows, cols);
        check_matrix(l, b);
        pa[b] = static_cast<const T*>(l.a[b]);
        ldu[b] = std::max<index_t>(1, rows);
        ldv[b] = std::max<index_t>(1, cols);
        if (k == 0) continue;  // nothing is read or written (but info and sweeps)
        ps[b] = s0 + l.s_offset[b];
        need_s = std::max(need_s, l.s_offset[b] + k);
        // U' (rows x k) and V' (cols x k) of the library, into u and v or, swapped, v and u.
        const index_t u_end = l.u_offset[b] + (l.swap[b] ? cols : rows) * k;
        const index_t v_end = l.v_offset[b] + (l.swap[b] ? rows : cols) * k;
        if (u) {
            need_u = std::max(need_u, u_end);
            need_v = std::max(need_v, v_end);
            pu[b] = l.swap[b] ? v0 + l.v_offset[b] : u0 + l.u_offset[b];
            pv[b] = l.swap[b] ? u0 + l.u_offset[b] : v0 + l.v_offset[b];
        }
    }
    check_room(s, "S", need_s);
    if (u) check_room(*u, "U", need_u);
    if (v) check_room(*v, "V", need_v);
    last_inputs.resize(count);
    for (size_t b = 0; b < count; ++b) last_inputs[b] = reinterpret_cast<std::uintptr_t>(pa[b]);

    nb::gil_scoped_release release;
    batchsvd::gesvd_vbatched<T>(batch, l.rows, l.cols, batchsvd::MatrixList<const T>{pa.data(), l.lda}, ps.data(),
                                batchsvd::MatrixList<T>{pu.data(), ldu.data()},
                                batchsvd::MatrixList<T>{pv.data(), ldv.data()},
                                static_cast<int*>(info.data()), o);
}

/// Options of a gesvd_vbatched call on device `dev` (nanobind's device type) after checking
/// that the outputs live there.
batchsvd::Options list_options(int dev, std::int32_t dev_id, const AnyArray& s, const std::optional<AnyArray>& u,
                               const std::optional<AnyArray>& v, const AnyArray& info,
                               const std::optional<AnyArray>& sweeps, double tol, int max_sweeps,
                               std::uintptr_t stream, int threads, int method) {
    auto same_device = [&](const auto& x) { return x.device_type() == dev && x.device_id() == dev_id; };
    if (!same_device(s) || !same_device(info) || (u && !same_device(*u)) || (v && !same_device(*v)) ||
        (sweeps && !same_device(*sweeps)))
        fail("all arrays must be on the same device");
    if (dev != nb::device::cpu::value && dev != nb::device::cuda::value)
        fail("arrays must be in host memory or on a CUDA device");
    batchsvd::Options o;
    o.compute_u = u.has_value();
    o.compute_v = v.has_value();
    o.tol_factor = tol;
    o.max_sweeps = max_sweeps;
    o.threads = threads;
    if (method < 0 || method > 2) fail("method must be 0 (automatic), 1 (jacobi) or 2 (bidiagonal)");
    o.method = static_cast<batchsvd::SvdMethod>(method);
    o.stream = reinterpret_cast<void*>(stream);
    o.backend = dev == nb::device::cuda::value ? batchsvd::Backend::cuda : batchsvd::Backend::automatic;
    return o;
}

void dispatch_vbatched(const nb::dlpack::dtype& dtype, const ListLayout& l, const AnyArray& s,
                       const std::optional<AnyArray>& u, const std::optional<AnyArray>& v, const AnyArray& info,
                       const std::optional<AnyArray>& sweeps, const batchsvd::Options& o) {
    const bool known = with_scalar(dtype, [&](auto tag) {
        run_vbatched<typename decltype(tag)::type>(l, s, u, v, info, sweeps, o);
    });
    if (!known)
        throw nb::type_error("batchsvd: unsupported dtype: float32, float64, complex64 and complex128 are supported");
}

/// gesvd_vbatched(a, rows, cols, lda, s, s_offset, u, u_offset, v, v_offset, swap, info,
///                sweeps, tol, max_sweeps, stream, threads=0): one batchsvd::gesvd_vbatched call on a
///       list of arrays of one dtype and one device (a TypeError names the first matrix of
///       another dtype, a ValueError the first on another device), with the layout of
///       ListLayout; s, u, v flat buffers (u and v both or neither), info and sweeps (None:
///       not written) int32 with one entry a matrix.
void gesvd_vbatched(const std::vector<InArray>& a, const std::vector<index_t>& rows,
                    const std::vector<index_t>& cols, const std::vector<index_t>& lda,
                    const AnyArray& s, const std::vector<index_t>& s_offset,
                    const std::optional<AnyArray>& u, const std::vector<index_t>& u_offset,
                    const std::optional<AnyArray>& v, const std::vector<index_t>& v_offset,
                    const std::vector<int>& swap, const AnyArray& info,
                    const std::optional<AnyArray>& sweeps, double tol, int max_sweeps,
                    std::uintptr_t stream, int threads, int method) {
    const size_t batch = a.size();
    for (const size_t len : {rows.size(), cols.size(), lda.size(), s_offset.size(), u_offset.size(),
                             v_offset.size(), swap.size()})
        if (len != batch)
            fail("gesvd_vbatched: every per-matrix list must have one entry a matrix (" + std::to_string(batch) +
                 "), got " + std::to_string(len));
    if (u.has_value() != v.has_value()) fail("gesvd_vbatched: give U and V both or neither");
    if (batch == 0) return;
    const int dev = a[0].device_type();
    const auto dev_id = a[0].device_id();
    for (size_t b = 1; b < batch; ++b) {
        if (a[b].dtype() != a[0].dtype())
            throw nb::type_error(("batchsvd: the matrices of a list must share one dtype; matrix " +
                                  std::to_string(b) + "'s differs from matrix 0's")
                                     .c_str());
        if (a[b].device_type() != dev || a[b].device_id() != dev_id)
            fail("the matrices of a list must be on one device; matrix " + std::to_string(b) +
                 " is on another device than matrix 0");
    }
    const batchsvd::Options o = list_options(dev, dev_id, s, u, v, info, sweeps, tol, max_sweeps, stream, threads, method);
    std::vector<const void*> pa(batch);
    std::vector<std::int64_t> swap64(swap.begin(), swap.end());
    const ListLayout l{index_t(batch), pa.data(), rows.data(), cols.data(), lda.data(),
                       s_offset.data(), u_offset.data(), v_offset.data(), swap64.data()};
    for (size_t b = 0; b < batch; ++b) {
        check_matrix(l, b);
        const index_t need = span(lda[b], 0, rows[b], cols[b], 1);
        if (reachable(a[b]) < need)
            fail_matrix(b, "A is too small for its layout (" + std::to_string(reachable(a[b])) +
                               " elements reachable, " + std::to_string(need) + " needed)");
        pa[b] = a[b].data();
    }
    dispatch_vbatched(a[0].dtype(), l, s, u, v, info, sweeps, o);
}

using IndexVector = nb::ndarray<const std::int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using PointerVector = nb::ndarray<const std::uint64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

/// gesvd_vbatched_pointers(a, pointers, dtype, cuda, device, rows, cols, lda, s, s_offset, u,
///                         u_offset, v, v_offset, swap, info, sweeps, tol, max_sweeps, stream,
///                         threads=0):
///       gesvd_vbatched on matrices the caller has checked and laid out: matrix b at
///       pointers[b] (None: the data pointer of a[b] through the buffer protocol, for NumPy
///       arrays), all of `dtype` ("float32", ...) in host memory (cuda False) or on CUDA
///       device `device`; the per-matrix vectors int64 arrays of one entry a matrix (swap:
///       0 or 1), the rest as gesvd_vbatched's. The caller keeps the arrays alive and
///       guarantees that each holds its rows x cols matrix at leading dimension lda.
void gesvd_vbatched_pointers(nb::handle a, const std::optional<PointerVector>& pointers,
                             const std::string& dtype, bool cuda, int device, const IndexVector& rows,
                             const IndexVector& cols, const IndexVector& lda, const AnyArray& s,
                             const IndexVector& s_offset, const std::optional<AnyArray>& u,
                             const IndexVector& u_offset, const std::optional<AnyArray>& v,
                             const IndexVector& v_offset, const IndexVector& swap, const AnyArray& info,
                             const std::optional<AnyArray>& sweeps, double tol, int max_sweeps,
                             std::uintptr_t stream, int threads, int method) {
    const size_t batch = rows.shape(0);
    for (const size_t len : {cols.shape(0), lda.shape(0), s_offset.shape(0), u_offset.shape(0),
                             v_offset.shape(0), swap.shape(0)})
        if (len != batch)
            fail("gesvd_vbatched: every per-matrix list must have one entry a matrix (" + std::to_string(batch) +
                 "), got " + std::to_string(len));
    if (pointers && pointers->shape(0) != batch) fail("gesvd_vbatched: one pointer a matrix is needed");
    if (u.has_value() != v.has_value()) fail("gesvd_vbatched: give U and V both or neither");
    if (batch == 0) return;
    const int dev = cuda ? nb::device::cuda::value : nb::device::cpu::value;
    const batchsvd::Options o = list_options(dev, cuda ? device : 0, s, u, v, info, sweeps, tol, max_sweeps, stream, threads, method);
    std::vector<const void*> pa(batch);
    if (pointers) {
        const std::uint64_t* p = pointers->data();
        for (size_t b = 0; b < batch; ++b) pa[b] = reinterpret_cast<const void*>(std::uintptr_t(p[b]));
    } else {
        if (cuda) fail("gesvd_vbatched: device arrays need their pointers");
        nb::list arrays = nb::borrow<nb::list>(a);
        if (arrays.size() != batch) fail("gesvd_vbatched: one array a matrix is needed");
        for (size_t b = 0; b < batch; ++b) {
            Py_buffer view;
            if (PyObject_GetBuffer(arrays[b].ptr(), &view, PyBUF_STRIDES) != 0) throw nb::python_error();
            pa[b] = view.buf;
            PyBuffer_Release(&view);
        }
    }
    const ListLayout l{index_t(batch), pa.data(), rows.data(), cols.data(), lda.data(),
                       s_offset.data(), u_offset.data(), v_offset.data(), swap.data()};
    const std::optional<nb::dlpack::dtype> dt = dtype_named(dtype);
    if (!dt) throw nb::type_error(("batchsvd: unsupported dtype " + dtype).c_str());
    dispatch_vbatched(*dt, l, s, u, v, info, sweeps, o);
}

#if BATCHSVD_PYTHON_CUDA
void cuda_check(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return;
    (void)cudaGetLastError();
    throw batchsvd::Error(e == cudaErrorMemoryAllocation ? batchsvd::ErrorCode::out_of_memory
                                                         : batchsvd::ErrorCode::device_error,
                          std::string("batchsvd: ") + what + " failed: " + cudaGetErrorString(e));
}

/// Device memory for results handed to frameworks that cannot be written into (JAX arrays
/// are immutable): an array of nanobind's own type (the array_api framework: an object with
/// __dlpack__ that can be imported any number of times, unlike a raw DLPack capsule) owning a
/// cudaMalloc'd buffer on `device`, C-contiguous, freed when the last reference goes.
nb::ndarray<nb::array_api> cuda_empty(const std::vector<size_t>& shape, const std::string& dtype, int device) {
    const std::optional<nb::dlpack::dtype> named = dtype_named(dtype, true);
    if (!named) fail("cuda_empty: unsupported dtype " + dtype);
    const nb::dlpack::dtype dt = *named;
    size_t count = 1;
    for (size_t x : shape) count *= x;
    const size_t bytes = count * ((dt.bits + 7) / 8);
    int previous = 0;
    cuda_check(cudaGetDevice(&previous), "cudaGetDevice");
    cuda_check(cudaSetDevice(device), "cudaSetDevice");
    void* p = nullptr;
    const cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
    cuda_check(cudaSetDevice(previous), "cudaSetDevice");
    cuda_check(e, "cudaMalloc");
    nb::capsule owner(p, [](void* q) noexcept { (void)cudaFree(q); });
    return nb::ndarray<nb::array_api>(p, shape.size(), shape.data(), owner, nullptr, dt, nb::device::cuda::value,
                                      device);
}

/// Makes `device` current and returns the device that was.
int cuda_set_device(int device) {
    int previous = 0;
    cuda_check(cudaGetDevice(&previous), "cudaGetDevice");
    cuda_check(cudaSetDevice(device), "cudaSetDevice");
    return previous;
}

void cuda_synchronize(std::uintptr_t stream) {
    nb::gil_scoped_release release;
    cuda_check(cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(stream)), "cudaStreamSynchronize");
}
#endif

/// The Python exceptions of batchsvd::Error codes out_of_memory and device_error (made when the
/// module is initialised, kept for the life of the process).
PyObject* out_of_memory_error = nullptr;
PyObject* device_error = nullptr;

}  // namespace

NB_MODULE(_batchsvd, m) {
    m.doc() = "batchsvd's raw entry point; use batchsvd.svd";
    out_of_memory_error = PyErr_NewExceptionWithDoc(
        "batchsvd.OutOfMemoryError",
        "Device memory for batchsvd's workspace or staging could not be allocated (a MemoryError).", PyExc_MemoryError,
        nullptr);
    device_error = PyErr_NewExceptionWithDoc(
        "batchsvd.DeviceError", "A CUDA kernel launch, runtime, cuBLAS or cuSOLVER call failed (a RuntimeError).",
        PyExc_RuntimeError, nullptr);
    if (!out_of_memory_error || !device_error) throw nb::python_error();
    m.attr("OutOfMemoryError") = nb::handle(out_of_memory_error);
    m.attr("DeviceError") = nb::handle(device_error);
    nb::register_exception_translator([](const std::exception_ptr& p, void*) {
        try {
            std::rethrow_exception(p);
        } catch (const batchsvd::Error& e) {
            switch (e.code()) {
                case batchsvd::ErrorCode::invalid_argument: PyErr_SetString(PyExc_ValueError, e.what()); break;
                case batchsvd::ErrorCode::out_of_memory: PyErr_SetString(out_of_memory_error, e.what()); break;
                case batchsvd::ErrorCode::device_error: PyErr_SetString(device_error, e.what()); break;
                default: PyErr_SetString(PyExc_RuntimeError, e.what());
            }
        }
    });
    m.def("gesvd", &gesvd, nb::arg("a"), nb::arg("s"), nb::arg("u").none(), nb::arg("v").none(),
          nb::arg("info"), nb::arg("m"), nb::arg("n"), nb::arg("batch"), nb::arg("lda"),
          nb::arg("stride_a"), nb::arg("ldu"), nb::arg("stride_u"), nb::arg("ldv"),
          nb::arg("stride_v"), nb::arg("stride_s"), nb::arg("tol"), nb::arg("max_sweeps"),
          nb::arg("stream"), nb::arg("devices"), nb::arg("sweeps").none() = nb::none(), nb::arg("threads") = 0,
          nb::arg("method") = 0);
    m.def("gebrd", &gebrd, nb::arg("a"), nb::arg("d"), nb::arg("e"), nb::arg("tauq"), nb::arg("taup"),
          nb::arg("info"), nb::arg("m"), nb::arg("n"), nb::arg("batch"), nb::arg("threads"),
          nb::arg("a_in").none() = nb::none(), nb::arg("stream") = 0);
    m.def("hsvd", &hsvd, nb::arg("g"), nb::arg("j"), nb::arg("s"), nb::arg("j_out"), nb::arg("u").none(),
          nb::arg("v").none(), nb::arg("info"), nb::arg("sweeps"), nb::arg("m"), nb::arg("n"), nb::arg("batch"),
          nb::arg("j_stride"), nb::arg("tol"), nb::arg("max_sweeps"), nb::arg("threads"), nb::arg("stream") = 0);
    m.def("eigh_indefinite", &eigh_indefinite, nb::arg("a"), nb::arg("w"), nb::arg("z").none(), nb::arg("info"),
          nb::arg("sweeps"), nb::arg("n"), nb::arg("batch"), nb::arg("tol"), nb::arg("max_sweeps"),
          nb::arg("threads"), nb::arg("stream") = 0);
    m.def("gesvd_vbatched", &gesvd_vbatched, nb::arg("a"), nb::arg("rows"), nb::arg("cols"),
          nb::arg("lda"), nb::arg("s"), nb::arg("s_offset"), nb::arg("u").none(),
          nb::arg("u_offset"), nb::arg("v").none(), nb::arg("v_offset"), nb::arg("swap"),
          nb::arg("info"), nb::arg("sweeps").none(), nb::arg("tol"), nb::arg("max_sweeps"),
          nb::arg("stream"), nb::arg("threads") = 0, nb::arg("method") = 0);
    m.def("gesvd_vbatched_pointers", &gesvd_vbatched_pointers, nb::arg("a"), nb::arg("pointers").none(),
          nb::arg("dtype"), nb::arg("cuda"), nb::arg("device"), nb::arg("rows"), nb::arg("cols"),
          nb::arg("lda"), nb::arg("s"), nb::arg("s_offset"), nb::arg("u").none(), nb::arg("u_offset"),
          nb::arg("v").none(), nb::arg("v_offset"), nb::arg("swap"), nb::arg("info"),
          nb::arg("sweeps").none(), nb::arg("tol"), nb::arg("max_sweeps"), nb::arg("stream"),
          nb::arg("threads") = 0, nb::arg("method") = 0);
    m.def("cuda_available", &batchsvd::cuda_available);
    m.def("cuda_devices", &batchsvd::cuda_devices);
    m.def("release_cached_memory", &batchsvd::release_cached_memory);
    m.def("cached_memory_bytes", &batchsvd::cached_memory_bytes, nb::arg("device"));
#if BATCHSVD_PYTHON_JAX
    // The XLA FFI handlers of batchsvd.jax, as the capsules jax.ffi.register_ffi_target takes
    // (a dict of name -> capsule; the CUDA ones only in a CUDA build).
    m.def("jax_ffi_handlers", [] {
        const batchsvd::python::Handlers h = batchsvd::python::jax_handlers();
        nb::dict d;
        auto add = [&](const char* name, void* fn) {
            if (fn) d[name] = nb::capsule(fn);
        };
        add("svd_cpu", h.svd_cpu);
        add("svdvals_cpu", h.svdvals_cpu);
        add("svd_cuda", h.svd_cuda);
        add("svdvals_cuda", h.svdvals_cuda);
        return d;
    });
#endif
    m.def("_last_input_pointer", [] { return std::uintptr_t(last_input); });
    m.def("_last_input_pointers", [] { return last_inputs; });
#if BATCHSVD_PYTHON_CUDA
    m.def("cuda_empty", &cuda_empty, nb::arg("shape"), nb::arg("dtype"), nb::arg("device"));
    m.def("cuda_set_device", &cuda_set_device, nb::arg("device"));
    m.def("cuda_synchronize", &cuda_synchronize, nb::arg("stream"));
#endif
    m.def("version", &batchsvd::version);
}
