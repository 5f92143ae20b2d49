// Argument reader and value parsers of the batchsvd tool (see cli_args.hpp).
#include "cli_args.hpp"

#include <charconv>
#include <cmath>
#include <string>

namespace batchsvd::cli {

namespace {
std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }
}  // namespace

bool ArgReader::flag(std::string_view name) {
    if (done() || only_positionals_) return false;
    const std::string_view a = args_[pos_];
    if (a == name) {
        ++pos_;
        return true;
    }
    if (a.size() > name.size() && a.starts_with(name) && a[name.size()] == '=')
        throw UsageError("option " + std::string(name) + " takes no value");
    return false;
}

std::optional<std::string_view> ArgReader::value(std::string_view name) {
    if (done() || only_positionals_) return std::nullopt;
    const std::string_view a = args_[pos_];
    if (a == name) {
        if (pos_ + 1 >= args_.size())
            throw UsageError("option " + std::string(name) + " needs a value");
        pos_ += 2;
        return args_[pos_ - 1];
    }
    if (a.size() > name.size() && a.starts_with(name) && a[name.size()] == '=') {
        ++pos_;
        return a.substr(name.size() + 1);
    }
    return std::nullopt;
}

std::optional<std::string_view> ArgReader::positional() {
    const std::string_view a = args_[pos_++];
    if (!only_positionals_ && a == "--") {
        only_positionals_ = true;
        return std::nullopt;
    }
    if (!only_positionals_ && a.size() > 1 && a.front() == '-') {
        throw UsageError("unknown option " + quoted(a));
    }
    return a;
}

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

const char* backend_label(Backend b) {
    switch (b) {
    case Backend::cpu: return "cpu";
    case Backend::cuda: return "cuda";
    case Backend::automatic: break;
    }
    return cuda_available() ? "cuda" : "cpu";
}

}  // namespace batchsvd::cli
