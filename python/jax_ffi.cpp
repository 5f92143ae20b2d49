// SPDX-License-Identifier: BSD-3-Clause
// XLA FFI handlers of batchsvd.jax (python/batchsvd/jax.py): batchsvd::gesvd on XLA's own
// buffers, on the CPU and on XLA's CUDA stream, so that jax.jit compiles a call into one custom
// call with no host round trip and no copy. Built when the XLA FFI headers of jaxlib are found
// (python/CMakeLists.txt).
//
// JAX arrays are row-major: a (..., m, n) input is, column-major, the batch of its transposes
// (n x m). Their SVD A^T = U' S V'^H gives A = conj(V') S U'^T, so the handlers write U' into
// `left` ((..., k, n) row-major: U'^T, which is A's Vh) and V' into `right` ((..., k, m)
// row-major: V'^T; A's U is conj(right)^T, taken in Python), with k = min(m, n).
#include "jax_ffi.hpp"

#include <complex>
#include <cstdint>
#include <exception>
#include <string>

#include <xla/ffi/api/ffi.h>

#include "batchsvd/batchsvd.hpp"

#if BATCHSVD_PYTHON_CUDA
#include <cuda_runtime.h>
#endif

namespace ffi = xla::ffi;

namespace batchsvd::python {
namespace {

using index_t = batchsvd::index_t;

/// The batch, m and n of a (..., m, n) buffer.
struct Shape {
    index_t batch = 1, m = 0, n = 0;
};
bool shape_of(const ffi::AnyBuffer& a, Shape& sh) {
    const auto dims = a.dimensions();
    if (dims.size() < 2) return false;
    for (std::size_t i = 0; i + 2 < dims.size(); ++i) sh.batch *= dims[i];
    sh.m = dims[dims.size() - 2];
    sh.n = dims[dims.size() - 1];
    return true;
}

template <class T>
void solve(const Shape& sh, const ffi::AnyBuffer& a, ffi::AnyBuffer* s, ffi::AnyBuffer* left, ffi::AnyBuffer* right,
           int* info, const batchsvd::Options& o) {
    using R = batchsvd::real_t<T>;
    const index_t m = sh.m, n = sh.n, k = std::min(m, n);
    // Column-major: the n x m transposes, leading dimension n, packed.
    batchsvd::gesvd<T>(n, m, sh.batch, batchsvd::MatrixBatch<const T>{static_cast<const T*>(a.untyped_data()), std::max<index_t>(1, n), m * n},
                       static_cast<R*>(s->untyped_data()), k,
                       batchsvd::MatrixBatch<T>{left ? static_cast<T*>(left->untyped_data()) : nullptr, std::max<index_t>(1, n), n * k},
                       batchsvd::MatrixBatch<T>{right ? static_cast<T*>(right->untyped_data()) : nullptr, std::max<index_t>(1, m), m * k},
                       info, o);
}

/// The solve of one call: every batchsvd error becomes an FFI error (nothing is thrown into XLA).
ffi::Error run(const ffi::AnyBuffer& a, ffi::AnyBuffer* s, ffi::AnyBuffer* left, ffi::AnyBuffer* right, int* info,
               batchsvd::Backend backend, void* stream) {
    Shape sh;
    if (!shape_of(a, sh)) return ffi::Error(ffi::ErrorCode::kInvalidArgument, "batchsvd: expected (..., m, n)");
    if (sh.batch == 0 || std::min(sh.m, sh.n) == 0) return ffi::Error::Success();  // (Python handles these)
    batchsvd::Options o;
    o.backend = backend;
    o.stream = stream;
    o.compute_u = o.compute_v = left != nullptr;
    try {
        switch (a.element_type()) {
            case ffi::DataType::F32: solve<float>(sh, a, s, left, right, info, o); break;
            case ffi::DataType::F64: solve<double>(sh, a, s, left, right, info, o); break;
            case ffi::DataType::C64: solve<std::complex<float>>(sh, a, s, left, right, info, o); break;
            case ffi::DataType::C128: solve<std::complex<double>>(sh, a, s, left, right, info, o); break;
            default:
                return ffi::Error(ffi::ErrorCode::kInvalidArgument,
                                  "batchsvd: unsupported dtype; use float32, float64, complex64 or complex128");
        }
    } catch (const batchsvd::Error& e) {
        const auto code = e.code() == batchsvd::ErrorCode::invalid_argument   ? ffi::ErrorCode::kInvalidArgument
                          : e.code() == batchsvd::ErrorCode::out_of_memory     ? ffi::ErrorCode::kResourceExhausted
                          : e.code() == batchsvd::ErrorCode::backend_unavailable ? ffi::ErrorCode::kUnavailable
                                                                              : ffi::ErrorCode::kInternal;
        return ffi::Error(code, e.what());
    } catch (const std::exception& e) {
        return ffi::Error(ffi::ErrorCode::kInternal, std::string("batchsvd: ") + e.what());
    }
    return ffi::Error::Success();
}

ffi::Error svd_cpu(ffi::AnyBuffer a, ffi::Result<ffi::AnyBuffer> s, ffi::Result<ffi::AnyBuffer> left,
                   ffi::Result<ffi::AnyBuffer> right, ffi::Result<ffi::Buffer<ffi::S32>> info) {
    return run(a, &*s, &*left, &*right, info->typed_data(), batchsvd::Backend::cpu, nullptr);
}
ffi::Error svdvals_cpu(ffi::AnyBuffer a, ffi::Result<ffi::AnyBuffer> s, ffi::Result<ffi::Buffer<ffi::S32>> info) {
    return run(a, &*s, nullptr, nullptr, info->typed_data(), batchsvd::Backend::cpu, nullptr);
}

#if BATCHSVD_PYTHON_CUDA
ffi::Error svd_cuda(cudaStream_t stream, ffi::AnyBuffer a, ffi::Result<ffi::AnyBuffer> s,
                    ffi::Result<ffi::AnyBuffer> left, ffi::Result<ffi::AnyBuffer> right,
                    ffi::Result<ffi::Buffer<ffi::S32>> info) {
    return run(a, &*s, &*left, &*right, info->typed_data(), batchsvd::Backend::cuda, stream);
}
ffi::Error svdvals_cuda(cudaStream_t stream, ffi::AnyBuffer a, ffi::Result<ffi::AnyBuffer> s,
                        ffi::Result<ffi::Buffer<ffi::S32>> info) {
    return run(a, &*s, nullptr, nullptr, info->typed_data(), batchsvd::Backend::cuda, stream);
}
#endif

}  // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(batchsvd_jax_svd_cpu, svd_cpu,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Ret<ffi::Buffer<ffi::S32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(batchsvd_jax_svdvals_cpu, svdvals_cpu,
                              ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::AnyBuffer>().Ret<ffi::Buffer<ffi::S32>>());
#if BATCHSVD_PYTHON_CUDA
XLA_FFI_DEFINE_HANDLER_SYMBOL(batchsvd_jax_svd_cuda, svd_cuda,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<cudaStream_t>>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Ret<ffi::Buffer<ffi::S32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(batchsvd_jax_svdvals_cuda, svdvals_cuda,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<cudaStream_t>>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Ret<ffi::Buffer<ffi::S32>>());
#endif

Handlers jax_handlers() {
    Handlers h;
    h.svd_cpu = reinterpret_cast<void*>(&batchsvd_jax_svd_cpu);
    h.svdvals_cpu = reinterpret_cast<void*>(&batchsvd_jax_svdvals_cpu);
#if BATCHSVD_PYTHON_CUDA
    h.svd_cuda = reinterpret_cast<void*>(&batchsvd_jax_svd_cuda);
    h.svdvals_cuda = reinterpret_cast<void*>(&batchsvd_jax_svdvals_cuda);
#endif
    return h;
}

}  // namespace batchsvd::python
