// SPDX-License-Identifier: BSD-3-Clause
// A batched symmetric (real) or Hermitian (complex) eigensolver in single precision, one thread
// block a matrix, the matrix held in shared memory (orders up to about 236 real, 166 complex
// on an H100): the preconditioner's eigensolve (precondition.cu), in place of cuSOLVER's
// syevBatched / heevBatched, which take 7.4 ms for 1000 real matrices of order 128 and 35 ms
// at 256 on an H100 (2026-11-26; docs/paths/precondition.md).
//
// The classical three phases, each following its textbook form:
//  1. Householder reduction to tridiagonal form, lower triangle (LAPACK ssytd2 / chetd2, UPLO =
//     'L'): step k annihilates column k below the subdiagonal with H_k = I - tau v v^H (slarfg /
//     clarfg: a real subdiagonal beta, so that complex matrices get a real tridiagonal; their
//     last step is a phase alone), p = tau A22 v, w = p - (tau / 2)(p^H v) v, A22 <- A22 -
//     v w^H - w v^H (tridiagonalize.cuh, which the other forms share). The full trailing block
//     is kept (both triangles, FullSymmetric), so that A22 v is one pass over rows, one thread
//     a row.
//  2. Q = H_0 H_1 ... H_{n-2} formed in place, backwards (LAPACK sorg2r's order), one thread a
//     column; each reflector's vector stays in the column left of the block it acts on.
//  3. The implicit QL iteration with Wilkinson's shift on the tridiagonal matrix, accumulating
//     its rotations into Q (EISPACK tql2; Bowdler, Martin, Reinsch and Wilkinson, Numer. Math.
//     11, 1968). Differs: lane 0 of warp 0 runs each QL sweep's scalar recurrence, without a
//     branch (rsqrt and a Newton step for the rotation; T scaled to norm 1 beforehand, so no
//     range checks, and tested against eps times that norm), into one of two buffers of
//     rotations, while the other warps apply the previous sweep to their rows of Q: one
//     barrier a sweep; the shift of the diagonal is applied by warp 0's lanes; LAPACK's
//     ssteqr-like search for a negligible subdiagonal at every sweep, by ballot.
// The result is what cuSOLVER's syevBatched returns: eigenvalues ascending, the eigenvectors in
// the columns of the input matrix in the same order, info = 0, or info = i > 0 when the QL
// iteration for eigenvalue i did not converge in kQlMaxIterations, info = -1 for a non-finite
// input (the vectors are then not written).
#pragma once

#include <cuda_runtime.h>

#include <cfloat>
#include <cstddef>

#include "cuda/common/kernel_common.cuh"
#include "cuda/precondition/tridiagonalize.cuh"
#include "cuda/common/smem_limit.hpp"

namespace batchsvd::cuda {

/// Threads of the eigensolver's blocks for order n: warp 0, which makes the QL sweeps, and one
/// thread a row of the matrix beside it (up to 256 rows).
__host__ __device__ inline int symmetric_eig_threads(int n) { return n <= 128 ? 160 : 288; }

/// QL iterations allowed for one eigenvalue (EISPACK's tql2 allows 30).
inline constexpr int kQlMaxIterations = 30;

/// Leading dimension of the matrix in shared memory: odd, so that the threads of a warp reading
/// one row each, or one column each, hit 32 different banks.
__host__ __device__ inline int symmetric_eig_ld(int n) { return n | 1; }

/// Shared memory of one block for order n and element type T (float or dev_complex<float>):
/// the matrix, tau and the reduction scratch (T), then d, e, two sweeps' cosines and sines
/// (float), and the ranks of the eigenvalues.
template <class T> __host__ __device__ inline std::size_t symmetric_eig_smem_bytes(int n) {
    return (std::size_t(symmetric_eig_ld(n)) * n + n + 2 * (1024 / 32)) * sizeof(T) + 7 * std::size_t(n) * sizeof(float);
}

/// The largest order whose matrix fits a block that may have smem_optin bytes of shared memory
/// (cudaDevAttrMaxSharedMemoryPerBlockOptin; 64 bytes kept for the static shared memory).
template <class T> inline int symmetric_eig_max_order(std::size_t smem_optin) {
    int n = 1;
    while (symmetric_eig_smem_bytes<T>(n + 1) + 64 <= smem_optin) ++n;
    return n;
}

namespace detail {

/// Phase 2: Q = H_0 ... H_{n-2} in place of a, from the reflectors tridiagonalize left.
/// Before step k, rows and columns k+2..n-1 hold H_{k+1} ... H_{n-2}; step k sets row and
/// column k+1 to the unit vector (column k+1 held v_{k+1}, used in step k + 1) and applies H_k
/// from the left to columns k+1..n-1, one thread a column; step -1 sets row and column 0.
/// (Setting the unit vectors by their columns' threads, to save the first barrier, measured
/// slower: the thread of column k + 1 then writes n - k entries alone.)
template <int Threads, class T> __device__ void form_q(T* a, int n, int ld, const T* tau) {
    if (threadIdx.x == 0) a[(n - 1) + (n - 1) * ld] = T(1.0f);
    for (int k = n - 2; k >= -1; --k) {
        for (int i = k + 1 + threadIdx.x; i < n; i += Threads) {
            const T unit(i == k + 1 ? 1.0f : 0.0f);
            a[i + (k + 1) * ld] = unit;
            a[(k + 1) + i * ld] = unit;
        }
        __syncthreads();
        if (k < 0 || core::abs2(tau[k]) == 0) continue;
        const T t = tau[k];
        const T* v = a + k * ld;  // v[k + 1] = 1 implied
        for (int j = k + 1 + threadIdx.x; j < n; j += Threads) {
            T* q = a + j * ld;
            T s0 = q[k + 1], s1(0.0f), s2(0.0f), s3(0.0f);
            int i = k + 2;
            for (; i + 3 < n; i += 4) {
                s0 = core::fma_conj(v[i], q[i], s0);
                s1 = core::fma_conj(v[i + 1], q[i + 1], s1);
                s2 = core::fma_conj(v[i + 2], q[i + 2], s2);
                s3 = core::fma_conj(v[i + 3], q[i + 3], s3);
            }
            for (; i < n; ++i) s0 = core::fma_conj(v[i], q[i], s0);
            const T s = core::scale(mul(t, add(add(s0, s1), add(s2, s3))), -1.0f);  // -tau v^H q
            q[k + 1] = add(q[k + 1], s);
            for (i = k + 2; i + 3 < n; i += 4) {  // (loads before stores: the compiler cannot tell that they miss v)
                const T q0 = q[i], q1 = q[i + 1], q2 = q[i + 2], q3 = q[i + 3];
                const T v0 = v[i], v1 = v[i + 1], v2 = v[i + 2], v3 = v[i + 3];
                q[i] = core::axpy(s, v0, q0);
                q[i + 1] = core::axpy(s, v1, q1);
                q[i + 2] = core::axpy(s, v2, q2);
                q[i + 3] = core::axpy(s, v3, q3);
            }
            for (; i < n; ++i) q[i] = core::axpy(s, v[i], q[i]);
        }
        __syncthreads();
    }
}

/// Warp 0's scaling of the tridiagonal (d, e) by a power of two to a norm (max |d_i| + |e_i|)
/// in [0.5, 1), after which e_i is tested against eps times that norm (tql2 tests against the
/// largest |d_i| + |e_i| of the eigenvalues so far: the same here but for graded matrices'
/// smallest eigenvalues, which a preconditioner does not need). Then every e_i of a sweep is
/// above 2^-25, p^2 + e_i^2 is in [2^-50, 16], and the sweep's rotations need no range checks.
/// Called by the 32 lanes of one warp; returns the exponent applied (0: none).
__device__ __forceinline__ int ql_scale(float* d, float* e, int n) {
    const int lane = threadIdx.x % 32;
    float tnorm = 0;
    for (int i = lane; i < n; i += 32) tnorm = fmaxf(tnorm, fabsf(d[i]) + fabsf(e[i]));
    tnorm = warp_max(tnorm);
    int scale_exp = 0;
    if (tnorm > 0 && isfinite(tnorm)) {
        scale_exp = -(ilogbf(tnorm) + 1);
        for (int i = lane; i < n; i += 32) {
            d[i] = ldexpf(d[i], scale_exp);
            e[i] = ldexpf(e[i], scale_exp);
        }
    }
    __syncwarp();
    return scale_exp;
}

/// Where one warp's QL iteration stands: eigenvalue l is next, after `iterations` sweeps on it;
/// f is tql2's accumulated shift (lane 0's).
struct QlCursor {
    int l = 0, iterations = 0;
    float f = 0;
};

/// The next sweep of the implicit QL iteration with Wilkinson's shift (EISPACK tql2) on the
/// scaled tridiagonal (d, e) (ql_scale), by the 32 lanes of one warp: eigenvalues that have
/// converged are passed over (d[l] += f), then, for the next l, the sweep from m (the first
/// negligible e at or after l; found anew every sweep, as LAPACK's ssteqr does, by a ballot over
/// 32 at a time) up to l, whose rotation i (l <= i < m) lane 0 writes to c_out[i - l] and
/// s_out[i - l]. Returns m, with the sweep's l in q.l; or -1 when every eigenvalue has
/// converged; or -2 when eigenvalue q.l took more than kQlMaxIterations sweeps.
__device__ __forceinline__ int ql_next_sweep(float* d, float* e, int n, QlCursor& q, float* c_out, float* s_out) {
    const float eps = FLT_EPSILON;
    const float tst1 = 1.0f;  // (the norm's bound after ql_scale)
    const int lane = threadIdx.x % 32;
    int m = -1;
    while (q.l < n) {
        const int l = q.l;
        m = n - 1;
        for (int base = l; base < n - 1; base += 32) {
            const int i = base + lane;
            const unsigned small = __ballot_sync(0xffffffffu, i >= n - 1 || fabsf(e[i]) <= eps * tst1);
            if (small) {
                m = base + __ffs(int(small)) - 1;
                break;
            }
        }
        if (m > l) break;
        if (lane == 0) {
            d[l] += q.f;
            e[l] = 0;
        }
        __syncwarp();
        ++q.l;
        q.iterations = 0;
    }
    if (q.l >= n) return -1;
    if (++q.iterations > kQlMaxIterations) return -2;
    const int l = q.l;
    // Wilkinson's shift (tql2's form) by lane 0; the lanes shift d below l + 1.
    float h = 0, dl1 = 0;
    if (lane == 0) {
        // (Correctly rounded: d[l + 1] = e (p + r) stands for d[l + 1] - h, which holds to
        // rounding only for p and r so computed; the scaling keeps |p| below 2^25 and p^2 + 1
        // finite.)
        const float g = d[l];
        const float p = (d[l + 1] - g) / (2.0f * e[l]);
        const float r = copysignf(sqrtf(fmaf(p, p, 1.0f)), p);
        d[l] = e[l] / (p + r);
        d[l + 1] = e[l] * (p + r);
        dl1 = d[l + 1];
        h = g - d[l];
        q.f += h;
    }
    h = __shfl_sync(0xffffffffu, h, 0);
    for (int i = l + 2 + lane; i < n; i += 32) d[i] -= h;
    __syncwarp();
    if (lane == 0) {
        // The QL sweep from m up to l, by lane 0 alone, without a branch in its body (each
        // would cost a reconvergence in this one-lane code): the rotation from rsqrt and a
        // Newton step, the next d and e loaded a step ahead (from a valid index when there is
        // none).
        float p = d[m], c = 1, c2 = 1, c3 = 1, s = 0, s2 = 0;
        const float el1 = e[l + 1];
        float ei = e[m - 1], di = d[m - 1];
        for (int i = m - 1; i >= l; --i) {
            const int next = max(i - 1, 0);
            const float ei_next = e[next], di_next = d[next];
            c3 = c2;
            c2 = c;
            s2 = s;
            const float g = c * ei, hc = c * p;
            const float qq = fmaf(p, p, ei * ei);
            float rinv;
            asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(rinv) : "f"(qq));
            rinv = fmaf(0.5f * rinv, fmaf(-qq * rinv, rinv, 1.0f), rinv);  // (a Newton step)
            e[i + 1] = s * (qq * rinv);
            s = ei * rinv;
            c = p * rinv;
            p = fmaf(c, di, -s * g);
            d[i + 1] = fmaf(s, fmaf(c, g, s * di), hc);
            c_out[i - l] = c;
            s_out[i - l] = s;
            ei = ei_next;
            di = di_next;
        }
        p = -s * s2 * c3 * el1 * e[l] / dl1;
        e[l] = s * p;
        d[l] = c * p;
    }
    __syncwarp();
    return m;
}

/// One QL sweep (rotations i = m-1 down to l, cosine c_in[i - l], sine s_in[i - l]) applied to
/// columns l..m of one row of z (element j at row[j * ld]), by the thread that owns the row.
/// Group = 1 (the fused kernel, whose sweeps hide behind the next sweep's recurrence): z, c and
/// s loaded a step ahead, before the store that the compiler cannot separate from them. Group =
/// 8 (the split form's vectors kernel, where many warps apply sweeps at once and nothing hides
/// them): the group's elements of z and its cosines and sines loaded first, then rotated, then
/// stored (z's loads of a group do not meet the sweep's earlier stores, but the compiler cannot
/// see that through one base pointer): one load latency a group instead of one a rotation. With
/// AlignedCs (c_in and s_in 16-byte aligned), the first (m - l) % 4 rotations go singly so that
/// each group's cosines and sines are two 16-byte loads each: there shared memory's instruction
/// issue bounds the kernel, and the cosines' and sines' loads are the same for every lane.
/// H100, 2026-11-26 (three rounds): the grouped form in the fused kernel cost 2-4%
/// (float64 1000 x 96^2 7.11-7.25 ms against 6.89-7.01).
template <int Group = 1, bool AlignedCs = false, class T>
__device__ __forceinline__ void ql_apply_sweep(T* row, int ld, int l, int m, const float* c_in, const float* s_in) {
    static_assert(Group == 1 || Group == 8, "a step ahead, or groups of two float4's");
    static_assert(Group == 8 || !AlignedCs, "aligned loads take whole groups");
    T next = row[m * ld];
    if constexpr (Group == 1) {
        T zi = row[(m - 1) * ld];
        float c = c_in[m - 1 - l], s = s_in[m - 1 - l];
        for (int i = m - 1; i >= l; --i) {
            const int k = max(i - 1, l);
            const T zi_next = row[k * ld];
            const float c_next = c_in[k - l], s_next = s_in[k - l];
            row[(i + 1) * ld] = add(core::scale(zi, s), core::scale(next, c));
            next = sub(core::scale(zi, c), core::scale(next, s));
            zi = zi_next;
            c = c_next;
            s = s_next;
        }
    } else {
        constexpr int U = Group;
        const auto single = [&](int i) {
            const T zi = row[i * ld];
            const float c = c_in[i - l], s = s_in[i - l];
            row[(i + 1) * ld] = add(core::scale(zi, s), core::scale(next, c));
            next = sub(core::scale(zi, c), core::scale(next, s));
        };
        int i = m - 1;
        if constexpr (AlignedCs)
            for (int h = (m - l) % 4; h > 0; --h, --i) single(i);  // (then (i - l + 1) % 4 == 0)
        for (; i - (U - 1) >= l; i -= U) {
            T z[U];
            float c[U], s[U];
#pragma unroll
            for (int u = 0; u < U; ++u) z[u] = row[(i - u) * ld];
            if constexpr (AlignedCs) {
                const float4* c4 = reinterpret_cast<const float4*>(c_in + (i - l - 7));
                const float4* s4 = reinterpret_cast<const float4*>(s_in + (i - l - 7));
                const float4 c_lo = c4[0], c_hi = c4[1], s_lo = s4[0], s_hi = s4[1];
                // (rotation i - u at c_in[i - l - u]: u = 0 is c_hi.w, u = 7 is c_lo.x)
                c[0] = c_hi.w, c[1] = c_hi.z, c[2] = c_hi.y, c[3] = c_hi.x;
                c[4] = c_lo.w, c[5] = c_lo.z, c[6] = c_lo.y, c[7] = c_lo.x;
                s[0] = s_hi.w, s[1] = s_hi.z, s[2] = s_hi.y, s[3] = s_hi.x;
                s[4] = s_lo.w, s[5] = s_lo.z, s[6] = s_lo.y, s[7] = s_lo.x;
            } else {
#pragma unroll
                for (int u = 0; u < U; ++u) {
                    c[u] = c_in[i - u - l];
                    s[u] = s_in[i - u - l];
                }
            }
#pragma unroll
            for (int u = 0; u < U; ++u) {
                row[(i - u + 1) * ld] = add(core::scale(z[u], s[u]), core::scale(next, c[u]));
                next = sub(core::scale(z[u], c[u]), core::scale(next, s[u]));
            }
        }
        for (; i >= l; --i) single(i);
    }
    row[l * ld] = next;
}

/// Phase 3: the eigenvalues of the tridiagonal (d, e) into d, its rotations applied to the
/// columns of z (n x n, leading dimension ld). Warp 0 produces the QL sweeps (ql_next_sweep;
/// their cosines and sines into cs and sn, n each, double-buffered: 2n), the other warps apply
/// each sweep to their rows of z while warp 0 computes the next one; one barrier a sweep. sh
/// holds 8 ints: the (l, m) of each buffer (l = -1: no sweep, the end), the failure, and the
/// counts of sweeps and rotations (symmetric_eig_kernel's stats). Returns 0, or i + 1 when
/// eigenvalue i did not converge in kQlMaxIterations (every thread gets it).
template <int Threads, class T>
__device__ int tridiagonal_ql(T* z, int n, int ld, float* d, float* e, float* cs, float* sn, int* sh) {
    const int lane = threadIdx.x % 32;
    const int scale_exp = threadIdx.x < 32 ? ql_scale(d, e, n) : 0;
    QlCursor q;  // (warp 0's)
    for (int step = 0;; ++step) {
        const int buf = step & 1;
        if (threadIdx.x < 32) {
            const int m = ql_next_sweep(d, e, n, q, cs + buf * n, sn + buf * n);
            if (lane == 0) {
                if (m == -2) sh[4] = q.l + 1;
                sh[2 * buf] = m >= 0 ? q.l : -1;
                sh[2 * buf + 1] = m;
                if (m >= 0) {
                    ++sh[5];
                    sh[6] += m - q.l;
                }
            }
        } else if (step > 0) {
            // The other warps: the previous sweep, on their rows of z.
            const int pb = buf ^ 1, pl = sh[2 * pb], pm = sh[2 * pb + 1];
            if (pl >= 0)
                for (int r = threadIdx.x - 32; r < n; r += Threads - 32)
                    ql_apply_sweep(z + r, ld, pl, pm, cs + pb * n, sn + pb * n);
        }
        __syncthreads();
        if (sh[2 * buf] < 0) break;  // (no sweep made this step; the last one was applied in it)
    }
    if (scale_exp != 0 && threadIdx.x < 32)
        for (int i = lane; i < n; i += 32) d[i] = ldexpf(d[i], -scale_exp);
    __syncthreads();
    return sh[4];
}

}  // namespace detail

/// The eigendecomposition of each of `batch` symmetric (T = float) or Hermitian (T =
/// dev_complex<float>) n x n matrices G (column-major, consecutive, both triangles read), one
/// block of Threads threads a matrix, symmetric_eig_smem_bytes<T>(n) of dynamic shared memory:
/// the eigenvalues ascending into lambda (n a matrix), the eigenvectors over G in that order,
/// and info (see the top of the file).
template <class T, int Threads>
__global__ void __launch_bounds__(Threads) symmetric_eig_kernel(T* G, float* lambda, int* info, int n, index_t batch,
                                                                long long* stats) {
    extern __shared__ __align__(16) unsigned char smem_bytes[];
    const int ld = symmetric_eig_ld(n);
    T* a = reinterpret_cast<T*>(smem_bytes);
    T* tau = a + std::size_t(ld) * n;
    T* red = tau + n;
    float* d = reinterpret_cast<float*>(red + 2 * (1024 / 32));
    float* e = d + n;
    float* cs = e + n;
    float* sn = cs + 2 * n;
    int* rank = reinterpret_cast<int*>(sn + 2 * n);
    T* w = reinterpret_cast<T*>(cs);  // (phase 1's scratch, n T's in cs and sn)
    __shared__ int sh[8];
    const index_t nn = index_t(n) * n;
    for (index_t b = blockIdx.x; b < batch; b += gridDim.x) {
        T* g = G + b * nn;
        bool bad = false;
        for (int c = 0; c < n; ++c)
            for (int r = threadIdx.x; r < n; r += Threads) {
                const T x = g[r + index_t(c) * n];
                bad |= !core::is_finite(x);
                a[r + c * ld] = x;
            }
        if (threadIdx.x < 8) sh[threadIdx.x] = 0;
        long long t0 = clock64(), t1 = 0, t2 = 0;
        if (__syncthreads_or(bad)) {
            if (threadIdx.x == 0) info[b] = -1;
            continue;
        }
        detail::tridiagonalize<Threads, 1>(a, detail::FullSymmetric{ld}, n, d, e, tau, w, red);
        t1 = clock64();
        detail::form_q<Threads>(a, n, ld, tau);
        t2 = clock64();
        const int failed = detail::tridiagonal_ql<Threads>(a, n, ld, d, e, cs, sn, sh);
        if (stats && threadIdx.x == 0) {  // (measurements: cycles of each phase, sweeps, rotations)
            long long* st = stats + b * 5;
            st[0] = t1 - t0;
            st[1] = t2 - t1;
            st[2] = clock64() - t2;
            st[3] = sh[5];
            st[4] = sh[6];
        }
        if (failed != 0) {
            if (threadIdx.x == 0) info[b] = failed;
            __syncthreads();
            continue;
        }
        // Ascending order: each eigenvalue's rank (ties by index), then the columns by rank.
        for (int j = threadIdx.x; j < n; j += Threads) {
            int k = 0;
            for (int i = 0; i < n; ++i) k += d[i] < d[j] || (d[i] == d[j] && i < j);
            rank[j] = k;
            lambda[b * n + k] = d[j];
        }
        __syncthreads();
        for (int c = 0; c < n; ++c) {
            const index_t to = index_t(rank[c]) * n;
            for (int r = threadIdx.x; r < n; r += Threads) g[r + to] = a[r + c * ld];
        }
        if (threadIdx.x == 0) info[b] = 0;
        __syncthreads();  // (a, d and rank are reused by the block's next matrix)
    }
}

/// symmetric_eig_kernel on `batch` matrices of order n (n <= the largest order whose
/// symmetric_eig_smem_bytes the device's blocks can have), grid blocks, on `stream`; returns
/// the launch's error; stats, when given, gets 5 numbers a matrix: the cycles of the three
/// phases, the QL sweeps and their rotations. (A template, so that a test can launch it beside
/// the library.)
template <class T>
cudaError_t launch_symmetric_eig(T* G, float* lambda, int* info, int n, index_t batch, unsigned grid,
                                 cudaStream_t stream, long long* stats = nullptr) {
    const std::size_t bytes = symmetric_eig_smem_bytes<T>(n);
    const auto launch = [&](auto kernel, int threads) {
        const cudaError_t e = allow_dynamic_smem(kernel, bytes);
        if (e != cudaSuccess) return e;
        kernel<<<grid, threads, bytes, stream>>>(G, lambda, info, n, batch, stats);
        return cudaGetLastError();
    };
    return symmetric_eig_threads(n) == 160 ? launch(symmetric_eig_kernel<T, 160>, 160)
                                           : launch(symmetric_eig_kernel<T, 288>, 288);
}

}  // namespace batchsvd::cuda
