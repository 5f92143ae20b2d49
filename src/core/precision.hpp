// SPDX-License-Identifier: BSD-3-Clause
// Unit roundoff and range constants of the real types, usable on host and device.
#pragma once

#include "core/host_device.hpp"

namespace batchsvd::core {

template <class R> struct precision;

template <> struct precision<float> {
    /// unit roundoff u = 2^-24 (24 significand bits, implicit bit included)
    static constexpr float unit_roundoff = 5.9604644775390625e-08f;
    /// Entries are rescaled by a power of two when the largest magnitude leaves
    /// [2^-scale_exp, 2^scale_exp]: sums of squares of n entries then neither overflow
    /// nor lose the small columns to underflow.
    static constexpr int scale_exp = 40;
};

template <> struct precision<double> {
    static constexpr double unit_roundoff = 1.1102230246251565e-16;  // 2^-53
    static constexpr int scale_exp = 300;
};

}  // namespace batchsvd::core
