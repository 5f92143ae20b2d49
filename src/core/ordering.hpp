// SPDX-License-Identifier: BSD-3-Clause
// Parallel round-robin ordering of column (or block-column) pairs (Brent and Luk; abfasi
// section 3, Figure 1). With n' = n rounded up to even, a sweep has n'-1 steps of n'/2
// disjoint pairs, and every pair (i, j), i < j < n, occurs exactly once per sweep. An odd n
// gets a phantom column n: pairs that contain it are idle.
#pragma once

#include "core/host_device.hpp"

namespace batchsvd::core {

struct IndexPair {
    int i, j;  ///< i < j; j == n marks an idle pair (phantom column) when n is odd
};

BATCHSVD_HD int round_robin_width(int n) { return n + (n & 1); }
BATCHSVD_HD int round_robin_steps(int n) { return round_robin_width(n) - 1; }
BATCHSVD_HD int round_robin_pairs(int n) { return round_robin_width(n) / 2; }

/// Column in slot q at step s of the circle method on w (even) columns: slot 0 holds column
/// 0, slots 1..w-1 rotate by one each step. Any s >= 0 (the pattern repeats every w - 1).
BATCHSVD_HD constexpr int round_robin_slot(int w, int s, int q) {
    return q == 0 ? 0 : 1 + (q - 1 + s) % (w - 1);
}

/// Pair `p` (0 <= p < round_robin_pairs(n)) of step `s` (0 <= s < round_robin_steps(n)):
/// slot p plays slot n'-1-p.
BATCHSVD_HD IndexPair round_robin_pair(int n, int s, int p) {
    const int w = round_robin_width(n);
    const int x = round_robin_slot(w, s, p), y = round_robin_slot(w, s, w - 1 - p);
    return x < y ? IndexPair{x, y} : IndexPair{y, x};
}

}  // namespace batchsvd::core
