// SPDX-License-Identifier: BSD-3-Clause
// Parser and formatter of the .npy header dict (see npy_dict.hpp). The parser never reads
// outside the given text and rejects every construct it does not understand.
#include "npy_dict.hpp"

#include <bit>
#include <cstdint>
#include <limits>
#include <optional>

namespace batchsvd::npy::detail {
namespace {

static_assert(std::endian::native == std::endian::little,
              "batchsvd_npy assumes a little-endian host");

constexpr std::size_t max_ndim = 64;  // NumPy 2 allows 64 dimensions

[[noreturn]] void fail(const std::string& what) { throw Error("bad .npy header: " + what); }

class DictParser {
public:
    explicit DictParser(std::string_view s) : s_(s) {}

    ParsedDict parse() {
        expect('{');
        std::optional<std::string> descr;
        std::optional<bool> fortran;
        std::optional<std::vector<std::int64_t>> shape;
        while (!eat('}')) {
            const std::string key(string_literal());
            expect(':');
            if (key == "descr") {
                if (descr) fail("duplicate key 'descr'");
                skip_ws();
                if (pos_ < s_.size() && (s_[pos_] == '[' || s_[pos_] == '('))
                    throw Error("unsupported dtype: structured arrays are not supported");
                descr = std::string(string_literal());
            } else if (key == "fortran_order") {
                if (fortran) fail("duplicate key 'fortran_order'");
                fortran = boolean();
            } else if (key == "shape") {
                if (shape) fail("duplicate key 'shape'");
                shape = tuple();
            } else {
                fail("unexpected key '" + key + "'");
            }
            if (eat('}')) break;
            expect(',');
        }
        skip_ws();
        if (pos_ != s_.size()) fail("unexpected text after the dict");
        if (!descr) fail("missing key 'descr'");
        if (!fortran) fail("missing key 'fortran_order'");
        if (!shape) fail("missing key 'shape'");
        ParsedDict out;
        out.header.fortran_order = *fortran;
        out.header.shape = std::move(*shape);
        decode_descr(*descr, out);
        return out;
    }

private:
    std::string_view s_;
    std::size_t pos_ = 0;

    void skip_ws() {
        while (pos_ < s_.size() &&
               (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
            ++pos_;
    }
    bool eat(char c) {
        skip_ws();
        if (pos_ < s_.size() && s_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    void expect(char c) {
        if (!eat(c)) {
            if (pos_ >= s_.size()) fail(std::string("expected '") + c + "', found end of header");
            fail(std::string("expected '") + c + "' at offset " + std::to_string(pos_));
        }
    }
    std::string_view string_literal() {
        skip_ws();
        if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"'))
            fail("expected a string at offset " + std::to_string(pos_));
        const char quote = s_[pos_++];
        const std::size_t start = pos_;
        while (pos_ < s_.size() && s_[pos_] != quote) {
            const unsigned char c = static_cast<unsigned char>(s_[pos_]);
            if (c == '\\' || c < 0x20 || c > 0x7e) fail("unsupported character in a string");
            ++pos_;
        }
        if (pos_ >= s_.size()) fail("unterminated string");
        return s_.substr(start, pos_++ - start);
    }
    bool word(std::string_view w) {
        if (s_.substr(pos_, w.size()) != w) return false;
        const std::size_t end = pos_ + w.size();
        if (end < s_.size()) {
            const char c = s_[end];
            if (c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                (c >= 'A' && c <= 'Z'))
                return false;
        }
        pos_ = end;
        return true;
    }
    bool boolean() {
        skip_ws();
        if (word("True")) return true;
        if (word("False")) return false;
        fail("'fortran_order' must be True or False");
    }
    std::int64_t integer() {
        skip_ws();
        const std::size_t start = pos_;
        std::int64_t v = 0;
        while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
            const int d = s_[pos_] - '0';
            if (v > (std::numeric_limits<std::int64_t>::max() - d) / 10)
                fail("shape dimension too large");
            v = v * 10 + d;
            ++pos_;
        }
        if (pos_ == start) fail("expected a non-negative integer in 'shape'");
        if (s_[start] == '0' && pos_ - start > 1) fail("leading zero in a shape dimension");
        return v;
    }
    std::vector<std::int64_t> tuple() {
        expect('(');
        std::vector<std::int64_t> dims;
        if (eat(')')) return dims;
        for (;;) {
            dims.push_back(integer());
            if (dims.size() > max_ndim) fail("too many dimensions");
            if (eat(')')) {
                if (dims.size() == 1) fail("'shape' must be a tuple: write (n,)");
                return dims;
            }
            expect(',');
            if (eat(')')) return dims;
        }
    }
    static void decode_descr(std::string_view d, ParsedDict& out) {
        auto unsupported = [&]() -> Error {
            return Error("unsupported dtype '" + std::string(d) +
                         "' (supported: float32, float64, complex64, complex128, int32)");
        };
        if (d.size() < 2) throw unsupported();
        const char order = d.front();
        const std::string_view kind = d.substr(1);
        if (kind == "f4") out.header.dtype = Dtype::float32;
        else if (kind == "f8") out.header.dtype = Dtype::float64;
        else if (kind == "c8") out.header.dtype = Dtype::complex64;
        else if (kind == "c16") out.header.dtype = Dtype::complex128;
        else if (kind == "i4") out.header.dtype = Dtype::int32;
        else throw unsupported();
        if (order == '<' || order == '=') out.byte_swap = false;
        else if (order == '>') out.byte_swap = true;
        else throw unsupported();
    }
};

}  // namespace

ParsedDict parse_dict(std::string_view text) { return DictParser(text).parse(); }

std::string format_dict(const Header& h) {
    std::string s = "{'descr': '";
    s += descr(h.dtype);
    s += "', 'fortran_order': ";
    s += h.fortran_order ? "True" : "False";
    s += ", 'shape': (";
    for (std::size_t i = 0; i < h.shape.size(); ++i) {
        if (i > 0) s += ", ";
        s += std::to_string(h.shape[i]);
    }
    if (h.shape.size() == 1) s += ",";
    s += "), }";
    return s;
}

}  // namespace batchsvd::npy::detail
