// SPDX-License-Identifier: BSD-3-Clause
// Strided-batched GEMM over cuBLAS for the four device scalar types, the one wrapper the CUDA
// backend's library products go through (precondition.cu, eigensolver_bisect.cuh).
#pragma once

#include <cublas_v2.h>

#include <type_traits>

#include "core/scalar.hpp"
#include "cuda/common/kernel_common.cuh"
#include "cuda/common/library_handles.hpp"

namespace batchsvd::cuda {

/// cuBLAS's operation for op(X): X itself, or its adjoint (the transpose for real types).
template <class T> constexpr cublasOperation_t blas_op(bool adjoint) {
    return !adjoint ? CUBLAS_OP_N : core::is_complex_v<T> ? CUBLAS_OP_C : CUBLAS_OP_T;
}

/// C = alpha op(A) op(B) + beta C for `batch` column-major matrices (strides sa, sb, sc in
/// elements); op(X) = X^H where adjoint. Throws batchsvd::Error on a cuBLAS failure.
template <class T>
void gemm_strided(cublasHandle_t h, bool adj_a, bool adj_b, int m, int n, int k, core::real_of_t<T> alpha, const T* A,
                  int lda, long long sa, const T* B, int ldb, long long sb, core::real_of_t<T> beta, T* C, int ldc,
                  long long sc, int batch) {
    using R = core::real_of_t<T>;
    const cublasOperation_t oa = blas_op<T>(adj_a), ob = blas_op<T>(adj_b);
    if constexpr (std::is_same_v<T, float>) {
        BATCHSVD_CUBLAS_CHECK(cublasSgemmStridedBatched(h, oa, ob, m, n, k, &alpha, A, lda, sa, B, ldb, sb, &beta, C,
                                                        ldc, sc, batch));
    } else if constexpr (std::is_same_v<T, double>) {
        BATCHSVD_CUBLAS_CHECK(cublasDgemmStridedBatched(h, oa, ob, m, n, k, &alpha, A, lda, sa, B, ldb, sb, &beta, C,
                                                        ldc, sc, batch));
    } else if constexpr (std::is_same_v<R, float>) {
        const cuComplex a{alpha, 0}, b{beta, 0};
        BATCHSVD_CUBLAS_CHECK(cublasCgemmStridedBatched(h, oa, ob, m, n, k, &a, reinterpret_cast<const cuComplex*>(A),
                                                        lda, sa, reinterpret_cast<const cuComplex*>(B), ldb, sb, &b,
                                                        reinterpret_cast<cuComplex*>(C), ldc, sc, batch));
    } else {
        const cuDoubleComplex a{alpha, 0}, b{beta, 0};
        BATCHSVD_CUBLAS_CHECK(cublasZgemmStridedBatched(h, oa, ob, m, n, k, &a,
                                                        reinterpret_cast<const cuDoubleComplex*>(A), lda, sa,
                                                        reinterpret_cast<const cuDoubleComplex*>(B), ldb, sb, &b,
                                                        reinterpret_cast<cuDoubleComplex*>(C), ldc, sc, batch));
    }
}

}  // namespace batchsvd::cuda
