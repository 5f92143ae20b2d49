// Host driver of the CUDA QR pre-processing (qr_path.hpp).
#include "cuda/qr_path.hpp"

#include <algorithm>
#include <complex>

#include "cuda/check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/qr_kernels.cuh"
#include "cuda/svd_cuda.hpp"

namespace batchsvd::cuda {

template <class T>
void run_qr(const JacobiParams<device_scalar_t<T>>& q, index_t batch, real_t<T>* s,
            index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info, const Options& opts,
            cudaStream_t stream) {
    using DT = device_scalar_t<T>;
    const index_t M = q.M, N = q.N;
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
    const unsigned gy = unsigned(std::min<index_t>(batch, 65535));
    const index_t per_block = index_t(kBlockedThreads) * 8;
    const index_t want = std::max<index_t>(1, 1024 / batch);
    const unsigned gx = unsigned(std::clamp<index_t>((M * N + per_block - 1) / per_block, 1, want));
    blocked_scan_kernel<DT><<<dim3(gx, gy), kBlockedThreads, 0, stream>>>(bp);
    BATCHSVD_CUDA_CHECK_LAUNCH("blocked_scan_kernel");
    blocked_load_kernel<DT><<<dim3(gx, gy), kBlockedThreads, 0, stream>>>(bp);
    BATCHSVD_CUDA_CHECK_LAUNCH("blocked_load_kernel");

    QrParams<DT> qp{w.get(), tau.get(), r.get(), state.get(), batch, int(M), int(N)};
    const unsigned blocks = unsigned(std::min<index_t>(batch, index_t(1) << 20));
    householder_qr_kernel<DT><<<blocks, kQrThreads, 0, stream>>>(qp);
    BATCHSVD_CUDA_CHECK_LAUNCH("householder_qr_kernel");

    // SVD of R (N x N): U_R into the first N rows of U_W's output, V_R is V_W.
    T* uw = q.transpose ? v.data : u.data;
    const index_t ld_uw = q.transpose ? v.ld : u.ld, st_uw = q.transpose ? v.stride : u.stride;
    T* vw = q.transpose ? u.data : v.data;
    const index_t ld_vw = q.transpose ? u.ld : v.ld, st_vw = q.transpose ? u.stride : v.stride;
    const bool want_uw = q.transpose ? opts.compute_v : opts.compute_u;
    const bool want_vw = q.transpose ? opts.compute_u : opts.compute_v;
    Options o = opts;
    o.qr = QrMode::never;
    o.compute_u = want_uw;
    o.compute_v = want_vw;
    gesvd_device<T>(N, N, batch, MatrixBatch<const T>{reinterpret_cast<const T*>(r.get()), N, N * N}, s,
                    s_stride, MatrixBatch<T>{uw, ld_uw, st_uw}, MatrixBatch<T>{vw, ld_vw, st_vw}, info, o);

    if (want_uw) {
        apply_q_kernel<DT><<<blocks, kQrThreads, 0, stream>>>(qp, reinterpret_cast<DT*>(uw), ld_uw, st_uw);
        BATCHSVD_CUDA_CHECK_LAUNCH("apply_q_kernel");
    }
    qr_fixup_kernel<DT><<<blocks, 128, 0, stream>>>(q, state.get());
    BATCHSVD_CUDA_CHECK_LAUNCH("qr_fixup_kernel");
}

#define BATCHSVD_QR_INSTANTIATE_(T)                                                                 \
    template void run_qr<T>(const JacobiParams<device_scalar_t<T>>&, index_t, real_t<T>*, index_t, \
                            MatrixBatch<T>, MatrixBatch<T>, int*, const Options&, cudaStream_t);
BATCHSVD_QR_INSTANTIATE_(float)
BATCHSVD_QR_INSTANTIATE_(double)
BATCHSVD_QR_INSTANTIATE_(std::complex<float>)
BATCHSVD_QR_INSTANTIATE_(std::complex<double>)
#undef BATCHSVD_QR_INSTANTIATE_

}  // namespace batchsvd::cuda
