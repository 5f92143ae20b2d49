// SPDX-License-Identifier: BSD-3-Clause
// Host driver of the warp kernel (warp_path.hpp): the plan, the instantiations and the launch.
#include "cuda/warp/warp_path.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <complex>
#include <type_traits>

#include "cuda/common/check.hpp"
#include "cuda/warp/warp_kernel.cuh"
#include "cuda/common/smem_limit.hpp"

namespace batchsvd::cuda {

namespace {

/// Register words per lane of W and V: an instantiation holds at most kWarpMaxWords of W
/// (more spilled: 64 x 32 float64, 32 x 32 complex128) and V beside it.
constexpr int w_words(int nc, int rpl, std::size_t tsize) { return rpl * nc * int(tsize / 4); }
constexpr int kWarpMaxWords = 64;

template <class DT, int NC, int RPL>
void launch_instance(JacobiParams<DT> p, cudaStream_t stream) {
    if constexpr (w_words(NC, RPL, sizeof(DT)) <= kWarpMaxWords) {
        using R = core::real_of_t<DT>;
        p.layout = team_layout(p.M, p.N, p.need_vw, sizeof(DT), sizeof(R));
        constexpr int teams = kWarpBlockThreads / NC;
        const std::size_t smem = std::size_t(teams) * warp_team_bytes(p.layout, NC, sizeof(DT), sizeof(R), sizeof(WarpRotation<DT>));
        const index_t blocks = (p.batch + teams - 1) / teams;
        if (blocks > INT_MAX)
            throw Error(ErrorCode::invalid_argument, "batchsvd::gesvd: batch too large for one launch");
        const auto kernel = [] {  // only the variant in use is instantiated
            if constexpr (warp_min_blocks<DT, NC, RPL>() > 1) return &warp_jacobi_kernel_capped<DT, NC, RPL>;
            else return &warp_jacobi_kernel<DT, NC, RPL>;
        }();
        if (smem > 48 * 1024)
            BATCHSVD_CUDA_CHECK(allow_dynamic_smem(kernel, smem));
        kernel<<<unsigned(blocks), kWarpBlockThreads, smem, stream>>>(p);
        BATCHSVD_CUDA_CHECK_LAUNCH("warp_jacobi_kernel");
    } else {
        throw Error(ErrorCode::invalid_argument, "batchsvd: no warp kernel for this size (internal)");
    }
}

}  // namespace

template <class T> WarpPlan warp_plan(index_t M, index_t N) {
    WarpPlan wp;
    if (N > 32 || N < 1 || M > 64) return wp;
    const index_t need = std::max<index_t>(N, (M + 1) / 2);  // nc >= N and 2 nc >= M
    const int nc = need <= 8 ? 8 : need <= 16 ? 16 : 32;
    // A team's step costs the same for any N <= nc (padding columns ride along), while the
    // fused kernel's cost falls about as N^3, so padded sizes go back to the fused kernel.
    // Measured crossover (batch 10000, H100, both kernels over orders 10..30): the warp kernel
    // wins from N = 26 (float64) and 22 (float32) at nc = 32, from 12 and 11 at nc = 16, i.e.
    // from 13/16 and 11/16 of the team. complex128 and nc = 8 keep the earlier 7/8 (the fused
    // kernel won at 12 x 12 complex128, 1.07 against about 1.2 ms for any team of 16). The
    // teams that track their norms (warp_tracks_norms) are faster, and so win earlier (H100,
    // 2026-11-25, ms fused / warp): float64 20^2 1.89 / 2.03, 22^2 2.27 / 2.09 (from 11/16);
    // float32 17^2 1.07 / 0.96 (every order above 16); complex64 20^2 3.18 / 3.22, 22^2
    // 3.64 / 3.33 (11/16), and with 16 lanes 10^2 0.506 / 0.498, 11^2 0.620 / 0.518 (11/16).
    // BATCHSVD_CUDA_WARP_ANY_FILL (measurements only) lifts the rule.
    using R = core::real_of_t<T>;
    using DT = device_scalar_t<T>;
    const bool c128 = core::is_complex_v<T> && sizeof(R) == 8;
    const bool tracked = nc == 32 ? warp_tracks_norms<DT, 32>() : nc == 16 && warp_tracks_norms<DT, 16>();
    int sixteenths = sizeof(R) == 8 || core::is_complex_v<T> ? 13 : 11;
    if (tracked) sixteenths = std::is_same_v<T, float> ? 8 : 11;
    if (c128 || nc == 8) sixteenths = 14;
    static const bool any_fill = std::getenv("BATCHSVD_CUDA_WARP_ANY_FILL") != nullptr;
    if (16 * N < sixteenths * nc && !any_fill) return wp;
    const int rpl = M <= nc ? 1 : 2;
    if (w_words(nc, rpl, sizeof(T)) > kWarpMaxWords) return wp;
    wp.fits = true;
    wp.nc = nc;
    wp.rpl = rpl;
    return wp;
}

template <class T>
void launch_warp(const WarpPlan& wp, JacobiParams<device_scalar_t<T>> p, cudaStream_t stream) {
    using DT = device_scalar_t<T>;
    auto go = [&](auto nc_c, auto rpl_c) {
        return launch_instance<DT, decltype(nc_c)::value, decltype(rpl_c)::value>(p, stream);
    };
    using I8 = std::integral_constant<int, 8>;
    using I16 = std::integral_constant<int, 16>;
    using I32 = std::integral_constant<int, 32>;
    using I1 = std::integral_constant<int, 1>;
    using I2 = std::integral_constant<int, 2>;
    switch (wp.nc * 10 + wp.rpl) {
        case 81: return go(I8{}, I1{});
        case 82: return go(I8{}, I2{});
        case 161: return go(I16{}, I1{});
        case 162: return go(I16{}, I2{});
        case 321: return go(I32{}, I1{});
        case 322: return go(I32{}, I2{});
        default: throw Error(ErrorCode::invalid_argument, "batchsvd: bad warp plan (internal)");
    }
}

#define BATCHSVD_WARP_INSTANTIATE_(T)                  \
    template WarpPlan warp_plan<T>(index_t, index_t); \
    template void launch_warp<T>(const WarpPlan&, JacobiParams<device_scalar_t<T>>, cudaStream_t);
BATCHSVD_WARP_INSTANTIATE_(float)
BATCHSVD_WARP_INSTANTIATE_(double)
BATCHSVD_WARP_INSTANTIATE_(std::complex<float>)
BATCHSVD_WARP_INSTANTIATE_(std::complex<double>)
#undef BATCHSVD_WARP_INSTANTIATE_

}  // namespace batchsvd::cuda
