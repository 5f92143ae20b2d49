// SPDX-License-Identifier: BSD-3-Clause
// NCCL, loaded when first needed (dlopen) rather than linked: the library and its Python
// module then run without NCCL installed, and only the one-matrix path over several devices
// (one_matrix_over_devices.cu) asks for it. Searched for, in order: BATCHSVD_NCCL_LIBRARY (a
// path), libnccl.so.2 as the dynamic loader finds it (LD_LIBRARY_PATH, an NCCL already loaded
// by the process, such as PyTorch's), and the CUDA toolkit's library folder found at build time.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <string>

namespace batchsvd::cuda {

/// The NCCL functions the library calls.
struct NcclApi {
    ncclResult_t (*GetVersion)(int*);
    ncclResult_t (*GetUniqueId)(ncclUniqueId*);
    ncclResult_t (*CommInitRank)(ncclComm_t*, int, ncclUniqueId, int);
    ncclResult_t (*CommInitAll)(ncclComm_t*, int, const int*);
    ncclResult_t (*CommDestroy)(ncclComm_t);
    ncclResult_t (*CommAbort)(ncclComm_t);
    ncclResult_t (*CommGetAsyncError)(ncclComm_t, ncclResult_t*);
    const char* (*GetErrorString)(ncclResult_t);
    ncclResult_t (*GroupStart)();
    ncclResult_t (*GroupEnd)();
    ncclResult_t (*Send)(const void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
    ncclResult_t (*Recv)(void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
    ncclResult_t (*AllReduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t);
    ncclResult_t (*Broadcast)(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
};

/// Whether NCCL can be loaded (loads it on the first call).
bool nccl_available();

/// The loaded NCCL; Error{backend_unavailable} saying where it was looked for when it cannot be
/// loaded.
const NcclApi& nccl();

/// Throws Error{device_error} naming `what` and NCCL's message unless r is ncclSuccess.
void nccl_check(ncclResult_t r, const char* what);

}  // namespace batchsvd::cuda
