// SPDX-License-Identifier: BSD-3-Clause
// The hyperbolic SVD of tiny G (m <= kTinyMax, m >= n) on the GPU: a thread a matrix, G and V
// in registers, the tiny SVD kernel's cyclic-by-rows ordering (tiny_kernel.cuh) on the columns
// partitioned by sign, each pair's rotation by signed_rotation (trigonometric for equal signs,
// hyperbolic for opposite ones) on exact column norms, and hsvd_finalize with one lane. What
// differs from the SVD's tiny kernel: the loads are not staged through shared memory (the
// columns are read in the partitioned order).
#pragma once

#include "batchsvd/hyperbolic.hpp"
#include "cuda/common/kernel_common.cuh"
#include "cuda/hyperbolic/hsvd_finalize.cuh"
#include "cuda/hyperbolic/hyperbolic_pair.cuh"
#include "cuda/tiny/tiny_kernel.cuh"

namespace batchsvd::cuda {

/// Thread b: matrix b (M x N, M <= NM). W[c][r] is element (r, c) of the working matrix (G's
/// columns, +1 first), V[c][r] likewise for V_W.
template <class T, int NM>
__global__ void __launch_bounds__(kTinyThreads) hsvd_tiny_kernel(const JacobiParams<T> p) {
    using R = core::real_of_t<T>;
    static_assert(NM >= 2 && NM <= kTinyMax);
    const index_t b = index_t(blockIdx.x) * kTinyThreads + threadIdx.x;
    if (b >= p.batch) return;
    const int M = p.M, N = p.N;
    int source[NM];
    const int npos = detail::partition_signature(p.jsig + b * p.jsig_stride, N, source);
    const T* a = p.a + b * p.stride_a;
    T W[NM][NM], V[NM][NM];
    R amax = 0;
    bool bad = false;
#pragma unroll
    for (int c = 0; c < NM; ++c)
#pragma unroll
        for (int r = 0; r < NM; ++r) {
            W[c][r] = T(R(0));
            V[c][r] = T(R(r == c ? 1 : 0));
            if (r < M && c < N) {
                const T x = a[r + index_t(source[c]) * p.lda];
                bad = bad || !core::is_finite(x);
                amax = fmax(amax, core::abs_of(x));
                W[c][r] = x;
            }
        }
    int e = 0, sweeps = 0, status = bad ? info_nonfinite : 0;
    bool converged = false;
    core::Tolerance<R> tol{p.tol, R(0)};
    if (!bad) {
        e = detail::scale_exponent(amax);
#pragma unroll
        for (int c = 0; c < NM; ++c)
#pragma unroll
            for (int r = 0; r < NM; ++r) W[c][r] = detail::scale_pow2(W[c][r], e);
        tol.negligible = core::negligible_norm(scalbn(amax, e));
        for (int sweep = 0; sweep < p.max_sweeps; ++sweep) {
            bool rotated = false, undefined = false;
#pragma unroll
            for (int i = 0; i < NM - 1; ++i)
#pragma unroll
                for (int j = i + 1; j < NM; ++j) {
                    if (j >= N) continue;
                    R na = 0, nb = 0;
                    T c = T(R(0));
#pragma unroll
                    for (int r = 0; r < NM; ++r) {
                        na += core::abs2(W[i][r]);
                        nb += core::abs2(W[j][r]);
                        c = core::fma_conj(W[i][r], W[j][r], c);
                    }
                    const bool mixed = (i < npos) != (j < npos);
                    const detail::SignedRotation<T> rot = detail::signed_rotation<T>(na, nb, c, mixed, tol);
                    undefined = undefined || rot.undefined;
                    if (rot.on) {
                        rotated = true;
#pragma unroll
                        for (int r = 0; r < NM; ++r) detail::apply_signed(W[i][r], W[j][r], rot.up);
                        if (p.need_vw) {
#pragma unroll
                            for (int r = 0; r < NM; ++r) detail::apply_signed(V[i][r], V[j][r], rot.up);
                        }
                    }
                }
            ++sweeps;
            if (undefined) {
                status = info_no_hyperbolic_rotation;
                break;
            }
            if (!rotated) {
                converged = true;
                break;
            }
        }
    }
    R sq[NM], sigma[NM];
    int rank[NM];
#pragma unroll
    for (int c = 0; c < NM; ++c) {
        R s = 0;
#pragma unroll
        for (int r = 0; r < NM; ++r) s += core::abs2(W[c][r]);
        sq[c] = s;
    }
    hsvd_finalize(p, b, &W[0][0], NM, &V[0][0], NM, sq, sigma, rank, source, npos, tol.negligible, e, status,
                  converged ? 0 : sweeps, sweeps, 0, 1, [] {});
}

}  // namespace batchsvd::cuda
