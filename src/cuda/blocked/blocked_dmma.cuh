// SPDX-License-Identifier: BSD-3-Clause
// The blocked pair kernel's two products in double and complex double on the FP64 tensor
// cores (DMMA, mma.sync m8n8k4): the Gram matrix G = X^H X of the pair's 2NB columns and the
// update [Xi Xj] <- [Xi Xj] Q (abfasi Algorithm 3, the fused update; W-cycle section IV-C).
// Both read their fragments straight from the working matrix in global memory, so they need
// no row tile in shared memory and no barrier but the Gram's final reduction; the scalar
// versions (blocked_kernels.cuh: pair_gram, pair_update) serve float and complex float. A
// complex product is four real ones on the real and imaginary parts (re: ar br + ai bi for
// the Gram, ar br - ai bi for the update; im: ar bi - ai br, resp. ar bi + ai br).
//
// Fragments (PTX ISA, mma.m8n8k4 .f64): lane l holds A[l/4][l%4] of the 8x4 A, B[l%4][l/4] of
// the 4x8 B and D[l/4][2(l%4) + e], e < 2, of the 8x8 D.
#pragma once

#include "cuda/common/kernel_common.cuh"
#include "cuda/blocked/slot_g.cuh"

namespace batchsvd::cuda::detail {

/// D += A B for one warp's m8n8k4 fragments (above). The tensor cores from sm_80; shuffles and
/// FMAs on older targets (builds that add them: the same layout, slower).
__device__ __forceinline__ void dmma_8x8x4(double& d0, double& d1, double a, double b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
        : "+d"(d0), "+d"(d1)
        : "d"(a), "d"(b));
#else
    const int lane = int(threadIdx.x & 31), r = lane >> 2, c = 2 * (lane & 3);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const double ak = __shfl_sync(0xffffffffu, a, 4 * r + k);
        d0 = fma(ak, __shfl_sync(0xffffffffu, b, 4 * c + k), d0);
        d1 = fma(ak, __shfl_sync(0xffffffffu, b, 4 * (c + 1) + k), d1);
    }
#endif
}

/// Real planes of an element: 1 for double, 2 for complex double.
template <class T> inline constexpr int kPlanes = core::is_complex_v<T> ? 2 : 1;

/// Work split of the DMMA Gram for a pair width W2 (32 or 64): 8-column tiles; the upper
/// triangle's NT (NT + 1) / 2 fragments in FG groups, group g holding tile rows g and
/// NT - 1 - g (NT + 1 fragments each, so the groups are even); the rows of the pair in KG
/// interleaved groups of 4 (one k-step each), for blocks of Threads threads. Warp w: fragment
/// group w % FG, row group w / FG.
template <int W2, int Threads> struct DmmaGramSplit {
    static constexpr int NT = W2 / 8;
    static constexpr int FG = NT / 2;
    static constexpr int KG = Threads / 32 / FG;
    static constexpr int NF = NT + 1;
    /// Doubles of shared scratch for the reduction over the row groups, per real plane.
    static constexpr int kScratch = (KG / 2) * FG * NF * 64;
    static_assert(FG * KG * 32 == Threads && (KG & (KG - 1)) == 0);
    /// Tile row and column of fragment f of group g.
    __device__ static constexpr int ti(int g, int f) { return f < NT - g ? g : NT - 1 - g; }
    __device__ static constexpr int tj(int g, int f) { return f < NT - g ? g + f : f - 1; }
};

/// Offset of the working-matrix column in the pair's local slot l, or -1 for a padding slot.
template <class Col> __device__ __forceinline__ index_t slot_offset(const Col& col, int l, index_t ldx) {
    const int c = col(l);
    return c >= 0 ? index_t(c) * ldx : index_t(-1);
}

/// acc (re, im) += A^H B for fragments a (of the conjugated side) and b.
template <class T> __device__ __forceinline__ void dmma_conj(double (&acc)[kPlanes<T>][2], const T& a, const T& b) {
    if constexpr (core::is_complex_v<T>) {
        dmma_8x8x4(acc[0][0], acc[0][1], a.real(), b.real());
        dmma_8x8x4(acc[0][0], acc[0][1], a.imag(), b.imag());
        dmma_8x8x4(acc[1][0], acc[1][1], a.real(), b.imag());
        dmma_8x8x4(acc[1][0], acc[1][1], -a.imag(), b.real());
    } else {
        dmma_8x8x4(acc[0][0], acc[0][1], a, b);
    }
}

/// One warp's share of the DMMA Gram: fragment group G_ (a template argument, so that the
/// fragments' tiles are registers), rows r0 + 4 KG i + lane % 4.
template <int W2, int Threads, int G_, class T, class Col>
__device__ __forceinline__ void gram_rows_dmma(const T* X, index_t ldx, int rows, const Col& col, int r_first,
                                               double (&acc)[DmmaGramSplit<W2, Threads>::NF][kPlanes<T>][2]) {
    using S = DmmaGramSplit<W2, Threads>;
    constexpr int NT = S::NT;
    const int lane = int(threadIdx.x & 31);
    const T zero = T(0.0);
    index_t off[NT];
#pragma unroll
    for (int t = 0; t < NT; ++t) off[t] = t >= G_ ? slot_offset(col, 8 * t + lane / 4, ldx) : index_t(-1);
#pragma unroll 2
    for (int r = r_first + (lane & 3); r - (lane & 3) < rows; r += 4 * S::KG) {
        T x[NT];
#pragma unroll
        for (int t = 0; t < NT; ++t) x[t] = (r < rows && off[t] >= 0) ? X[r + off[t]] : zero;
#pragma unroll
        for (int f = 0; f < S::NF; ++f) dmma_conj<T>(acc[f], x[S::ti(G_, f)], x[S::tj(G_, f)]);
    }
}

/// G = X^H X (ld slot_g_ld<W2>: the diagonal and the upper triangle, all the eigensolver reads) of the
/// pair's columns col over `rows` rows, by DMMA.
/// scratch: kPlanes<T> DmmaGramSplit<W2, Threads>::kScratch doubles, which may overlap G (read
/// before G is written).
template <int W2, int Threads, class T, class Col>
__device__ __noinline__ void pair_gram_dmma(const T* X, index_t ldx, int rows, const Col col, T* G,
                                            double* scratch) {
    using S = DmmaGramSplit<W2, Threads>;
    constexpr int LDG = slot_g_ld<W2>, NF = S::NF, FG = S::FG, P = kPlanes<T>, PART = NF * P * 64;
    const int lane = int(threadIdx.x & 31), warp = int(threadIdx.x >> 5);
    const int g = warp % FG, kg = warp / FG;
    double acc[NF][P][2];
#pragma unroll
    for (int f = 0; f < NF; ++f)
#pragma unroll
        for (int c = 0; c < P; ++c) acc[f][c][0] = acc[f][c][1] = 0.0;
    const int r_first = 4 * kg;
    if (g == 0) gram_rows_dmma<W2, Threads, 0>(X, ldx, rows, col, r_first, acc);
    else if (g == 1) gram_rows_dmma<W2, Threads, 1>(X, ldx, rows, col, r_first, acc);
    if constexpr (FG > 2) {
        if (g == 2) gram_rows_dmma<W2, Threads, 2>(X, ldx, rows, col, r_first, acc);
        else if (g == 3) gram_rows_dmma<W2, Threads, 3>(X, ldx, rows, col, r_first, acc);
    }
    // The row groups' partial sums, halved each round through scratch (a fixed order: the
    // result does not depend on scheduling).
#pragma unroll
    for (int half = S::KG / 2; half >= 1; half /= 2) {
        if (kg >= half && kg < 2 * half) {
            double* part = scratch + ((kg - half) * FG + g) * PART;
#pragma unroll
            for (int f = 0; f < NF; ++f)
#pragma unroll
                for (int c = 0; c < P; ++c)
#pragma unroll
                    for (int e = 0; e < 2; ++e) part[((f * P + c) * 2 + e) * 32 + lane] = acc[f][c][e];
        }
        __syncthreads();
        if (kg < half) {
            const double* part = scratch + (kg * FG + g) * PART;
#pragma unroll
            for (int f = 0; f < NF; ++f)
#pragma unroll
                for (int c = 0; c < P; ++c)
#pragma unroll
                    for (int e = 0; e < 2; ++e) acc[f][c][e] += part[((f * P + c) * 2 + e) * 32 + lane];
        }
        __syncthreads();
    }
    if (kg == 0) {
#pragma unroll
        for (int f = 0; f < NF; ++f) {
            const int ti = S::ti(g, f), tj = S::tj(g, f);
            const int i = 8 * ti + lane / 4;
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                const int j = 8 * tj + 2 * (lane & 3) + e;
                if (ti < tj || i <= j) {  // a diagonal fragment's upper half
                    if constexpr (core::is_complex_v<T>) G[i + j * LDG] = T(acc[f][0][e], i == j ? 0.0 : acc[f][1][e]);
                    else G[i + j * LDG] = acc[f][0][e];
                }
            }
        }
    }
    // Leave with the warp converged: the caller's __syncthreads (bar.sync, an aligned barrier)
    // needs every lane of a warp there together, and the lanes' own stores above may leave it
    // diverged out of this non-inlined call (compute-sanitizer synccheck, H100, 2026-11-25).
    __syncwarp();
}

/// Q (W2 x W2, ld slot_g_ld<W2>) into the update's B fragments, plane by plane (real parts, then
/// imaginary parts for complex): Bq[p W2^2 + (n NK + kk) 32 + l] = plane p of
/// Q[4 kk + l % 4][8 n + l / 4], NK = W2 / 4 (one conflict-free load per fragment).
template <int W2, int Threads, class T> __device__ __forceinline__ void pack_update_fragments(const T* Q, double* Bq) {
    constexpr int NK = W2 / 4, LDG = slot_g_ld<W2>;
    for (int idx = int(threadIdx.x); idx < W2 * W2; idx += Threads) {
        const int l = idx & 31, fr = idx >> 5, kk = fr % NK, n = fr / NK;
        const T q = Q[(4 * kk + (l & 3)) + (8 * n + (l >> 2)) * LDG];
        Bq[idx] = core::real_part(q);
        if constexpr (core::is_complex_v<T>) Bq[W2 * W2 + idx] = core::imag_part(q);
    }
}

/// Loads and stores of the update, plain or marked as streaming (ld/st.global.cs, evict
/// first), so that what the launch will not read again does not push out of the L2 cache what
/// it will (the pair kernel: V_W, and W's stores).
template <bool Stream, class T> __device__ __forceinline__ T update_load(const T* p) {
    if constexpr (!Stream) return *p;
    else if constexpr (core::is_complex_v<T>) {
        const double2 v = __ldcs(reinterpret_cast<const double2*>(p));
        return T(v.x, v.y);
    } else return __ldcs(p);
}
template <bool Stream, class T> __device__ __forceinline__ void update_store(T* p, const T& x) {
    if constexpr (!Stream) *p = x;
    else if constexpr (core::is_complex_v<T>) __stcs(reinterpret_cast<double2*>(p), make_double2(x.real(), x.imag()));
    else __stcs(p, x);
}

/// [Xi Xj] <- [Xi Xj] Q in place by DMMA, Q as pack_update_fragments left it. Each warp owns
/// whole 8-row tiles (all the pair's columns read into registers before any is written), so
/// warps never touch each other's rows and no barrier is needed. (Loading the next tile before
/// the current tile's products measured 2-6% slower at most sizes: H100, 2026-11-25;
/// docs/paths/blocked.md.)
template <int W2, int Threads, bool StreamLoads, bool StreamStores, class T, class Col>
__device__ __noinline__ void pair_update_dmma(T* X, index_t ldx, int rows, const Col col, const double* Bq) {
    constexpr bool cplx = core::is_complex_v<T>;
    constexpr int NT = W2 / 8, NK = W2 / 4, CH = cplx && W2 == 64 ? 1 : cplx ? 2 : 4;  // column tiles at a time
    constexpr int kWarps = Threads / 32;
    constexpr int NB = W2 / 2;
    const int lane = int(threadIdx.x & 31), warp = int(threadIdx.x >> 5), q = lane & 3;
    const T zero = T(0.0);
    // The pair's slots are two runs of columns (col.c0 + l, l < col.wi, then col.c1 + l - NB,
    // l - NB < col.wj): addresses by run, so that no offset per slot stays live (they spilled).
    T* const xa[2] = {X + index_t(col.c0) * ldx, X + index_t(col.c1) * ldx};
    const int wa[2] = {col.wi, col.wj};
    for (int r0 = 8 * warp; r0 < rows; r0 += 8 * kWarps) {
        const int r = r0 + lane / 4;
        // ld, opaque to the compiler in each tile: the column offsets are recomputed (a multiply
        // each) instead of being hoisted out of the loop as 64-bit values that spill.
        index_t ld;
        asm volatile("mov.b64 %0, %1;" : "=l"(ld) : "l"(ldx));
        T a[NK];
#pragma unroll
        for (int kk = 0; kk < NK; ++kk) {
            const int h = 4 * kk < NB ? 0 : 1, l = 4 * kk + q - h * NB;
            a[kk] = (r < rows && l < wa[h]) ? update_load<StreamLoads>(&xa[h][r + index_t(l) * ld]) : zero;
        }
#pragma unroll
        for (int n0 = 0; n0 < NT; n0 += CH) {
            double acc[CH][kPlanes<T>][2];
#pragma unroll
            for (int n = 0; n < CH; ++n)
#pragma unroll
                for (int c = 0; c < kPlanes<T>; ++c) acc[n][c][0] = acc[n][c][1] = 0.0;
#pragma unroll
            for (int kk = 0; kk < NK; ++kk) {
                double br[CH];
#pragma unroll
                for (int n = 0; n < CH; ++n) br[n] = Bq[((n0 + n) * NK + kk) * 32 + lane];
                if constexpr (cplx) {
                    double bi[CH];
#pragma unroll
                    for (int n = 0; n < CH; ++n) bi[n] = Bq[W2 * W2 + ((n0 + n) * NK + kk) * 32 + lane];
                    const double ar = a[kk].real(), ai = a[kk].imag(), nai = -ai;
#pragma unroll
                    for (int n = 0; n < CH; ++n) {
                        dmma_8x8x4(acc[n][0][0], acc[n][0][1], ar, br[n]);
                        dmma_8x8x4(acc[n][0][0], acc[n][0][1], nai, bi[n]);
                        dmma_8x8x4(acc[n][1][0], acc[n][1][1], ar, bi[n]);
                        dmma_8x8x4(acc[n][1][0], acc[n][1][1], ai, br[n]);
                    }
                } else {
#pragma unroll
                    for (int n = 0; n < CH; ++n) dmma_8x8x4(acc[n][0][0], acc[n][0][1], a[kk], br[n]);
                }
                // Keeps each k-step's B loads in place: hoisted ahead of the whole unrolled
                // loop they held dozens of registers.
                asm volatile("" ::: "memory");
            }
            if (r < rows) {
#pragma unroll
                for (int n = 0; n < CH; ++n)
#pragma unroll
                    for (int e = 0; e < 2; ++e) {
                        const int h = 8 * (n0 + n) < NB ? 0 : 1, l = 8 * (n0 + n) + 2 * q + e - h * NB;
                        if (l >= wa[h]) continue;
                        T* const x = &xa[h][r + index_t(l) * ld];
                        if constexpr (cplx) update_store<StreamStores>(x, T(acc[n][0][e], acc[n][1][e]));
                        else update_store<StreamStores>(x, acc[n][0][e]);
                    }
            }
        }
    }
    __syncwarp();  // the warp leaves converged (see pair_gram_dmma)
}

}  // namespace batchsvd::cuda::detail
