// SPDX-License-Identifier: BSD-3-Clause
// The CPU backend's OpenMP loops over a batch (hsvd, eigh_indefinite, gebrd, the bidiagonal
// route): their thread count, and their errors: an exception must not leave a parallel
// region (the program would terminate), so each matrix's work runs under BatchErrors::run,
// which keeps the first exception, and the caller rethrows it after the region
// (std::bad_alloc as batchsvd::Error out_of_memory, as gesvd does).
#pragma once

#include <omp.h>

#include <algorithm>
#include <exception>
#include <new>
#include <utility>

#include "batchsvd/batchsvd.hpp"

namespace batchsvd::cpu {

/// Threads for `items` pieces of work: Options::threads (0: OpenMP's default), at most one a piece.
inline int threads_for(const Options& opts, index_t items) {
    const int t = opts.threads > 0 ? opts.threads : omp_get_max_threads();
    return static_cast<int>(std::max<index_t>(1, std::min<index_t>(t, items)));
}

class BatchErrors {
public:
    template <class F> void run(F&& f) noexcept {
        try {
            std::forward<F>(f)();
        } catch (...) {
#pragma omp critical(batchsvd_batch_errors)
            if (!first_) first_ = std::current_exception();
        }
    }
    /// After the parallel region: rethrows the first exception kept, if any.
    void rethrow() const {
        if (!first_) return;
        try {
            std::rethrow_exception(first_);
        } catch (const std::bad_alloc&) {
            throw Error(ErrorCode::out_of_memory, "batchsvd: CPU workspace allocation failed");
        }
    }

private:
    std::exception_ptr first_;
};

}  // namespace batchsvd::cpu
