// SPDX-License-Identifier: BSD-3-Clause
// Host side of the CUDA gebrd and of the bidiagonal route to singular values
// (bidiagonal_kernels.cuh): storage and block size by shape, workspace, launches, and gebrd of
// host operands through device copies.
#include "cuda/bidiagonal/bidiagonal_path.hpp"

#include <algorithm>
#include <complex>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "cuda/bidiagonal/bidiagonal_kernels.cuh"
#include "cuda/common/check.hpp"
#include "cuda/common/device_attribute.hpp"
#include "cuda/common/device_buffer.hpp"
#include "cuda/common/host_staging.hpp"
#include "cuda/common/planning_batch.hpp"
#include "cuda/common/smem_limit.hpp"

namespace batchsvd::cuda {

namespace {

/// Bytes of shared memory a block needs to hold the M x N working matrix (leading dimension
/// M | 1, odd against bank conflicts).
template <class DT> std::size_t brd_smem(index_t M, index_t N) { return std::size_t(M | 1) * std::size_t(N) * sizeof(DT); }

/// Bytes the values route adds to them: d and e of the bidiagonal, after the matrix.
template <class DT> std::size_t brd_values_smem(index_t N) { return 2 * std::size_t(N) * sizeof(core::real_of_t<DT>); }

/// Whether the working matrix (and `extra` bytes) fits in a block's shared memory (the
/// device's opt-in limit less the kernel's static scratch).
template <class DT> bool brd_in_smem(index_t M, index_t N, std::size_t extra = 0) {
    const int optin = device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
    return brd_smem<DT>(M, N) + extra + 1024 <= std::size_t(optin);
}

/// Points a bisection step of the values kernel: BATCHSVD_CUDA_BISECTION_POINTS = 1, 3 or 7
/// (measurements), else kBrdBisectionPoints.
int bisection_points() {
    static const int p = [] {
        const char* e = std::getenv("BATCHSVD_CUDA_BISECTION_POINTS");
        const int v = e ? std::atoi(e) : 0;
        return v == 1 || v == 3 || v == 7 ? v : kBrdBisectionPoints;
    }();
    return p;
}

/// The largest working matrix (bytes of shared memory) whose values run in the reduction's
/// block: there the block's bisection runs beside other blocks' reductions, but a block holds
/// its matrix's shared memory through the bisection too, so larger matrices leave too few
/// threads an SM for the FP64 divider's latency. H100, values alone (docs/bidiagonal.md; the
/// separate kernel's times from the run of 2026-11-28): float64 10000 x 48^2 (18 KiB) fused
/// 6.40 ms against 7.08, 64^2 (32 KiB) 14.1 against 12.4, 1000 x 96^2 (72 KiB) 5.0 against 4.0.
constexpr std::size_t kFusedValuesMaxBytes = 24 * 1024;

/// How the values route runs where op(A) fits in shared memory: automatic (the values in the
/// reduction's block up to kFusedValuesMaxBytes, else the separate kernel with the count of one
/// pivot a division, as before the fused form), or for measurements BATCHSVD_CUDA_BRD_VALUES =
/// fused (in the reduction's block wherever they fit), separate (the separate kernel at every
/// size), separate-paired (the separate kernel with the fused form's count, two pivots a
/// division, and its first step of a count a thread: built, not measured yet).
enum class ValuesForm { automatic, fused, separate, separate_paired };
ValuesForm values_form() {
    static const ValuesForm f = [] {
        const char* e = std::getenv("BATCHSVD_CUDA_BRD_VALUES");
        const std::string v = e ? e : "";
        return v == "fused"             ? ValuesForm::fused
               : v == "separate"        ? ValuesForm::separate
               : v == "separate-paired" ? ValuesForm::separate_paired
                                        : ValuesForm::automatic;
    }();
    return f;
}

/// How the values route finds the bidiagonal's values: automatic (dqds in the separate kernel
/// for float64 from kDqdsFromBatch matrices, else bisection), or for measurements
/// BATCHSVD_CUDA_BRD_METHOD = dqds (dqds in the separate kernel at every batch and precision)
/// or bisection (bisection everywhere, as before dqds). (dqds in one thread of the
/// reduction's block measured slower than that block's bisection: docs/bidiagonal.md.)
enum class ValuesMethod { automatic, dqds, bisection };
ValuesMethod values_method() {
    static const ValuesMethod m = [] {
        const char* e = std::getenv("BATCHSVD_CUDA_BRD_METHOD");
        const std::string v = e ? e : "";
        return v == "dqds" ? ValuesMethod::dqds : v == "bisection" ? ValuesMethod::bisection : ValuesMethod::automatic;
    }();
    return m;
}

/// Blocks an SM for matrices in global memory: BATCHSVD_CUDA_BRD_GLOBAL_BLOCKS = 1 to 4
/// (measurements) instead of the rule in launch_gebrd_kernel (0).
int global_blocks_per_sm() {
    static const int v = [] {
        const char* e = std::getenv("BATCHSVD_CUDA_BRD_GLOBAL_BLOCKS");
        const int x = e ? std::atoi(e) : 0;
        return x >= 1 && x <= 4 ? x : 0;
    }();
    return v;
}

/// Bytes of matrix up to which gebrd in global memory takes one block an SM (launch_gebrd_kernel).
constexpr double kGlobalOneBlockBytes = 300 * 1024;

template <class DT, int Threads, BrdStorage Storage, bool Values>
void launch_gebrd_kernel(const BrdParams<DT>& p, cudaStream_t stream) {
    auto* kernel = &gebrd_kernel<DT, Threads, Storage, Values>;
    std::size_t smem = 0;
    index_t blocks = std::min<index_t>(p.batch, index_t(1) << 20);
    if constexpr (Storage == BrdStorage::shared) {
        smem = Values && p.s ? brd_fused_work_bytes<DT, Threads>(p.M | 1, p.N) + brd_values_smem<DT>(p.N)
                             : brd_smem<DT>(p.M, p.N);
        if (smem > 48 * 1024) BATCHSVD_CUDA_CHECK(allow_dynamic_smem(kernel, smem));
    } else {
        // Matrices in global memory: every step reads and writes the trailing matrix twice.
        // Blocks an SM by measurement (H100, gebrd of 1000 matrices, one to four blocks an SM,
        // docs/bidiagonal.md): one up to about 300 KB of matrix (float64 176^2 25.6 ms against
        // 41 with two or four), four above (float64 256^2 122 ms against 163 with two and 200
        // with one; 512^2 1.00 s, as two). As many as kept the matrices within half of L2 (the
        // rule before) was slower at every size: float64 256^2 287 ms, 512^2 5.5 s.
        const double bytes = double(p.M) * double(p.N) * sizeof(DT);
        const index_t sms = device_attribute(cudaDevAttrMultiProcessorCount);
        if (const int per_sm = global_blocks_per_sm()) blocks = std::min(blocks, per_sm * sms);
        else blocks = std::min<index_t>(blocks, (bytes <= kGlobalOneBlockBytes ? 1 : 4) * sms);
    }
    kernel<<<unsigned(blocks), Threads, smem, stream>>>(p);
    BATCHSVD_CUDA_CHECK_LAUNCH("gebrd_kernel");
}

/// Whether matrices of up to 32 rows take blocks of one warp: BATCHSVD_CUDA_BRD_WARP = 0 gives
/// them two (measurements).
bool brd_warp_blocks() {
    static const bool on = [] {
        const char* e = std::getenv("BATCHSVD_CUDA_BRD_WARP");
        return !(e && std::string(e) == "0");
    }();
    return on;
}

/// The block size by the working matrix's rows (the right update runs a thread a row).
template <class DT, BrdStorage Storage, bool Values> void launch_by_rows(const BrdParams<DT>& p, cudaStream_t stream) {
    if (p.M <= 32 && brd_warp_blocks()) launch_gebrd_kernel<DT, 32, Storage, Values>(p, stream);
    else if (p.M <= 64) launch_gebrd_kernel<DT, 64, Storage, Values>(p, stream);
    else if (p.M <= 128) launch_gebrd_kernel<DT, 128, Storage, Values>(p, stream);
    else if (p.M <= 256) launch_gebrd_kernel<DT, 256, Storage, Values>(p, stream);
    else if constexpr (Storage == BrdStorage::shared) launch_gebrd_kernel<DT, 256, Storage, Values>(p, stream);
    else launch_gebrd_kernel<DT, 512, Storage, Values>(p, stream);
}

template <class DT, bool Values> void launch_gebrd(const BrdParams<DT>& p, BrdStorage storage, cudaStream_t stream) {
    switch (storage) {
        case BrdStorage::shared: return launch_by_rows<DT, BrdStorage::shared, Values>(p, stream);
        case BrdStorage::in_place:
            if constexpr (!Values) return launch_by_rows<DT, BrdStorage::in_place, Values>(p, stream);
            break;
        case BrdStorage::workspace: return launch_by_rows<DT, BrdStorage::workspace, Values>(p, stream);
    }
}

/// Where the blocks keep op(A): shared memory where it fits, else A itself where allowed (gebrd
/// of a tall or square matrix), else a workspace, allocated into `work` and set in p.work.
template <class DT>
BrdStorage working_storage(BrdParams<DT>& p, bool in_place_allowed, DeviceBuffer<DT>& work, cudaStream_t stream) {
    if (brd_in_smem<DT>(p.M, p.N)) return BrdStorage::shared;
    if (in_place_allowed && !p.transpose) return BrdStorage::in_place;
    work = DeviceBuffer<DT>(std::size_t(p.batch) * std::size_t(p.M) * std::size_t(p.N), stream);
    p.work = work.get();
    return BrdStorage::workspace;
}

template <class T> BrdParams<device_scalar_t<T>> brd_params(index_t m, index_t n, index_t batch, const T* a, index_t lda, index_t stride_a, int* info) {
    using DT = device_scalar_t<T>;
    BrdParams<DT> p{};
    p.a = reinterpret_cast<const DT*>(a);
    p.lda = lda;
    p.stride_a = stride_a;
    p.info = info;
    p.batch = batch;
    p.m = int(m);
    p.n = int(n);
    p.transpose = m < n;
    p.M = int(std::max(m, n));
    p.N = int(std::min(m, n));
    return p;
}

}  // namespace

template <class T> bool bidiagonal_values_fit(index_t m, index_t n) {
    return brd_in_smem<device_scalar_t<T>>(std::max(m, n), std::min(m, n));
}

template <class T> std::size_t bidiagonal_values_bytes(index_t m, index_t n) {
    const index_t M = std::max(m, n), N = std::min(m, n);
    std::size_t bytes = 2 * std::size_t(N) * sizeof(real_t<T>) + 5 * std::size_t(N) * sizeof(double);  // d, e; dqds
    if (!bidiagonal_values_fit<T>(m, n)) bytes += std::size_t(M) * std::size_t(N) * sizeof(T);
    return bytes;
}

template <class T>
void gebrd_device(index_t m, index_t n, index_t batch, MatrixBatch<T> a, BidiagonalBatch<T> out, int* info,
                  const Options& opts) {
    using DT = device_scalar_t<T>;
    cudaStream_t stream = static_cast<cudaStream_t>(opts.stream);
    if (batch <= 0) return;
    if (std::min(m, n) == 0) {
        BATCHSVD_CUDA_CHECK(cudaMemsetAsync(info, 0, std::size_t(batch) * sizeof(int), stream));
        return;
    }
    BrdParams<DT> p = brd_params<T>(m, n, batch, a.data, a.ld, a.stride, info);
    p.a_out = reinterpret_cast<DT*>(a.data);
    p.d = out.d;
    p.e = out.e;
    p.tauq = reinterpret_cast<DT*>(out.tauq);
    p.taup = reinterpret_cast<DT*>(out.taup);
    p.vstride = out.stride;
    DeviceBuffer<DT> work;
    launch_gebrd<DT, false>(p, working_storage(p, true, work, stream), stream);
}

template <class T>
void gebrd_host(index_t m, index_t n, index_t batch, MatrixBatch<T> a, BidiagonalBatch<T> out, int* info,
                const Options& opts) {
    using R = real_t<T>;
    cudaStream_t stream = static_cast<cudaStream_t>(opts.stream);
    if (batch <= 0) return;
    const index_t k = std::min(m, n);
    if (k == 0) {
        std::fill(info, info + batch, 0);
        return;
    }
    // Device copies with the caller's layout: A from its first entry to its last, the vectors
    // likewise (gaps included, so that what lies between is copied back unchanged).
    const index_t na = (batch - 1) * a.stride + (n - 1) * a.ld + m;
    const index_t nv = (batch - 1) * out.stride + k;
    DeviceBuffer<T> da(std::size_t(na), stream), dtq(out.tauq ? std::size_t(nv) : 0, stream),
        dtp(out.taup ? std::size_t(nv) : 0, stream);
    DeviceBuffer<R> dd(std::size_t(nv), stream), de(out.e && k > 1 ? std::size_t(nv) : 0, stream);
    DeviceBuffer<int> dinfo(std::size_t(batch), stream);
    const auto copy = [&](void* dst, const void* src, index_t count, std::size_t size) {
        if (count > 0) copy_async(dst, src, std::size_t(count) * size, stream, opts.threads);
    };
    copy(da.get(), a.data, na, sizeof(T));
    if (batch > 1 && out.stride > k) {  // gaps between the vectors: copied in so that they survive the copy back
        copy(dd.get(), out.d, nv, sizeof(R));
        if (de.get()) copy(de.get(), out.e, nv - 1, sizeof(R));
        if (dtq.get()) copy(dtq.get(), out.tauq, nv, sizeof(T));
        if (dtp.get()) copy(dtp.get(), out.taup, nv, sizeof(T));
    }
    gebrd_device<T>(m, n, batch, MatrixBatch<T>{da.get(), a.ld, a.stride},
                    BidiagonalBatch<T>{dd.get(), de.get(), dtq.get(), dtp.get(), out.stride}, dinfo.get(), opts);
    copy(a.data, da.get(), na, sizeof(T));
    copy(out.d, dd.get(), nv, sizeof(R));
    if (de.get()) copy(out.e, de.get(), nv - 1, sizeof(R));
    if (dtq.get()) copy(out.tauq, dtq.get(), nv, sizeof(T));
    if (dtp.get()) copy(out.taup, dtp.get(), nv, sizeof(T));
    copy(info, dinfo.get(), batch, sizeof(int));
    BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template <class T>
void svdvals_bidiagonal(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s,
                        index_t s_stride, int* info, const Options& opts) {
    using DT = device_scalar_t<T>;
    using R = real_t<T>;
    cudaStream_t stream = static_cast<cudaStream_t>(opts.stream);
    if (batch <= 0) return;
    BrdParams<DT> p = brd_params<T>(m, n, batch, a.data, a.ld, a.stride, info);
    const index_t N = p.N;
    DeviceBuffer<DT> work;
    const ValuesForm form = values_form();
    const BrdStorage storage = working_storage(p, false, work, stream);
    const bool fused = storage == BrdStorage::shared && brd_in_smem<DT>(p.M, p.N, brd_values_smem<DT>(N)) &&
                       (form == ValuesForm::fused ||
                        (form == ValuesForm::automatic && brd_smem<DT>(p.M, p.N) <= kFusedValuesMaxBytes));
    const ValuesMethod method = values_method();
    // automatic: float64 (and complex128's real bidiagonal) from kDqdsFromBatch matrices of the
    // call (planning_batch: every chunk alike) by dqds in the separate kernel, at every order
    // (it beat the fused form's bisection too), else bisection; float32's bisection runs in
    // float arithmetic and beat dqds, which runs in double.
    const bool dqds_auto = sizeof(R) == 8 && planning_batch(batch) >= kDqdsFromBatch;
    const bool dqds = method == ValuesMethod::dqds || (method == ValuesMethod::automatic && dqds_auto);
    if (fused && !dqds) {
        p.s = s;
        p.s_stride = s_stride;
        p.sweeps = opts.sweeps;
        launch_gebrd<DT, true>(p, storage, stream);
        return;
    }
    DeviceBuffer<R> de(2 * std::size_t(batch) * std::size_t(N), stream);
    p.d = de.get();
    p.e = de.get() + std::size_t(batch) * std::size_t(N);
    p.vstride = N;
    launch_gebrd<DT, true>(p, storage, stream);
    if (dqds) {
        // A thread a matrix, spread over the SMs: blocks of up to 32 threads, fewer where the
        // batch would leave SMs without one.
        DeviceBuffer<double> dq_work(5 * std::size_t(batch) * std::size_t(N), stream);
        const index_t sms = device_attribute(cudaDevAttrMultiProcessorCount);
        int threads = 1;
        while (threads < 32 && index_t(threads) * sms < batch) threads *= 2;
        const index_t blocks = std::min<index_t>((batch + threads - 1) / threads, index_t(1) << 20);
        bidiagonal_dqds_kernel<R><<<unsigned(blocks), threads, 0, stream>>>(p.d, p.e, int(N), batch, info, s, s_stride,
                                                                           opts.sweeps, dq_work.get());
        BATCHSVD_CUDA_CHECK_LAUNCH("bidiagonal_dqds_kernel");
        return;
    }
    const int threads = int(std::min<index_t>(kBrdValueThreads, (N + 31) / 32 * 32));
    const std::size_t smem = 3 * std::size_t(N) * sizeof(R) + std::size_t(threads) * sizeof(int);
    const int points = bisection_points();
    auto* kernel = form == ValuesForm::separate_paired ? &bidiagonal_values_kernel<R, 1, true>
                   : points == 1 ? &bidiagonal_values_kernel<R, 1, false>
                   : points == 7 ? &bidiagonal_values_kernel<R, 7, false>
                                 : &bidiagonal_values_kernel<R, 3, false>;
    if (smem > 48 * 1024) BATCHSVD_CUDA_CHECK(allow_dynamic_smem(kernel, smem));
    kernel<<<unsigned(std::min<index_t>(batch, index_t(1) << 20)), threads, smem, stream>>>(
        p.d, p.e, int(N), batch, info, s, s_stride, opts.sweeps);
    BATCHSVD_CUDA_CHECK_LAUNCH("bidiagonal_values_kernel");
}

template <class T> bool bidiagonal_values_faster(index_t m, index_t n, index_t batch) {
    using DT = device_scalar_t<T>;
    const index_t M = std::max(m, n), N = std::min(m, n);
    if constexpr (!std::is_same_v<T, real_t<T>>) return false;  // complex: not measured
    // float64 by dqds (kDqdsMethodFromBatch matrices or more) from 17 columns, else from 33.
    const index_t from =
        sizeof(T) == 8 && batch >= kDqdsMethodFromBatch ? kBidiagonalDqdsValuesFrom : kBidiagonalValuesFrom;
    if (N < from || 4 * M > 5 * N || !bidiagonal_values_fit<T>(m, n)) return false;
    if constexpr (sizeof(T) == 4) return true;
    // float64: while two blocks fit on an SM (one block an SM left 128^2 at 0.74x the Jacobi
    // iteration's speed, against 1.23x at 112^2).
    const int per_sm = device_attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor);
    return brd_smem<DT>(M, N) + 2048 <= std::size_t(per_sm) / 2;
}

#define BATCHSVD_BRD_INSTANTIATE_(T)                                                                             \
    template bool bidiagonal_values_fit<T>(index_t, index_t);                                                    \
    template std::size_t bidiagonal_values_bytes<T>(index_t, index_t);                                          \
    template bool bidiagonal_values_faster<T>(index_t, index_t, index_t);                                       \
    template void gebrd_device<T>(index_t, index_t, index_t, MatrixBatch<T>, BidiagonalBatch<T>, int*,           \
                                  const Options&);                                                               \
    template void gebrd_host<T>(index_t, index_t, index_t, MatrixBatch<T>, BidiagonalBatch<T>, int*,             \
                                const Options&);                                                                 \
    template void svdvals_bidiagonal<T>(index_t, index_t, index_t, MatrixBatch<const T>, real_t<T>*, index_t,   \
                                        int*, const Options&);
BATCHSVD_BRD_INSTANTIATE_(float)
BATCHSVD_BRD_INSTANTIATE_(double)
BATCHSVD_BRD_INSTANTIATE_(std::complex<float>)
BATCHSVD_BRD_INSTANTIATE_(std::complex<double>)
#undef BATCHSVD_BRD_INSTANTIATE_

}  // namespace batchsvd::cuda
