// SPDX-License-Identifier: BSD-3-Clause
// jacobi_lanes for one instruction set: this file is compiled once per set, with
// BATCHSVD_LANES_ISA naming its namespace (src/CMakeLists.txt), -ffp-contract=off and
// -fno-math-errno. It uses compiler built-ins, not <cmath>'s inline functions, so that no
// function with external linkage is compiled here for a wider instruction set than its
// other callers have (cpu/lanes/jacobi_lanes.hpp).
#include <limits>

#include "cpu/lanes/jacobi_lanes.hpp"

#if !defined(BATCHSVD_LANES_ISA)
#error "BATCHSVD_LANES_ISA names the instruction set's namespace"
#endif

namespace batchsvd::cpu {
namespace {

inline float root(float x) { return __builtin_sqrtf(x); }
inline double root(double x) { return __builtin_sqrt(x); }
inline float magnitude(float x) { return __builtin_fabsf(x); }
inline double magnitude(double x) { return __builtin_fabs(x); }
inline float with_sign(float x, float y) { return __builtin_copysignf(x, y); }
inline double with_sign(double x, double y) { return __builtin_copysign(x, y); }

/// Rotate the pair (p, q) of columns (len entries each, interleaved) in the lanes where
/// turn[l] is set: p' = cs (p - tw q), q' = cs (q + tw p); elsewhere both stay bitwise.
template <class R, int L>
void rotate_lanes(int len, R* p, R* q, const R (&cs)[L], const R (&tw)[L], const R (&turn)[L]) {
    for (int r = 0; r < len; ++r) {
        R* pr = p + r * L;
        R* qr = q + r * L;
#pragma omp simd
        for (int l = 0; l < L; ++l) {
            const R x = pr[l], y = qr[l];
            const R nx = cs[l] * (x - tw[l] * y);
            const R ny = cs[l] * (y + tw[l] * x);
            const bool on = turn[l] != 0;
            pr[l] = on ? nx : x;
            qr[l] = on ? ny : y;
        }
    }
}

/// core::needs_rotation, then core::jacobi_rotation (host form), in every lane: cs and tw
/// of the rotation, turn = 1 where it is needed. Every branch is computed, then selected.
/// (A function of its own: inlined into the sweep, GCC 12 no longer vectorises it.)
template <class R, int L>
__attribute__((noinline)) void angles(const R (&a)[L], const R (&b)[L], const R (&c)[L], const R* negligible, R tol,
                                      R small, R large, R (&cs)[L], R (&tw)[L], R (&turn)[L]) {
#pragma omp simd
    for (int l = 0; l < L; ++l) {
        const R ra = root(a[l]), rb = root(b[l]), ac = magnitude(c[l]);
        const bool need = (ra > negligible[l]) & (rb > negligible[l]) & (ac > tol * ra * rb);
        const R ct2 = (b[l] - a[l]) / (need ? 2 * ac : R(1));
        const R act2 = magnitude(ct2);
        const R mid = act2 + root(ct2 * ct2 + 1);
        const R act = act2 >= large ? 2 * act2 : (act2 < small ? act2 + 1 : mid);
        const R t = with_sign(R(1) / act, ct2);
        const R cosine = act * (R(1) / root(act * act + 1));
        cs[l] = act >= large ? R(1) : cosine;
        tw[l] = c[l] < 0 ? -t : t;
        turn[l] = need ? R(1) : R(0);
    }
}

/// Pair update with a per-lane sign: p' = k (p + sg tw q), q' = k (q + tw p): sg = -1 the
/// trigonometric rotation (k = cs), sg = +1 the hyperbolic one (k = cosh); where turn[l] is 0
/// both stay bitwise.
template <class R, int L>
void rotate_lanes_signed(int len, R* p, R* q, const R (&k)[L], const R (&tw)[L], const R (&sg)[L],
                         const R (&turn)[L]) {
    for (int r = 0; r < len; ++r) {
        R* pr = p + r * L;
        R* qr = q + r * L;
#pragma omp simd
        for (int l = 0; l < L; ++l) {
            const R x = pr[l], y = qr[l];
            const R nx = k[l] * (x + (sg[l] * tw[l]) * y);
            const R ny = k[l] * (y + tw[l] * x);
            const bool on = turn[l] != 0;
            pr[l] = on ? nx : x;
            qr[l] = on ? ny : y;
        }
    }
}

/// core::needs_rotation, then core::hyperbolic_rotation, in every lane: cosh and tw = tanh
/// sign(c); turn = 1 where a rotation is needed and defined, bad = 1 where it is needed and
/// |coth(2 phi)| is within 4 roundings of 1 (no rotation exists).
template <class R, int L>
__attribute__((noinline)) void hyperbolic_angles(const R (&a)[L], const R (&b)[L], const R (&c)[L], const R* negligible,
                                                 R tol, R large, R limit, R (&ch)[L], R (&tw)[L], R (&turn)[L],
                                                 R (&bad)[L]) {
#pragma omp simd
    for (int l = 0; l < L; ++l) {
        const R ra = root(a[l]), rb = root(b[l]), ac = magnitude(c[l]);
        const bool need = (ra > negligible[l]) & (rb > negligible[l]) & (ac > tol * ra * rb);
        const R act2 = (a[l] + b[l]) / (need ? 2 * ac : R(1));
        const bool ok = act2 > limit;
        const R act = act2 >= large ? 2 * act2 : act2 + root(ok ? (act2 - 1) * (act2 + 1) : R(1));
        const R th = -1 / act;
        const R chv = act / root(ok ? (act - 1) * (act + 1) : R(1));
        ch[l] = act >= large ? R(1) : chv;
        tw[l] = c[l] < 0 ? -th : th;
        turn[l] = need & ok ? R(1) : R(0);
        bad[l] = need & !ok ? R(1) : R(0);
    }
}

/// Each lane's c = x_i . x_j, a = |x_i|^2, b = |x_j|^2 of a column pair (rows entries, interleaved).
/// Always inlined: as a call, the sums went through memory and the SVD's iteration ran 20%
/// slower (100000 x 64 x 16 float64 on 2 threads: 42.8 against 34.8 ms per 1953 matrices).
template <class R, int L>
__attribute__((always_inline)) inline void pair_sums(int rows, const R* xi, const R* xj, R (&c)[L], R (&a)[L], R (&b)[L]) {
    for (int r = 0; r < rows; ++r) {
        const R* pi = xi + r * L;
        const R* pj = xj + r * L;
#pragma omp simd
        for (int l = 0; l < L; ++l) {
            c[l] += pi[l] * pj[l];
            a[l] += pi[l] * pi[l];
            b[l] += pj[l] * pj[l];
        }
    }
}

/// After a sweep: an active lane that rotated nothing has converged and stops. True when no
/// lane is active any more.
template <class R, int L> inline bool end_sweep(const R (&rotated)[L], bool (&active)[L], bool* converged) {
    bool all_done = true;
    for (int l = 0; l < L; ++l) {
        if (active[l] && rotated[l] == 0) {
            active[l] = false;
            converged[l] = true;
        }
        all_done = all_done && !active[l];
    }
    return all_done;
}

/// The hyperbolic iteration (LaneGroup::npos): as iterate's, with the pair's kind chosen per
/// lane, a noise-level column checked at each sweep's start, and stopped lanes masked.
template <class R> void iterate_hyperbolic(const LaneGroup<R>& g) {
    constexpr int L = lane_count<R>;
    constexpr R eps = std::numeric_limits<R>::epsilon();
    const R small = root(eps), large = root(2 / eps), limit = 1 + 4 * eps;
    const int rows = g.rows, cols = g.cols;
    bool active[L];
    for (int l = 0; l < L; ++l) {
        active[l] = true;
        g.sweeps[l] = 0;
        g.converged[l] = false;
        g.status[l] = 0;
    }
    for (int sweep = 1; sweep <= g.max_sweeps; ++sweep) {
        for (int l = 0; l < L; ++l)
            if (active[l]) g.sweeps[l] = sweep;
        for (int j = 0; j < cols; ++j) {  // a column at noise level: not of full column rank
            R nrm[L] = {};
            const R* xj = g.x + j * rows * L;
            for (int r = 0; r < rows; ++r)
#pragma omp simd
                for (int l = 0; l < L; ++l) nrm[l] += xj[r * L + l] * xj[r * L + l];
            for (int l = 0; l < L; ++l)
                if (active[l] && !(nrm[l] > g.negligible[l] * g.negligible[l])) {
                    active[l] = false;
                    g.status[l] = -2;  // info_rank_deficient
                }
        }
        R rotated[L] = {};
        for (int i = 0; i + 1 < cols; ++i) {
            R* xi = g.x + i * rows * L;
            for (int j = i + 1; j < cols; ++j) {
                R* xj = g.x + j * rows * L;
                R c[L] = {}, a[L] = {}, b[L] = {};
                pair_sums<R, L>(rows, xi, xj, c, a, b);
                R cs[L], twt[L], turnt[L], ch[L], twh[L], turnh[L], bad[L];
                angles<R, L>(a, b, c, g.negligible, g.tol, small, large, cs, twt, turnt);
                hyperbolic_angles<R, L>(a, b, c, g.negligible, g.tol, large, limit, ch, twh, turnh, bad);
                R k[L], tw[L], sg[L], turn[L];
                R any = 0;
                for (int l = 0; l < L; ++l) {
                    const bool hyp = i < g.npos[l] && j >= g.npos[l];
                    if (active[l] && hyp && bad[l] != 0) {
                        active[l] = false;
                        g.status[l] = -3;  // info_no_hyperbolic_rotation
                    }
                    k[l] = hyp ? ch[l] : cs[l];
                    tw[l] = hyp ? twh[l] : twt[l];
                    sg[l] = hyp ? R(1) : R(-1);
                    turn[l] = active[l] ? (hyp ? turnh[l] : turnt[l]) : R(0);
                    any += turn[l];
                }
                if (any == 0) continue;
                rotate_lanes_signed<R, L>(rows, xi, xj, k, tw, sg, turn);
                if (g.v) rotate_lanes_signed<R, L>(cols, g.v + i * cols * L, g.v + j * cols * L, k, tw, sg, turn);
                for (int l = 0; l < L; ++l) rotated[l] = rotated[l] != 0 || turn[l] != 0 ? R(1) : R(0);
            }
        }
        if (end_sweep<R, L>(rotated, active, g.converged)) break;
    }
}

template <class R> void iterate(const LaneGroup<R>& g) {
    if (g.npos) return iterate_hyperbolic(g);
    constexpr int L = lane_count<R>;
    constexpr R eps = std::numeric_limits<R>::epsilon();
    // core::jacobi_rotation's thresholds: sqrt(eps) and sqrt(2 / eps).
    const R small = root(eps), large = root(2 / eps);
    const int rows = g.rows, cols = g.cols;
    bool active[L];
    for (int l = 0; l < L; ++l) {
        active[l] = true;
        g.sweeps[l] = 0;
        g.converged[l] = false;
    }
    for (int sweep = 1; sweep <= g.max_sweeps; ++sweep) {
        for (int l = 0; l < L; ++l)
            if (active[l]) g.sweeps[l] = sweep;
        R rotated[L] = {};
        for (int i = 0; i + 1 < cols; ++i) {
            R* xi = g.x + i * rows * L;
            for (int j = i + 1; j < cols; ++j) {
                R* xj = g.x + j * rows * L;
                R c[L] = {}, a[L] = {}, b[L] = {};
                pair_sums<R, L>(rows, xi, xj, c, a, b);
                R cs[L], tw[L], turn[L];
                angles<R, L>(a, b, c, g.negligible, g.tol, small, large, cs, tw, turn);
                R any = 0;
                for (int l = 0; l < L; ++l) any += turn[l];
                if (any == 0) continue;
                rotate_lanes<R, L>(rows, xi, xj, cs, tw, turn);
                if (g.v) rotate_lanes<R, L>(cols, g.v + i * cols * L, g.v + j * cols * L, cs, tw, turn);
                for (int l = 0; l < L; ++l) rotated[l] = rotated[l] != 0 || turn[l] != 0 ? R(1) : R(0);
            }
        }
        if (end_sweep<R, L>(rotated, active, g.converged)) break;
    }
}

}  // namespace

namespace BATCHSVD_LANES_ISA {
void jacobi_lanes(const LaneGroup<float>& g) { iterate(g); }
void jacobi_lanes(const LaneGroup<double>& g) { iterate(g); }
}  // namespace BATCHSVD_LANES_ISA

}  // namespace batchsvd::cpu
