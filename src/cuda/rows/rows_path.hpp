// SPDX-License-Identifier: BSD-3-Clause
// Host side of the register-resident rows kernel (rows_kernel.cuh): which sizes it takes, and
// its launch.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

#include "batchsvd/batchsvd.hpp"
#include "cuda/common/kernel_common.cuh"

namespace batchsvd::cuda {

/// How the rows kernel runs an M x N working matrix (M >= N): nc columns (N rounded up to
/// even, 8 to 48) and a block of `threads` threads, one row of [W; V_W] a thread. fits is
/// false where the kernel does not take the matrix (rows_plan) or has no instance for it,
/// or where the device gives a block less shared memory than it needs.
struct RowsPlan {
    bool fits = false;
    int nc = 0, threads = 0;
};
template <class T> RowsPlan rows_plan(index_t M, index_t N, bool need_v);

/// Columns of the rows kernel's instances (real types from kRowsMinRealColumns), and the
/// register words a row may take.
inline constexpr int kRowsMinColumns = 8, kRowsMinRealColumns = 18, kRowsMaxColumns = 48, kRowsMaxWords = 128;

/// Whether the rows kernel has an instance of nc columns for a type of tsize bytes: a row of
/// nc values within kRowsMaxWords registers (complex128 to 32 columns).
constexpr bool rows_instance_exists(int nc, std::size_t tsize, bool complex) {
    return nc % 2 == 0 && nc >= (complex ? kRowsMinColumns : kRowsMinRealColumns) && nc <= kRowsMaxColumns &&
           nc * int(tsize / 4) <= kRowsMaxWords;
}

/// Launches the rows kernel on p (JacobiParams filled by the caller, team fields unused).
template <class T>
void launch_rows(const RowsPlan& rp, JacobiParams<device_scalar_t<T>> p, cudaStream_t stream);

}  // namespace batchsvd::cuda
