// SPDX-License-Identifier: BSD-3-Clause
// The injected-fault switch (fault_injection.hpp).
#include "cuda/common/fault_injection.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace batchsvd::cuda {

namespace detail {
std::atomic<int> fault_mode{2};
std::atomic<std::size_t> live_device_bytes{0};
}  // namespace detail

namespace {

struct FaultState {
    std::atomic<long> target[2] = {0, 0};  ///< by FaultKind: the point that fails, 0 none
    std::atomic<long> seen[2] = {0, 0};
    std::atomic<long> injected{0};
};
FaultState& state() {
    static FaultState s;
    return s;
}
int index_of(testing::FaultKind kind) { return kind == testing::FaultKind::alloc ? 0 : 1; }

void arm(testing::FaultKind kind, long n) {
    FaultState& s = state();
    s.target[0] = 0;
    s.target[1] = 0;
    s.seen[0] = 0;
    s.seen[1] = 0;
    s.injected = 0;
    s.target[index_of(kind)] = n > 0 ? n : 0;
    detail::fault_mode.store(1, std::memory_order_release);
}

/// BATCHSVD_CUDA_FAULT=alloc:N or call:N (N >= 1) arms the switch; anything else leaves it off
/// (a malformed value is reported once on stderr).
void read_environment() {
    static std::once_flag once;
    std::call_once(once, [] {
        const char* v = std::getenv("BATCHSVD_CUDA_FAULT");
        int expected = 2;
        if (!v || !*v) {
            detail::fault_mode.compare_exchange_strong(expected, 0);
            return;
        }
        const char* colon = std::strchr(v, ':');
        char* end = nullptr;
        const long n = colon ? std::strtol(colon + 1, &end, 10) : 0;
        const std::size_t name = colon ? std::size_t(colon - v) : 0;
        const bool alloc = name == 5 && std::strncmp(v, "alloc", 5) == 0;
        const bool call = name == 4 && std::strncmp(v, "call", 4) == 0;
        if ((alloc || call) && n >= 1 && end && *end == '\0') {
            arm(alloc ? testing::FaultKind::alloc : testing::FaultKind::call, n);
            return;
        }
        std::fprintf(stderr, "batchsvd: BATCHSVD_CUDA_FAULT=%s ignored (expected alloc:N or call:N, N >= 1)\n", v);
        detail::fault_mode.compare_exchange_strong(expected, 0);
    });
}

}  // namespace

namespace detail {

bool fault_point_slow(testing::FaultKind kind) {
    if (fault_mode.load(std::memory_order_acquire) == 2) read_environment();
    if (fault_mode.load(std::memory_order_acquire) == 0) return false;
    FaultState& s = state();
    const int i = index_of(kind);
    const long n = s.seen[i].fetch_add(1) + 1;
    if (n != s.target[i].load()) return false;
    s.injected.fetch_add(1);
    return true;
}

}  // namespace detail

namespace testing {

void arm_fault(FaultKind kind, long n) {
    read_environment();  // (so that the environment, read later, cannot replace this)
    arm(kind, n);
}

void disarm() {
    read_environment();
    detail::fault_mode.store(0, std::memory_order_release);
    state().target[0] = 0;
    state().target[1] = 0;
}

long points_seen(FaultKind kind) { return state().seen[index_of(kind)].load(); }

long faults_injected() { return state().injected.load(); }

std::size_t live_device_bytes() { return detail::live_device_bytes.load(); }

}  // namespace testing

}  // namespace batchsvd::cuda
