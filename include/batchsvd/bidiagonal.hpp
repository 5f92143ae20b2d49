// SPDX-License-Identifier: BSD-3-Clause
// batchsvd: batched bidiagonalisation (gebrd) and the singular values through it.
//
// gebrd reduces each m x n matrix A of a strided batch to bidiagonal form, Q^H A P = B, with
// LAPACK's ?gebrd semantics: on return A holds B's diagonal and off-diagonal and the
// reflectors, H(i) = I - tauq(i) v v^H (Q = H(1) ... H(k)) and G(i) = I - taup(i) u u^H
// (P = G(1) ... G(k)), stored as LAPACK stores them; B is upper bidiagonal for m >= n, lower
// for m < n, and real (d, e) for complex A too. k = min(m, n).
//
// gebrd runs on the CUDA backend for device memory (enqueued on Options::stream, as gesvd) or
// with Backend::cuda (host memory through device copies; synchronous), else on the CPU backend;
// all pointers of a call are host memory or all device memory. gebrd_vbatched runs on the CPU.
#pragma once

#include "batchsvd/batchsvd.hpp"

namespace batchsvd {

/// gebrd's vectors, matrix b's at offset b * stride: d (k values), e (k - 1), tauq (k), taup (k).
/// stride >= k. tauq and taup may be null when the reflectors are not wanted (values only).
template <class T> struct BidiagonalBatch {
    real_t<T>* d = nullptr;
    real_t<T>* e = nullptr;
    T* tauq = nullptr;
    T* taup = nullptr;
    index_t stride = 0;
};

/// Bidiagonalisation of `batch` m x n matrices, in place. info: 0, or -1 for a matrix with NaN
/// or Inf (its d, e, tauq, taup and A are then NaN). Options used: threads, backend, stream.
template <class T>
void gebrd(index_t m, index_t n, index_t batch, MatrixBatch<T> a, BidiagonalBatch<T> out, int* info,
           const Options& opts = {});

/// gebrd_vbatched's vectors, one pointer a matrix (host arrays): d[b] (k_b values), e[b]
/// (k_b - 1), tauq[b] and taup[b] (k_b; both arrays may be null).
template <class T> struct BidiagonalList {
    real_t<T>* const* d = nullptr;
    real_t<T>* const* e = nullptr;
    T* const* tauq = nullptr;
    T* const* taup = nullptr;
};

/// gebrd of `batch` matrices of different sizes m[b] x n[b] (each may be 0), in place, in one
/// call: matrix b at a.data[b] with leading dimension a.ld[b]; each result is gebrd's for the
/// matrix alone. Host memory, CPU backend.
template <class T>
void gebrd_vbatched(index_t batch, const index_t* m, const index_t* n, MatrixList<T> a, BidiagonalList<T> out, int* info,
                    const Options& opts = {});

#define BATCHSVD_DECLARE_BIDIAGONAL_(T)                                                                    \
    extern template void gebrd<T>(index_t, index_t, index_t, MatrixBatch<T>, BidiagonalBatch<T>, int*, \
                                  const Options&);                                                     \
    extern template void gebrd_vbatched<T>(index_t, const index_t*, const index_t*, MatrixList<T>,     \
                                           BidiagonalList<T>, int*, const Options&);
BATCHSVD_DECLARE_BIDIAGONAL_(float)
BATCHSVD_DECLARE_BIDIAGONAL_(double)
BATCHSVD_DECLARE_BIDIAGONAL_(std::complex<float>)
BATCHSVD_DECLARE_BIDIAGONAL_(std::complex<double>)
#undef BATCHSVD_DECLARE_BIDIAGONAL_

}  // namespace batchsvd
