// The subcommands of the batchsvd tool. Each takes the arguments after its name, returns
// the exit status and throws UsageError / InputError / OutputError / npy::Error /
// batchsvd::Error, which main() turns into a one-line message and an exit status.
#pragma once

#include <span>
#include <string_view>

namespace batchsvd::cli {

/// The text of `batchsvd --help`.
extern const char* const usage_text;

int run_svd(std::span<const std::string_view> args);   // cli_svd.cpp
int run_demo(std::span<const std::string_view> args);  // cli_demo.cpp

/// Only the argument parsing of `svd` / `demo` (no I/O, no solve): throws UsageError on a bad
/// command line. For the fuzz target (tools/fuzz_inputs.cpp).
void check_svd_args(std::span<const std::string_view> args);
void check_demo_args(std::span<const std::string_view> args);

}  // namespace batchsvd::cli
