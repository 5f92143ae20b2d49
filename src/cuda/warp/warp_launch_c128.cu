// SPDX-License-Identifier: BSD-3-Clause
// The warp kernel's instances for one precision (warp_launch.cuh).
#include <complex>

#include "cuda/warp/warp_launch.cuh"

namespace batchsvd::cuda {
BATCHSVD_WARP_LAUNCH_INSTANTIATE_(std::complex<double>)
}  // namespace batchsvd::cuda
