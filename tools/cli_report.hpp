// SPDX-License-Identifier: BSD-3-Clause
// The svd command's warning about nonzero per-matrix status (info): one line on stderr, the
// run still a success.
#pragma once

#include <span>
#include <string>

namespace batchsvd::cli {

/// Writes "batchsvd: warning: ..." with how many of the matrices did not converge within
/// `max_sweeps` (info > 0) and how many hold NaN or Inf (info < 0), then "; " and `see`
/// (where to find info, e.g. "see info.npy"); nothing when every info is 0.
void warn_about_info(std::span<const int> info, int max_sweeps, const std::string& see);

}  // namespace batchsvd::cli
