// SPDX-License-Identifier: BSD-3-Clause
// CPU backend entry: the same contract as batchsvd::gesvd with host pointers; arguments are
// already validated by the dispatcher (src/dispatch.cpp).
#pragma once

#include "batchsvd/batchsvd.hpp"

namespace batchsvd::cpu {

template <class T>
void gesvd(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s,
           index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
           const Options& opts);

/// gesvd_vbatched on host data: the matrices largest first (by m n min(m, n)), those of 256
/// columns or more one at a time with the threads sharing each one's rotations, the others one
/// a thread with dynamic scheduling; each matrix's result is gesvd's for it alone.
template <class T>
void gesvd_vbatched(index_t batch, const index_t* m, const index_t* n, MatrixList<const T> a,
                    real_t<T>* const* s, MatrixList<T> u, MatrixList<T> v, int* info,
                    const Options& opts);

}  // namespace batchsvd::cpu
