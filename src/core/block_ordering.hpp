// SPDX-License-Identifier: BSD-3-Clause
// The parallel ordering of block pairs across P processes (the distributed one-sided block
// Jacobi, src/distributed/): 2P column blocks, two a process, paired by the circle method.
// Block top[0] stays; the others move one place round the ring top[1] .. top[P-1],
// bot[P-1] .. bot[0] each step, so that in 2P - 1 steps every two blocks meet once (Novakovic's
// multi-GPU algorithm, section 5, uses a block-recursive mapping tuned to its links; on one
// switch every process pair is alike, and the circle method needs two neighbour exchanges a
// step). Each process sends at most two blocks a step, to its neighbours only.
#pragma once

#include <vector>

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

}  // namespace batchsvd::core
