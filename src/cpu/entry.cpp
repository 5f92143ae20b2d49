// SPDX-License-Identifier: BSD-3-Clause
// The CPU backend's entry points: the copy of the backend for the instruction set chosen
// once per process (cpu/isa.hpp). Complex types take the baseline copy: GCC 12 vectorises
// complex products and sums into fused multiply-add-subtract instructions even with
// -ffp-contract=off, so the wider copies would not give the baseline's bits for them.
#include <complex>
#include <type_traits>

#include "cpu/isa.hpp"
#include "cpu/svd_cpu.hpp"

namespace batchsvd::cpu {

namespace {

/// The copy for T: the chosen one for real types, the baseline for complex ones.
template <class T> Isa copy_for() { return std::is_same_v<T, real_t<T>> ? chosen_isa() : Isa::baseline; }

}  // namespace

template <class T>
void gesvd(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s, index_t s_stride,
           MatrixBatch<T> u, MatrixBatch<T> v, int* info, const Options& opts) {
    switch (copy_for<T>()) {
#if defined(BATCHSVD_CPU_HAVE_AVX512)
    case Isa::avx512:
        return isa_avx512::gesvd<T>(m, n, batch, a, s, s_stride, u, v, info, opts);
#endif
#if defined(BATCHSVD_CPU_HAVE_AVX2)
    case Isa::avx2:
        return isa_avx2::gesvd<T>(m, n, batch, a, s, s_stride, u, v, info, opts);
#endif
    default:
        return isa_baseline::gesvd<T>(m, n, batch, a, s, s_stride, u, v, info, opts);
    }
}

template <class T>
void gesvd_vbatched(index_t batch, const index_t* m, const index_t* n, MatrixList<const T> a, real_t<T>* const* s,
                    MatrixList<T> u, MatrixList<T> v, int* info, const Options& opts) {
    switch (copy_for<T>()) {
#if defined(BATCHSVD_CPU_HAVE_AVX512)
    case Isa::avx512:
        return isa_avx512::gesvd_vbatched<T>(batch, m, n, a, s, u, v, info, opts);
#endif
#if defined(BATCHSVD_CPU_HAVE_AVX2)
    case Isa::avx2:
        return isa_avx2::gesvd_vbatched<T>(batch, m, n, a, s, u, v, info, opts);
#endif
    default:
        return isa_baseline::gesvd_vbatched<T>(batch, m, n, a, s, u, v, info, opts);
    }
}

#define BATCHSVD_INSTANTIATE_(T)                                                                               \
    template void gesvd<T>(index_t, index_t, index_t, MatrixBatch<const T>, real_t<T>*, index_t, MatrixBatch<T>, \
                           MatrixBatch<T>, int*, const Options&);                                              \
    template void gesvd_vbatched<T>(index_t, const index_t*, const index_t*, MatrixList<const T>,              \
                                    real_t<T>* const*, MatrixList<T>, MatrixList<T>, int*, const Options&);
BATCHSVD_INSTANTIATE_(float)
BATCHSVD_INSTANTIATE_(double)
BATCHSVD_INSTANTIATE_(std::complex<float>)
BATCHSVD_INSTANTIATE_(std::complex<double>)
#undef BATCHSVD_INSTANTIATE_

}  // namespace batchsvd::cpu
