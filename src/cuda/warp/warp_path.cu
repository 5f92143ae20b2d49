// SPDX-License-Identifier: BSD-3-Clause
// The warp kernel's plan (warp_path.hpp): which team size and rows a lane an M x N working
// matrix gets. The instances and the launch are in warp_launch.cuh.
#include "cuda/warp/warp_path.hpp"

#include <algorithm>
#include <cstdlib>
#include <complex>
#include <cstring>
#include <limits>
#include <type_traits>

#include "cuda/warp/warp_kernel.cuh"

namespace batchsvd::cuda {

namespace {

/// BATCHSVD_CUDA_WARP_ANY_FILL (read once; measurements only): no fill rule.
bool warp_any_fill() {
    static const bool any = std::getenv("BATCHSVD_CUDA_WARP_ANY_FILL") != nullptr;
    return any;
}

/// The plan of teams of 8, 16 and 32 lanes only, with the fill rule they needed (the choice
/// before teams of every even size; BATCHSVD_CUDA_WARP_TEAMS=pow2 selects it, for
/// measurements). A team's step costs the same for any N <= nc (padding columns ride along),
/// while the fused kernel's cost falls about as N^3, so padded sizes went back to the fused
/// kernel. Measured crossover (batch 10000, H100, both kernels over orders 10..30): the warp
/// kernel won from N = 26 (float64) and 22 (float32) at nc = 32, from 12 and 11 at nc = 16,
/// i.e. from 13/16 and 11/16 of the team; complex128 and nc = 8 from 7/8. The teams that track
/// their norms won earlier (2026-11-25): float64 and complex64 from 11/16, float32 from 8/16.
template <class T> WarpPlan warp_plan_pow2(index_t M, index_t N) {
    WarpPlan wp;
    const index_t need = std::max<index_t>(N, (M + 1) / 2);  // nc >= N and 2 nc >= M
    const int nc = need <= 8 ? 8 : need <= 16 ? 16 : 32;
    using R = core::real_of_t<T>;
    using DT = device_scalar_t<T>;
    const bool c128 = core::is_complex_v<T> && sizeof(R) == 8;
    const bool tracked = nc == 32 ? warp_tracks_norms<DT, 32>() : nc == 16 && warp_tracks_norms<DT, 16>();
    int sixteenths = sizeof(R) == 8 || core::is_complex_v<T> ? 13 : 11;
    if (tracked) sixteenths = std::is_same_v<T, float> ? 8 : 11;
    if (c128 || nc == 8) sixteenths = 14;
    if (16 * N < sixteenths * nc && !warp_any_fill()) return wp;
    const int rpl = M <= nc ? 1 : 2;
    if (rpl * nc * int(sizeof(T) / 4) > 64) return wp;  // W's registers, as then
    wp.fits = true;
    wp.nc = nc;
    wp.rpl = rpl;
    return wp;
}

}  // namespace

/// Teams of every even size from 6 to 32 lanes (floor(32 / nc) a warp), so that a matrix pays
/// for at most one padding column; among the instances that hold it (nc >= N, rpl nc >= M,
/// warp_instance_exists), the one of least estimated cost per matrix and sweep: a lane's step
/// applies the step's rotations to its rpl rows of W and its row of V (about (rpl + 1) nc,
/// plus a fixed part for the sums and the rotation, counted as 8 more), nc - 1 steps a
/// sweep, shared by the warp's teams. Where every instance would leave a third of its team
/// padding (a tall matrix whose rows need a wide team), the fused kernel is left to take it;
/// teams of 6 take 3 columns and more (3 x 3 to 16 x 4: 6 x 3 float64 0.046 ms against the
/// fused kernel's 0.052 at batch 10000, 16 x 4 about 0.06 against 0.14; 2 columns stay
/// with the fused kernel, 8 x 2 0.031 ms).
/// Teams of 30 lanes, and of 26 and 28 in float32, are passed over for 32 (H100, 2026-11-27,
/// batch 10000, ms, nc30 against nc32: float64 30^2 2.57 / 2.30, float32 1.37 / 1.17, float32
/// 28^2 1.24 / 1.13 in 28 lanes; the 32-lane kernel is the one tuned, its float32 register
/// cap included).
template <class T> WarpPlan warp_plan(index_t M, index_t N) {
    WarpPlan wp;
    if (N > 32 || N < 1 || M > 64) return wp;
    static const bool pow2 = [] {
        const char* e = std::getenv("BATCHSVD_CUDA_WARP_TEAMS");
        return e != nullptr && std::strcmp(e, "pow2") == 0;
    }();
    if (pow2) return warp_plan_pow2<T>(M, N);
    double best = std::numeric_limits<double>::infinity();
    for (int nc = std::max<int>(6, int(N + (N & 1))); nc <= 32; nc += 2) {
        const int rpl = int((M + nc - 1) / nc);
        if (!warp_instance_exists(nc, rpl, sizeof(T), core::is_complex_v<T>)) continue;
        if (16 * N < 11 * nc && !(nc == 6 && N >= 3) && !warp_any_fill()) continue;
        if (nc == 30 || (std::is_same_v<T, float> && (nc == 26 || nc == 28))) continue;
        const double cost = double((rpl + 1) * nc + 8) * double(nc - 1) / double(32 / nc);
        if (cost < best) {
            best = cost;
            wp.fits = true;
            wp.nc = nc;
            wp.rpl = rpl;
        }
    }
    return wp;
}

template <class T> WarpPlan warp_hyperbolic_plan(index_t M, index_t N) {
    using DT = device_scalar_t<T>;
    constexpr bool cx = core::is_complex_v<DT>;
    const WarpPlan svd = warp_plan<T>(M, N);
    if (svd.fits && warp_hyperbolic_instance_exists(svd.nc, svd.rpl, sizeof(DT), cx)) return svd;
    for (int nc = std::max(6, int(N + 1) / 2 * 2); nc <= 32; nc += 2) {
        const int rpl = int((M + nc - 1) / nc);
        if (warp_hyperbolic_instance_exists(nc, rpl, sizeof(DT), cx)) return {true, nc, rpl};
    }
    return {};
}

#define BATCHSVD_WARP_INSTANTIATE_(T)                          \
    template WarpPlan warp_plan<T>(index_t, index_t);          \
    template WarpPlan warp_hyperbolic_plan<T>(index_t, index_t);
BATCHSVD_WARP_INSTANTIATE_(float)
BATCHSVD_WARP_INSTANTIATE_(double)
BATCHSVD_WARP_INSTANTIATE_(std::complex<float>)
BATCHSVD_WARP_INSTANTIATE_(std::complex<double>)
#undef BATCHSVD_WARP_INSTANTIATE_

}  // namespace batchsvd::cuda
