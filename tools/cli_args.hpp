// Command-line parsing for the batchsvd tool: the error types that map to exit codes, a
// reader for "--opt value" / "--opt=value" / "--flag" arguments and checked value parsers.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "batchsvd/batchsvd.hpp"

namespace batchsvd::cli {

inline constexpr int exit_ok = 0;
inline constexpr int exit_failure = 1;  ///< runtime, backend or output I/O failure
inline constexpr int exit_usage = 2;    ///< invalid command line or input file

/// A bad command line: unknown option, missing or malformed value (exit 2).
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
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

/// Walks over a command's arguments. Typical use:
///   for (ArgReader r(args); !r.done();) {
///       if (r.flag("--no-u")) ...; else if (auto v = r.value("--out")) ...;
///       else if (auto p = r.positional()) ...;
///   }
class ArgReader {
public:
    explicit ArgReader(std::span<const std::string_view> args) : args_(args) {}

    bool done() const { return pos_ >= args_.size(); }
    /// True (and consumed) when the current argument is exactly `name`.
    bool flag(std::string_view name);
    /// The value of "--name value" or "--name=value" (both consumed), else nullopt.
    std::optional<std::string_view> value(std::string_view name);
    /// Consumes a positional argument (nullopt for the "--" that ends the options); throws
    /// UsageError for an unrecognised option.
    std::optional<std::string_view> positional();

private:
    std::span<const std::string_view> args_;
    std::size_t pos_ = 0;
    bool only_positionals_ = false;  // after "--"
};

std::int64_t parse_integer(std::string_view option, std::string_view text, std::int64_t min,
                           std::int64_t max);
/// A finite number > 0.
double parse_positive(std::string_view option, std::string_view text);
Backend parse_backend(std::string_view text);
/// "cuda" or "cpu": the backend a host-data call with `b` runs on.
const char* backend_label(Backend b);

}  // namespace batchsvd::cli
