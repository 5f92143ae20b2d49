// SPDX-License-Identifier: BSD-3-Clause
// Exit statuses and error types of the batchsvd tool, and the checked parsers of its option
// values (the command line itself is parsed by CLI11 in cli_parse.cpp).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "batchsvd/batchsvd.hpp"
#include "npy.hpp"
#include "testing/generators.hpp"

namespace batchsvd::cli {

inline constexpr int exit_ok = 0;
inline constexpr int exit_failure = 1;  ///< runtime, backend or output I/O failure
inline constexpr int exit_usage = 2;    ///< invalid command line or input file

/// A bad command line: unknown option, missing or malformed value (exit 2).
class UsageError : public std::runtime_error {
public:
    explicit UsageError(const std::string& what, std::string command = "batchsvd")
        : std::runtime_error(what), command_(std::move(command)) {}
    /// The command whose --help the message points to: "batchsvd" or "batchsvd svd".
    const std::string& command() const { return command_; }

private:
    std::string command_;
};

/// An input the tool cannot handle: unsupported dtype or shape (exit 2).
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A failure while producing the outputs: directory or file creation, writing (exit 1).
class OutputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Each parser takes the whole text of one value and throws UsageError, naming the option,
// unless all of it is valid.

/// A decimal integer in [min, max].
std::int64_t parse_integer(std::string_view option, std::string_view text, std::int64_t min,
                           std::int64_t max);
/// A finite number > 0.
double parse_positive(std::string_view option, std::string_view text);
/// auto (or automatic), cpu or cuda.
Backend parse_backend(std::string_view text);
/// float32, float64, complex64 or complex128.
npy::Dtype parse_dtype(std::string_view text);
/// A test-matrix family by its name: random, arith, cluster0, cluster1, logrand or geo.
testing::Family parse_family(std::string_view text);

/// "cuda" or "cpu": the backend a host-data call with `b` runs on.
const char* backend_label(Backend b);

}  // namespace batchsvd::cli
