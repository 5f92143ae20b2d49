// SPDX-License-Identifier: BSD-3-Clause
// gesvd_vbatched on the CUDA backend: the matrices are grouped by size (m, n); each group is
// gathered into a packed batch, solved by the one-size entry points (gesvd_device, gesvd_host)
// as one batch, and scattered back into the caller's matrices. Device data: groups run on
// kStreams library streams at once, largest groups first, after the work queued on the
// caller's stream (one table of every matrix's operands, copied once); the call returns
// when every group is done. Host data: group after group,
// each packed on the host and staged through the device by gesvd_host.
#include <cuda_runtime.h>

#include <algorithm>
#include <complex>
#include <map>
#include <utility>
#include <vector>

#include "cuda/common/check.hpp"
#include "cuda/common/device_attribute.hpp"
#include "cuda/common/device_buffer.hpp"
#include "cuda/common/event.hpp"
#include "cuda/common/owned_stream.hpp"
#include "cuda/svd_cuda.hpp"

namespace batchsvd::cuda {
namespace {

constexpr int kStreams = 4;

/// One matrix of a group: where its operands are, and its index in the call.
struct Entry {
    const void* a;
    index_t lda;
    void* s;
    void* u;
    index_t ldu;
    void* v;
    index_t ldv;
    index_t index;
};

/// An element as raw bytes (the copies need no arithmetic).
template <int Bytes> struct alignas(Bytes) Raw {
    unsigned char b[Bytes];
};

/// Copies rows x cols column-major blocks between one side with a leading dimension per matrix
/// (the caller's) and a packed batch (leading dimension rows, rows * cols apart). Grid: x over
/// elements, y over the group's matrices.
template <class E, bool ToPacked>
__global__ void copy_kernel(const Entry* entries, int which, index_t count, index_t rows, index_t cols, E* packed) {
    for (index_t j = blockIdx.y; j < count; j += gridDim.y) {
        const Entry& e = entries[j];
        E* p = packed + j * rows * cols;
        E* user = static_cast<E*>(which == 0 ? const_cast<void*>(e.a) : which == 1 ? e.s : which == 2 ? e.u : e.v);
        const index_t ld = which == 0 ? e.lda : which == 1 ? rows : which == 2 ? e.ldu : e.ldv;
        if (!user) continue;
        for (index_t idx = index_t(blockIdx.x) * blockDim.x + threadIdx.x; idx < rows * cols;
             idx += index_t(gridDim.x) * blockDim.x) {
            const index_t r = idx % rows, c = idx / rows;
            if (ToPacked) p[idx] = user[r + c * ld];
            else user[r + c * ld] = p[idx];
        }
    }
}

__global__ void info_kernel(const Entry* entries, index_t count, const int* packed, int* info) {
    for (index_t j = index_t(blockIdx.x) * blockDim.x + threadIdx.x; j < count; j += index_t(gridDim.x) * blockDim.x)
        info[entries[j].index] = packed ? packed[j] : 0;
}

template <class E, bool ToPacked>
void copy(const Entry* entries, int which, index_t count, index_t rows, index_t cols, void* packed, cudaStream_t st) {
    if (rows * cols == 0) return;
    const unsigned gx = unsigned(std::clamp<index_t>((rows * cols + 255) / 256, 1, 64));
    const unsigned gy = unsigned(std::min<index_t>(count, 65535));
    copy_kernel<E, ToPacked><<<dim3(gx, gy), 256, 0, st>>>(entries, which, count, rows, cols, static_cast<E*>(packed));
    BATCHSVD_CUDA_CHECK_LAUNCH("vbatched copy_kernel");
}

/// The call's groups: the indices of the matrices of each size, largest total work first.
std::vector<std::pair<std::pair<index_t, index_t>, std::vector<index_t>>> groups_of(index_t batch, const index_t* m,
                                                                                     const index_t* n) {
    std::map<std::pair<index_t, index_t>, std::vector<index_t>> by_size;
    for (index_t b = 0; b < batch; ++b) by_size[{m[b], n[b]}].push_back(b);
    std::vector<std::pair<std::pair<index_t, index_t>, std::vector<index_t>>> g(by_size.begin(), by_size.end());
    auto work = [](const auto& x) {
        const auto [mm, nn] = x.first;
        return double(mm) * double(nn) * double(std::min(mm, nn)) * double(x.second.size());
    };
    std::stable_sort(g.begin(), g.end(), [&](const auto& x, const auto& y) { return work(x) > work(y); });
    return g;
}

}  // namespace

template <class T>
void gesvd_vbatched(index_t batch, const index_t* m, const index_t* n, MatrixList<const T> a,
                    real_t<T>* const* s, MatrixList<T> u, MatrixList<T> v, int* info, const Options& opts,
                    bool device_data) {
    using R = real_t<T>;
    using E = Raw<int(sizeof(T))>;
    using ER = Raw<int(sizeof(R))>;
    const auto groups = groups_of(batch, m, n);
    if (!device_data) {
        for (const auto& [size, idx] : groups) {
            const auto [mm, nn] = size;
            const index_t c = index_t(idx.size()), k = std::min(mm, nn);
            if (k == 0) {
                for (index_t b : idx) info[b] = 0;
                continue;
            }
            std::vector<T> pa(std::size_t(c * mm * nn)), pu(opts.compute_u ? std::size_t(c * mm * k) : 0),
                pv(opts.compute_v ? std::size_t(c * nn * k) : 0);
            std::vector<R> ps(std::size_t(c * k));
            std::vector<int> pi(static_cast<std::size_t>(c));
            for (index_t j = 0; j < c; ++j)
                for (index_t col = 0; col < nn; ++col)
                    std::copy_n(a.data[idx[j]] + col * a.ld[idx[j]], mm, pa.data() + (j * nn + col) * mm);
            Options o = opts;
            gesvd_host<T>(mm, nn, c, MatrixBatch<const T>{pa.data(), mm, mm * nn}, ps.data(), k,
                          MatrixBatch<T>{pu.empty() ? nullptr : pu.data(), mm, mm * k},
                          MatrixBatch<T>{pv.empty() ? nullptr : pv.data(), nn, nn * k}, pi.data(), o);
            for (index_t j = 0; j < c; ++j) {
                const index_t b = idx[j];
                info[b] = pi[j];
                std::copy_n(ps.data() + j * k, k, s[b]);
                for (index_t col = 0; col < k; ++col) {
                    if (opts.compute_u) std::copy_n(pu.data() + (j * k + col) * mm, mm, u.data[b] + col * u.ld[b]);
                    if (opts.compute_v) std::copy_n(pv.data() + (j * k + col) * nn, nn, v.data[b] + col * v.ld[b]);
                }
            }
        }
        return;
    }
    // Every group's entries in one table, copied to the device once, before the groups start
    // (the copy is ordered on the caller's stream, after its earlier work; the groups' streams
    // wait for both).
    cudaStream_t caller = static_cast<cudaStream_t>(opts.stream);
    std::vector<Entry> host;
    std::vector<std::size_t> first_entry;
    for (const auto& [size, idx] : groups) {
        const index_t k = std::min(size.first, size.second);
        first_entry.push_back(host.size());
        for (index_t b : idx)
            host.push_back(Entry{a.data[b], a.ld[b], k ? s[b] : nullptr, opts.compute_u && k ? u.data[b] : nullptr,
                                 opts.compute_u ? u.ld[b] : 1, opts.compute_v && k ? v.data[b] : nullptr,
                                 opts.compute_v ? v.ld[b] : 1, b});
    }
    DeviceBuffer<Entry> table(host.size(), caller);  // (freed after the streams below are synchronised)
    // (from pageable memory: returns once `host` is staged, so it may go out of scope after)
    BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(table.get(), host.data(), host.size() * sizeof(Entry), cudaMemcpyHostToDevice, caller));
    const Event ready;
    BATCHSVD_CUDA_CHECK(cudaEventRecord(ready.get(), caller));
    OwnedStream streams[kStreams];  // (destroyed first: synchronised before the table is freed)
    for (OwnedStream& st : streams) BATCHSVD_CUDA_CHECK(cudaStreamWaitEvent(st.s, ready.get(), 0));
    for (std::size_t g = 0; g < groups.size(); ++g) {
        const auto [mm, nn] = groups[g].first;
        const index_t c = index_t(groups[g].second.size()), k = std::min(mm, nn);
        cudaStream_t st = streams[g % kStreams].s;
        const Entry* entries = table.get() + first_entry[g];
        const unsigned info_blocks = unsigned(std::clamp<index_t>((c + 255) / 256, 1, 1024));
        if (k == 0) {
            info_kernel<<<info_blocks, 256, 0, st>>>(entries, c, nullptr, info);
            BATCHSVD_CUDA_CHECK_LAUNCH("vbatched info_kernel");
            continue;
        }
        DeviceBuffer<T> pa(std::size_t(c * mm * nn), st), pu(opts.compute_u ? std::size_t(c * mm * k) : 0, st),
            pv(opts.compute_v ? std::size_t(c * nn * k) : 0, st);
        DeviceBuffer<R> ps(std::size_t(c * k), st);
        DeviceBuffer<int> pi(std::size_t(c), st);
        copy<E, true>(entries, 0, c, mm, nn, pa.get(), st);
        Options o = opts;
        o.stream = st;
        gesvd_device<T>(mm, nn, c, MatrixBatch<const T>{pa.get(), mm, mm * nn}, ps.get(), k,
                        MatrixBatch<T>{pu.get(), mm, mm * k}, MatrixBatch<T>{pv.get(), nn, nn * k}, pi.get(), o);
        copy<ER, false>(entries, 1, c, k, 1, ps.get(), st);
        if (opts.compute_u) copy<E, false>(entries, 2, c, mm, k, pu.get(), st);
        if (opts.compute_v) copy<E, false>(entries, 3, c, nn, k, pv.get(), st);
        info_kernel<<<info_blocks, 256, 0, st>>>(entries, c, pi.get(), info);
        BATCHSVD_CUDA_CHECK_LAUNCH("vbatched info_kernel");
    }
    for (OwnedStream& st : streams) BATCHSVD_CUDA_CHECK(cudaStreamSynchronize(st.s));
}

#define BATCHSVD_INSTANTIATE_(T)                                                                     \
    template void gesvd_vbatched<T>(index_t, const index_t*, const index_t*, MatrixList<const T>,  \
                                    real_t<T>* const*, MatrixList<T>, MatrixList<T>, int*, const Options&, bool);
BATCHSVD_INSTANTIATE_(float)
BATCHSVD_INSTANTIATE_(double)
BATCHSVD_INSTANTIATE_(std::complex<float>)
BATCHSVD_INSTANTIATE_(std::complex<double>)
#undef BATCHSVD_INSTANTIATE_

}  // namespace batchsvd::cuda
