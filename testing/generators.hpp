// SPDX-License-Identifier: BSD-3-Clause
// Test-matrix generators of abfasi Table 1, shared by the tests, the benchmarks and the
// CLI's demo. A = X diag(sigma) Y^H with X, Y random with orthonormal columns (Householder
// QR of Gaussian matrices, in double), rounded to T; `random` is uniform in [0, 1) (real
// and imaginary parts for complex), as in the paper's performance runs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "batchsvd/batchsvd.hpp"

namespace batchsvd::testing {

enum class Family { random, arith, cluster0, cluster1, logrand, geo };
inline constexpr Family all_families[] = {Family::random,   Family::arith,   Family::cluster0,
                                          Family::cluster1, Family::logrand, Family::geo};

const char* to_string(Family f);
std::optional<Family> family_from_string(std::string_view name);

/// kappa of the paper's accuracy runs: 1e5 for single, 1e10 for double precision.
template <class T> double default_condition();

/// The k = min(m, n) prescribed singular values of a family, descending (empty for random).
std::vector<double> family_singular_values(Family f, index_t k, double cond,
                                           std::uint64_t seed);

/// A packed batch: column-major, lda = m, stride = m * n.
template <class T>
std::vector<T> generate_batch(Family f, index_t m, index_t n, index_t batch,
                              std::uint64_t seed, double cond = default_condition<T>());

/// A rows x cols matrix with orthonormal columns, S = double or std::complex<double> (Gaussian
/// columns orthonormalised by classical Gram-Schmidt run twice; the families' X and Y).
template <class S> std::vector<S> random_orthonormal(index_t rows, index_t cols, std::uint64_t seed);

/// A fresh seed for each run (std::random_device), unless BATCHSVD_TEST_SEED is set.
std::uint64_t fresh_seed();

}  // namespace batchsvd::testing
