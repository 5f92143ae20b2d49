// SPDX-License-Identifier: BSD-3-Clause
// The preconditioner's single-precision symmetric / Hermitian eigensolver from order 160 real,
// 128 complex (precondition.cu's eigensolver_form): past the largest order whose full matrix
// fits one block's shared memory (eigensolver_fused.cuh: 236 real on an H100), and faster
// than that fused form from those orders where both fit. The same three phases in three
// kernels, so that the QL iteration's scalar recurrence, the part that cannot be parallelised
// inside a matrix (about 0.8 n^2 dependent rotations), runs for many matrices at once on every
// SM instead of one matrix an SM (1000 float32 matrices of 256^2 in 26.1 ms against cuSOLVER's
// syevBatched's 35.7; H100, 2026-11-26):
//  1. tridiagonal_reduce_kernel, one block a matrix: the Householder reduction (ssytd2 /
//     chetd2) on the lower triangle, packed in shared memory (n(n+1)/2 elements: real orders
//     up to 336 on an H100), through tridiagonalize (both triangles read, for the finiteness
//     check); it writes d, e, tau and the reflectors'
//     vectors to a workspace.
//  2. ql_rotations_kernel, one warp a matrix: the QL iteration of eigensolver_fused.cuh
//     (ql_next_sweep) on (d, e), its sweeps written to a stream in the workspace (a header
//     (l, m), then the m - l cosines and sines); the eigenvalues ascending and their ranks.
//  3. ql_vectors_kernel, one warp for 32 rows of a matrix: the rows of Q = H_0 ... H_{n-2}
//     formed from the reflectors (each row is e_r^T H_0 H_1 ..., independent of the others),
//     then the stream's rotations applied to them (ql_apply_sweep) and the rows written to the
//     columns that the ranks give.
// The result is what symmetric_eig_kernel returns (eigenvalues ascending, vectors over G,
// info; info = n + 1 where a matrix's sweeps outgrew the stream's room, split_eig_rotation_cap,
// about 2.5 times what random matrices take).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "cuda/precondition/eigensolver_fused.cuh"
#include "cuda/precondition/tridiagonalize.cuh"

namespace batchsvd::cuda {

/// The split eigensolver's order limit, whatever the shared memory: its reduction's blocks have
/// at most this many row threads, and the vectors kernel's registers hold a sweep of this many.
inline constexpr int kSplitMaxRows = 384;

/// The reduction's blocks for order n: `rows` threads a row slot (one thread a row), `subs`
/// threads a row (tridiagonalize): two where the partial sums' room (subs x n) fits the
/// shared memory, else one. H100, 2026-11-26 (1000 float32 Gram matrices, the reduction
/// alone): 236^2 10.8 ms with one, 8.9 with two,
/// 10.0 with four; 256^2 12.5, 10.3, 11.5; 300^2 19.4, 14.6; 128^2 1.30, 1.73, 3.73 (where one
/// block a matrix leaves room for five on an SM).
struct SplitReduceShape {
    int rows, subs;
    int threads() const { return rows * subs; }
};

/// Shared memory of a reduction block: the packed lower triangle, tau, the partial sums of w
/// (subs x n) and the reduction scratch (T), then d and e (float).
template <class T> __host__ __device__ inline std::size_t split_eig_reduce_smem_bytes(int n, int subs) {
    return (std::size_t(n) * (n + 1) / 2 + (1 + std::size_t(subs)) * n + 2 * (1024 / 32)) * sizeof(T) + 2 * std::size_t(n) * sizeof(float);
}

template <class T> inline SplitReduceShape split_eig_reduce_shape(int n, std::size_t smem_optin) {
    const int rows = n <= 256 ? 256 : kSplitMaxRows;
    return {rows, split_eig_reduce_smem_bytes<T>(n, 2) + 64 <= smem_optin ? 2 : 1};
}

/// The largest order the split eigensolver takes (its reduction's packed triangle in one block's
/// shared memory, one thread a row, at most kSplitMaxRows rows).
template <class T> inline int split_eig_max_order(std::size_t smem_optin) {
    int n = 1;
    while (n < kSplitMaxRows && split_eig_reduce_smem_bytes<T>(n + 1, 1) + 64 <= smem_optin) ++n;
    return n;
}

/// Room for one matrix's QL stream, in entries (a header or a rotation): the sweeps of random
/// matrices take about 0.8 n^2 rotations, n + 1 are kept free for the next sweep.
__host__ __device__ inline std::size_t split_eig_rotation_cap(int n) { return 2 * std::size_t(n) * n + 40 * std::size_t(n) + 64; }

/// Rows of a matrix a ql_vectors_kernel block (one warp) forms.
inline constexpr int kSplitRows = 32;

/// Workspace of one matrix, in bytes, aligned to 16: the reflectors (n x n T), tau (n T), d and
/// e (2n float), the ranks (n int), the stream's cosines and sines (cap float each).
template <class T> __host__ __device__ inline std::size_t split_eig_matrix_bytes(int n) {
    const std::size_t b = (std::size_t(n) * n + n) * sizeof(T) + 3 * std::size_t(n) * 4 + 2 * split_eig_rotation_cap(n) * 4;
    return (b + 15) / 16 * 16;
}

/// One matrix's part of the workspace.
template <class T> struct SplitEigMatrix {
    T* refl;     ///< the vector of reflector k in column k, rows k + 2 .. n - 1 (v[k + 1] = 1)
    T* tau;      ///< n
    float* de;   ///< d (n) then e (n)
    int* rank;   ///< n: the position of eigenvalue i in ascending order
    float* rc;   ///< the stream's cosines (headers: l as int bits)
    float* rs;   ///< the stream's sines (headers: m as int bits)
    __host__ __device__ SplitEigMatrix(unsigned char* ws, int n, index_t b) {
        unsigned char* base = ws + std::size_t(b) * split_eig_matrix_bytes<T>(n);
        refl = reinterpret_cast<T*>(base);
        tau = refl + std::size_t(n) * n;
        de = reinterpret_cast<float*>(tau + n);
        rank = reinterpret_cast<int*>(de + 2 * n);
        rc = reinterpret_cast<float*>(rank + n);
        rs = rc + split_eig_rotation_cap(n);
    }
};

namespace detail {

/// Phase 1 for each matrix (one block of Rows x Subs threads a matrix,
/// split_eig_reduce_smem_bytes): G's lower triangle into shared memory (info = -1 for a
/// non-finite entry, and nothing else written), tridiagonalize, then d, e, tau and the
/// reflectors' vectors to the workspace.
template <class T, int Rows, int Subs>
__global__ void __launch_bounds__(Rows * Subs) tridiagonal_reduce_kernel(const T* G, unsigned char* ws, int* info, int n,
                                                                          index_t batch, long long* stats) {
    constexpr int Threads = Rows * Subs;
    extern __shared__ __align__(16) unsigned char smem_bytes[];
    const PackedLower L{n};
    T* a = reinterpret_cast<T*>(smem_bytes);
    T* tau = a + std::size_t(n) * (n + 1) / 2;
    T* w = tau + n;
    T* red = w + std::size_t(Subs) * n;
    float* d = reinterpret_cast<float*>(red + 2 * (1024 / 32));
    float* e = d + n;
    const index_t nn = index_t(n) * n;
    for (index_t b = blockIdx.x; b < batch; b += gridDim.x) {
        const T* g = G + b * nn;
        const SplitEigMatrix<T> out(ws, n, b);
        bool bad = false;
        for (int at = threadIdx.x; at < n * n; at += Threads) {  // (both triangles checked, the lower one kept)
            const int c = at / n, r = at - c * n;
            const T x = g[at];
            bad |= !core::is_finite(x);
            if (r >= c) a[L.col(c) + r - c] = x;
        }
        const long long t0 = clock64();
        if (__syncthreads_or(bad)) {
            if (threadIdx.x == 0) info[b] = -1;
            continue;
        }
        tridiagonalize<Threads, Subs>(a, L, n, d, e, tau, w, red);
        for (int i = threadIdx.x; i < n; i += Threads) {
            out.de[i] = d[i];
            out.de[n + i] = e[i];
            out.tau[i] = tau[i];
        }
        for (int at = threadIdx.x; at < n * n; at += Threads) {  // (column k's rows k + 2 ..)
            const int k = at / n, i = at - k * n;
            if (i >= k + 2) out.refl[at] = a[L.col(k) + i - k];
        }
        if (threadIdx.x == 0) {
            info[b] = 0;
            if (stats) stats[b * 5] = clock64() - t0;
        }
        __syncthreads();  // (a is the block's next matrix's)
    }
}

/// Warps a ql_rotations_kernel block has (one matrix a warp).
inline constexpr int kSplitQlWarps = 4;

/// Phase 3's recurrence for each matrix (one warp a matrix, d and e in shared memory, 2n floats
/// a warp): where the reduction succeeded (info = 0), ql_scale and ql_next_sweep to the end,
/// each sweep to the stream (a header, then its rotations), a header l = -1 at the end; the
/// eigenvalues ascending into lambda and their ranks; info = i + 1 when eigenvalue i did not
/// converge, n + 1 when the stream's room ran out.
template <class T>
__global__ void __launch_bounds__(32 * kSplitQlWarps) ql_rotations_kernel(unsigned char* ws, float* lambda, int* info,
                                                                           int n, index_t batch, long long* stats) {
    extern __shared__ __align__(16) unsigned char smem_bytes[];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float* d = reinterpret_cast<float*>(smem_bytes) + std::size_t(warp) * 2 * n;
    float* e = d + n;
    const std::size_t cap = split_eig_rotation_cap(n);
    for (index_t b = index_t(blockIdx.x) * kSplitQlWarps + warp; b < batch; b += index_t(gridDim.x) * kSplitQlWarps) {
        if (info[b] != 0) continue;  // (uniform in the warp)
        const SplitEigMatrix<T> mat(ws, n, b);
        const long long t0 = clock64();
        for (int i = lane; i < 2 * n; i += 32) d[i] = mat.de[i];  // (d, then e)
        __syncwarp();
        const int scale_exp = ql_scale(d, e, n);
        QlCursor q;
        std::size_t pos = 0;
        int status = 0, sweeps = 0;
        for (;;) {
            if (pos + std::size_t(n) + 1 > cap) {  // (room for a header and a sweep, and the end's header)
                status = n + 1;
                break;
            }
            const int m = ql_next_sweep(d, e, n, q, mat.rc + pos + 1, mat.rs + pos + 1);
            if (m < 0) {
                if (m == -2) status = q.l + 1;
                break;
            }
            if (lane == 0) {
                mat.rc[pos] = __int_as_float(q.l);
                mat.rs[pos] = __int_as_float(m);
            }
            pos += std::size_t(m - q.l) + 1;
            ++sweeps;
        }
        if (lane == 0) {
            mat.rc[pos] = __int_as_float(-1);
            mat.rs[pos] = __int_as_float(-1);
        }
        if (status == 0) {
            if (scale_exp != 0)
                for (int i = lane; i < n; i += 32) d[i] = ldexpf(d[i], -scale_exp);
            __syncwarp();
            // Ascending order: each eigenvalue's rank (ties by index).
            for (int j = lane; j < n; j += 32) {
                int k = 0;
                for (int i = 0; i < n; ++i) k += d[i] < d[j] || (d[i] == d[j] && i < j);
                mat.rank[j] = k;
                lambda[b * n + k] = d[j];
            }
        }
        if (lane == 0) {
            info[b] = status;
            if (stats) {
                long long* st = stats + b * 5;
                st[2] = clock64() - t0;
                st[3] = sweeps;
                st[4] = (long long)pos - sweeps;
            }
        }
        __syncwarp();  // (d and e are the warp's next matrix's)
    }
}

/// U consecutive T's from p (16-byte aligned) into out, as 16-byte loads.
template <int U, class T> __device__ __forceinline__ void load_aligned(const T* p, T (&out)[U]) {
    const float4* q = reinterpret_cast<const float4*>(p);
    if constexpr (sizeof(T) == 4) {
#pragma unroll
        for (int g = 0; g < U / 4; ++g) {
            const float4 v = q[g];
            out[4 * g] = T(v.x), out[4 * g + 1] = T(v.y), out[4 * g + 2] = T(v.z), out[4 * g + 3] = T(v.w);
        }
    } else {
#pragma unroll
        for (int g = 0; g < U / 2; ++g) {
            const float4 v = q[g];
            out[2 * g] = T(v.x, v.y), out[2 * g + 1] = T(v.z, v.w);
        }
    }
}

/// Phase 2 and the application of phase 3's rotations, for kSplitRows rows of one matrix (one
/// warp a block, blockIdx.x = matrix x row groups + group): where info = 0, the rows of Q = H_0
/// ... H_{n-2} (row r is e_r^T H_0 H_1 ..., each reflector applied from the right: x <- x -
/// tau (x v) v^H), one thread a row, in shared memory (column-major, leading dimension
/// kSplitRows: conflict-free); then the stream's sweeps (ql_apply_sweep), each staged in one of
/// two shared buffers while the previous one is applied; then row r's element j to G's column
/// rank[j]. Shared memory (split_eig_vectors_smem_bytes): kSplitRows n T's, then the buffers (the
/// reflector vectors while Q is formed, then the sweeps' cosines and sines), laid out so that
/// the values every lane reads alike go as 16-byte loads (shared memory's instruction issue
/// bounds this kernel: six to eleven warps an SM, each with four shared-memory instructions an
/// element or a rotation otherwise).
template <class T>
__global__ void __launch_bounds__(32) ql_vectors_kernel(T* G, const unsigned char* ws, const int* info, int n,
                                                        index_t batch, long long* stats) {
    extern __shared__ __align__(16) unsigned char smem_bytes[];
    constexpr int R = kSplitRows;
    constexpr int kMaxChunks = (kSplitMaxRows + 1 + 31) / 32;  // (a sweep and its header, at most n + 1 entries)
    T* x = reinterpret_cast<T*>(smem_bytes);
    float* buf = reinterpret_cast<float*>(x + std::size_t(R) * n);  // (16-byte aligned: R n T's before it)
    const int n4 = (n + 3) / 4 * 4;
    const int half = n4 + 4;  // a sweep's cosines or sines: entry e (0 the header) at [3 + e]
    const int lane = threadIdx.x;
    const int groups = (n + R - 1) / R;
    const std::size_t cap = split_eig_rotation_cap(n);
    for (index_t blk = blockIdx.x; blk < batch * groups; blk += gridDim.x) {
        const index_t b = blk / groups;
        const int r0 = int(blk % groups) * R, r = r0 + lane;
        if (info[b] != 0) continue;
        const SplitEigMatrix<T> mat(const_cast<unsigned char*>(ws), n, b);
        T* row = x + lane;  // element j at row[j R]
        const long long t0 = clock64();
        for (int j = 0; j < n; ++j) row[j * R] = T(r == j ? 1.0f : 0.0f);
        // Q's rows: H_k for k = 0 .. n-2 (x <- x - tau_k (x v_k) v_k^H), one pass over the row a
        // reflector: pass k applies H_k with x v_k from pass k - 1 and forms x v_{k+1} from
        // the updated elements as it goes. v_k (v_k[k + 1] = 1, zero above; zero for k >= n - 1)
        // is staged in buffer k & 1 of buf, and v_{k+2} is loaded into registers during pass k.
        constexpr int VW = 16 / int(sizeof(T));  // T's a 16-byte load takes
        const int vstride = (n + VW - 1) / VW * VW;
        T* vbuf = reinterpret_cast<T*>(buf);  // (2 vstride T's fit in buf's 4 half floats)
        T vr[kMaxChunks];
        T tr(0.0f);
        const auto fetch = [&](int k) {
#pragma unroll
            for (int q = 0; q < kMaxChunks; ++q) {
                const int i = lane + 32 * q;
                const bool in = k + 1 < n && i < n;
                vr[q] = in && i > k + 1 ? mat.refl[i + index_t(k) * n] : T(in && i == k + 1 ? 1.0f : 0.0f);
            }
            tr = k < n ? mat.tau[k] : T(0.0f);
        };
        const auto put = [&](int k) {
            T* v = vbuf + (k & 1) * vstride;
#pragma unroll
            for (int q = 0; q < kMaxChunks; ++q)
                if (lane + 32 * q < n) v[lane + 32 * q] = vr[q];
        };
        fetch(0);
        put(0);
        T t_k = tr;
        fetch(1);
        put(1);
        T t_k1 = tr;
        __syncwarp();
        fetch(2);
        T xv = r < n ? vbuf[r] : T(0.0f);  // x v_k (x = e_r: x v_0)
        for (int k = 0; k + 1 < n; ++k) {
            const T f = core::scale(mul(t_k, xv), -1.0f);
            const T* va = vbuf + (k & 1) * vstride;
            const T* vb = vbuf + ((k + 1) & 1) * vstride;
            constexpr int U = 8;
            T s0(0.0f), s1(0.0f);
            // Groups from k + 1 rounded down to a multiple of 4 (v_k and v_{k+1} are zero there,
            // so those elements stay), their vector elements as 16-byte loads.
            int i = (k + 1) & ~3;
            for (; i + U - 1 < n; i += U) {  // (a group's loads before its stores)
                T x[U], ca[U], cb[U];
#pragma unroll
                for (int u = 0; u < U; ++u) x[u] = row[(i + u) * R];
                load_aligned<U>(va + i, ca);
                load_aligned<U>(vb + i, cb);
#pragma unroll
                for (int u = 0; u < U; ++u) {
                    x[u] = core::axpy(f, core::conj_of(ca[u]), x[u]);
                    row[(i + u) * R] = x[u];
                    if (u % 2 == 0) s0 = core::axpy(x[u], cb[u], s0);
                    else s1 = core::axpy(x[u], cb[u], s1);
                }
            }
            for (; i < n; ++i) {
                const T x = core::axpy(f, core::conj_of(va[i]), row[i * R]);
                row[i * R] = x;
                s0 = core::axpy(x, vb[i], s0);
            }
            xv = add(s0, s1);
            __syncwarp();  // (buffer k & 1 read by every lane)
            put(k + 2);
            t_k = t_k1;
            t_k1 = tr;
            __syncwarp();
            fetch(k + 3);
        }
        __syncwarp();
        if (stats && r0 == 0 && lane == 0) stats[b * 5 + 1] = clock64() - t0;
        // The sweeps: the window at pos (a header (l, m), then the sweep's m - l rotations) in
        // buffer p; the next window's loads issued before this sweep is applied.
        const auto stage = [&](std::size_t pos, float (&c)[kMaxChunks], float (&s)[kMaxChunks]) {
#pragma unroll
            for (int q = 0; q < kMaxChunks; ++q) {
                const std::size_t at = pos + std::size_t(lane + 32 * q);
                const bool ok = lane + 32 * q <= n && at < cap;
                c[q] = ok ? mat.rc[at] : 0.0f;
                s[q] = ok ? mat.rs[at] : 0.0f;
            }
        };
        const auto store = [&](int p, const float (&c)[kMaxChunks], const float (&s)[kMaxChunks]) {
            float* cb = buf + std::size_t(p) * 2 * half;
#pragma unroll
            for (int q = 0; q < kMaxChunks; ++q)
                if (lane + 32 * q <= n) {
                    cb[3 + lane + 32 * q] = c[q];
                    cb[half + 3 + lane + 32 * q] = s[q];
                }
        };
        float c[kMaxChunks], s[kMaxChunks];
        std::size_t pos = 0;
        stage(pos, c, s);
        store(0, c, s);
        __syncwarp();
        for (int p = 0;; p ^= 1) {
            const float* cb = buf + std::size_t(p) * 2 * half;
            const int l = __float_as_int(cb[3]), m = __float_as_int(cb[half + 3]);
            if (l < 0) break;
            pos += std::size_t(m - l) + 1;
            stage(pos, c, s);
            if (r < n) ql_apply_sweep<8, true>(row, R, l, m, cb + 4, cb + half + 4);
            store(p ^ 1, c, s);
            __syncwarp();
        }
        // Row r of the eigenvectors, its element j to column rank[j].
        if (r < n)
            for (int j = 0; j < n; ++j) G[b * index_t(n) * n + r + index_t(mat.rank[j]) * n] = row[j * R];
        __syncwarp();  // (x and buf are the block's next rows')
    }
}

/// The reduction kernel for a shape that split_eig_reduce_shape gives.
template <class T> auto split_reduce_kernel(const SplitReduceShape& shape) {
    if (shape.rows == 256) return shape.subs == 2 ? tridiagonal_reduce_kernel<T, 256, 2> : tridiagonal_reduce_kernel<T, 256, 1>;
    return shape.subs == 2 ? tridiagonal_reduce_kernel<T, kSplitMaxRows, 2> : tridiagonal_reduce_kernel<T, kSplitMaxRows, 1>;
}

}  // namespace detail

/// Shared memory of a ql_vectors_kernel block: its rows, then two buffers of cosines and sines,
/// each entry e (0 the header) of a sweep at [3 + e] of a half of n rounded up to 4, plus 4.
template <class T> inline std::size_t split_eig_vectors_smem_bytes(int n) {
    return std::size_t(kSplitRows) * n * sizeof(T) + 4 * (std::size_t(n + 3) / 4 * 4 + 4) * sizeof(float);
}

/// The split eigensolver (see the top of the file) on `batch` matrices of order n <=
/// split_eig_max_order<T>, in chunks of `chunk` matrices whose workspace (chunk x
/// split_eig_matrix_bytes<T>(n) bytes at ws) is reused; the same outputs as
/// launch_symmetric_eig. stats, when given, gets 5 numbers a matrix: the reduction's cycles, the
/// cycles forming Q's first 32 rows took, the QL recurrence's cycles, its sweeps and its
/// rotations.
template <class T>
cudaError_t launch_symmetric_eig_split(T* G, float* lambda, int* info, int n, index_t batch, unsigned char* ws,
                                       index_t chunk, cudaStream_t stream, long long* stats = nullptr) {
    int dev = 0, optin = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    if (err != cudaSuccess) return err;
    if (n < 1 || n > split_eig_max_order<T>(std::size_t(optin))) return cudaErrorInvalidValue;
    const SplitReduceShape shape = split_eig_reduce_shape<T>(n, std::size_t(optin));
    const std::size_t reduce_bytes = split_eig_reduce_smem_bytes<T>(n, shape.subs), vec_bytes = split_eig_vectors_smem_bytes<T>(n);
    const std::size_t ql_bytes = std::size_t(detail::kSplitQlWarps) * 2 * n * sizeof(float);
    const auto reduce = detail::split_reduce_kernel<T>(shape);
    err = allow_dynamic_smem(reduce, reduce_bytes);
    if (err == cudaSuccess) err = allow_dynamic_smem(detail::ql_vectors_kernel<T>, vec_bytes);
    if (err != cudaSuccess) return err;
    const int groups = (n + kSplitRows - 1) / kSplitRows;
    for (index_t first = 0; first < batch; first += chunk) {
        const index_t count = std::min(chunk, batch - first);
        T* g = G + first * index_t(n) * n;
        float* lam = lambda + first * n;
        int* inf = info + first;
        long long* st = stats ? stats + first * 5 : nullptr;
        reduce<<<unsigned(std::min<index_t>(count, 1 << 20)), shape.threads(), reduce_bytes, stream>>>(
            g, ws, inf, n, count, st);
        if ((err = cudaGetLastError()) != cudaSuccess) return err;
        detail::ql_rotations_kernel<T><<<unsigned(std::min<index_t>((count + detail::kSplitQlWarps - 1) / detail::kSplitQlWarps, 1 << 20)),
                                         32 * detail::kSplitQlWarps, ql_bytes, stream>>>(ws, lam, inf, n, count, st);
        if ((err = cudaGetLastError()) != cudaSuccess) return err;
        detail::ql_vectors_kernel<T><<<unsigned(std::min<index_t>(count * groups, 1 << 24)), 32, vec_bytes, stream>>>(
            g, ws, inf, n, count, st);
        if ((err = cudaGetLastError()) != cudaSuccess) return err;
    }
    return cudaSuccess;
}

}  // namespace batchsvd::cuda
