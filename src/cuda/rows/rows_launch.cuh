// SPDX-License-Identifier: BSD-3-Clause
// The rows kernel's instances and launch (rows_path.hpp's launch_rows), included by one
// translation unit a precision (rows_launch_*.cu) so that their instances compile in parallel.
#pragma once

#include <climits>
#include <utility>

#include "cuda/common/check.hpp"
#include "cuda/common/smem_limit.hpp"
#include "cuda/rows/rows_kernel.cuh"
#include "cuda/rows/rows_path.hpp"

namespace batchsvd::cuda {

namespace rows_detail {

/// The instance of NC = kRowsMinColumns + 2 I columns, when rows_instance_exists says it exists.
template <class DT, int I> bool try_instance(const RowsPlan& rp, JacobiParams<DT>& p, cudaStream_t stream) {
    constexpr int NC = kRowsMinColumns + 2 * I;
    if constexpr (rows_instance_exists(NC, sizeof(DT), core::is_complex_v<DT>)) {
        if (rp.nc != NC) return false;
        const RowsConsts rc = rows_consts(NC, p.M, p.N, p.need_vw, sizeof(DT), sizeof(core::real_of_t<DT>),
                                          sizeof(WarpRotation<DT>), p.layout);
        const auto kernel = &rows_jacobi_kernel<DT, NC, rows_max_registers<DT, NC>()>;
        if (rc.bytes > 48 * 1024) BATCHSVD_CUDA_CHECK(allow_dynamic_smem(kernel, std::size_t(rc.bytes)));
        kernel<<<unsigned(p.batch), unsigned(rc.threads), std::size_t(rc.bytes), stream>>>(p, rc);
        BATCHSVD_CUDA_CHECK_LAUNCH("rows_jacobi_kernel");
        return true;
    }
    return false;
}
template <class DT, int... I>
bool try_all(const RowsPlan& rp, JacobiParams<DT>& p, cudaStream_t stream, std::integer_sequence<int, I...>) {
    return (try_instance<DT, I>(rp, p, stream) || ...);
}

}  // namespace rows_detail

template <class T> void launch_rows(const RowsPlan& rp, JacobiParams<device_scalar_t<T>> p, cudaStream_t stream) {
    using DT = device_scalar_t<T>;
    using R = core::real_of_t<DT>;
    if (p.batch > INT_MAX) throw Error(ErrorCode::invalid_argument, "batchsvd::gesvd: batch too large for one launch");
    p.layout = team_layout(p.M, p.N, p.need_vw, sizeof(DT), sizeof(R));
    constexpr int sizes = (kRowsMaxColumns - kRowsMinColumns) / 2 + 1;
    if (!rows_detail::try_all<DT>(rp, p, stream, std::make_integer_sequence<int, sizes>{}))
        throw Error(ErrorCode::invalid_argument, "batchsvd: bad rows plan (internal)");
}

}  // namespace batchsvd::cuda

#define BATCHSVD_ROWS_LAUNCH_INSTANTIATE_(T) \
    template void launch_rows<T>(const RowsPlan&, JacobiParams<device_scalar_t<T>>, cudaStream_t);
