// SPDX-License-Identifier: BSD-3-Clause
// Errors inside the CPU backend's OpenMP loops over a batch: an exception must not leave a
// parallel region (the program would terminate), so each matrix's work runs under
// BatchErrors::run, which keeps the first exception, and the caller rethrows it after the
// region (std::bad_alloc as batchsvd::Error out_of_memory, as gesvd does).
#pragma once

#include <exception>
#include <new>
#include <utility>

#include "batchsvd/batchsvd.hpp"

namespace batchsvd::cpu {

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
