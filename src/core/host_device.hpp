// SPDX-License-Identifier: BSD-3-Clause
// Lets the shared algorithm headers compile for the CPU (plain C++) and inside CUDA kernels.
#pragma once

#if defined(__CUDACC__)
#define BATCHSVD_HD __host__ __device__ __forceinline__
#else
#define BATCHSVD_HD inline
#endif
