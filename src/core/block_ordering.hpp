// SPDX-License-Identifier: BSD-3-Clause
// The parallel ordering of block pairs across P processes (the distributed one-sided block
// Jacobi, src/distributed/): 2P column blocks, two a process, paired by the circle method.
// Block top[0] stays; the others move one place round the ring top[1] .. top[P-1],
// bot[P-1] .. bot[0] each step, so that in 2P - 1 steps every two blocks meet once (Novakovic's
// multi-GPU algorithm, section 5, uses a block-recursive mapping tuned to its links; on one
// switch every process pair is alike, and the circle method needs two neighbour exchanges a
// step). Each process sends at most two blocks a step, to its neighbours only.
//
// On GPUs each of a process's two blocks is cut again into k sub-blocks of the blocked path's
// width, and the pairs of sub-blocks come from sub_block_pair_table: a sweep orders every two
// sub-blocks of the matrix once, as the one-device round robin does, with the same number of
// steps (2Pk - 1) and pairs a step (k a process), so that P devices share each step's work.
#pragma once

#include <stdexcept>
#include <utility>
#include <vector>

#include "core/ordering.hpp"

namespace batchsvd::core {

/// The blocks process r holds: top[r] and bot[r].
struct BlockSlots {
    std::vector<int> top, bot;
};

inline BlockSlots initial_slots(int processes) {
    BlockSlots s;
    for (int r = 0; r < processes; ++r) {
        s.top.push_back(2 * r);
        s.bot.push_back(2 * r + 1);
    }
    return s;
}

/// The next step's slots. Process 0 keeps top[0] and sends bot[0] to process 1's top; process
/// r in 1 .. P-2 sends top[r] right and bot[r] left; process P-1 keeps its top as its bot and
/// sends its bot left.
inline BlockSlots next_slots(const BlockSlots& s) {
    const int p = int(s.top.size());
    if (p < 2) return s;
    BlockSlots n = s;
    n.top[1] = s.bot[0];
    for (int r = 2; r < p; ++r) n.top[r] = s.top[r - 1];
    n.bot[p - 1] = s.top[p - 1];
    for (int r = 0; r < p - 1; ++r) n.bot[r] = s.bot[r + 1];
    return n;
}

/// What process r of P (P >= 2) does for one next_slots step, in halves of its block buffer
/// (0: top, 1: bot): `send` (half, peer) and `recv` (half, peer), matched in this order between
/// each pair of processes, and `move` (from, to) within its own buffers. The receiving and
/// moving write a second buffer: nothing is overwritten while it is still to be sent.
struct BlockMoves {
    std::vector<std::pair<int, int>> send, recv, move;
};

inline BlockMoves block_moves(int processes, int r) {
    BlockMoves m;
    const int P = processes;
    if (P < 2) return m;
    if (r == 0) {
        m.send.push_back({1, 1});  // bot[0] -> top[1]
        m.move.push_back({0, 0});  // top[0] stays
    } else if (r < P - 1) {
        m.send.push_back({0, r + 1});  // top[r] -> top[r + 1]
        m.send.push_back({1, r - 1});  // bot[r] -> bot[r - 1]
    } else {
        m.send.push_back({1, r - 1});  // bot[P-1] -> bot[P-2]
        m.move.push_back({0, 1});      // top[P-1] -> bot[P-1]
    }
    if (r >= 1) m.recv.push_back({0, r - 1});
    if (r < P - 1) m.recv.push_back({1, r + 1});
    return m;
}

/// The pair table of one process whose two blocks (top, bot) hold k sub-blocks each (k even,
/// local sub-blocks 0 .. k-1 in top, k .. 2k-1 in bot), 2k - 1 steps of k pairs (i, j), i < j,
/// flattened as {i0, j0, i1, j1, ...}:
/// - steps 0 .. k-2, *internal*: the circle method within top and within bot side by side,
///   run once a sweep, at its first block step, when each block is on exactly one process;
/// - steps k-1 .. 2k-2, *cross*: top's a with bot's (a + t) mod k at step k - 1 + t, run at
///   every block step: while two blocks meet, each sub-block of one meets each of the other.
/// So every two sub-blocks of the matrix meet exactly once in a sweep of 2P - 1 block steps.
inline std::vector<int> sub_block_pair_table(int k) {
    if (k < 2 || k % 2 != 0) throw std::invalid_argument("sub_block_pair_table: k must be even and at least 2");
    std::vector<int> t;
    t.reserve(std::size_t(2 * k - 1) * k * 2);
    for (int s = 0; s < k - 1; ++s)
        for (int half = 0; half < 2; ++half)
            for (int p = 0; p < k / 2; ++p) {
                const IndexPair q = round_robin_pair(k, s, p);
                t.push_back(half * k + q.i);
                t.push_back(half * k + q.j);
            }
    for (int s = 0; s < k; ++s)
        for (int a = 0; a < k; ++a) {
            t.push_back(a);
            t.push_back(k + (a + s) % k);
        }
    return t;
}

}  // namespace batchsvd::core
