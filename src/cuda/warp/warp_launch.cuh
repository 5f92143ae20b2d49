// SPDX-License-Identifier: BSD-3-Clause
// The warp kernel's instances and launch (warp_path.hpp's launch_warp), included by one
// translation unit a precision (warp_launch_*.cu) so that their ~30 instances each compile in
// parallel.
#pragma once

#include <climits>
#include <utility>

#include "cuda/common/check.hpp"
#include "cuda/common/smem_limit.hpp"
#include "cuda/warp/warp_kernel.cuh"
#include "cuda/warp/warp_path.hpp"

namespace batchsvd::cuda {

namespace warp_detail {

/// One instance of the kernel, in its SVD or its hyperbolic form (Hyp).
template <class DT, int NC, int RPL, bool Hyp = false>
void launch_instance(JacobiParams<DT> p, cudaStream_t stream) {
    using R = core::real_of_t<DT>;
    p.layout = team_layout(p.M, p.N, p.need_vw, sizeof(DT), sizeof(R));
    constexpr int teams = warp_teams_per_block<NC>();
    const std::size_t smem =
        std::size_t(teams) * warp_team_bytes(p.layout, NC, sizeof(DT), sizeof(R), sizeof(WarpRecord<DT, Hyp>));
    const index_t blocks = (p.batch + teams - 1) / teams;
    if (blocks > INT_MAX)
        throw Error(ErrorCode::invalid_argument,
                    Hyp ? "batchsvd::hsvd: batch too large for one launch" : "batchsvd::gesvd: batch too large for one launch");
    const auto kernel = [] {  // only the variant in use is instantiated
        if constexpr (warp_min_blocks<DT, NC, RPL>() > 1) return &warp_jacobi_kernel_capped<DT, NC, RPL, Hyp>;
        else return &warp_jacobi_kernel<DT, NC, RPL, Hyp>;
    }();
    if (smem > 48 * 1024) BATCHSVD_CUDA_CHECK(allow_dynamic_smem(kernel, smem));
    kernel<<<unsigned(blocks), kWarpBlockThreads, smem, stream>>>(p);
    BATCHSVD_CUDA_CHECK_LAUNCH("warp_jacobi_kernel");
}

/// The instance (NC, RPL) = (6 + 2 i, 1 + j) when warp_instance_exists says it exists.
template <class DT, int I, int J> bool try_instance(const WarpPlan& wp, const JacobiParams<DT>& p, cudaStream_t stream) {
    constexpr int NC = 6 + 2 * I, RPL = 1 + J;
    if constexpr (warp_instance_exists(NC, RPL, sizeof(DT), core::is_complex_v<DT>)) {
        if (wp.nc == NC && wp.rpl == RPL) {
            launch_instance<DT, NC, RPL>(p, stream);
            return true;
        }
    }
    return false;
}
template <class DT, int I, int... J>
bool try_row(const WarpPlan& wp, const JacobiParams<DT>& p, cudaStream_t stream, std::integer_sequence<int, J...>) {
    return (try_instance<DT, I, J>(wp, p, stream) || ...);
}
template <class DT, int... I>
bool try_all(const WarpPlan& wp, const JacobiParams<DT>& p, cudaStream_t stream, std::integer_sequence<int, I...>) {
    return (try_row<DT, I>(wp, p, stream, std::make_integer_sequence<int, kWarpMaxRowsPerLane>{}) || ...);
}

/// The hyperbolic form's instance (NC, RPL) = (6 + 2 i, 1 + j) where
/// warp_hyperbolic_instance_exists says it exists.
template <class DT, int NC, int RPL>
bool try_hyperbolic(int nc, int rpl, const JacobiParams<DT>& p, cudaStream_t stream) {
    if constexpr (warp_hyperbolic_instance_exists(NC, RPL, sizeof(DT), core::is_complex_v<DT>)) {
        if (nc != NC || rpl != RPL) return false;
        launch_instance<DT, NC, RPL, true>(p, stream);
        return true;
    } else {
        return false;
    }
}

template <class DT, int... I>
bool try_hyperbolic_all(const WarpPlan& wp, const JacobiParams<DT>& p, cudaStream_t stream,
                        std::integer_sequence<int, I...>) {
    return ((try_hyperbolic<DT, 6 + 2 * I, 1>(wp.nc, wp.rpl, p, stream) ||
             try_hyperbolic<DT, 6 + 2 * I, 2>(wp.nc, wp.rpl, p, stream)) ||
            ...);
}

}  // namespace warp_detail

template <class T>
void launch_warp(const WarpPlan& wp, JacobiParams<device_scalar_t<T>> p, cudaStream_t stream) {
    using DT = device_scalar_t<T>;
    // team sizes 6, 8, ..., 32
    if (!warp_detail::try_all<DT>(wp, p, stream, std::make_integer_sequence<int, 14>{}))
        throw Error(ErrorCode::invalid_argument, "batchsvd: bad warp plan (internal)");
}

template <class T>
void launch_warp_hyperbolic(const WarpPlan& wp, JacobiParams<device_scalar_t<T>> p, cudaStream_t stream) {
    using DT = device_scalar_t<T>;
    using namespace warp_detail;
    if (!try_hyperbolic_all<DT>(wp, p, stream, std::make_integer_sequence<int, 14>{}))
        throw Error(ErrorCode::invalid_argument, "batchsvd: bad hyperbolic warp plan (internal)");
}

}  // namespace batchsvd::cuda

#define BATCHSVD_WARP_LAUNCH_INSTANTIATE_(T)                                                        \
    template void launch_warp<T>(const WarpPlan&, JacobiParams<device_scalar_t<T>>, cudaStream_t); \
    template void launch_warp_hyperbolic<T>(const WarpPlan&, JacobiParams<device_scalar_t<T>>, cudaStream_t);
