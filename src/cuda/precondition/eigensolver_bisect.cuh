// SPDX-License-Identifier: BSD-3-Clause
// The preconditioner's single-precision symmetric / Hermitian eigensolver past the split form's
// largest order (eigensolver_split.cuh: 336 real on an H100), where cuSOLVER's
// syevBatched takes one matrix's latency whatever the batch (about 28 ms at order 512 on an
// H100). Every phase is parallel inside a matrix, so no scalar recurrence of O(n^2) steps is
// left (the split form's QL iteration would be about 200K dependent rotations at 512):
//  1. bisect_reduce_kernel, one block a matrix: the Householder reduction of the split form
//     (tridiagonalize, two threads a row) on the full matrix in global memory (L2: 1 MB a
//     matrix at order 512), in the workspace's copy of G scaled to a largest entry in [1, 2),
//     columns whose squared norm below the subdiagonal is under 2^-80 dropped (their squares
//     underflow, and a reflector on an inexact norm is not orthogonal: Q's orthogonality was
//     2.6e-4 on Gram matrices of graded columns without it); then the reflectors' vectors made
//     explicit (v_k[k + 1] = 1, zeros above) for the back-transform's GEMMs.
//  2. bisect_vectors_kernel, one block a matrix, one thread an eigenvalue: T scaled to norm 1
//     and split where |e_i| <= kBisectSplitTol (blocks of T are then independent); eigenvalue
//     j of its block by bisection on Sturm counts; its vector by three steps of inverse
//     iteration from a pseudo-random start (Gaussian elimination with partial pivoting of T -
//     lambda I, as LAPACK's slagtf / slagts, tiny pivots replaced by kBisectTinyPivot); then,
//     where consecutive eigenvalues of a block are closer than kBisectClusterGap, the cluster's
//     vectors orthonormalised together (classical Gram-Schmidt twice, the whole block at a
//     time, with a further step of inverse iteration for a member that Gram-Schmidt mostly
//     removed): these are the clusters that the arithmetic cannot resolve (u / gap > 0.06),
//     whose vectors from independent iterations may be nearly parallel; the eigenvalues' ranks.
//  3. bisect_gather_kernel: the vectors (stored a row element at a time across threads) into
//     Z's columns in ascending order.
//  4. Three Newton-Schulz steps Z <- Z (3I - Z^T Z) / 2 (cuBLAS, single precision): inverse
//     iteration's vectors of eigenvalues a gap g apart are orthogonal to about u / g only (up
//     to 0.06 at the cluster gap, and a vector has many neighbours); the steps take that to
//     rounding, mixing vectors by about u / g, so that the residual stays at about u ||T||.
//  5. The back-transform G <- Q Z, Q = H_0 ... H_{n-2}, a panel of kBisectPanel reflectors at a
//     time as I - V T V^H (bisect_tfactor_kernel: LAPACK's larft, forward and columnwise), three
//     GEMMs a panel (cuBLAS).
// The result is what the other forms return: eigenvalues ascending, vectors over G, info (0, -1
// for a non-finite input, n + 1 for a non-finite vector), with one difference: inside a
// cluster (above) the vectors are an orthonormal basis of the cluster's invariant subspace,
// not its eigenvectors, so that there the residual is about the cluster's width, not u ||T||
// (the preconditioner cannot use those directions anyway: the Jacobi sweeps resolve them).
// Differs from LAPACK's sstein in the clusters (every vector iterated at once, then
// Gram-Schmidt over the cluster with a further step only for a member that Gram-Schmidt
// mostly removed, then the Newton-Schulz steps over all vectors, instead of reorthogonalising
// inside every step one vector after another) and in the fixed numbers of steps.
// H100, 2026-11-26, ec65d5b (50 random Gram matrices of order 512): 18.0 ms (reduction 11.5,
// bisection and vectors 2.7, Newton-Schulz 2.5, back-transform 1.2) against syevBatched's
// 25.9; on the benchmark's [0, 1) inputs 20.9 against 26.9; at order 400 (graded columns)
// 8.5. The reduction,
// one block a matrix with the trailing matrix in L2, is the part to make faster next; past
// 512 it runs one thread a row and loses to cuSOLVER (1024: 140 ms for 10 matrices).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "cuda/common/batched_gemm.hpp"
#include "cuda/common/check.hpp"
#include "cuda/precondition/newton_schulz.cuh"
#include "cuda/precondition/eigensolver_split.cuh"
#include "cuda/common/smem_limit.hpp"

namespace batchsvd::cuda {

/// The largest order the bisection form takes (one thread an eigenvalue in one block).
inline constexpr int kBisectMaxOrder = 1024;
/// Reflectors a panel of the back-transform has.
inline constexpr int kBisectPanel = 32;
/// With T scaled to norm 1: e_i at most this is dropped (T splits there), consecutive
/// eigenvalues of a block closer than kBisectClusterGap are orthonormalised together, and a
/// pivot of T - lambda I smaller than kBisectTinyPivot is replaced by it (sign kept).
inline constexpr float kBisectSplitTol = 1.2e-7f, kBisectClusterGap = 1e-6f, kBisectTinyPivot = 6e-8f;
/// Newton-Schulz steps on T's vectors (phase 4).
inline constexpr int kBisectNewtonSchulzSteps = 3;

/// Panels of the back-transform for order n (the n - 1 reflectors H_0 .. H_{n-2}).
__host__ __device__ inline int bisect_panels(int n) { return n > 1 ? (n - 2) / kBisectPanel + 1 : 0; }

/// Byte offsets of one matrix's workspace, each 16-aligned: the reflectors (n x n T), tau (n
/// T), the panels' T factors (kBisectPanel^2 T each), two kBisectPanel x n T products, d and e
/// (2n float), the ranks (n int), the vectors (n x n float, element i of vector j at [i n + j]),
/// the inverse iteration's factors (n x n float4, reused as three n x n float matrices by the
/// Newton-Schulz steps).
struct BisectLayout {
    std::size_t refl, tau, tf, y, y2, de, rank, zr, u4, bytes;
    __host__ __device__ std::size_t za() const { return u4; }
};

template <class T> __host__ __device__ inline BisectLayout bisect_layout(int n) {
    const auto a16 = [](std::size_t x) { return (x + 15) & ~std::size_t(15); };
    const std::size_t nn = std::size_t(n) * n, nb = kBisectPanel;
    BisectLayout l{};
    std::size_t at = 0;
    l.refl = at, at = a16(at + nn * sizeof(T));
    l.tau = at, at = a16(at + std::size_t(n) * sizeof(T));
    l.tf = at, at = a16(at + std::size_t(bisect_panels(n)) * nb * nb * sizeof(T));
    l.y = at, at = a16(at + nb * n * sizeof(T));
    l.y2 = at, at = a16(at + nb * n * sizeof(T));
    l.de = at, at = a16(at + 2 * std::size_t(n) * sizeof(float));
    l.rank = at, at = a16(at + std::size_t(n) * sizeof(int));
    l.zr = at, at = a16(at + nn * sizeof(float));
    l.u4 = at, at = a16(at + nn * sizeof(float4));
    l.bytes = at;
    return l;
}

/// Workspace bytes of one matrix of order n.
template <class T> inline std::size_t bisect_eig_matrix_bytes(int n) { return bisect_layout<T>(n).bytes; }

namespace detail {

/// Phase 1 for each matrix (one block of Rows x Subs threads a matrix): G into the workspace's
/// reflector matrix (info = -1 for a non-finite entry, and nothing else written),
/// tridiagonalize there (global memory), d, e and tau into the workspace, then the
/// reflectors' vectors made explicit in place (column k: zero to row k, one at row k + 1).
template <class T, int Rows, int Subs>
__global__ void __launch_bounds__(Rows * Subs) bisect_reduce_kernel(const T* G, unsigned char* ws, int* info, int n,
                                                                     index_t batch) {
    constexpr int Threads = Rows * Subs;
    extern __shared__ __align__(16) unsigned char smem_bytes[];
    T* w = reinterpret_cast<T*>(smem_bytes);
    T* red = w + std::size_t(Subs) * n;
    const BisectLayout lay = bisect_layout<T>(n);
    const int nn = n * n;
    for (index_t b = blockIdx.x; b < batch; b += gridDim.x) {
        unsigned char* base = ws + std::size_t(b) * lay.bytes;
        T* a = reinterpret_cast<T*>(base + lay.refl);
        T* tau = reinterpret_cast<T*>(base + lay.tau);
        float* d = reinterpret_cast<float*>(base + lay.de);
        const T* g = G + b * index_t(nn);
        bool bad = false;
        float big = 0;
        for (int at = threadIdx.x; at < nn; at += Threads) {
            const T x = g[at];
            bad |= !core::is_finite(x);
            big = fmaxf(big, float(core::abs_of(x)));
        }
        if (__syncthreads_or(bad)) {
            if (threadIdx.x == 0) info[b] = -1;
            continue;
        }
        // G into the workspace scaled by a power of two to a largest entry in [1, 2) (exact),
        // so that the reduction's dropping threshold, 2^-80 in squared norm, is relative to it.
        const float largest = block_max<Threads>(big, reinterpret_cast<float*>(red));
        const float f = ldexpf(1.0f, largest > 0 ? -ilogbf(largest) : 0);
        for (int at = threadIdx.x; at < nn; at += Threads) a[at] = core::scale(g[at], f);
        __syncthreads();
        tridiagonalize<Threads, Subs>(a, FullLower{n}, n, d, d + n, tau, w, red, 0x1p-80f);
        if (f != 1.0f)
            for (int i = threadIdx.x; i < 2 * n; i += Threads) d[i] /= f;
        for (int at = threadIdx.x; at < nn; at += Threads) {
            const int k = at / n, i = at - k * n;
            if (i <= k + 1 || k + 1 >= n) a[at] = T(i == k + 1 ? 1.0f : 0.0f);
        }
        if (threadIdx.x == 0) info[b] = 0;
        __syncthreads();  // (w and red are the block's next matrix's)
    }
}

/// A start vector's entry i for eigenvalue j: uniform on (-1, 1) from a hash (so that vectors
/// of equal eigenvalues start apart, and none starts orthogonal to its eigenvector by
/// symmetry, as a vector of ones can).
__device__ __forceinline__ float bisect_start_entry(int j, int i) {
    unsigned h = unsigned(j) * 0x9E3779B1u ^ unsigned(i) * 0x85EBCA77u;
    h ^= h >> 15, h *= 0x2C1B3C6Du, h ^= h >> 12, h *= 0x297A2D39u, h ^= h >> 15;
    return float(h >> 8) * (2.0f / 16777216.0f) - 1.0f + (1.0f / 16777216.0f);
}

/// The number of eigenvalues below x of the block [s, t) of T (d, e2 = e^2): the signs of the
/// LDL^T factorisation of T - x I (LAPACK's slaebz, pivots kept away from zero).
__device__ __forceinline__ int sturm_count(const float* d, const float* e2, int s, int t, float x) {
    constexpr float pivmin = 1e-30f;
    float q = d[s] - x;
    if (fabsf(q) < pivmin) q = -pivmin;
    int c = q < 0;
    for (int i = s + 1; i < t; ++i) {
        q = (d[i] - x) - __fdividef(e2[i - 1], q);
        if (fabsf(q) < pivmin) q = -pivmin;
        c += q < 0;
    }
    return c;
}

/// `steps` steps of inverse iteration on the block [s, t) of T (d, e; scaled to norm 1) for the
/// vector in column j of zr (element i at zr[i n + j], starting from what is there): x <- (T -
/// l I)^-1 x / ||x||_inf by Gaussian elimination with partial pivoting (LAPACK's slagtf /
/// slagts; U's rows, its diagonal and two above, and L^-1 x into column j of u4), then x
/// normalised. False where x is not finite.
__device__ inline bool inverse_iterate(const float* d, const float* e, int s, int t, float l, float* zr, float4* u4, int n,
                                       int j, int steps) {
    const auto x_at = [&](int i) -> float& { return zr[std::size_t(i) * n + j]; };
    const auto pivot = [](float a) { return fabsf(a) < kBisectTinyPivot ? copysignf(kBisectTinyPivot, a) : a; };
    float scale = 1.0f;  // (the last step's 1 / ||x||_inf, applied as x is read)
    for (int step = 0; step < steps; ++step) {
        float a = d[s] - l, bb = e[s], y = x_at(s) * scale;
        for (int i = s; i + 1 < t; ++i) {
            const float sub = e[i], dn = d[i + 1] - l, up = i + 2 < t ? e[i + 1] : 0.0f;
            const float xn = x_at(i + 1) * scale;
            float4 row;
            if (fabsf(a) >= fabsf(sub)) {
                const float piv = pivot(a), m = sub / piv;
                row = make_float4(piv, bb, 0.0f, y);
                a = dn - m * bb;
                bb = up;
                y = xn - m * y;
            } else {  // (rows i and i + 1 exchanged)
                const float m = a / sub;
                row = make_float4(sub, dn, up, xn);
                a = bb - m * dn;
                bb = -m * up;
                y = y - m * xn;
            }
            u4[std::size_t(i) * n + j] = row;
        }
        u4[std::size_t(t - 1) * n + j] = make_float4(pivot(a), 0.0f, 0.0f, y);
        // Back substitution, with its largest |x_i|.
        float x1 = 0, x2 = 0, big = 0;
#pragma unroll 4
        for (int i = t - 1; i >= s; --i) {
            const float4 row = u4[std::size_t(i) * n + j];
            float xi = (row.w - row.y * x1 - row.z * x2) / row.x;
            if (fabsf(xi) > 1e30f) {  // (rescale what is computed; rare)
                for (int r = i + 1; r < t; ++r) x_at(r) *= 1e-30f;
                xi *= 1e-30f, x1 *= 1e-30f, x2 *= 1e-30f, big *= 1e-30f;
            }
            x_at(i) = xi;
            big = fmaxf(big, fabsf(xi));
            x2 = x1;
            x1 = xi;
        }
        scale = big > 0 ? 1.0f / big : 1.0f;
    }
    float nrm2 = 0;
    for (int i = s; i < t; ++i) {
        const float xi = x_at(i) * scale;
        nrm2 += xi * xi;
    }
    const float f = scale * rsqrtf(nrm2);
    for (int i = s; i < t; ++i) x_at(i) *= f;
    return nrm2 > 0 && isfinite(f);
}

/// Phase 2 for each matrix (one block of Threads threads, n <= Threads): see the top of the
/// file. Shared memory: d, e, e^2, the eigenvalues (6 n floats with the blocks' bounds), the
/// clusters (2 n ints), the Gram-Schmidt coefficients (n floats) and the partial sums.
template <class T, int Threads>
__global__ void __launch_bounds__(Threads) bisect_vectors_kernel(unsigned char* ws, float* lambda, int* info, int n,
                                                                  index_t batch) {
    constexpr int W = Threads / 32;
    extern __shared__ __align__(16) unsigned char smem_bytes[];
    float* d = reinterpret_cast<float*>(smem_bytes);
    float* e = d + n;
    float* e2 = e + n;
    float* lam = e2 + n;
    float* coef = lam + n;
    int* bstart = reinterpret_cast<int*>(coef + n);
    int* bend = bstart + n;
    int* cl_start = bend + n;
    int* cl_size = cl_start + n;
    float* red = reinterpret_cast<float*>(cl_size + n);  // W x 33, then one
    __shared__ int s_clusters;
    const BisectLayout lay = bisect_layout<T>(n);
    for (index_t b = blockIdx.x; b < batch; b += gridDim.x) {
        if (info[b] != 0) continue;  // (uniform)
        unsigned char* base = ws + std::size_t(b) * lay.bytes;
        const float* de = reinterpret_cast<const float*>(base + lay.de);
        int* rank = reinterpret_cast<int*>(base + lay.rank);
        float* zr = reinterpret_cast<float*>(base + lay.zr);
        float4* u4 = reinterpret_cast<float4*>(base + lay.u4);
        // T's norm (Gershgorin: the largest |d_i| + |e_{i-1}| + |e_i|), then T / norm, split.
        float part = 0;
        for (int i = threadIdx.x; i < n; i += Threads)
            part = fmaxf(part, fabsf(de[i]) + fabsf(de[n + i]) + (i > 0 ? fabsf(de[n + i - 1]) : 0.0f));
        const float largest = block_max<Threads>(part, red);
        const float tnorm = largest > 0 ? largest : 1.0f;
        const float inv = 1.0f / tnorm;
        for (int i = threadIdx.x; i < n; i += Threads) {
            d[i] = de[i] * inv;
            float ei = i + 1 < n ? de[n + i] * inv : 0.0f;
            if (fabsf(ei) <= kBisectSplitTol) ei = 0.0f;
            e[i] = ei;
            e2[i] = ei * ei;
        }
        __syncthreads();
        if (threadIdx.x == 0) {  // the blocks of T: [bstart[i], bend[i]) holds row i
            int s = 0;
            for (int i = 0; i < n; ++i) {
                bstart[i] = s;
                if (e[i] == 0.0f) {
                    for (int r = s; r <= i; ++r) bend[r] = i + 1;
                    s = i + 1;
                }
            }
        }
        __syncthreads();
        // Eigenvalue j - s of the block [s, t) holding row j, by bisection.
        for (int j = threadIdx.x; j < n; j += Threads) {
            const int s = bstart[j], t = bend[j], k = j - s;
            if (t - s == 1) {  // (exactly d: zero for a zero matrix, one for the identity)
                lam[j] = d[s];
                continue;
            }
            float lo = d[s], hi = d[s];
            for (int i = s; i < t; ++i) {
                const float r = (i > s ? fabsf(e[i - 1]) : 0.0f) + (i + 1 < t ? fabsf(e[i]) : 0.0f);
                lo = fminf(lo, d[i] - r);
                hi = fmaxf(hi, d[i] + r);
            }
            lo -= 4e-7f, hi += 4e-7f;
            for (int it = 0; it < 96; ++it) {
                const float mid = 0.5f * (lo + hi);
                if (hi - lo <= 1.2e-7f * fmaxf(fabsf(lo), fabsf(hi)) + 1e-12f || mid <= lo || mid >= hi) break;
                if (sturm_count(d, e2, s, t, mid) > k) hi = mid;
                else lo = mid;
            }
            lam[j] = 0.5f * (lo + hi);
        }
        __syncthreads();
        // Its vector: three steps of inverse iteration from the start vector.
        bool bad = false;
        for (int j = threadIdx.x; j < n; j += Threads) {
            const int s = bstart[j], t = bend[j];
            for (int i = 0; i < n; ++i)
                zr[std::size_t(i) * n + j] = i >= s && i < t ? (t - s == 1 ? 1.0f : bisect_start_entry(j, i)) : 0.0f;
            if (t - s > 1) bad |= !inverse_iterate(d, e, s, t, lam[j], zr, u4, n, j, 3);
        }
        bad = __syncthreads_or(bad);
        // The clusters: runs of a block's eigenvalues kBisectClusterGap or less apart.
        if (threadIdx.x == 0) {
            int count = 0;
            for (int j = 0; j < n;) {
                int m = j + 1;
                while (m < n && bstart[m] == bstart[j] && lam[m] - lam[m - 1] < kBisectClusterGap) ++m;
                if (m - j > 1) cl_start[count] = j, cl_size[count] = m - j, ++count;
                j = m;
            }
            s_clusters = count;
        }
        __syncthreads();
        // Each cluster's vectors orthonormalised in order, classical Gram-Schmidt twice: the
        // coefficients against the earlier members with lanes over members (coalesced) and
        // warps over rows, then the update with threads over rows. Where that took more than a
        // tenth of a member's norm (its vector was largely in the earlier members' span, so
        // what is left is mostly rounding from outside the cluster), one more step of inverse
        // iteration from what is left (one thread), and Gram-Schmidt again; twice at most
        // (sstein reorthogonalises inside every step instead).
        const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
        for (int c = 0; c < s_clusters && !bad; ++c) {
            const int c0 = cl_start[c], size = cl_size[c], s = bstart[c0], t = bend[c0];
            for (int m = c0 + 1; m < c0 + size && !bad; ++m) {
                for (int attempt = 0;; ++attempt) {
                    for (int pass = 0; pass < 2; ++pass) {
                        for (int tile = c0; tile < m; tile += 32) {
                            const int mp = tile + lane;
                            float acc = 0;
                            if (mp < m)
                                for (int i = s + warp; i < t; i += W) acc += zr[std::size_t(i) * n + mp] * zr[std::size_t(i) * n + m];
                            red[warp * 33 + lane] = acc;
                            __syncthreads();
                            if (warp == 0) {
                                float sum = 0;
                                for (int q = 0; q < W; ++q) sum += red[q * 33 + lane];
                                if (mp < m) coef[mp - c0] = sum;
                            }
                            __syncthreads();
                        }
                        for (int i = s + threadIdx.x; i < t; i += Threads) {
                            float acc = zr[std::size_t(i) * n + m];
                            for (int q = c0; q < m; ++q) acc -= coef[q - c0] * zr[std::size_t(i) * n + q];
                            zr[std::size_t(i) * n + m] = acc;
                        }
                        __syncthreads();
                    }
                    float nrm = 0;
                    for (int i = s + threadIdx.x; i < t; i += Threads) nrm += zr[std::size_t(i) * n + m] * zr[std::size_t(i) * n + m];
                    block_partials<Threads>(nrm, red);
                    __syncthreads();
                    const float left = block_partials_total<Threads>(red);  // (the member had norm 1)
                    __syncthreads();  // (red)
                    if (left < 0.81f && attempt < 2) {
                        if (threadIdx.x == 0) bad |= !inverse_iterate(d, e, s, t, lam[m], zr, u4, n, m, 1);
                        bad = __syncthreads_or(bad);
                        if (bad) break;
                        continue;
                    }
                    const float f = rsqrtf(left);
                    for (int i = s + threadIdx.x; i < t; i += Threads) zr[std::size_t(i) * n + m] *= f;
                    __syncthreads();  // (the member, for the next one's coefficients)
                    break;
                }
            }
        }
        // The ranks (ascending, ties by index), the eigenvalues in that order.
        for (int j = threadIdx.x; j < n; j += Threads) {
            const float l = lam[j];
            int r = 0;
            for (int k = 0; k < n; ++k) r += lam[k] < l || (lam[k] == l && k < j);
            rank[j] = r;
            lambda[b * n + r] = l * tnorm;
        }
        if (threadIdx.x == 0 && bad) info[b] = n + 1;
        __syncthreads();  // (shared arrays are the block's next matrix's)
    }
}

/// Phase 3: vector j (element i at zr[i n + j]) into column rank[j] of Z (za, column-major),
/// through a 32 x 32 tile (32 x 8 threads).
template <class T>
__global__ void __launch_bounds__(256) bisect_gather_kernel(unsigned char* ws, const int* info, int n, index_t batch) {
    __shared__ float tile[32][33];
    const BisectLayout lay = bisect_layout<T>(n);
    const int tiles = (n + 31) / 32;
    const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;
    for (index_t blk = blockIdx.x; blk < batch * tiles * tiles; blk += gridDim.x) {
        const index_t b = blk / (tiles * tiles);
        const int ti = int(blk % (tiles * tiles)) / tiles, tj = int(blk % tiles);
        if (info[b] != 0) continue;  // (uniform)
        unsigned char* base = ws + std::size_t(b) * lay.bytes;
        const float* zr = reinterpret_cast<const float*>(base + lay.zr);
        const int* rank = reinterpret_cast<const int*>(base + lay.rank);
        float* za = reinterpret_cast<float*>(base + lay.za());
        for (int r = ty; r < 32; r += 8) {
            const int i = ti * 32 + r, j = tj * 32 + tx;
            tile[r][tx] = i < n && j < n ? zr[std::size_t(i) * n + j] : 0.0f;
        }
        __syncthreads();
        for (int r = ty; r < 32; r += 8) {
            const int j = tj * 32 + r, i = ti * 32 + tx;
            if (i < n && j < n) za[std::size_t(rank[j]) * n + i] = tile[tx][r];
        }
        __syncthreads();
    }
}

/// Z (float, at byte offset zoff of each matrix's workspace) into G (T), every matrix (a failed
/// one's G is garbage, as its info says).
template <class T>
__global__ void bisect_store_kernel(const unsigned char* ws, std::size_t zoff, T* G, int n, index_t batch) {
    const BisectLayout lay = bisect_layout<T>(n);
    const index_t nn = index_t(n) * n;
    for (index_t at = index_t(blockIdx.x) * blockDim.x + threadIdx.x; at < batch * nn; at += index_t(gridDim.x) * blockDim.x) {
        const index_t b = at / nn;
        const float* za = reinterpret_cast<const float*>(ws + std::size_t(b) * lay.bytes + zoff);
        G[at] = T(za[at - b * nn]);
    }
}

/// Phase 5's T factors (LAPACK's larft, forward, columnwise), one block of 256 threads a
/// (matrix, panel): S = V^H V for the panel's reflectors (explicit in the reflector matrix),
/// then T(i, i) = tau_i, T(0:i, i) = -tau_i T(0:i, 0:i) S(0:i, i), into the panel's
/// kBisectPanel^2 T's (column-major, zero below the diagonal and past the panel's width).
template <class T>
__global__ void __launch_bounds__(256) bisect_tfactor_kernel(unsigned char* ws, const int* info, int n, index_t batch) {
    constexpr int NB = kBisectPanel;
    __shared__ T S[NB][NB + 1], Tf[NB][NB + 1], V[32][NB + 1];
    const BisectLayout lay = bisect_layout<T>(n);
    const int panels = bisect_panels(n);
    for (index_t blk = blockIdx.x; blk < batch * panels; blk += gridDim.x) {
        const index_t b = blk / panels;
        const int p = int(blk % panels), k0 = p * NB, width = min(NB, n - 1 - k0);
        if (info[b] != 0) continue;  // (uniform)
        unsigned char* base = ws + std::size_t(b) * lay.bytes;
        const T* refl = reinterpret_cast<const T*>(base + lay.refl);
        const T* tau = reinterpret_cast<const T*>(base + lay.tau);
        T* tf = reinterpret_cast<T*>(base + lay.tf) + std::size_t(p) * NB * NB;
        // S, each thread four entries (i, j): j = threadIdx.x % 32, i = threadIdx.x / 32 + 8 q.
        T acc[4] = {T(0.0f), T(0.0f), T(0.0f), T(0.0f)};
        const int jj = threadIdx.x % 32, i0 = threadIdx.x / 32;
        for (int r0 = k0 + 1; r0 < n; r0 += 32) {
            for (int at = threadIdx.x; at < 32 * NB; at += 256) {
                const int r = at % 32, c = at / 32;
                V[r][c] = r0 + r < n && c < width ? refl[std::size_t(k0 + c) * n + r0 + r] : T(0.0f);
            }
            __syncthreads();
            for (int r = 0; r < 32; ++r)
#pragma unroll
                for (int q = 0; q < 4; ++q) acc[q] = core::fma_conj(V[r][i0 + 8 * q], V[r][jj], acc[q]);
            __syncthreads();
        }
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            S[i0 + 8 * q][jj] = acc[q];
            Tf[i0 + 8 * q][jj] = T(0.0f);
        }
        __syncthreads();
        for (int i = 0; i < width; ++i) {
            const T ti = tau[k0 + i];
            // (threads l < i: row l of T(0:i, 0:i) S(0:i, i), read before any is written)
            T v(0.0f);
            if (int(threadIdx.x) < i)
                for (int m = threadIdx.x; m < i; ++m) v = core::axpy(Tf[threadIdx.x][m], S[m][i], v);
            __syncthreads();
            if (int(threadIdx.x) < i) Tf[threadIdx.x][i] = core::scale(mul(ti, v), -1.0f);
            if (threadIdx.x == 0) Tf[i][i] = ti;
            __syncthreads();
        }
        for (int at = threadIdx.x; at < NB * NB; at += 256) tf[at] = Tf[at % NB][at / NB];
        __syncthreads();
    }
}

/// The reduction's block shape for order n: two threads a row up to 512 (the folded rank-2
/// update needs 2 x Threads / 4 >= n), one beyond.
template <class T> inline auto bisect_reduce_kernel_for(int n) {
    return n <= 512 ? bisect_reduce_kernel<T, 512, 2> : bisect_reduce_kernel<T, 1024, 1>;
}

}  // namespace detail

/// The bisection form (see the top of the file) on `batch` matrices of order n, 1 <= n <=
/// kBisectMaxOrder, in chunks of `chunk` matrices whose workspace (chunk x
/// bisect_eig_matrix_bytes<T>(n) bytes at ws, 16-aligned) is reused; the same outputs as
/// launch_symmetric_eig. `blas` must be bound to `stream`. Throws batchsvd::Error for an order
/// out of range (invalid_argument) and for a failed launch or cuBLAS call. marks, when given
/// (probes), gets an event recorded after each of the first chunk's phases 1, 2, 3-4 and 5.
template <class T>
void symmetric_eig_bisect(T* G, float* lambda, int* info, int n, index_t batch, unsigned char* ws, index_t chunk,
                          cublasHandle_t blas, cudaStream_t stream, const cudaEvent_t* marks = nullptr) {
    if (n < 1 || n > kBisectMaxOrder)
        throw Error(ErrorCode::invalid_argument, "batchsvd: the bisection eigensolver takes orders 1 to 1024");
    constexpr int NB = kBisectPanel;
    const BisectLayout lay = bisect_layout<T>(n);
    const int sub = n <= 512 ? 2 : 1, vthreads = 1024;
    const std::size_t reduce_bytes = (std::size_t(sub) * n + 64) * sizeof(T);
    const std::size_t vec_bytes = std::size_t(9) * n * 4 + (vthreads / 32 * 33 + 1) * 4;
    const auto reduce = detail::bisect_reduce_kernel_for<T>(n);
    BATCHSVD_CUDA_CHECK(allow_dynamic_smem(reduce, reduce_bytes));
    BATCHSVD_CUDA_CHECK(allow_dynamic_smem(detail::bisect_vectors_kernel<T, 1024>, vec_bytes));
    const long long sw = (long long)(lay.bytes / sizeof(T)), swf = (long long)(lay.bytes / sizeof(float));
    const long long nn = (long long)n * n;
    const int tiles = (n + 31) / 32;
    for (index_t first = 0; first < batch; first += chunk) {
        const index_t count = std::min(chunk, batch - first);
        const int cnt = int(count);
        T* g = G + first * nn;
        int* inf = info + first;
        const unsigned grid = unsigned(std::min<index_t>(count, 1 << 20));
        reduce<<<grid, 1024, reduce_bytes, stream>>>(g, ws, inf, n, count);
        BATCHSVD_CUDA_CHECK_LAUNCH("bisect_reduce_kernel");
        const auto mark = [&](int i) {
            if (marks && first == 0) BATCHSVD_CUDA_CHECK(cudaEventRecord(marks[i], stream));
        };
        mark(0);
        detail::bisect_vectors_kernel<T, 1024><<<grid, vthreads, vec_bytes, stream>>>(ws, lambda + first * n, inf, n, count);
        BATCHSVD_CUDA_CHECK_LAUNCH("bisect_vectors_kernel");
        mark(1);
        detail::bisect_gather_kernel<T><<<unsigned(std::min<index_t>(count * tiles * tiles, 1 << 24)), 256, 0, stream>>>(
            ws, inf, n, count);
        BATCHSVD_CUDA_CHECK_LAUNCH("bisect_gather_kernel");
        // The Newton-Schulz steps on Z, in the factors' room, between za and zc (zb: Z^T Z, then
        // the step's middle factor).
        float* za = reinterpret_cast<float*>(ws + lay.za());
        float* zb = za + nn;
        float* zc = zb + nn;
        float* z = za;
        for (int step = 0; step < kBisectNewtonSchulzSteps; ++step) {
            float* to = z == za ? zc : za;
            newton_schulz_step<float>(blas, stream, n, cnt, z, swf, zb, swf, to, swf);
            z = to;
        }
        detail::bisect_store_kernel<T><<<unsigned(std::min<index_t>((count * nn + 255) / 256, 1 << 20)), 256, 0, stream>>>(
            ws, lay.za() + std::size_t(z - za) * sizeof(float), g, n, count);
        BATCHSVD_CUDA_CHECK_LAUNCH("bisect_store_kernel");
        mark(2);
        const int panels = bisect_panels(n);
        if (panels > 0) {
            detail::bisect_tfactor_kernel<T><<<unsigned(std::min<index_t>(count * panels, 1 << 24)), 256, 0, stream>>>(
                ws, inf, n, count);
            BATCHSVD_CUDA_CHECK_LAUNCH("bisect_tfactor_kernel");
        }
        // G <- P_0 (P_1 (... (P_last G))), P_p = I - V T V^H over rows k0 + 1 .. n - 1.
        T* refl = reinterpret_cast<T*>(ws + lay.refl);
        T* tf = reinterpret_cast<T*>(ws + lay.tf);
        T* y = reinterpret_cast<T*>(ws + lay.y);
        T* y2 = reinterpret_cast<T*>(ws + lay.y2);
        for (int p = panels - 1; p >= 0; --p) {
            const int k0 = p * NB, width = std::min(NB, n - 1 - k0), rows = n - 1 - k0;
            T* v = refl + std::size_t(k0) * n + k0 + 1;
            T* gs = g + k0 + 1;
            gemm_strided<T>(blas, true, false, width, n, rows, 1.0f, v, n, sw, gs, n, nn, 0.0f, y, NB, sw, cnt);
            gemm_strided<T>(blas, false, false, width, n, width, 1.0f, tf + std::size_t(p) * NB * NB, NB, sw, y, NB, sw,
                            0.0f, y2, NB, sw, cnt);
            gemm_strided<T>(blas, false, false, rows, n, width, -1.0f, v, n, sw, y2, NB, sw, 1.0f, gs, n, nn, cnt);
        }
        mark(3);
    }
}

}  // namespace batchsvd::cuda
