// SPDX-License-Identifier: BSD-3-Clause
// Unit roundoff and range constants of the real types, usable on host and device.
#pragma once

#include "core/host_device.hpp"

namespace batchsvd::core {

template <class R> struct precision;

template <> struct precision<float> {
    /// unit roundoff u = 2^-24 (24 significand bits, implicit bit included)
    static constexpr float unit_roundoff = 5.9604644775390625e-08f;
    /// Entries are rescaled by a power of two (to a largest magnitude in [1, 2)) when the
    /// largest magnitude leaves [2^-scale_exp_low, 2^scale_exp]: sums of squares of n entries
    /// then do not overflow, and the dot product of any two columns above the noise guard
    /// (core::negligible_norm, u^2 times the largest entry) that still calls for a rotation
    /// (above 30 u times their norms' product, 2^-115 times the largest entry squared) is a
    /// normal number, so that t / |c| cannot overflow. At 2^-40 it could: float rank-one
    /// matrices of largest entry 2^-43 to 2^-20 came back with Inf singular values or U and V
    /// far from orthogonal.
    static constexpr int scale_exp = 40;
    static constexpr int scale_exp_low = 4;
};

template <> struct precision<double> {
    static constexpr double unit_roundoff = 1.1102230246251565e-16;  // 2^-53
    static constexpr int scale_exp = 300;
    static constexpr int scale_exp_low = 300;  // (378 would still keep those products normal)
};

}  // namespace batchsvd::core
