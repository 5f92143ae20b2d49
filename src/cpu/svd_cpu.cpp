// CPU backend: OpenMP over the batch, one workspace per thread, one matrix per iteration.
#include "cpu/svd_cpu.hpp"

#include <exception>
#include <new>

#include "cpu/svd_one_matrix.hpp"

namespace batchsvd::cpu {

template <class T>
void gesvd(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s,
           index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
           const Options& opts) {
    bool out_of_memory = false;
#pragma omp parallel
    {
        Workspace<T> ws;
#pragma omp for schedule(dynamic, 8)
        for (index_t b = 0; b < batch; ++b) {
            try {
                T* ub = opts.compute_u ? u.data + b * u.stride : nullptr;
                T* vb = opts.compute_v ? v.data + b * v.stride : nullptr;
                info[b] = svd_one_matrix<T>(m, n, a.data + b * a.stride, a.ld,
                                            s + b * s_stride, ub, u.ld, vb, v.ld, opts, ws);
            } catch (const std::bad_alloc&) {
#pragma omp atomic write
                out_of_memory = true;
            }
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
