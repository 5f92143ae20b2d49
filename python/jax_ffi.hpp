// SPDX-License-Identifier: BSD-3-Clause
// The XLA FFI handlers of batchsvd.jax (jax_ffi.cpp), for the extension module to hand to
// jax.ffi.register_ffi_target as capsules.
#pragma once

namespace batchsvd::python {

/// The handlers' addresses (XLA_FFI_Handler*); the CUDA ones are null without CUDA.
struct Handlers {
    void* svd_cpu = nullptr;
    void* svdvals_cpu = nullptr;
    void* svd_cuda = nullptr;
    void* svdvals_cuda = nullptr;
};

Handlers jax_handlers();

}  // namespace batchsvd::python
