// SPDX-License-Identifier: BSD-3-Clause
// Errors e1-e4 of one SVD measured on the GPU, for matrices too large for the host's
// long-double reference (testing/error_measures.cpp, O(m n k) on one core: minutes at 1024^2,
// hours at 8192^2). The products run in double (complex double for the complex types) through
// cuBLAS, inputs widened first; the reference singular values come from cuSOLVER gesvd (QR
// bidiagonalisation, values only) on the widened matrix. The measures and their scaling are
// the host's: e1 = ||A - U S V^H||_1 / (n ||A||_1), e2 = ||I - U^H U||_1 / m,
// e3 = ||I - V^H V||_1 / n, e4 = ||S - S_ref||_F / (k max(1, s_ref_1)).
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "batchsvd/batchsvd.hpp"
#include "testing/error_measures.hpp"
#include "testing/generators.hpp"

namespace batchsvd::bench {

/// Singular values of the m x n matrix a (device, leading dimension m), descending, computed in
/// double precision on the GPU.
template <class T> std::vector<double> gpu_reference_values(index_t m, index_t n, const T* a, cudaStream_t s);

/// e1-e4 and the order of s for one SVD on the device: a (m x n, ld m), s (k), u (m x k, ld m),
/// and v (n x k, ld ldv) or, when vh, V^H (k x n, ld ldv); s_ref from gpu_reference_values.
template <class T>
testing::Errors gpu_measure(index_t m, index_t n, const T* a, const real_t<T>* s, const T* u,
                            const T* v, index_t ldv, bool vh, const std::vector<double>& s_ref,
                            cudaStream_t stream);

/// One m x n matrix of family f (not random) with condition cond, generated on the GPU for
/// orders whose host generation (testing/generators.cpp, Gram-Schmidt on one core) would take
/// minutes: X diag(sigma) Y^H with X, Y the Q factors of Gaussian matrices (cuSOLVER geqrf and
/// orgqr/ungqr in double), sigma testing::family_singular_values. Returned on the host,
/// column-major, rounded to T.
template <class T>
std::vector<T> gpu_generate(testing::Family f, index_t m, index_t n, double cond, std::uint64_t seed,
                            cudaStream_t s);

}  // namespace batchsvd::bench
