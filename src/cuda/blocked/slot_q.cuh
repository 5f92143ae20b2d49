// SPDX-License-Identifier: BSD-3-Clause
// The blocked eigensolver's Q (W2 x W2) held in registers, in the circle method's slot order
// (core::round_robin_slot), so that its rotations need no shared memory (before 9d1fa64,
// Q's 64 x 64 was read and written in shared memory every inner step, more than half of the
// eigensolver's shared-memory wavefronts). This is the register form of Brent and Luk's
// systolic ordering (the columns move with their slots instead of being addressed by index).
#pragma once

#include "cuda/common/pair_rotation.cuh"

namespace batchsvd::cuda::detail {

/// RT rows of Q per thread, H = Threads RT / W2 threads per row; thread t of a row holds the
/// L = W2 / (2H) slots [L t, L t + L) (lo) and [W2 - L (t + 1), W2 - L t) (hi) of each of its
/// rows (row0 + k Threads / H, k < RT), so that pair p = L t + i of every step, slots p and
/// W2 - 1 - p, is its lo[k][i] and hi[k][L - 1 - i]. After a step the columns move as the
/// ordering moves them (slot q takes slot q + 1's column, slot W2 - 1 slot 1's, slot 0 stays):
/// a register shift, with the value that crosses into each half from the row's neighbouring
/// thread (a shuffle within the H lanes of the row). After W2 - 1 steps slot q holds column q
/// again. With RT = 2 a thread reads 4 records a step instead of 8 for the same
/// rotations, and the 8 threads of a row read 8 different bank groups (StepRecords::slot).
template <class T, int W2, int Threads, int RT = 2> struct SlotQ {
    using R = core::real_of_t<T>;
    static constexpr int H = Threads * RT / W2, L = W2 / (2 * H), NP = W2 / 2, ROWSTEP = Threads / H;
    static_assert(H >= 1 && H <= 32 && (32 % H) == 0 && L >= 2 && 2 * H * L == W2 && ROWSTEP * RT == W2,
                  "rows of Q over lanes");
    T lo[RT][L], hi[RT][L];
    int row0, t;

    /// Q = I, thread tid's share.
    __device__ __forceinline__ explicit SlotQ(int tid) : row0(tid / H), t(tid % H) {
#pragma unroll
        for (int k = 0; k < RT; ++k) {
            const int row = row0 + k * ROWSTEP;
#pragma unroll
            for (int i = 0; i < L; ++i) {
                lo[k][i] = T(R(row == L * t + i ? 1 : 0));
                hi[k][i] = T(R(row == W2 - L * (t + 1) + i ? 1 : 0));
            }
        }
    }

    /// Q <- Q J_s with step s's rotations (records buffer buf, in slot orientation), then the
    /// slots move to step s + 1.
    __device__ __forceinline__ void apply_step(const StepRecords<T, NP>& rec, int buf) {
        static_assert(8 % L == 0, "a thread's records lie between two gaps (StepRecords::slot)");
        const RotationRecord<T>* rs = rec.buffer(buf) + StepRecords<T, NP>::slot(L * t);
        RotationRecord<T> r[L];
#pragma unroll
        for (int i = 0; i < L; ++i) r[i] = rs[i];
#pragma unroll
        for (int k = 0; k < RT; ++k) {
#pragma unroll
            for (int i = 0; i < L; ++i) rotate_pair(lo[k][i], hi[k][L - 1 - i], r[i].tw, r[i].cs);
            const T lo_next = shfl_down(lo[k][0], 1, H), hi_prev = shfl_up(hi[k][0], 1, H);
            const T lo_in = t + 1 < H ? lo_next : hi[k][0];  // slot L (t + 1)
            const T hi_in = t > 0 ? hi_prev : lo[k][1];      // slot W2 - L t, or slot 1 for t = 0
            if (t != 0) lo[k][0] = lo[k][1];                 // slot 0 stays
#pragma unroll
            for (int i = 1; i + 1 < L; ++i) lo[k][i] = lo[k][i + 1];
            lo[k][L - 1] = lo_in;
#pragma unroll
            for (int i = 0; i + 1 < L; ++i) hi[k][i] = hi[k][i + 1];
            hi[k][L - 1] = hi_in;
        }
    }

    /// Q into shared memory (leading dimension LD), after a whole sweep (slot q = column q).
    template <int LD> __device__ __forceinline__ void store(T* Q) const {
#pragma unroll
        for (int k = 0; k < RT; ++k) {
            const int row = row0 + k * ROWSTEP;
#pragma unroll
            for (int i = 0; i < L; ++i) {
                Q[row + (L * t + i) * LD] = lo[k][i];
                Q[row + (W2 - L * (t + 1) + i) * LD] = hi[k][i];
            }
        }
    }
};

/// Stands for SlotQ where Q stays in shared memory (its rotations are the appliers' loop).
struct NoSlotQ {
    __device__ explicit NoSlotQ(int) {}
};

}  // namespace batchsvd::cuda::detail
