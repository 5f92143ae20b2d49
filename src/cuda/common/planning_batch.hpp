// SPDX-License-Identifier: BSD-3-Clause
// The batch size a call's choices are made for. The paths choose by batch size (the route, the
// blocked path's block width, preconditioning and halves, the eigensolver form), and a call's
// batch may be cut: into workspace chunks, into chunks streamed from host memory, into the
// shares of several devices. Each part chooses as the whole call would, so that a matrix gets
// the same arithmetic, and bitwise the same result, however its batch is cut.
#pragma once

#include "batchsvd/batchsvd.hpp"

namespace batchsvd::cuda {

namespace detail {
inline thread_local index_t planning_batch_value = 0;
}

/// The whole call's batch while a PlanningScope is open on this thread, else `batch`.
inline index_t planning_batch(index_t batch) {
    return detail::planning_batch_value > 0 ? detail::planning_batch_value : batch;
}

/// Opens, on this thread, the scope of a call of `batch` matrices; a scope already open (an
/// outer call's) is kept.
class PlanningScope {
public:
    explicit PlanningScope(index_t batch) : saved_(detail::planning_batch_value) {
        if (saved_ == 0) detail::planning_batch_value = batch;
    }
    ~PlanningScope() { detail::planning_batch_value = saved_; }
    PlanningScope(const PlanningScope&) = delete;
    PlanningScope& operator=(const PlanningScope&) = delete;

private:
    index_t saved_;
};

}  // namespace batchsvd::cuda
