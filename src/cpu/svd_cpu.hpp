// SPDX-License-Identifier: BSD-3-Clause
// CPU backend entry: the same contract as batchsvd::gesvd with host pointers; arguments are
// already validated by the dispatcher (src/dispatch.cpp). These call the backend's copy for
// the processor's instruction set (cpu/isa.hpp, entry.cpp), declared below.
#pragma once

#include "batchsvd/batchsvd.hpp"

namespace batchsvd::cpu {

template <class T>
void gesvd(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s,
           index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
           const Options& opts);

/// gesvd_vbatched on host data: the matrices largest first (by m n min(m, n)), those of 288
/// columns or more one at a time with the threads sharing each one's rotations, the small real
/// ones a SIMD lane each grouped by shape, the others one a thread with dynamic scheduling;
/// each matrix's result is gesvd's for it alone.
template <class T>
void gesvd_vbatched(index_t batch, const index_t* m, const index_t* n, MatrixList<const T> a,
                    real_t<T>* const* s, MatrixList<T> u, MatrixList<T> v, int* info,
                    const Options& opts);

// The copies (svd_cpu.cpp, one per instruction set the build has).
#define BATCHSVD_CPU_COPY_(ns)                                                                             \
    namespace ns {                                                                                         \
    template <class T>                                                                                     \
    void gesvd(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s, index_t s_stride, \
               MatrixBatch<T> u, MatrixBatch<T> v, int* info, const Options& opts);                       \
    template <class T>                                                                                     \
    void gesvd_vbatched(index_t batch, const index_t* m, const index_t* n, MatrixList<const T> a,          \
                        real_t<T>* const* s, MatrixList<T> u, MatrixList<T> v, int* info, const Options& opts); \
    }
BATCHSVD_CPU_COPY_(isa_baseline)
BATCHSVD_CPU_COPY_(isa_avx2)
BATCHSVD_CPU_COPY_(isa_avx512)
#undef BATCHSVD_CPU_COPY_

}  // namespace batchsvd::cpu
