// SPDX-License-Identifier: BSD-3-Clause
// The end of the hyperbolic SVD of one matrix on the GPU, after the sweeps (the hyperbolic
// forms of warp_kernel.cuh and fused_kernel.cuh): the status, sigma from the column norms, the
// columns sorted in descending order within each sign (+1 first, stable), S, J', U = W / sigma
// and V with its rows back in the caller's column order. The CPU's hsvd_mixed ends the same way.
#pragma once

#include "batchsvd/hyperbolic.hpp"
#include "cuda/common/kernel_common.cuh"

namespace batchsvd::cuda {

/// Where the team's working matrix sits: W (M x N, ld ldw) and V_W (N x N, ld ldv) in shared
/// memory, sq[c] the squared norm of column c; sigma and rank: N values and N ints of scratch
/// (sigma may be sq itself). source[q] (shared memory): the caller's column that working
/// column q came from (working columns: the npos columns with j = +1, then the others). The
/// team's NC lanes (lane = its index) take the columns q = lane, lane + NC, ... `status`: 0 or
/// a negative code from the sweeps, the same on every lane.
template <class T, class Sync>
__device__ void hsvd_finalize(const JacobiParams<T>& p, index_t b, const T* Ws, int ldw, const T* Vs, int ldv,
                              core::real_of_t<T>* sq, core::real_of_t<T>* sigma, int* rank, const int* source,
                              int npos, core::real_of_t<T> negligible, int scale_e, int status, int info_ok,
                              int sweeps, int lane, int NC, Sync&& sync) {
    using R = core::real_of_t<T>;
    const int M = p.M, N = p.N;
    int* jout = p.jout ? p.jout + b * p.jout_stride : nullptr;
    // A column at the noise level: G is (numerically) not of full column rank.
    int vanished = 0;
    if (status == 0)
        for (int c = 0; c < N; ++c) vanished |= !(sq[c] > negligible * negligible);
    if (status == 0 && vanished) status = info_rank_deficient;
    if (status < 0) {
        const R nan = detail::quiet_nan<R>();
        R* s_out = p.s + b * p.s_stride;
        for (int i = lane; i < N; i += NC) {
            s_out[i] = nan;
            if (jout) jout[i] = i < npos ? 1 : -1;
        }
        if (p.compute_u)
            for (int idx = lane; idx < M * N; idx += NC)
                p.u[b * p.stride_u + idx % M + index_t(idx / M) * p.ldu] = detail::make_nan<T>();
        if (p.compute_v)
            for (int idx = lane; idx < N * N; idx += NC)
                p.v[b * p.stride_v + idx % N + index_t(idx / N) * p.ldv] = detail::make_nan<T>();
        if (lane == 0) {
            p.info[b] = status;
            if (p.sweeps) p.sweeps[b] = sweeps;
        }
        return;
    }
    sync();  // every lane has read sq (sigma may be sq)
    for (int q = lane; q < N; q += NC) sigma[q] = std::sqrt(sq[q]);
    sync();
    for (int q = lane; q < N; q += NC) {
        // rank within the sign: the larger values of the same sign, and the equal ones before it
        const R own = sigma[q];
        const bool pos = q < npos;
        const int first = pos ? 0 : npos, last = pos ? npos : N;
        int r = first;
        for (int c = first; c < last; ++c) {
            const R x = sigma[c];
            r += (x > own || (x == own && c < q)) ? 1 : 0;
        }
        rank[q] = r;
        p.s[b * p.s_stride + r] = scalbn(own, -scale_e);
        if (jout) jout[r] = pos ? 1 : -1;
    }
    sync();
    if (p.compute_u) {
        T* u = p.u + b * p.stride_u;
        for (int c = 0; c < N; ++c) {
            const R inv = R(1) / sigma[c];
            const index_t col = index_t(rank[c]) * p.ldu;
            for (int r = lane; r < M; r += NC) u[r + col] = core::scale(Ws[r + c * ldw], inv);
        }
    }
    if (p.compute_v) {
        // V = P V_W: row source[q] of V is row q of the working V_W.
        T* v = p.v + b * p.stride_v;
        for (int q = lane; q < N; q += NC)
            for (int c = 0; c < N; ++c) v[source[q] + index_t(rank[c]) * p.ldv] = Vs[q + c * ldv];
    }
    if (lane == 0) {
        p.info[b] = info_ok;
        if (p.sweeps) p.sweeps[b] = sweeps;
    }
}

}  // namespace batchsvd::cuda
