// SPDX-License-Identifier: BSD-3-Clause
// How gesvd_vbatched cuts a batch of matrices of different sizes into uniform batches.
//
// A size shared by at least kExactGroupMin matrices is solved as its own batch, exactly as
// gesvd solves those matrices packed. The other matrices go to size classes: the longer side
// L and the shorter side k each rounded up (size_class), wide matrices transposed, so that a
// class is one batch of tall (or square) matrices, each zero-padded to the class's shape. The
// W-cycle paper (papers/wcycle-svd.txt) solves a variable-size batch with a block width per
// matrix instead; this keeps the uniform paths and their tuning, at the cost of the padding
// (at most an eighth of a side from order 32 up).
//
// Why padding is exact: a zero column is orthogonal to every column, so no rotation touches
// it, and zero rows stay zero under column rotations. The padded matrix [A 0; 0 0] therefore
// iterates on A's columns alone; its singular values are A's and zeros, and its vectors of
// A's non-zero singular values are A's vectors with zero padding. Where a singular value of
// A is zero (or negligible, as the finalisation rounds it), its vectors may be completed in
// the padding instead, so such a matrix is solved again at its exact size (vbatched.cu).
// Preconditioning keeps the padding apart where the eigensolver keeps the zero block of the
// Gram matrix diag(A^H A, 0) exact (a zero column gives an identity reflector and a zero
// coupling, which deflates), but an eigensolver that mixes the zero eigenvalues of the padding
// with A's smallest would leave the padding in the vectors: the scatter checks that the
// padding rows of every member's vectors are exactly zero, and a member where they are not is
// solved again at its size. A class whose right vectors are not computed (nothing to check)
// is not preconditioned.
#pragma once

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "batchsvd/batchsvd.hpp"

namespace batchsvd::cuda::vbatched {

/// A size with at least this many matrices is a batch of its own.
inline constexpr index_t kExactGroupMin = 32;

/// The class of a side of x: x rounded up to a multiple of 4 up to 32, 8 up to 64, 16 up to
/// 128, and 32 beyond.
inline index_t size_class(index_t x) {
    const index_t g = x <= 32 ? 4 : x <= 64 ? 8 : x <= 128 ? 16 : 32;
    return (x + g - 1) / g * g;
}

/// One uniform batch of the call.
struct Group {
    index_t rows = 0, cols = 0;  ///< the packed shape of every member
    bool transpose = false;      ///< members are stored as A^H (the wide members of a class)
    bool padded = false;         ///< a size class: members zero-padded to rows x cols
    std::vector<index_t> members;  ///< the matrices' indices in the call, ascending
    double work() const {
        return double(rows) * double(cols) * double(std::min(rows, cols)) * double(members.size());
    }
};

/// The call's groups, the most work first (the largest then do not finish last alone).
inline std::vector<Group> plan_groups(index_t batch, const index_t* m, const index_t* n) {
    std::map<std::pair<index_t, index_t>, std::vector<index_t>> exact;
    for (index_t b = 0; b < batch; ++b) exact[{m[b], n[b]}].push_back(b);
    std::vector<Group> groups;
    std::map<std::tuple<index_t, index_t, bool>, std::vector<index_t>> classes;
    for (auto& [size, idx] : exact) {
        const auto [mm, nn] = size;
        const index_t k = std::min(mm, nn);
        if (k == 0 || index_t(idx.size()) >= kExactGroupMin) {
            groups.push_back(Group{mm, nn, false, false, std::move(idx)});
            continue;
        }
        auto& c = classes[{size_class(std::max(mm, nn)), size_class(k), mm < nn}];
        c.insert(c.end(), idx.begin(), idx.end());
    }
    for (auto& [key, idx] : classes) {
        std::sort(idx.begin(), idx.end());
        const index_t b0 = idx.front();
        const bool one_size = std::all_of(idx.begin(), idx.end(), [&](index_t b) { return m[b] == m[b0] && n[b] == n[b0]; });
        if (one_size) {  // nothing to pad
            groups.push_back(Group{m[b0], n[b0], false, false, std::move(idx)});
            continue;
        }
        const auto [rows, cols, wide] = key;
        groups.push_back(Group{rows, cols, wide, true, std::move(idx)});
    }
    std::stable_sort(groups.begin(), groups.end(), [](const Group& x, const Group& y) { return x.work() > y.work(); });
    return groups;
}

}  // namespace batchsvd::cuda::vbatched
