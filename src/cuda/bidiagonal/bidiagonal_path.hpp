// SPDX-License-Identifier: BSD-3-Clause
// The CUDA gebrd and the bidiagonal route to singular values alone (plain C++: the dispatchers
// include it). Arguments already validated (src/dispatch_bidiagonal.cpp, src/dispatch.cpp).
#pragma once

#include <cstddef>

#include "batchsvd/bidiagonal.hpp"

namespace batchsvd::cuda {

/// gebrd with every pointer in device memory, enqueued on opts.stream: one block a matrix, the
/// matrix in shared memory where it fits (float64 to about 168 x 168 on an H100), else in
/// place in A (m >= n) or in a workspace copy of A^H (m < n).
template <class T>
void gebrd_device(index_t m, index_t n, index_t batch, MatrixBatch<T> a, BidiagonalBatch<T> out, int* info,
                  const Options& opts);

/// gebrd of operands in host memory through device copies; returns when the results are back.
template <class T>
void gebrd_host(index_t m, index_t n, index_t batch, MatrixBatch<T> a, BidiagonalBatch<T> out, int* info,
                const Options& opts);

/// Singular values alone (descending) by gebrd of op(A) and bisection on each bidiagonal, every
/// pointer in device memory; info 0 or -1 (NaN/Inf: NaN values), Options::sweeps 0.
template <class T>
void svdvals_bidiagonal(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s,
                        index_t s_stride, int* info, const Options& opts);

/// Whether op(A) fits in a block's shared memory (the route's fast form).
template <class T> bool bidiagonal_values_fit(index_t m, index_t n);

/// Device workspace of svdvals_bidiagonal per matrix, in bytes.
template <class T> std::size_t bidiagonal_values_bytes(index_t m, index_t n);

/// SvdMethod::automatic on the CUDA backend: whether the bidiagonal route measured faster than
/// the Jacobi iteration without vectors (H100, bench/results/h100/2026-11-28-gpu-bidiagonal/
/// and 2026-12-07-bidiagonal-dqds/; docs/bidiagonal.md): real types, min(m, n) from
/// kBidiagonalValuesFrom (every order 33-39 measured faster, 32 not), or in float64 from a
/// batch of kDqdsMethodFromBatch (the values by dqds) from kBidiagonalDqdsValuesFrom (every
/// order 17-20 and 24, 28, 31, 32 measured 1.08-1.45x faster at batch 10000, 16 not; 32 at
/// 8192 not: 1.80 ms against 1.74),
/// within a quarter of square (M <= 5N/4, the shapes measured), op(A) in shared memory;
/// float64 only while two blocks fit on an SM (to about 119^2). Complex types are not
/// measured and keep the Jacobi iteration. batch: the call's (planning_batch).
template <class T> bool bidiagonal_values_faster(index_t m, index_t n, index_t batch);
inline constexpr long kBidiagonalValuesFrom = 33;
inline constexpr long kBidiagonalDqdsValuesFrom = 17;
inline constexpr long kDqdsMethodFromBatch = 10000;

/// The least batch (the call's) whose float64 values the separate kernel finds by dqds, a
/// thread a matrix, rather than by bisection, a thread a value: dqds is a chain of dependent
/// divisions a matrix, so it needs many matrices an SM (H100, float64 32^2: 1.90 ms against
/// bisection's 2.43 at batch 10000, 1.42 against 1.15 at 4096; docs/bidiagonal.md).
inline constexpr long kDqdsFromBatch = 8192;

}  // namespace batchsvd::cuda
