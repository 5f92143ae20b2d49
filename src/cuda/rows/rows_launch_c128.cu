// SPDX-License-Identifier: BSD-3-Clause
// The rows kernel's instances for complex128 (rows_launch.cuh): 8 to 32 columns (a row of 34
// would take 136 registers).
#include <complex>

#include "cuda/rows/rows_launch.cuh"

namespace batchsvd::cuda {
BATCHSVD_ROWS_LAUNCH_INSTANTIATE_(std::complex<double>)
}  // namespace batchsvd::cuda
