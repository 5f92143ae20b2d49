// SPDX-License-Identifier: BSD-3-Clause
// Blocked one-sided Jacobi (abfasi sections 5-7, Design-2 and Design-4 on one matrix):
// the columns are split into blocks of width nb (the last one ragged); the round-robin
// ordering runs over the blocks; for each block pair the Gram matrix G = [Xi Xj]^H [Xi Xj]
// is formed, a two-sided Jacobi eigensolver runs ONE sweep on it (round-robin inside,
// accumulating its rotations into Q), and [Xi Xj] and [Vi Vj] are multiplied by Q. A pair
// whose Gram matrix needed no rotation is already orthogonal and costs no update (the
// masking of Design-4); a sweep in which no pair needed one ends the iteration.
#pragma once

#include <algorithm>
#include <vector>

#include "cpu/isa.hpp"
#include "core/ordering.hpp"
#include "core/rotation.hpp"
#include "core/scalar.hpp"
#include "cpu/column_ops.hpp"
#include "cpu/jacobi_unblocked.hpp"

BATCHSVD_CPU_BEGIN

template <class T> struct BlockedWorkspace {
    std::vector<T> gram;    ///< w x w, w <= 2 nb
    std::vector<T> q;       ///< w x w accumulated rotations
    std::vector<T> update;  ///< max(rows, vrows) x w product buffer
};

/// One sweep of the two-sided Jacobi eigensolver on the Hermitian w x w matrix G (ld w),
/// accumulating the rotations into Q (w x w, identity on entry). Returns whether any
/// off-diagonal entry was above tol relative to its diagonal (then a rotation was applied).
template <class T>
bool hermitian_jacobi_one_sweep(int w, T* G, T* Q, const core::Tolerance<real_t<T>>& tol) {
    using R = real_t<T>;
    bool rotated = false;
    for (int step = 0; step < core::round_robin_steps(w); ++step) {
        for (int pr = 0; pr < core::round_robin_pairs(w); ++pr) {
            const core::IndexPair pq = core::round_robin_pair(w, step, pr);
            if (pq.j >= w) continue;
            const int p = pq.i, q = pq.j;
            const R a = std::real(G[p + p * w]), b = std::real(G[q + q * w]);
            const T c = G[p + q * w];  // x_p^H x_q
            const R abs_c = std::abs(c);
            if (!core::needs_rotation(abs_c, a, b, tol)) continue;
            rotated = true;
            const core::Rotation<R> rot = core::jacobi_rotation(a, b, abs_c);
            const T tw = c * (rot.t / abs_c);
            // G <- J^H G J: columns p, q as the pair update, then rows p, q conjugated.
            rotate_pair(w, G + p * w, G + q * w, rot.cs, tw);
            for (int k = 0; k < w; ++k) {
                const T gp = G[p + k * w], gq = G[q + k * w];
                G[p + k * w] = rot.cs * (gp - tw * gq);
                G[q + k * w] = rot.cs * (gq + core::conj_of(tw) * gp);
            }
            // The 2x2 block is diagonal by construction; store it exactly.
            const core::TrackedNorms<R> nn = core::rotate_norms(a, b, abs_c, rot.t);
            G[p + p * w] = nn.a;
            G[q + q * w] = nn.b;
            G[p + q * w] = T(0);
            G[q + p * w] = T(0);
            rotate_pair(w, Q + p * w, Q + q * w, rot.cs, tw);
        }
    }
    return rotated;
}

/// [cols of Y] <- [cols of Y] * Q for the w columns listed in col[], Y with `rows` rows.
template <class T>
void multiply_columns(index_t rows, T* Y, index_t ldy, const index_t* col, int w, const T* Q,
                      std::vector<T>& buf) {
    buf.assign(static_cast<size_t>(rows) * w, T(0));
    for (int k = 0; k < w; ++k) {
        T* out = buf.data() + static_cast<size_t>(k) * rows;
        for (int l = 0; l < w; ++l) {
            const T qlk = Q[l + k * w];
            if (qlk == T(0)) continue;
            const T* in = Y + col[l] * ldy;
            for (index_t r = 0; r < rows; ++r) out[r] += in[r] * qlk;
        }
    }
    for (int k = 0; k < w; ++k)
        std::copy_n(buf.data() + static_cast<size_t>(k) * rows, rows, Y + col[k] * ldy);
}

template <class T>
JacobiResult jacobi_blocked(index_t rows, index_t cols, T* X, index_t ldx, T* V, index_t ldv,
                            const core::Tolerance<real_t<T>>& tol, int max_sweeps, int nb, BlockedWorkspace<T>& ws) {
    JacobiResult res;
    const int nblocks = static_cast<int>((cols + nb - 1) / nb);
    auto block_begin = [&](int b) { return static_cast<index_t>(b) * nb; };
    auto block_end = [&](int b) { return std::min<index_t>(cols, static_cast<index_t>(b + 1) * nb); };
    std::vector<index_t> col(2 * nb);
    while (res.sweeps < max_sweeps) {
        ++res.sweeps;
        bool rotated = false;
        for (int step = 0; step < core::round_robin_steps(nblocks); ++step) {
            for (int pr = 0; pr < core::round_robin_pairs(nblocks); ++pr) {
                const core::IndexPair bij = core::round_robin_pair(nblocks, step, pr);
                if (bij.j >= nblocks) continue;
                int w = 0;
                for (index_t c = block_begin(bij.i); c < block_end(bij.i); ++c) col[w++] = c;
                for (index_t c = block_begin(bij.j); c < block_end(bij.j); ++c) col[w++] = c;
                // Gram matrix of the block pair (Hermitian: upper half computed, mirrored).
                ws.gram.assign(static_cast<size_t>(w) * w, T(0));
                for (int l = 0; l < w; ++l)
                    for (int k = 0; k <= l; ++k) {
                        const T g = dot_conj(rows, X + col[k] * ldx, X + col[l] * ldx);
                        ws.gram[k + l * w] = g;
                        ws.gram[l + k * w] = core::conj_of(g);
                    }
                ws.q.assign(static_cast<size_t>(w) * w, T(0));
                for (int k = 0; k < w; ++k) ws.q[k + k * w] = T(1);
                if (!hermitian_jacobi_one_sweep(w, ws.gram.data(), ws.q.data(), tol)) continue;
                rotated = true;
                multiply_columns(rows, X, ldx, col.data(), w, ws.q.data(), ws.update);
                if (V) multiply_columns(cols, V, ldv, col.data(), w, ws.q.data(), ws.update);
            }
        }
        if (!rotated) {
            res.converged = true;
            break;
        }
    }
    return res;
}

BATCHSVD_CPU_END
