// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target for the two parsers that take untrusted input: the .npy reader and the
// command line (parse_command_line, the same parse the tool runs). The first byte picks the
// parser; the rest is a .npy file, or the arguments after the program name, separated by NUL
// bytes. Documented failures (npy::Error; UsageError, which also carries CLI11's parse
// errors) are expected; anything else escaping, a crash or a sanitizer report is a bug.
// Built and run by scripts/fuzz.sh; its seeds, and any input that once crashed it, are kept
// in tests/fuzz_corpus/, whose .npy inputs tests/npy_test.cpp replays and whose argument
// inputs tests/cli_test.sh runs the tool with.
#include <complex>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli_args.hpp"
#include "cli_parse.hpp"
#include "npy.hpp"

namespace {

void fuzz_npy(std::span<const std::byte> bytes) {
    using namespace batchsvd::npy;
    try {
        const Array a = parse(bytes);
        switch (a.header.dtype) {
            case Dtype::float32: (void)a.values<float>(); break;
            case Dtype::float64: (void)a.values<double>(); break;
            case Dtype::complex64: (void)a.values<std::complex<float>>(); break;
            case Dtype::complex128: (void)a.values<std::complex<double>>(); break;
            case Dtype::int32: (void)a.values<std::int32_t>(); break;
        }
    } catch (const batchsvd::npy::Error&) {
    }
}

void fuzz_args(std::string_view text) {
    std::vector<std::string> tokens;  // none for an empty text: the tool run without arguments
    if (!text.empty()) tokens.emplace_back();
    for (char c : text) {
        if (c == '\0') tokens.emplace_back();
        else tokens.back().push_back(c);
    }
    const std::vector<std::string_view> args(tokens.begin(), tokens.end());
    try {
        (void)batchsvd::cli::parse_command_line(args);
    } catch (const batchsvd::cli::UsageError&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const auto* rest = reinterpret_cast<const std::byte*>(data + 1);
    if (data[0] & 1) fuzz_npy({rest, size - 1});
    else fuzz_args({reinterpret_cast<const char*>(data + 1), size - 1});
    return 0;
}
