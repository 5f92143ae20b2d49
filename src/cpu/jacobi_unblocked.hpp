// SPDX-License-Identifier: BSD-3-Clause
// Unblocked one-sided Jacobi (abfasi Algorithm 2) over the parallel round-robin ordering,
// with tracked column norms (W-cycle eq. 6) for the convergence test: one dot product per
// pair that needs no rotation. A pair that is rotated gets its exact norms for the angle.
// The squared norms are recomputed at the start of each sweep and whenever
// core::rotate_norms says the tracked value lost accuracy. The pairs of one round-robin
// step are disjoint, so running them one after another here gives what the GPU computes
// running them at once.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/isa.hpp"
#include "core/ordering.hpp"
#include "core/rotation.hpp"
#include "cpu/column_ops.hpp"

BATCHSVD_CPU_BEGIN

struct JacobiResult {
    int sweeps = 0;          ///< sweeps run, the final check sweep included
    bool converged = false;  ///< a whole sweep needed no rotation
};

/// The rotation of the column pair (i, j) of X (rows x ...) and of V (vrows x ...; vi null:
/// none) from their dot product c (|c| = abs_c) and exact squared norms ni, nj, which then
/// become the rotated columns' (tracked, W-cycle eq. 6, or summed again where tracking lost
/// accuracy).
template <class T>
void rotate_and_track(index_t rows, T* xi, T* xj, index_t vrows, T* vi, T* vj, T c, real_t<T> abs_c,
                      real_t<T>& ni, real_t<T>& nj) {
    using R = real_t<T>;
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
}

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
    rotate_and_track(rows, xi, xj, vrows, vi, vj, c, abs_c, ni, nj);
    return true;
}

/// Gram-tested sweeps: from the second sweep on, G = X^H X is formed once a sweep (by the
/// BLAS, `gram` fills its lower triangle), and a pair of columns that no rotation has touched
/// since is tested on G's entry instead of its own dot product. A pair G fails is tested and
/// rotated as usual. After preconditioning most pairs pass from the second sweep on, and the
/// sweeps' dot products (one a pair, level-1 work) were most of the time (400^2 float64).
template <class T> struct GramTest {
    void (*gram)(index_t rows, index_t cols, const T* x, index_t ldx, T* g) = nullptr;
    std::vector<T> g;
    std::vector<char> touched;
};

/// One-sided Jacobi on X (rows x cols, ldx), accumulating the rotations into V (cols x cols,
/// ldv, must hold the identity, or the preconditioner's V0, on entry) unless V is null. With
/// `parallel` > 1, the disjoint pairs of each round-robin step are shared among that many
/// OpenMP threads (for a batch too small to occupy them); the result is bitwise the same
/// either way.
/// `gram`: Gram-tested sweeps (above), or null.
template <class T>
JacobiResult jacobi_unblocked(index_t rows, index_t cols, T* X, index_t ldx, T* V,
                              index_t ldv, const core::Tolerance<real_t<T>>& tol, int max_sweeps,
                              std::vector<real_t<T>>& norms, int parallel = 0,
                              GramTest<T>* gram = nullptr) {
    JacobiResult res;
    norms.resize(cols);
    const int n = static_cast<int>(cols);
    bool gram_tested = false;  // this sweep's G is current
    auto pair = [&](int step, int p) {
        const core::IndexPair ij = core::round_robin_pair(n, step, p);
        if (ij.j >= n) return false;  // phantom column of an odd count
        if (gram_tested && !gram->touched[ij.i] && !gram->touched[ij.j]) {
            const index_t hi = std::max(ij.i, ij.j), lo = std::min(ij.i, ij.j);
            const real_t<T> abs_c = std::abs(gram->g[std::size_t(hi + lo * cols)]);
            if (!core::needs_rotation(abs_c, norms[ij.i], norms[ij.j], tol)) return false;
        }
        T* vi = V ? V + ij.i * ldv : nullptr;
        T* vj = V ? V + ij.j * ldv : nullptr;
        const bool turned = rotate_if_needed<T>(rows, X + ij.i * ldx, X + ij.j * ldx, cols, vi, vj,
                                                norms[ij.i], norms[ij.j], tol);
        if (turned && gram_tested) gram->touched[ij.i] = gram->touched[ij.j] = 1;
        return turned;
    };
    while (res.sweeps < max_sweeps) {
        ++res.sweeps;
        bool rotated = false;
        gram_tested = gram && gram->gram && res.sweeps > 1;
        if (gram_tested) {
            gram->g.resize(std::size_t(cols) * cols);
            gram->touched.assign(std::size_t(cols), 0);
            gram->gram(rows, cols, X, ldx, gram->g.data());
        }
        // Two loops rather than `omp parallel if (parallel)`: an inactive parallel region
        // still costs a team set-up per step: about a third of the time at 32 x 32.
        // One team for the whole sweep, a worksharing loop (and its barrier) a step, rather
        // than a team started for each step (about 1400 a 464^2 matrix).
        if (parallel > 1) {
#pragma omp parallel num_threads(parallel)
            {
#pragma omp for schedule(static)
                for (index_t j = 0; j < cols; ++j) norms[j] = norm_sq(rows, X + j * ldx);
                for (int step = 0; step < core::round_robin_steps(n); ++step) {
#pragma omp for schedule(static) reduction(|| : rotated)
                    for (int p = 0; p < core::round_robin_pairs(n); ++p) rotated = pair(step, p) || rotated;
                }
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

BATCHSVD_CPU_END
