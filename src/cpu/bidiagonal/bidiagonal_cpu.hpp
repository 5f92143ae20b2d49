// SPDX-License-Identifier: BSD-3-Clause
// CPU backend entry of gebrd and of the bidiagonal route to singular values; arguments
// already validated (src/dispatch_bidiagonal.cpp, src/dispatch.cpp).
#pragma once

#include <type_traits>

#include "batchsvd/bidiagonal.hpp"

namespace batchsvd::cpu {

template <class T>
void gebrd(index_t m, index_t n, index_t batch, MatrixBatch<T> a, BidiagonalBatch<T> out, int* info,
           const Options& opts);

/// SvdMethod::automatic: the orders k = min(m, n) where the bidiagonal route to singular
/// values alone measured faster than the Jacobi iteration without vectors (2-core development
/// machine, 2026-11-27, bench/results/cpu/2026-11-27-values-bidiagonal/): real double from 24
/// (1.4-2.3x), real single from 32 (1.5-2.3x), both to 512, the largest order measured;
/// complex to 256, the largest measured (double 1.6-3.6x, single 1.4-3.1x).
template <class T> bool bidiagonal_values_faster(index_t k) {
    constexpr bool cplx = !std::is_same_v<T, real_t<T>>;
    constexpr bool dbl = sizeof(real_t<T>) == 8;
    if (!cplx) return k >= (dbl ? 24 : 32) && k <= 512;
    return k <= 256;
}

/// Singular values (descending) of each matrix by gebrd and bisection on its bidiagonal; info
/// 0 or -1 (NaN/Inf: NaN values), opts.sweeps (when set) 0.
template <class T>
void svdvals_bidiagonal(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s,
                        index_t s_stride, int* info, const Options& opts);

/// svdvals_bidiagonal on the matrices which[0 .. count) of a list (gesvd_vbatched's layout),
/// largest first, one a thread.
template <class T>
void svdvals_bidiagonal_list(index_t count, const index_t* which, const index_t* m, const index_t* n,
                             MatrixList<const T> a, real_t<T>* const* s, int* info, const Options& opts);

/// gebrd of a list of matrices of different sizes (gebrd_vbatched), largest first.
template <class T>
void gebrd_vbatched(index_t batch, const index_t* m, const index_t* n, MatrixList<T> a, BidiagonalList<T> out,
                    int* info, const Options& opts);

}  // namespace batchsvd::cpu
