// SPDX-License-Identifier: BSD-3-Clause
// Host driver of the CUDA QR pre-processing (qr_path.hpp).
#include "cuda/qr/qr_path.hpp"

#include <algorithm>
#include <complex>

#include "cuda/blocked/blocked_path.hpp"
#include "cuda/common/check.hpp"
#include "cuda/common/device_attribute.hpp"
#include "cuda/common/device_buffer.hpp"
#include "cuda/precondition/precondition.hpp"
#include "cuda/qr/qr_kernels.cuh"
#include "cuda/svd_cuda.hpp"
#include "cuda/common/smem_limit.hpp"

namespace batchsvd::cuda {

namespace {

/// Elements per matrix of run_qr's own workspace (W, tau, R).
std::size_t qr_elements(index_t M, index_t N) { return std::size_t(M * N + N + N * N); }

template <class Kernel> void configure_smem(Kernel kernel, std::size_t bytes) {
    if (bytes > 48 * 1024)
        BATCHSVD_CUDA_CHECK(allow_dynamic_smem(kernel, bytes));
}

}  // namespace

std::size_t qr_panel_smem_limit() {
    // The device's opt-in limit less the kernels' static shared memory (a few reduction slots).
    const int optin = device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
    return std::size_t(optin) > 1024 ? std::size_t(optin) - 1024 : 0;
}

std::size_t qr_workspace_bytes(index_t M, index_t N, bool need_vw, std::size_t tsize,
                               std::size_t rsize) {
    // The SVD of R (N x N) may take the blocked path, whose workspace (and its preconditioner's,
    // Options::precondition) comes on top.
    return qr_elements(M, N) * tsize + sizeof(BlockedState) + blocked_workspace_bytes(N, N, need_vw, tsize, rsize) +
           precondition_workspace_bytes(N, N, tsize);
}

template <class T> void run_qr(const JacobiParams<device_scalar_t<T>>& q, const Options& opts, cudaStream_t stream) {
    using DT = device_scalar_t<T>;
    const index_t M = q.M, N = q.N, batch = q.batch;
    DeviceBuffer<DT> w(std::size_t(batch) * M * N, stream);
    DeviceBuffer<DT> tau(std::size_t(batch) * N, stream);
    DeviceBuffer<DT> r(std::size_t(batch) * N * N, stream);
    DeviceBuffer<BlockedState> state(batch, stream);
    BATCHSVD_CUDA_CHECK(cudaMemsetAsync(state.get(), 0, batch * sizeof(BlockedState), stream));

    // W = A or A^H, scaled, by the blocked path's scan and load passes (no V_W here).
    BlockedParams<DT> bp{};
    bp.out = q;
    bp.W = w.get();
    bp.state = state.get();
    load_working_matrices(bp, stream);

    QrParams<DT> qp{w.get(), tau.get(), r.get(), state.get(), batch, int(M), int(N)};
    const unsigned blocks = unsigned(std::min<index_t>(batch, index_t(1) << 20));
    // The panel in shared memory where it fits (one pass over global memory each way), else
    // the same code on global memory.
    const std::size_t panel = std::size_t(M) * N * sizeof(DT);
    const bool in_smem = panel <= qr_panel_smem_limit();
    if (in_smem) {
        configure_smem(&householder_qr_kernel<DT, true>, panel);
        householder_qr_kernel<DT, true><<<blocks, kQrThreads, panel, stream>>>(qp);
    } else {
        householder_qr_kernel<DT, false><<<blocks, kQrThreads, 0, stream>>>(qp);
    }
    BATCHSVD_CUDA_CHECK_LAUNCH("householder_qr_kernel");

    // SVD of R (N x N): U_R into the first N rows of U_W's output, V_R is V_W (U_W is U_A
    // when tall, V_A when wide; V_W the other one).
    DT* uw = q.transpose ? q.v : q.u;
    const index_t ld_uw = q.transpose ? q.ldv : q.ldu, st_uw = q.transpose ? q.stride_v : q.stride_u;
    DT* vw = q.transpose ? q.u : q.v;
    const index_t ld_vw = q.transpose ? q.ldu : q.ldv, st_vw = q.transpose ? q.stride_u : q.stride_v;
    Options o = opts;
    o.qr = QrMode::never;
    o.sweeps = q.sweeps;
    o.compute_u = q.transpose ? q.compute_v : q.compute_u;
    o.compute_v = q.need_vw;
    gesvd_device<T>(N, N, batch, MatrixBatch<const T>{reinterpret_cast<const T*>(r.get()), N, N * N}, q.s,
                    q.s_stride, MatrixBatch<T>{reinterpret_cast<T*>(uw), ld_uw, st_uw},
                    MatrixBatch<T>{reinterpret_cast<T*>(vw), ld_vw, st_vw}, q.info, o);

    if (o.compute_u) {
        if (in_smem) {
            configure_smem(&apply_q_kernel<DT, true>, panel);
            apply_q_kernel<DT, true><<<blocks, kQrThreads, panel, stream>>>(qp, uw, ld_uw, st_uw);
        } else {
            apply_q_kernel<DT, false><<<blocks, kQrThreads, 0, stream>>>(qp, uw, ld_uw, st_uw);
        }
        BATCHSVD_CUDA_CHECK_LAUNCH("apply_q_kernel");
    }
    qr_fixup_kernel<DT><<<blocks, 128, 0, stream>>>(q, state.get());
    BATCHSVD_CUDA_CHECK_LAUNCH("qr_fixup_kernel");
}

#define BATCHSVD_QR_INSTANTIATE_(T)                                                                 \
    template void run_qr<T>(const JacobiParams<device_scalar_t<T>>&, const Options&, cudaStream_t);
BATCHSVD_QR_INSTANTIATE_(float)
BATCHSVD_QR_INSTANTIATE_(double)
BATCHSVD_QR_INSTANTIATE_(std::complex<float>)
BATCHSVD_QR_INSTANTIATE_(std::complex<double>)
#undef BATCHSVD_QR_INSTANTIATE_

}  // namespace batchsvd::cuda
