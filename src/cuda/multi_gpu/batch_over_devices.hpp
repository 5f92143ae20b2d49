// SPDX-License-Identifier: BSD-3-Clause
// A batch shared by several devices of one host (Options::devices): the shares and the device
// each runs on.
#pragma once

#include <vector>

#include "batchsvd/batchsvd.hpp"

namespace batchsvd::cuda {

/// Matrices [first, first + count) of a batch, solved on `device`.
struct Share {
    int device = 0;
    index_t first = 0, count = 0;
};

/// One contiguous share per device, in the devices' order, of sizes in proportion to `weights`
/// (one per device, > 0): the first s matrices end where the weights up to s end, rounded
/// down. Empty shares (more devices than matrices) are left out.
std::vector<Share> split_by_weight(index_t batch, const std::vector<int>& devices, const std::vector<double>& weights);

}  // namespace batchsvd::cuda
