// SPDX-License-Identifier: BSD-3-Clause
// Everything one gesvd call writes, as host vectors, compared bitwise: the tests' and the
// multi-GPU benchmark's check that a batch over several devices gives one device's results.
#pragma once

#include <cstring>
#include <vector>

#include "batchsvd/batchsvd.hpp"

namespace batchsvd::testing {

template <class T> struct Outputs {
    std::vector<real_t<T>> s;
    std::vector<T> u, v;
    std::vector<int> info;
    bool operator==(const Outputs& o) const {
        auto same = [](const auto& x, const auto& y) {
            return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(x[0])) == 0;
        };
        return same(s, o.s) && same(u, o.u) && same(v, o.v) && info == o.info;
    }
};

}  // namespace batchsvd::testing
