// SPDX-License-Identifier: BSD-3-Clause
// The rows kernel's launch for complex128, which has no instance (a row of 34 columns would
// take 136 registers): rows_plan never fits it, and launch_rows throws.
#include <complex>

#include "cuda/rows/rows_launch.cuh"

namespace batchsvd::cuda {
BATCHSVD_ROWS_LAUNCH_INSTANTIATE_(std::complex<double>)
}  // namespace batchsvd::cuda
