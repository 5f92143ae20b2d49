// SPDX-License-Identifier: BSD-3-Clause
// .npz archives with libzip (see npz.hpp): every member read whole into memory and parsed by
// npy::parse; written as stored members whose bytes are the .npy header and the caller's data,
// never copied into one buffer. Without libzip, read and write throw npz::Unavailable.
#include "npz.hpp"

#include <system_error>

#if BATCHSVD_HAVE_LIBZIP
#include <zip.h>

#include <cerrno>
#include <cstdio>
#include <limits>
#include <memory>
#include <set>

#include <unistd.h>
#endif

namespace batchsvd::npz {
namespace fs = std::filesystem;

namespace {

std::string quoted(const fs::path& p) {
    std::string s = p.string();
    s.insert(s.begin(), '\'');
    s.push_back('\'');
    return s;
}

}  // namespace

#if BATCHSVD_HAVE_LIBZIP

namespace {

constexpr std::string_view npy_suffix = ".npy";

void reject_directory(const fs::path& path, const char* verb) {
    std::error_code ec;
    if (fs::is_directory(path, ec))
        throw Error(std::string("cannot ") + verb + " " + quoted(path) + ": is a directory");
}

/// An archive handle: discarded (closed without writing anything) unless released after a
/// successful zip_close.
struct ArchiveDiscard {
    void operator()(zip_t* z) const { zip_discard(z); }
};
using Archive = std::unique_ptr<zip_t, ArchiveDiscard>;

struct MemberClose {
    void operator()(zip_file_t* f) const { zip_fclose(f); }
};
using MemberFile = std::unique_ptr<zip_file_t, MemberClose>;

/// libzip's text for an error code of zip_open.
std::string open_error_text(int code) {
    zip_error_t e;
    zip_error_init_with_code(&e, code);
    std::string text = zip_error_strerror(&e);
    zip_error_fini(&e);
    return text;
}

Archive open_for_reading(const fs::path& path) {
    const std::string p = path.string();
    reject_directory(path, "read");
    std::error_code ec;
    if (fs::exists(path, ec) && fs::file_size(path, ec) == 0 && !ec)
        throw Error(quoted(path) + " is not an .npz file: it is empty (an .npz with no arrays "
                                   "is a 22-byte zip archive)");
    int code = 0;
    Archive z(zip_open(p.c_str(), ZIP_RDONLY, &code));
    if (!z) {
        if (code == ZIP_ER_NOZIP)
            throw Error(quoted(path) + " is not an .npz file: not a zip archive");
        throw Error("cannot open " + quoted(path) + ": " + open_error_text(code));
    }
    return z;
}

/// The bytes of member `index` (of `size` bytes), checked against its CRC by libzip.
std::vector<std::byte> read_member(zip_t* z, zip_uint64_t index, zip_uint64_t size,
                                   const std::string& where) {
    if (size > std::numeric_limits<std::size_t>::max() / 2)
        throw Error(where + ": member too large (" + std::to_string(size) + " bytes)");
    MemberFile f(zip_fopen_index(z, index, 0));
    if (!f) throw Error(where + ": cannot read the member: " + zip_strerror(z));
    std::vector<std::byte> bytes(static_cast<std::size_t>(size));
    std::size_t got = 0;
    for (;;) {
        std::byte spare[1];  // a read past the stated size must find nothing
        std::byte* dst = got < bytes.size() ? bytes.data() + got : spare;
        const zip_uint64_t want = got < bytes.size() ? bytes.size() - got : 1;
        const zip_int64_t r = zip_fread(f.get(), dst, want);
        if (r < 0) throw Error(where + ": cannot read the member: " + zip_file_strerror(f.get()));
        if (r == 0) break;
        if (got >= bytes.size()) throw Error(where + ": the member is longer than its stated size");
        got += static_cast<std::size_t>(r);
    }
    if (got != bytes.size())
        throw Error(where + ": truncated member (" + std::to_string(got) + " of " +
                    std::to_string(size) + " bytes)");
    return bytes;
}

struct FileClose {
    void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileClose>;

/// Writes an archive without members (the End Of Central Directory record alone, as
/// numpy.savez() writes it) through a temporary file beside `path`: libzip deletes an archive
/// left empty instead of writing it.
void write_empty_archive(const fs::path& path) {
    static constexpr unsigned char eocd[22] = {'P', 'K', 5, 6};
    const fs::path tmp = path.parent_path() / (std::string(1, '.') + path.filename().string() +
                                               ".tmp-" + std::to_string(::getpid()));
    const auto fail = [&](const std::string& what) {
        std::error_code ignored;
        fs::remove(tmp, ignored);
        throw Error(what);
    };
    File f(std::fopen(tmp.string().c_str(), "wb"));
    if (!f) fail("cannot create " + quoted(tmp) + ": " + std::generic_category().message(errno));
    if (std::fwrite(eocd, 1, sizeof eocd, f.get()) != sizeof eocd || std::fclose(f.release()) != 0)
        fail("cannot write " + quoted(tmp) + ": " + std::generic_category().message(errno));
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) fail("cannot rename " + quoted(tmp) + " to " + quoted(path) + ": " + ec.message());
}

}  // namespace

bool available() { return true; }

std::vector<Member> read(const fs::path& path) {
    Archive z = open_for_reading(path);
    const zip_int64_t count = zip_get_num_entries(z.get(), 0);
    if (count < 0) throw Error("cannot read " + quoted(path) + ": " + zip_strerror(z.get()));
    std::vector<Member> members;
    std::set<std::string> names;
    for (zip_int64_t i = 0; i < count; ++i) {
        const auto index = static_cast<zip_uint64_t>(i);
        zip_stat_t st;
        zip_stat_init(&st);
        if (zip_stat_index(z.get(), index, 0, &st) != 0)
            throw Error("cannot read " + quoted(path) + ": " + zip_strerror(z.get()));
        if (!(st.valid & ZIP_STAT_NAME) || !(st.valid & ZIP_STAT_SIZE))
            throw Error(quoted(path) + ": member " + std::to_string(i) + " has no name or size");
        const std::string member = st.name;
        const std::string where = quoted(path) + ": member '" + member + "'";
        if (!member.ends_with(npy_suffix))
            throw Error(where + " is not a .npy file (its name does not end in .npy)");
        if (member.size() == npy_suffix.size()) throw Error(where + " has an empty array name");
        if (!names.insert(member).second) throw Error(where + " appears twice");
        const std::vector<std::byte> bytes = read_member(z.get(), index, st.size, where);
        try {
            members.push_back({member.substr(0, member.size() - npy_suffix.size()), npy::parse(bytes)});
        } catch (const npy::Error& e) {
            throw Error(where + ": " + e.what());
        }
    }
    return members;
}

void write(const fs::path& path, std::span<const PendingMember> members) {
    reject_directory(path, "write");
    if (members.empty()) {
        write_empty_archive(path);
        return;
    }
    const std::string p = path.string();
    int code = 0;
    Archive z(zip_open(p.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code));
    if (!z) throw Error("cannot create " + quoted(path) + ": " + open_error_text(code));
    // Each member's .npy header, kept until zip_close has read it.
    std::vector<std::vector<std::byte>> headers;
    headers.reserve(members.size());
    for (const PendingMember& m : members) {
        const std::string member = m.name + std::string(npy_suffix);
        const std::string where = "cannot write " + quoted(path) + ": member '" + member + "'";
        try {
            headers.push_back(npy::header_bytes(m.header, m.data.size()));
        } catch (const npy::Error& e) {
            throw Error(where + ": " + e.what());
        }
        zip_buffer_fragment_t parts[2] = {
            {reinterpret_cast<zip_uint8_t*>(headers.back().data()), headers.back().size()},
            {reinterpret_cast<zip_uint8_t*>(const_cast<std::byte*>(m.data.data())), m.data.size()}};
        zip_source_t* src = zip_source_buffer_fragment(z.get(), parts, m.data.empty() ? 1 : 2, 0);
        if (!src) throw Error(where + ": " + zip_strerror(z.get()));
        const zip_int64_t index = zip_file_add(z.get(), member.c_str(), src, ZIP_FL_ENC_UTF_8);
        if (index < 0) {
            zip_source_free(src);
            throw Error(where + ": " + zip_strerror(z.get()));
        }
        if (zip_set_file_compression(z.get(), static_cast<zip_uint64_t>(index), ZIP_CM_STORE, 0) != 0)
            throw Error(where + ": " + zip_strerror(z.get()));
    }
    // zip_close writes a temporary file beside `path` and renames it into place; on failure
    // it removes the temporary file and leaves the archive open, for the deleter to discard.
    if (zip_close(z.get()) != 0) throw Error("cannot write " + quoted(path) + ": " + zip_strerror(z.get()));
    z.release();
}

#else  // no libzip

namespace {
[[noreturn]] void unavailable(const fs::path& path) {
    throw Unavailable("cannot use " + quoted(path) +
                      ": this batchsvd was built without libzip, which .npz files need (install "
                      "libzip-dev, e.g. with scripts/install-deps.sh, and rebuild)");
}
}  // namespace

bool available() { return false; }

std::vector<Member> read(const fs::path& path) { unavailable(path); }

void write(const fs::path& path, std::span<const PendingMember>) { unavailable(path); }

#endif

}  // namespace batchsvd::npz
