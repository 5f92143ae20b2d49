// SPDX-License-Identifier: BSD-3-Clause
// Checked parsers of the batchsvd tool's option values (see cli_args.hpp).
#include "cli_args.hpp"

#include <charconv>
#include <cmath>
#include <string>

namespace batchsvd::cli {

namespace {
std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }
}  // namespace

std::int64_t parse_integer(std::string_view option, std::string_view text, std::int64_t min,
                           std::int64_t max) {
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size() || v < min || v > max)
        throw UsageError("bad value " + quoted(text) + " for " + std::string(option) +
                         ": expected an integer in [" + std::to_string(min) + ", " +
                         std::to_string(max) + "]");
    return v;
}

double parse_positive(std::string_view option, std::string_view text) {
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(v) || v <= 0)
        throw UsageError("bad value " + quoted(text) + " for " + std::string(option) +
                         ": expected a positive number");
    return v;
}

Backend parse_backend(std::string_view text) {
    if (text == "auto" || text == "automatic") return Backend::automatic;
    if (text == "cpu") return Backend::cpu;
    if (text == "cuda") return Backend::cuda;
    throw UsageError("bad value " + quoted(text) + " for --backend: expected auto, cpu or cuda");
}

npy::Dtype parse_dtype(std::string_view text) {
    for (npy::Dtype d : {npy::Dtype::float32, npy::Dtype::float64, npy::Dtype::complex64,
                         npy::Dtype::complex128})
        if (text == npy::name(d)) return d;
    throw UsageError("bad value " + quoted(text) +
                     " for --dtype: expected float32, float64, complex64 or complex128");
}

testing::Family parse_family(std::string_view text) {
    if (const auto f = testing::family_from_string(text)) return *f;
    throw UsageError("bad value " + quoted(text) +
                     " for --family: expected random, arith, cluster0, cluster1, logrand or geo");
}

const char* backend_label(Backend b) {
    switch (b) {
    case Backend::cpu: return "cpu";
    case Backend::cuda: return "cuda";
    case Backend::automatic: break;
    }
    return cuda_available() ? "cuda" : "cpu";
}

}  // namespace batchsvd::cli
