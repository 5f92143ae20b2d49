// SPDX-License-Identifier: BSD-3-Clause
// The command line of the batchsvd tool, parsed with CLI11 (cli_parse.cpp): the one parse
// that main() and the fuzz target (fuzz_inputs.cpp) both call.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "cli_commands.hpp"

namespace batchsvd::cli {

/// Text for stdout and nothing else to do: the output of --help, `help` or --version.
struct PrintText {
    std::string text;
};

/// What the command line asks for.
using Command = std::variant<PrintText, SvdRequest, DemoRequest>;

/// Parses the arguments after the program name. Reads no file and touches nothing: a bad
/// command line throws UsageError (CLI11's own errors included, never passed through).
Command parse_command_line(std::span<const std::string_view> args);

}  // namespace batchsvd::cli
