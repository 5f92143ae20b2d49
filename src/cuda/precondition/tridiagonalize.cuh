// SPDX-License-Identifier: BSD-3-Clause
// The Householder tridiagonalisation that each of the preconditioner's own eigensolvers starts
// with (eigensolver_fused.cuh: a full matrix in shared memory, one thread a row;
// eigensolver_split.cuh: the packed lower triangle in shared memory, two threads a row;
// eigensolver_bisect.cuh: a full matrix in global memory, two threads a row). One block a
// matrix; the storage is a layout parameter (PackedLower, FullLower).
#pragma once

#include <type_traits>

#include "cuda/common/kernel_common.cuh"

namespace batchsvd::cuda::detail {

/// Sum of v over a block of Threads threads without a barrier of its own: each warp's sum goes to
/// red[warp] now, and block_partials_total reads the total after the caller's next barrier.
template <int Threads, class V> __device__ __forceinline__ void block_partials(V v, V* red) {
    v = group_sum(v, 32, 0xffffffffu);
    if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = v;
}
template <int Threads, class V> __device__ __forceinline__ V block_partials_total(const V* red) {
    V total = V(0.0f);
    for (int w = 0; w < Threads / 32; ++w) total = add(total, red[w]);
    return total;
}

/// Lower-triangle storage packed by columns: element (i, j), i >= j, at col(j) + i - j, and
/// from (i, j) to (i, j + 1) a step of n - j - 1.
struct PackedLower {
    int n;
    __device__ int col(int j) const { return j * (2 * n - j + 1) / 2; }
    __device__ int step(int j) const { return n - j - 1; }
    static constexpr int shrink = 1;  ///< what the step loses from one column to the next
    static constexpr bool both_triangles = false;
};

/// A full column-major matrix with leading dimension ld (ld >= n) in tridiagonalize's terms:
/// (i, j) at col(j) + i - j, from (i, j) to (i, j + 1) a step of ld. With BothTriangles false
/// only its lower triangle is read or written (FullLower). With it true (FullSymmetric, Subs =
/// 1 only) both triangles are kept: p = tau A22 v reads row i alone and the rank-2 update
/// writes whole rows, so that with an odd ld a warp's rows fall in 32 different banks at every
/// step, where the lower triangle's reads of column i (a stride of ld + 1, even) meet in pairs:
/// in the fused eigensolver (orders up to 159 in shared memory) the lower-triangle form cost 5%
/// of the whole solve (H100, 2026-11-26, float64 1000 x 150^2 27.5 against 26.0 ms;
/// bench/results/h100/2026-11-26-layout-and-merges/eigensolver_lower_triangle_1499fb6.csv).
template <bool BothTriangles> struct FullMatrix {
    int ld;
    __device__ int col(int j) const { return j * (ld + 1); }
    __device__ int step(int) const { return ld; }
    static constexpr int shrink = 0;
    static constexpr bool both_triangles = BothTriangles;
};
using FullLower = FullMatrix<false>;
using FullSymmetric = FullMatrix<true>;

/// The Householder reduction of the Hermitian matrix in a (its lower triangle, in layout L) to a
/// real tridiagonal one, by one block of Threads threads: d, e (e[k] couples d[k] and d[k + 1],
/// e[n - 1] = 0), tau and the vectors v_k of H_0 .. H_{n-2} (v_k[k + 1] = 1 implied, v_k[i] at
/// (i, k) for i >= k + 2; tau = 0: none), LAPACK ssytd2 / chetd2 with UPLO = 'L'. Works
/// on the lower triangle alone, with Subs threads a row (Threads / Subs rows at a
/// time; one thread a row leaves an SM with eight warps at order 256, too few to hide shared
/// memory's latency): p = tau A22 v takes row i's part left of the diagonal from row i and the
/// rest from column i (conjugated), thread (row i, slot s) the columns s, s + Subs, ... of each
/// part; the Subs partial sums of a row in w (Subs x n) are added into w' = p - (tau / 2)(p^H v)
/// v (p^H v is linear in them) behind one more barrier; the rank-2 update writes the lower
/// triangle only, with Subs > 1 rows k+1+p and n-1-p on the same threads and each pair's
/// columns split four ways (rows are i - k long here: the last rows alone would set the step's
/// time). Four barriers a step (three when Subs = 1). A column whose squared norm below the
/// subdiagonal is under drop2 has that part set to zero (its reflector is then the identity or
/// a phase): a norm from squares that underflow is inexact, and a reflector built on it is not
/// unitary (the bisection form scales its matrices to a largest entry in [1, 2) and drops below
/// 2^-80; the other callers pass 0, as before).
template <int Threads, int Subs, class T, class Layout>
__device__ void tridiagonalize(T* a, const Layout L, int n, float* d, float* e, T* tau, T* w, T* red,
                               float drop2 = 0.0f) {
    constexpr int W = Threads / 32, RT = Threads / Subs;
    static_assert(RT % 32 == 0, "a warp's threads share their slot");
    constexpr int sh = Layout::shrink;
    // From (i, j) to (i, j + Subs) where the step from column j is st: Subs steps.
    constexpr int kSkip = sh * Subs * (Subs - 1) / 2;
    const int slot = threadIdx.x / RT, ri = threadIdx.x % RT;
    float* red_norm = reinterpret_cast<float*>(red + W);
    const T one(1.0f);
    float part = 0;
    for (int i = 2 + threadIdx.x; i < n; i += Threads) part += core::abs2(a[L.col(0) + i]);
    block_partials<Threads>(part, red_norm);
    __syncthreads();
    float xnorm2 = block_partials_total<Threads>(red_norm);
    for (int k = 0; k + 1 < n; ++k) {
        T* col = a + (L.col(k) - k);  // col[i] = (i, k), i >= k
        const bool drop = xnorm2 < drop2;  // (uniform) The tail is dropped: see drop2 above.
        if (drop)
            for (int i = k + 2 + threadIdx.x; i < n; i += Threads) col[i] = T(0.0f);
        const Reflector<T> h = householder_reflector(col[k + 1], drop ? 0.0f : sqrtf(xnorm2));
        const T t = h.tau;
        if (!h.identity)
            for (int i = k + 2 + threadIdx.x; i < n; i += Threads) col[i] = mul(col[i], h.inv);
        if (threadIdx.x == 0) {
            d[k] = core::real_part(col[k]);
            e[k] = h.beta;
            tau[k] = t;
        }
        __syncthreads();  // (v is in column k)
        part = 0;
        const T* next_col = a + (L.col(k + 1) - (k + 1));
        if (h.identity) {  // (uniform) The next column's norm.
            for (int i = k + 3 + threadIdx.x; i < n; i += Threads) part += core::abs2(next_col[i]);
            block_partials<Threads>(part, red_norm);
            __syncthreads();
            xnorm2 = block_partials_total<Threads>(red_norm);
            continue;
        }
        // This thread's part of p = tau A22 v, rows k+1..n-1, into w[slot n + i]; its part of p^H v.
        T pv(0.0f);
        if constexpr (Layout::both_triangles) {  // (Subs = 1) Row i alone, four sums in flight.
            static_assert(Subs == 1, "both triangles: one thread a row");
            const int ld = L.ld;
            for (int i = k + 1 + ri; i < n; i += RT) {
                const T* row = a + i;  // (i, j) at row[j ld]
                T s0 = row[(k + 1) * ld], s1(0.0f), s2(0.0f), s3(0.0f);
                int j = k + 2;
                for (; j + 3 < n; j += 4) {
                    s0 = core::axpy(row[j * ld], col[j], s0);
                    s1 = core::axpy(row[(j + 1) * ld], col[j + 1], s1);
                    s2 = core::axpy(row[(j + 2) * ld], col[j + 2], s2);
                    s3 = core::axpy(row[(j + 3) * ld], col[j + 3], s3);
                }
                for (; j < n; ++j) s0 = core::axpy(row[j * ld], col[j], s0);
                const T s = mul(t, add(add(s0, s1), add(s2, s3)));
                w[i] = s;
                pv = core::fma_conj(s, i == k + 1 ? one : col[i], pv);
            }
        } else {
            for (int i = k + 1 + ri; i < n; i += RT) {
                T s0(0.0f), s1(0.0f);
                // Left of the diagonal and on it: (i, j), j = k+1+slot, k+1+slot+Subs, .. <= i, from row i.
                int j = k + 1 + slot;
                int at = L.col(j) + (i - j), st = L.step(j);
                if (slot == 0) {  // (j = k + 1: v[k + 1] = 1)
                    s0 = a[at];
                    at += Subs * st - kSkip;
                    st -= Subs * sh;
                    j += Subs;
                }
                for (; j + Subs <= i; j += 2 * Subs) {
                    const int a1 = at + Subs * st - kSkip;
                    s0 = core::axpy(a[at], col[j], s0);
                    s1 = core::axpy(a[a1], col[j + Subs], s1);
                    at = a1 + Subs * (st - Subs * sh) - kSkip;
                    st -= 2 * Subs * sh;
                }
                if (j <= i) s0 = core::axpy(a[at], col[j], s0);
                // Right of the diagonal: (i, j) = conj((j, i)), j = i+1+slot, i+1+slot+Subs, .., from column i.
                const T* ci = a + (L.col(i) - i);
                for (j = i + 1 + slot; j + Subs < n; j += 2 * Subs) {
                    s0 = core::fma_conj(ci[j], col[j], s0);
                    s1 = core::fma_conj(ci[j + Subs], col[j + Subs], s1);
                }
                if (j < n) s0 = core::fma_conj(ci[j], col[j], s0);
                const T s = mul(t, add(s0, s1));
                w[slot * n + i] = s;
                pv = core::fma_conj(s, i == k + 1 ? one : col[i], pv);
            }
        }
        block_partials<Threads>(pv, red);
        __syncthreads();  // (w's parts and the partial sums)
        const T half = core::scale(mul(t, block_partials_total<Threads>(red)), 0.5f);
        if constexpr (Subs > 1) {
            // w' = (the sum of the parts) - half v into w[i].
            for (int i = k + 1 + threadIdx.x; i < n; i += Threads) {
                T s = w[i];
#pragma unroll
                for (int q = 1; q < Subs; ++q) s = add(s, w[q * n + i]);
                w[i] = sub(s, mul(half, i == k + 1 ? one : col[i]));
            }
            __syncthreads();
        }
        // w'[j]: w[j] itself when the parts were added, else formed here.
        const auto wp = [&](int j, const T& vj) {
            if constexpr (Subs > 1) return w[j];
            else return sub(w[j], mul(half, vj));
        };
        // A22 <- A22 - v w'^H - w' v^H on the lower triangle, row i's columns k+1+s, k+1+s+S, ..
        // (S slots s), and the next column's norm below its subdiagonal (rows k+3.., its
        // elements in slot 0).
        const auto update_row = [&]<int S>(std::integral_constant<int, S>, int i, int s) {
            constexpr int skip = sh * S * (S - 1) / 2;
            const T vi = i == k + 1 ? one : col[i], wi = wp(i, vi);
            int j = k + 1 + s;
            int at = L.col(j) + (i - j), st = L.step(j);
            if (s == 0) {  // (j = k + 1: v[k + 1] = 1)
                const T first = sub(a[at], core::axpy(vi, core::conj_of(wp(k + 1, one)), wi));
                a[at] = first;
                if (i >= k + 3) part += core::abs2(first);
                at += S * st - skip;
                st -= S * sh;
                j += S;
            }
            // a_ij -= v_i conj(w'_j) + w'_i conj(v_j)
            const auto term = [&](const T& wj, const T& cj) { return core::axpy(vi, core::conj_of(wj), mul(wi, core::conj_of(cj))); };
            for (; j + S <= i; j += 2 * S) {  // (loads before stores: the compiler cannot tell that the stores miss w and col)
                const int a1 = at + S * st - skip;
                const T x0 = a[at], x1 = a[a1];
                const T c0 = col[j], c1 = col[j + S];
                const T w0 = wp(j, c0), w1 = wp(j + S, c1);
                a[at] = sub(x0, term(w0, c0));
                a[a1] = sub(x1, term(w1, c1));
                at = a1 + S * (st - S * sh) - skip;
                st -= 2 * S * sh;
            }
            if (j <= i) a[at] = sub(a[at], term(wp(j, col[j]), col[j]));
        };
        if constexpr (Layout::both_triangles) {
            // Whole rows: a_ij -= v_i conj(w'_j) + w'_i conj(v_j), j = k+1..n-1, four elements
            // at a time, loaded before any is stored (the compiler cannot tell that the stores
            // miss w and column k, and would otherwise wait for each).
            const int ld = L.ld;
            const T w1 = core::conj_of(wp(k + 1, one));  // (v[k + 1] = 1)
            for (int i = k + 1 + ri; i < n; i += RT) {
                T* row = a + i;
                const T vi = i == k + 1 ? one : col[i], wi = wp(i, vi);
                const T first = sub(row[(k + 1) * ld], core::axpy(vi, w1, wi));
                row[(k + 1) * ld] = first;
                if (i >= k + 3) part += core::abs2(first);
                const auto term = [&](const T& wj, const T& cj) {
                    return core::axpy(vi, core::conj_of(wj), mul(wi, core::conj_of(cj)));
                };
                int j = k + 2;
                for (; j + 3 < n; j += 4) {
                    const T a0 = row[j * ld], a1 = row[(j + 1) * ld], a2 = row[(j + 2) * ld], a3 = row[(j + 3) * ld];
                    const T c0 = col[j], c1 = col[j + 1], c2 = col[j + 2], c3 = col[j + 3];
                    const T w0 = wp(j, c0), w1_ = wp(j + 1, c1), w2 = wp(j + 2, c2), w3 = wp(j + 3, c3);
                    row[j * ld] = sub(a0, term(w0, c0));
                    row[(j + 1) * ld] = sub(a1, term(w1_, c1));
                    row[(j + 2) * ld] = sub(a2, term(w2, c2));
                    row[(j + 3) * ld] = sub(a3, term(w3, c3));
                }
                for (; j < n; ++j) row[j * ld] = sub(row[j * ld], term(wp(j, col[j]), col[j]));
            }
        } else if constexpr (Subs == 1) {
            for (int i = k + 1 + ri; i < n; i += RT) update_row(std::integral_constant<int, 1>{}, i, 0);
        } else {
            // Row i has i - k elements here: rows k+1+p and n-1-p go to the same threads (n - k
            // elements a pair), four slots a pair, so that every thread has about (n - k) / 4
            // elements instead of up to (n - k) / 2 in the last rows.
            constexpr int PT = Threads / 4;
            static_assert(PT % 32 == 0 && 2 * PT >= RT, "a pair of rows a thread, every row (RT >= n)");
            const int us = threadIdx.x / PT, p = threadIdx.x % PT;
            const int i1 = k + 1 + p, i2 = n - 1 - p;
            if (i1 <= i2) update_row(std::integral_constant<int, 4>{}, i1, us);
            if (i1 < i2) update_row(std::integral_constant<int, 4>{}, i2, us);
        }
        block_partials<Threads>(part, red_norm);
        __syncthreads();
        xnorm2 = block_partials_total<Threads>(red_norm);
    }
    if (threadIdx.x == 0) {
        d[n - 1] = core::real_part(a[L.col(n - 1)]);
        e[n - 1] = 0;
        tau[n - 1] = T(0.0f);
    }
    __syncthreads();
}

}  // namespace batchsvd::cuda::detail
