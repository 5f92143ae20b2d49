// SPDX-License-Identifier: BSD-3-Clause
// The rows kernel's instances for one precision (rows_launch.cuh).
#include <complex>

#include "cuda/rows/rows_launch.cuh"

namespace batchsvd::cuda {
BATCHSVD_ROWS_LAUNCH_INSTANTIATE_(double)
}  // namespace batchsvd::cuda
