// SPDX-License-Identifier: BSD-3-Clause
#include "cpu/blas_threads.hpp"

#include <mutex>

// Weak: resolved where the loaded BLAS defines them, null otherwise.
extern "C" {
void openblas_set_num_threads(int) __attribute__((weak));
int openblas_get_num_threads(void) __attribute__((weak));
}

namespace batchsvd::cpu {
namespace {

std::mutex holders_mutex;
int holders = 0;
int openblas_before = 0;

}  // namespace

SingleThreadedBlas::SingleThreadedBlas() {
    const std::lock_guard<std::mutex> lock(holders_mutex);
    if (holders++ > 0) return;
    if (openblas_set_num_threads && openblas_get_num_threads) {
        openblas_before = openblas_get_num_threads();
        if (openblas_before != 1) openblas_set_num_threads(1);
    }
}

SingleThreadedBlas::~SingleThreadedBlas() {
    const std::lock_guard<std::mutex> lock(holders_mutex);
    if (--holders > 0) return;
    if (openblas_set_num_threads && openblas_get_num_threads && openblas_before > 1)
        openblas_set_num_threads(openblas_before);
}

}  // namespace batchsvd::cpu
