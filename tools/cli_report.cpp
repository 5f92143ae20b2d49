// SPDX-License-Identifier: BSD-3-Clause
// The svd command's warning about nonzero info (see cli_report.hpp).
#include "cli_report.hpp"

#include <cstdio>

namespace batchsvd::cli {

void warn_about_info(std::span<const int> info, int max_sweeps, const std::string& see) {
    std::size_t slow = 0, bad = 0;
    for (int i : info) {
        slow += i > 0;
        bad += i < 0;
    }
    if (slow == 0 && bad == 0) return;
    std::fputs("batchsvd: warning:", stderr);
    if (slow > 0)
        std::fprintf(stderr, " %zu of %zu matrices did not converge within %d sweeps (info > 0)%s",
                     slow, info.size(), max_sweeps, bad > 0 ? ";" : "");
    if (bad > 0)
        std::fprintf(stderr, " %zu of %zu matrices hold NaN or Inf (info < 0)", bad, info.size());
    std::fprintf(stderr, "; %s\n", see.c_str());
}

}  // namespace batchsvd::cli
