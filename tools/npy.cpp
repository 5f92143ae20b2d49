// SPDX-License-Identifier: BSD-3-Clause
// .npy file framing (magic, version, header length, data size) and file I/O; the header
// dict itself is handled in npy_dict.cpp.
#include "npy.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <limits>
#include <memory>
#include <system_error>

#include "npy_dict.hpp"

namespace batchsvd::npy {
namespace {

constexpr unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr std::size_t alignment = 64;

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

std::string errno_text() { return std::error_code(errno, std::generic_category()).message(); }

std::uint32_t little_endian(std::span<const std::byte> b) {
    std::uint32_t v = 0;
    for (std::size_t i = b.size(); i-- > 0;) v = (v << 8) | std::to_integer<std::uint32_t>(b[i]);
    return v;
}

void swap_bytes(std::vector<std::byte>& data, std::size_t word) {
    for (std::size_t i = 0; i + word <= data.size(); i += word)
        std::reverse(data.begin() + static_cast<std::ptrdiff_t>(i),
                     data.begin() + static_cast<std::ptrdiff_t>(i + word));
}

}  // namespace

// Magic, version, length and the padded dict: version 1.0 unless the dict needs more than
// 65535 bytes (then 2.0); the data starts at a multiple of 64 bytes.
std::vector<std::byte> header_bytes(const Header& header, std::size_t data_size) {
    const auto count = static_cast<std::uint64_t>(header.count());
    const std::size_t esize = element_size(header.dtype);
    if (count > std::numeric_limits<std::size_t>::max() / esize || count * esize != data_size)
        throw Error("data size does not match the header's shape and dtype");
    std::string dict = header.dict();
    auto padded = [&](std::size_t prefix) {
        return (prefix + dict.size() + 1 + alignment - 1) / alignment * alignment;
    };
    const std::size_t prefix = padded(10) - 10 <= 0xffff ? 10 : 12;
    const std::size_t total = padded(prefix);
    dict.append(total - prefix - dict.size() - 1, ' ');
    dict.push_back('\n');

    std::vector<std::byte> out;
    out.reserve(total);
    for (unsigned char m : magic) out.push_back(std::byte{m});
    out.push_back(std::byte{static_cast<unsigned char>(prefix == 10 ? 1 : 2)});
    out.push_back(std::byte{0});
    for (std::size_t i = 0; i < prefix - 8; ++i)
        out.push_back(std::byte{static_cast<unsigned char>((dict.size() >> (8 * i)) & 0xff)});
    for (char c : dict) out.push_back(static_cast<std::byte>(c));
    return out;
}

std::size_t element_size(Dtype d) {
    switch (d) {
    case Dtype::float32: return 4;
    case Dtype::float64: return 8;
    case Dtype::complex64: return 8;
    case Dtype::complex128: return 16;
    case Dtype::int32: return 4;
    }
    throw Error("invalid dtype");
}

const char* name(Dtype d) {
    switch (d) {
    case Dtype::float32: return "float32";
    case Dtype::float64: return "float64";
    case Dtype::complex64: return "complex64";
    case Dtype::complex128: return "complex128";
    case Dtype::int32: return "int32";
    }
    return "invalid";
}

const char* descr(Dtype d) {
    switch (d) {
    case Dtype::float32: return "<f4";
    case Dtype::float64: return "<f8";
    case Dtype::complex64: return "<c8";
    case Dtype::complex128: return "<c16";
    case Dtype::int32: return "<i4";
    }
    return "invalid";
}

std::int64_t Header::count() const {
    std::int64_t n = 1;
    for (std::int64_t d : shape) {
        if (d < 0) throw Error("negative dimension in shape");
        if (d != 0 && n > std::numeric_limits<std::int64_t>::max() / d)
            throw Error("shape too large: the element count overflows");
        n *= d;
    }
    return n;
}

std::string Header::dict() const { return detail::format_dict(*this); }

Array parse(std::span<const std::byte> file) {
    if (file.size() < 10) throw Error("not a .npy file: too short");
    if (!std::equal(std::begin(magic), std::end(magic), file.begin(),
                    [](unsigned char m, std::byte b) { return std::byte{m} == b; }))
        throw Error("not a .npy file: bad magic string");
    const auto major = std::to_integer<int>(file[6]);
    const auto minor = std::to_integer<int>(file[7]);
    if (major < 1 || major > 3 || minor != 0)
        throw Error("unsupported .npy format version " + std::to_string(major) + "." +
                    std::to_string(minor));
    const std::size_t len_bytes = major == 1 ? 2 : 4;
    if (file.size() < 8 + len_bytes) throw Error("truncated .npy header");
    const std::uint64_t header_len = little_endian(file.subspan(8, len_bytes));
    const std::size_t header_start = 8 + len_bytes;
    if (header_len > file.size() - header_start) throw Error("truncated .npy header");
    const auto text = file.subspan(header_start, static_cast<std::size_t>(header_len));
    std::string dict(text.size(), '\0');
    std::transform(text.begin(), text.end(), dict.begin(),
                   [](std::byte b) { return static_cast<char>(b); });
    detail::ParsedDict parsed = detail::parse_dict(dict);

    Array out;
    out.header = std::move(parsed.header);
    const std::int64_t count = out.header.count();
    const auto esize = static_cast<std::int64_t>(element_size(out.header.dtype));
    if (count > std::numeric_limits<std::int64_t>::max() / esize)
        throw Error("shape too large: the data size overflows");
    const auto nbytes = static_cast<std::uint64_t>(count * esize);
    const std::uint64_t available = file.size() - header_start - header_len;
    if (nbytes > available)
        throw Error("truncated .npy data: the shape needs " + std::to_string(nbytes) +
                    " bytes, the file holds " + std::to_string(available));
    if (nbytes < available)
        throw Error("malformed .npy file: " + std::to_string(available - nbytes) +
                    " unexpected bytes after the data");
    const auto data = file.subspan(header_start + static_cast<std::size_t>(header_len));
    out.data.assign(data.begin(), data.end());
    if (parsed.byte_swap) {
        const bool complex = out.header.dtype == Dtype::complex64 ||
                             out.header.dtype == Dtype::complex128;
        swap_bytes(out.data, complex ? element_size(out.header.dtype) / 2
                                     : element_size(out.header.dtype));
    }
    return out;
}

Array read(const std::filesystem::path& path) {
    const std::string p = path.string();
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw Error("cannot read '" + p + "': is a directory");
    File f(std::fopen(p.c_str(), "rb"));
    if (!f) throw Error("cannot open '" + p + "': " + errno_text());
    std::vector<std::byte> bytes;
    std::byte chunk[1 << 16];
    for (;;) {
        const std::size_t got = std::fread(chunk, 1, sizeof chunk, f.get());
        bytes.insert(bytes.end(), chunk, chunk + got);
        if (got < sizeof chunk) break;
    }
    if (std::ferror(f.get())) throw Error("cannot read '" + p + "': " + errno_text());
    try {
        return parse(bytes);
    } catch (const Error& e) {
        throw Error("'" + p + "': " + e.what());
    }
}

std::vector<std::byte> serialize(const Header& header, std::span<const std::byte> data) {
    std::vector<std::byte> out = header_bytes(header, data.size());
    out.insert(out.end(), data.begin(), data.end());
    return out;
}

void write(const std::filesystem::path& path, const Header& header,
           std::span<const std::byte> data) {
    const std::vector<std::byte> head = header_bytes(header, data.size());
    const std::string p = path.string();
    File f(std::fopen(p.c_str(), "wb"));
    if (!f) throw Error("cannot create '" + p + "': " + errno_text());
    if (std::fwrite(head.data(), 1, head.size(), f.get()) != head.size() ||
        std::fwrite(data.data(), 1, data.size(), f.get()) != data.size())
        throw Error("cannot write '" + p + "': " + errno_text());
    if (std::fclose(f.release()) != 0) throw Error("cannot write '" + p + "': " + errno_text());
}

}  // namespace batchsvd::npy
