// SPDX-License-Identifier: BSD-3-Clause
// Staged copies between pageable host memory and the device (host_staging.hpp).
#include "cuda/common/host_staging.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "cuda/common/check.hpp"
#include "cuda/common/event.hpp"

namespace batchsvd::cuda {

namespace {

/// Copies of this size and more are staged; smaller ones go straight to the driver.
constexpr std::size_t kStageFrom = std::size_t(4) << 20;
/// Pinned pieces a copy cycles through, and their size: one is filled (or drained) by the
/// host threads while the others travel.
constexpr int kPieces = 3;
constexpr std::size_t kPieceBytes = std::size_t(32) << 20;
/// Host threads a piece is copied with by default, at most; kThreadBytes at least a thread.
constexpr int kMaxThreads = 16;
constexpr std::size_t kThreadBytes = std::size_t(2) << 20;

std::size_t piece_bytes() {
    if (const char* v = std::getenv("BATCHSVD_CUDA_STAGING_PIECE")) {
        const long long b = std::atoll(v);
        if (b >= 64) return std::size_t(b) & ~std::size_t(63);
    }
    return kPieceBytes;
}

bool staging_on() {
    const char* v = std::getenv("BATCHSVD_CUDA_STAGING");
    return !(v && std::string(v) == "0");
}

/// Pinned pieces kept for the process (freeing pinned memory synchronises the device), shared
/// by concurrent calls under a mutex. Portable: usable with every device.
class PiecePool {
public:
    static PiecePool& instance() {
        static PiecePool* pool = new PiecePool;  // (never destroyed: the runtime may be gone at exit)
        return *pool;
    }
    /// kPieces pieces of `bytes`, or none when pinned memory cannot be had.
    std::vector<void*> acquire(std::size_t bytes) {
        std::vector<void*> got;
        std::lock_guard<std::mutex> lock(m_);
        for (auto it = free_.begin(); it != free_.end() && int(got.size()) < kPieces;) {
            if (it->second == bytes) {
                got.push_back(it->first);
                it = free_.erase(it);
            } else {
                ++it;
            }
        }
        while (int(got.size()) < kPieces) {
            void* p = nullptr;
            if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
                (void)cudaGetLastError();
                for (void* q : got) free_.emplace_back(q, bytes);
                return {};
            }
            got.push_back(p);
        }
        return got;
    }
    void release(const std::vector<void*>& pieces, std::size_t bytes) {
        std::lock_guard<std::mutex> lock(m_);
        for (void* p : pieces) free_.emplace_back(p, bytes);
    }

private:
    std::mutex m_;
    std::vector<std::pair<void*, std::size_t>> free_;
};

/// memcpy over up to `most` OpenMP threads (page faults of untouched memory included).
void parallel_memcpy(void* dst, const void* src, std::size_t bytes, int most) {
    const int threads = int(std::min<std::size_t>(std::size_t(most), std::max<std::size_t>(1, bytes / kThreadBytes)));
    if (threads <= 1) {
        std::memcpy(dst, src, bytes);
        return;
    }
    const std::size_t part = (bytes / std::size_t(threads) + 63) & ~std::size_t(63);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int t = 0; t < threads; ++t) {
        const std::size_t first = std::min(bytes, std::size_t(t) * part);
        const std::size_t last = std::min(bytes, first + part);
        if (last > first) std::memcpy(static_cast<char*>(dst) + first, static_cast<const char*>(src) + first, last - first);
    }
}

/// The pieces of one copy and their events (the current device's); the destructor waits for
/// every copy still in flight before the pieces go back to the pool (also after an error).
struct Staging {
    std::size_t bytes;
    std::vector<void*> pieces;
    Event events[kPieces];
    bool pending[kPieces] = {};
    explicit Staging(std::size_t piece) : bytes(piece), pieces(PiecePool::instance().acquire(piece)) {}
    Staging(const Staging&) = delete;
    Staging& operator=(const Staging&) = delete;
    ~Staging() {
        if (pieces.empty()) return;
        for (int k = 0; k < kPieces; ++k)
            if (pending[k]) (void)cudaEventSynchronize(events[k].get());
        PiecePool::instance().release(pieces, bytes);
    }
    void wait(int k) {
        if (pending[k]) BATCHSVD_CUDA_CHECK(cudaEventSynchronize(events[k].get()));
        pending[k] = false;
    }
    void record(int k, cudaStream_t stream) {
        BATCHSVD_CUDA_CHECK(cudaEventRecord(events[k].get(), stream));
        pending[k] = true;
    }
};

bool pageable(const cudaPointerAttributes& a) { return a.type == cudaMemoryTypeUnregistered; }

/// Host (pageable) to device: each piece filled by the threads, then sent; a piece is filled
/// again once its last copy is done.
bool copy_in(void* dst, const void* src, std::size_t bytes, cudaStream_t stream, int threads) {
    Staging st(piece_bytes());
    if (st.pieces.empty()) return false;
    std::size_t off = 0;
    for (int i = 0; off < bytes; ++i) {
        const int k = i % kPieces;
        const std::size_t len = std::min(st.bytes, bytes - off);
        st.wait(k);
        parallel_memcpy(st.pieces[k], static_cast<const char*>(src) + off, len, threads);
        BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(dst) + off, st.pieces[k], len, cudaMemcpyHostToDevice, stream));
        st.record(k, stream);
        off += len;
    }
    for (int k = 0; k < kPieces; ++k) st.wait(k);
    return true;
}

/// Device to host (pageable): kPieces copies in flight, each piece drained by the threads
/// once it arrives and then sent for again.
bool copy_out(void* dst, const void* src, std::size_t bytes, cudaStream_t stream, int threads) {
    Staging st(piece_bytes());
    if (st.pieces.empty()) return false;
    const std::size_t n = (bytes + st.bytes - 1) / st.bytes;
    auto fetch = [&](std::size_t i) {
        const int k = int(i % kPieces);
        const std::size_t off = i * st.bytes, len = std::min(st.bytes, bytes - off);
        BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(st.pieces[k], static_cast<const char*>(src) + off, len, cudaMemcpyDeviceToHost, stream));
        st.record(k, stream);
    };
    for (std::size_t i = 0; i < std::min<std::size_t>(n, kPieces); ++i) fetch(i);
    for (std::size_t i = 0; i < n; ++i) {
        const int k = int(i % kPieces);
        const std::size_t off = i * st.bytes, len = std::min(st.bytes, bytes - off);
        st.wait(k);
        parallel_memcpy(static_cast<char*>(dst) + off, st.pieces[k], len, threads);
        if (i + kPieces < n) fetch(i + kPieces);
    }
    return true;
}

}  // namespace

void copy_async(void* dst, const void* src, std::size_t bytes, cudaStream_t stream, int threads) {
    if (bytes == 0) return;
    cudaPointerAttributes da{}, sa{};
    BATCHSVD_CUDA_CHECK(cudaPointerGetAttributes(&da, dst));
    BATCHSVD_CUDA_CHECK(cudaPointerGetAttributes(&sa, src));
    if (bytes >= kStageFrom && staging_on()) {
        threads = threads > 0 ? threads : std::min(kMaxThreads, omp_get_max_threads());
        if (pageable(sa) && da.type == cudaMemoryTypeDevice && copy_in(dst, src, bytes, stream, threads)) return;
        if (pageable(da) && sa.type == cudaMemoryTypeDevice && copy_out(dst, src, bytes, stream, threads)) return;
    }
    // Between two devices' memory a peer copy, which the driver makes for any allocation:
    // cudaMemcpyDefault fails (invalid argument) where either side is a stream-ordered
    // allocation whose pool grants the other device no access (the library's workspace pool
    // grants none; a caller's pool may not).
    if (da.type == cudaMemoryTypeDevice && sa.type == cudaMemoryTypeDevice && da.device != sa.device) {
        BATCHSVD_CUDA_CHECK(cudaMemcpyPeerAsync(dst, da.device, src, sa.device, bytes, stream));
        return;
    }
    BATCHSVD_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream));
}

}  // namespace batchsvd::cuda
