// SPDX-License-Identifier: BSD-3-Clause
// One-sided Jacobi on small real matrices, one matrix per SIMD lane: a group of lane_count
// matrices of one shape is stored interleaved (element (i, j) of every matrix side by side),
// so each step of the iteration (dot products, angle, rotation) is one loop over the lanes
// that the compiler turns into vector instructions. At orders 2-8 the per-matrix iteration
// spends most of its time on loop and call overheads of columns a few entries long.
//
// The iteration is the unblocked one (abfasi Algorithm 2, cyclic by rows, without QR or
// preconditioning): each pair's dot product and both squared norms are computed afresh, the
// test and angle are core/rotation.hpp's on the host (the cosine as act / sqrt(act^2 + 1)
// without the fma), and a lane whose pair needs no rotation keeps its columns bitwise. A lane
// that finished a sweep without rotating stays as it is while the others go on, so a matrix's
// result does not depend on its neighbours in the group.
//
// With LaneGroup::npos the same loop runs the hyperbolic SVD's iteration (hsvd): pairs of
// opposite signs take the hyperbolic rotation, both kinds computed in every lane and selected.
//
// The kernel is compiled once per instruction set (jacobi_lanes_isa.cpp, namespace
// BATCHSVD_LANES_ISA) with -ffp-contract=off and -fno-math-errno: no fused multiply-adds, no
// horizontal sums, so every instruction set gives bitwise the same result. Nothing here may be
// an inline function with external linkage shared with other translation units (templates
// live in an anonymous namespace), or the linker could pick an AVX-512 copy for baseline code.
#pragma once

#include "cpu/isa.hpp"

namespace batchsvd::cpu {

/// Matrices per group: one AVX-512 register of each type.
template <class R> inline constexpr int lane_count = 64 / int(sizeof(R));

/// One group of lane_count matrices, rows x cols each (rows >= cols), interleaved:
/// x[(j * rows + i) * lanes + l] is element (i, j) of matrix l; v (cols x cols, the same
/// layout, the identity on entry) receives the right vectors, or is null.
template <class R> struct LaneGroup {
    int rows = 0, cols = 0;
    R* x = nullptr;
    R* v = nullptr;
    R tol = 0;                           ///< core::Tolerance::tol
    const R* negligible = nullptr;       ///< per lane: core::Tolerance::negligible
    int max_sweeps = 0;
    int* sweeps = nullptr;               ///< per lane: sweeps run, the final check included
    bool* converged = nullptr;           ///< per lane
    /// The hyperbolic SVD (one-sided J-orthogonal Jacobi): per lane, the number of +1 columns,
    /// which come first (pairs across the boundary take the hyperbolic rotation of
    /// core/hyperbolic_rotation.hpp); null for the SVD.
    const int* npos = nullptr;
    /// Per lane, with npos: 0, or the lane's stop (info_rank_deficient: a column at noise level
    /// at a sweep's start; info_no_hyperbolic_rotation), after which it is left as it is.
    int* status = nullptr;
};

#define BATCHSVD_LANES_DECLARE_(isa)              \
    namespace lanes_##isa {                       \
    void jacobi_lanes(const LaneGroup<float>& g);  \
    void jacobi_lanes(const LaneGroup<double>& g); \
    }
BATCHSVD_LANES_DECLARE_(baseline)
BATCHSVD_LANES_DECLARE_(avx2)
BATCHSVD_LANES_DECLARE_(avx512)
#undef BATCHSVD_LANES_DECLARE_

/// False where BATCHSVD_CPU_LANES=off: every matrix takes the per-matrix iteration.
bool lanes_enabled();

/// The iteration on one group with the given instruction set (must be available: isa.hpp).
void jacobi_lanes(const LaneGroup<float>& g, Isa isa);
void jacobi_lanes(const LaneGroup<double>& g, Isa isa);

}  // namespace batchsvd::cpu
