// SPDX-License-Identifier: BSD-3-Clause
// CPU backend: OpenMP over the batch, one workspace per thread, one matrix per iteration; for
// large matrices, or a batch smaller than the thread count, the threads share each matrix's
// rotations instead.
#include "cpu/svd_cpu.hpp"

#include <omp.h>

#include <algorithm>
#include <exception>
#include <new>

#include "cpu/svd_one_matrix.hpp"

namespace batchsvd::cpu {

template <class T>
void gesvd(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s,
           index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
           const Options& opts) {
    bool out_of_memory = false;
    auto solve = [&](index_t b, Workspace<T>& ws, bool parallel_pairs) {
        try {
            T* ub = opts.compute_u ? u.data + b * u.stride : nullptr;
            T* vb = opts.compute_v ? v.data + b * v.stride : nullptr;
            info[b] = svd_one_matrix<T>(m, n, a.data + b * a.stride, a.ld, s + b * s_stride, ub,
                                        u.ld, vb, v.ld, opts, ws, parallel_pairs);
        } catch (const std::bad_alloc&) {
#pragma omp atomic write
            out_of_memory = true;
        }
    };
    // One matrix after another, each with its round-robin steps' pairs shared among the
    // threads: when there are too few matrices to give every thread one (worth it from 64
    // columns), and from 256 columns always, where one matrix and its V fill a core's cache
    // and several at once thrash it (1.7-1.9x faster at 256 and 512 on the development
    // machine, slower at 128; 2026-11-23, docs/benchmarks.md).
    const index_t k = std::min(m, n);
    if ((k >= 64 && batch < omp_get_max_threads()) || k >= 256) {
        Workspace<T> ws;
        for (index_t b = 0; b < batch; ++b) solve(b, ws, true);
    } else {
#pragma omp parallel
        {
            Workspace<T> ws;
#pragma omp for schedule(dynamic, 8)
            for (index_t b = 0; b < batch; ++b) solve(b, ws, false);
        }
    }
    if (out_of_memory) throw Error(ErrorCode::out_of_memory, "batchsvd: CPU workspace allocation failed");
}

#define BATCHSVD_INSTANTIATE_(T)                                                          \
    template void gesvd<T>(index_t, index_t, index_t, MatrixBatch<const T>, real_t<T>*, \
                           index_t, MatrixBatch<T>, MatrixBatch<T>, int*, const Options&);
BATCHSVD_INSTANTIATE_(float)
BATCHSVD_INSTANTIATE_(double)
BATCHSVD_INSTANTIATE_(std::complex<float>)
BATCHSVD_INSTANTIATE_(std::complex<double>)
#undef BATCHSVD_INSTANTIATE_

}  // namespace batchsvd::cpu
