// SPDX-License-Identifier: BSD-3-Clause
// Unblocked one-sided Jacobi (abfasi Algorithm 2) over the parallel round-robin ordering,
// with tracked column norms (W-cycle eq. 6) for the convergence test: one dot product per
// pair that needs no rotation. A pair that is rotated gets its exact norms for the angle.
// The squared norms are recomputed at the start of each sweep and whenever
// core::rotate_norms says the tracked value lost accuracy. The pairs of one round-robin
// step are disjoint, so running them one after another here gives what the GPU computes
// running them at once.
#pragma once

#include <vector>

#include "core/ordering.hpp"
#include "core/rotation.hpp"
#include "cpu/column_ops.hpp"

namespace batchsvd::cpu {

struct JacobiResult {
    int sweeps = 0;          ///< sweeps run, the final check sweep included
    bool converged = false;  ///< a whole sweep needed no rotation
};

/// Rotate the column pair (i, j) of X (rows x ...) and of V (vrows x ...) if they are not yet
/// orthogonal to tol. norms[] holds the squared column norms of X and is kept current.
/// Returns whether a rotation was applied.
template <class T>
bool rotate_if_needed(index_t rows, T* xi, T* xj, index_t vrows, T* vi, T* vj, real_t<T>& ni,
                      real_t<T>& nj, const core::Tolerance<real_t<T>>& tol) {
    using R = real_t<T>;
    const T c = dot_conj(rows, xi, xj);
    const R abs_c = std::abs(c);
    if (!core::needs_rotation(abs_c, ni, nj, tol)) return false;
    // The test runs on the tracked norms, the angle on exact ones: tracked norms drift by
    // ~n u within a sweep, which for nearly equal norms turns cot(2 phi) wrong and stalls
    // convergence (seen on the GPU with clustered and rank-deficient matrices).
    ni = norm_sq(rows, xi);
    nj = norm_sq(rows, xj);
    const core::Rotation<R> rot = core::jacobi_rotation(ni, nj, abs_c);
    const T tw = c * (rot.t / abs_c);
    rotate_pair(rows, xi, xj, rot.cs, tw);
    if (vi) rotate_pair(vrows, vi, vj, rot.cs, tw);
    const core::TrackedNorms<R> nn = core::rotate_norms(ni, nj, abs_c, rot.t);
    if (nn.reliable) {
        ni = nn.a;
        nj = nn.b;
    } else {
        ni = norm_sq(rows, xi);
        nj = norm_sq(rows, xj);
    }
    return true;
}

/// One-sided Jacobi on X (rows x cols, ldx), accumulating the rotations into V (cols x cols,
/// ldv, must hold the identity on entry) unless V is null. With `parallel`, the disjoint
/// pairs of each round-robin step are shared among OpenMP threads (for a batch too small to
/// occupy them); the result is bitwise the same either way.
template <class T>
JacobiResult jacobi_unblocked(index_t rows, index_t cols, T* X, index_t ldx, T* V,
                              index_t ldv, const core::Tolerance<real_t<T>>& tol, int max_sweeps,
                              std::vector<real_t<T>>& norms, bool parallel = false) {
    JacobiResult res;
    norms.resize(cols);
    const int n = static_cast<int>(cols);
    auto pair = [&](int step, int p) {
        const core::IndexPair ij = core::round_robin_pair(n, step, p);
        if (ij.j >= n) return false;  // phantom column of an odd count
        T* vi = V ? V + ij.i * ldv : nullptr;
        T* vj = V ? V + ij.j * ldv : nullptr;
        return rotate_if_needed<T>(rows, X + ij.i * ldx, X + ij.j * ldx, cols, vi, vj,
                                   norms[ij.i], norms[ij.j], tol);
    };
    while (res.sweeps < max_sweeps) {
        ++res.sweeps;
        bool rotated = false;
        // Two loops rather than `omp parallel if (parallel)`: an inactive parallel region
        // still costs a team set-up per step: about a third of the time at 32 x 32.
        if (parallel) {
#pragma omp parallel for schedule(static)
            for (index_t j = 0; j < cols; ++j) norms[j] = norm_sq(rows, X + j * ldx);
            for (int step = 0; step < core::round_robin_steps(n); ++step) {
#pragma omp parallel for schedule(static) reduction(|| : rotated)
                for (int p = 0; p < core::round_robin_pairs(n); ++p) rotated = pair(step, p) || rotated;
            }
        } else {
            for (index_t j = 0; j < cols; ++j) norms[j] = norm_sq(rows, X + j * ldx);
            for (int step = 0; step < core::round_robin_steps(n); ++step)
                for (int p = 0; p < core::round_robin_pairs(n); ++p) rotated = pair(step, p) || rotated;
        }
        if (!rotated) {
            res.converged = true;
            break;
        }
    }
    return res;
}

}  // namespace batchsvd::cpu
