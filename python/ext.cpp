// The Python extension module batchsvd._batchsvd (nanobind): one raw entry point that runs
// batchsvd::gesvd on arrays the Python layer has laid out (python/batchsvd/__init__.py).
// nanobind's ndarray takes NumPy, PyTorch, CuPy and JAX arrays (DLPack or the buffer
// protocol) without a copy; this file checks that every operand is large enough for the
// layout it is given, lives on one device and has the right dtype, then calls the C++ API.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>

#include <complex>
#include <cstdint>
#include <optional>
#include <string>

#include "batchsvd/batchsvd.hpp"

namespace nb = nanobind;
using batchsvd::index_t;

namespace {

using AnyArray = nb::ndarray<>;          // any framework, device, dtype and strides
using InArray = nb::ndarray<nb::ro>;     // the same, read-only allowed (the input A)

[[noreturn]] void fail(const std::string& what) { throw nb::value_error(("batchsvd: " + what).c_str()); }

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

template <class T>
void run(const InArray& a, const AnyArray& s, const std::optional<AnyArray>& u,
         const std::optional<AnyArray>& v, const AnyArray& info, index_t m, index_t n,
         index_t batch, index_t lda, index_t sa, index_t ldu, index_t su, index_t ldv, index_t sv,
         index_t ss, const batchsvd::Options& o) {
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
    batchsvd::gesvd<T>(m, n, batch,
                       batchsvd::MatrixBatch<const T>{static_cast<const T*>(a.data()), lda, sa},
                       static_cast<R*>(s.data()), ss,
                       batchsvd::MatrixBatch<T>{u ? static_cast<T*>(u->data()) : nullptr, ldu, su},
                       batchsvd::MatrixBatch<T>{v ? static_cast<T*>(v->data()) : nullptr, ldv, sv},
                       static_cast<int*>(info.data()), o);
}

/// gesvd(a, s, u, v, info, m, n, batch, lda, stride_a, ldu, stride_u, ldv, stride_v,
///       stride_s, tol, max_sweeps, stream): column-major strided batches, as the C++ API.
void gesvd(const InArray& a, const AnyArray& s, const std::optional<AnyArray>& u,
           const std::optional<AnyArray>& v, const AnyArray& info, index_t m, index_t n,
           index_t batch, index_t lda, index_t sa, index_t ldu, index_t su, index_t ldv,
           index_t sv, index_t ss, double tol, int max_sweeps, std::uintptr_t stream) {
    const int dev = a.device_type();
    auto same_device = [&](const auto& x) {
        return x.device_type() == dev && x.device_id() == a.device_id();
    };
    if (!same_device(s) || !same_device(info) || (u && !same_device(*u)) || (v && !same_device(*v)))
        fail("all arrays must be on the same device");
    if (dev != nb::device::cpu::value && dev != nb::device::cuda::value)
        fail("arrays must be in host memory or on a CUDA device");
    batchsvd::Options o;
    o.compute_u = u.has_value();
    o.compute_v = v.has_value();
    o.tol_factor = tol;
    o.max_sweeps = max_sweeps;
    o.stream = reinterpret_cast<void*>(stream);
    o.backend = dev == nb::device::cuda::value ? batchsvd::Backend::cuda : batchsvd::Backend::automatic;
    nb::gil_scoped_release release;
    if (has_dtype<float>(a)) run<float>(a, s, u, v, info, m, n, batch, lda, sa, ldu, su, ldv, sv, ss, o);
    else if (has_dtype<double>(a)) run<double>(a, s, u, v, info, m, n, batch, lda, sa, ldu, su, ldv, sv, ss, o);
    else if (has_dtype<std::complex<float>>(a))
        run<std::complex<float>>(a, s, u, v, info, m, n, batch, lda, sa, ldu, su, ldv, sv, ss, o);
    else if (has_dtype<std::complex<double>>(a))
        run<std::complex<double>>(a, s, u, v, info, m, n, batch, lda, sa, ldu, su, ldv, sv, ss, o);
    else fail("unsupported dtype: float32, float64, complex64 and complex128 are supported");
}

}  // namespace

NB_MODULE(_batchsvd, m) {
    m.doc() = "batchsvd's raw entry point; use batchsvd.svd";
    nb::register_exception_translator([](const std::exception_ptr& p, void*) {
        try {
            std::rethrow_exception(p);
        } catch (const batchsvd::Error& e) {
            if (e.code() == batchsvd::ErrorCode::invalid_argument) PyErr_SetString(PyExc_ValueError, e.what());
            else PyErr_SetString(PyExc_RuntimeError, e.what());
        }
    });
    m.def("gesvd", &gesvd, nb::arg("a"), nb::arg("s"), nb::arg("u").none(), nb::arg("v").none(),
          nb::arg("info"), nb::arg("m"), nb::arg("n"), nb::arg("batch"), nb::arg("lda"),
          nb::arg("stride_a"), nb::arg("ldu"), nb::arg("stride_u"), nb::arg("ldv"),
          nb::arg("stride_v"), nb::arg("stride_s"), nb::arg("tol"), nb::arg("max_sweeps"),
          nb::arg("stream"));
    m.def("cuda_available", &batchsvd::cuda_available);
    m.def("version", &batchsvd::version);
}
