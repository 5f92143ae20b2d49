// SPDX-License-Identifier: BSD-3-Clause
// CPU backend entry of hsvd and eigh_indefinite: batchsvd::hsvd's and eigh_indefinite's
// contracts on host pointers; arguments already validated (src/dispatch_hyperbolic.cpp).
#pragma once

#include "batchsvd/hyperbolic.hpp"

namespace batchsvd::cpu {

template <class T>
void hsvd(index_t m, index_t n, index_t batch, MatrixBatch<const T> g, SignatureBatch j, real_t<T>* s,
          index_t s_stride, int* j_out, index_t j_out_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
          const Options& opts);

template <class T>
void eigh_indefinite(index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* w, index_t w_stride,
                     MatrixBatch<T> z, int* info, const Options& opts);

}  // namespace batchsvd::cpu
