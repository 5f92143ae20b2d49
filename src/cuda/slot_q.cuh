// The blocked eigensolver's Q (W2 x W2) held in registers, in the circle method's slot order
// (core::round_robin_slot), so that its rotations need no shared memory (session 11: before,
// Q's 64 x 64 was read and written in shared memory every inner step, more than half of the
// eigensolver's shared-memory wavefronts). This is the register form of Brent and Luk's
// systolic ordering (the columns move with their slots instead of being addressed by index).
#pragma once

#include "cuda/pair_rotation.cuh"

namespace batchsvd::cuda::detail {

/// H = Threads / W2 threads per row of Q; thread t of a row holds the L = W2 / (2H) slots
/// [L t, L t + L) (lo) and [W2 - L (t + 1), W2 - L t) (hi), so that pair p = L t + i of every
/// step, slots p and W2 - 1 - p, is its lo[i] and hi[L - 1 - i]. After a step the columns move
/// as the ordering moves them (slot q takes slot q + 1's column, slot W2 - 1 slot 1's, slot 0
/// stays): a register shift, with the value that crosses into each half from the row's
/// neighbouring thread (a shuffle within the H lanes of the row). After W2 - 1 steps slot q
/// holds column q again.
template <class T, int W2, int Threads> struct SlotQ {
    using R = core::real_of_t<T>;
    static constexpr int H = Threads / W2, L = W2 / (2 * H), NP = W2 / 2;
    static_assert(H >= 1 && H <= 32 && (32 % H) == 0 && L >= 2 && 2 * H * L == W2, "rows of Q over lanes");
    T lo[L], hi[L];
    int row, t;

    /// Q = I, thread tid's share.
    __device__ __forceinline__ explicit SlotQ(int tid) : row(tid / H), t(tid % H) {
#pragma unroll
        for (int i = 0; i < L; ++i) {
            lo[i] = T(R(row == L * t + i ? 1 : 0));
            hi[i] = T(R(row == W2 - L * (t + 1) + i ? 1 : 0));
        }
    }

    /// Q <- Q J_s with step s's rotations (records buffer buf), then the slots move to step s + 1.
    /// Pair p's record names its columns i < j; when slot p holds j (p > 0 and
    /// u = (p - 1 + s) mod (W2 - 1) >= 2p) the roles swap, which rotate_pair takes as the
    /// twiddle -conj(tw): the same operations on the same values as rotate_columns_at.
    __device__ __forceinline__ void apply_step(const StepRecords<T, NP>& rec, int buf, int s) {
        int u = (L * t + W2 - 2 + s) % (W2 - 1);  // (p - 1 + s) mod (W2 - 1) for p = L t
#pragma unroll
        for (int i = 0; i < L; ++i) {
            const int p = L * t + i;
            T tw = rec.tw[buf * NP + p];
            const R cs = rec.cs[buf * NP + p];
            if (p > 0 && u >= 2 * p) tw = core::scale(core::conj_of(tw), R(-1));
            rotate_pair(lo[i], hi[L - 1 - i], tw, cs);
            u = u + 1 == W2 - 1 ? 0 : u + 1;
        }
        const T lo_next = shfl_down(lo[0], 1, H), hi_prev = shfl_up(hi[0], 1, H);
        const T lo_in = t + 1 < H ? lo_next : hi[0];  // slot L (t + 1)
        const T hi_in = t > 0 ? hi_prev : lo[1];      // slot W2 - L t, or slot 1 for t = 0
        if (t != 0) lo[0] = lo[1];                    // slot 0 stays
#pragma unroll
        for (int i = 1; i + 1 < L; ++i) lo[i] = lo[i + 1];
        lo[L - 1] = lo_in;
#pragma unroll
        for (int i = 0; i + 1 < L; ++i) hi[i] = hi[i + 1];
        hi[L - 1] = hi_in;
    }

    /// Q into shared memory (leading dimension LD), after a whole sweep (slot q = column q).
    template <int LD> __device__ __forceinline__ void store(T* Q) const {
#pragma unroll
        for (int i = 0; i < L; ++i) {
            Q[row + (L * t + i) * LD] = lo[i];
            Q[row + (W2 - L * (t + 1) + i) * LD] = hi[i];
        }
    }
};

}  // namespace batchsvd::cuda::detail
