// SPDX-License-Identifier: BSD-3-Clause
// The rows kernel's plan (rows_path.hpp). The instances and the launch are in rows_launch.cuh.
#include "cuda/rows/rows_path.hpp"

#include <complex>

#include "cuda/common/device_attribute.hpp"
#include "cuda/rows/rows_kernel.cuh"

namespace batchsvd::cuda {

/// Where the rows kernel measured faster than the route before it (H100, 2026-11-28, batches
/// of 10 to 10000, bench/results/h100/2026-11-28-rows-kernel/). From 33 columns, against the
/// preconditioned blocked path or the fused kernel: blocks of up to three warps, i.e. M + N <=
/// 96 rows of [W; V_W] (squares to 48: float64 10000 x 33^2 7.80 against 11.25 ms, 48^2 14.99
/// against 15.29; float32 48^2 8.71 against 11.18; complex64 48^2 15.41 against 18.76; 10 x
/// 33^2 float32 0.273 against 0.495), and of four warps for real 2:1 shapes up to 36 columns in
/// float64 (66 x 33 9.29 against 11.97; 80 x 40 lost, 14.3 against 13.0) and 40 in float32 (80
/// x 40 7.64 against 10.05; 88 x 44 lost). Four-warp blocks lost at every square order from 49
/// (float64 56^2 24.6 against 17.6, 64^2 32.9 against 20.8), as did 4:1 shapes (float64 132 x
/// 33 18.3 against 13.7). Up to 32 columns (what the warp kernel's registers do not hold: tall
/// real shapes, complex ones): against the fused kernel, up to four warps (float32 96 x 24 2.69
/// against 4.83, float64 68 x 17 3.08 against 4.22, complex64 64 x 32 6.67 against 19.3,
/// complex128 40 x 20 4.25 against 10.7, 20^2 3.96 against 5.84), but not in float64 below 17
/// columns (64 x 16 2.44 against 2.30) nor complex128 32^2 (14.6 against 14.0); and not
/// against the preconditioned blocked path (float64 64 x 32 6.73 against 5.44: route leaves
/// those to it, choose_rows).
template <class T> RowsPlan rows_plan(index_t M, index_t N, bool need_v) {
    using R = core::real_of_t<T>;
    using DT = device_scalar_t<T>;
    RowsPlan rp;
    if (N < kRowsMinColumns - 1 || N > kRowsMaxColumns || M < N) return rp;
    const int nc = int(N + (N & 1));
    if (!rows_instance_exists(nc, sizeof(T), core::is_complex_v<T>)) return rp;
    if (std::is_same_v<R, double> && !core::is_complex_v<T> && N < 17) return rp;
    if (core::is_complex_v<T> && sizeof(R) == 8 && nc == 32 && M < 2 * N) return rp;
    const index_t rows = M + (need_v ? N : 0);
    const index_t four_warps = core::is_complex_v<T> ? 0 : std::is_same_v<R, double> ? 36 : 40;
    if (rows > 128 || (rows > 96 && N > 32 && N > four_warps)) return rp;
    const TeamLayout lay = team_layout(int(M), int(N), need_v, sizeof(T), sizeof(R));
    const RowsConsts rc = rows_consts(nc, int(M), int(N), need_v, sizeof(T), sizeof(R), sizeof(WarpRotation<DT>), lay);
    if (rc.bytes > device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin)) return rp;
    rp.fits = true;
    rp.nc = nc;
    rp.threads = rc.threads;
    return rp;
}

#define BATCHSVD_ROWS_INSTANTIATE_(T) template RowsPlan rows_plan<T>(index_t, index_t, bool);
BATCHSVD_ROWS_INSTANTIATE_(float)
BATCHSVD_ROWS_INSTANTIATE_(double)
BATCHSVD_ROWS_INSTANTIATE_(std::complex<float>)
BATCHSVD_ROWS_INSTANTIATE_(std::complex<double>)
#undef BATCHSVD_ROWS_INSTANTIATE_

}  // namespace batchsvd::cuda
