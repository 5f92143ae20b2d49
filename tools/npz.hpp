// SPDX-License-Identifier: BSD-3-Clause
// Reader and writer of NumPy .npz archives, as numpy.savez and numpy.savez_compressed write
// them: a zip archive of NAME.npy members, stored or deflated. Built on libzip; a build
// without libzip (BATCHSVD_HAVE_LIBZIP 0) has available() false, and read and write throw
// npz::Unavailable.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "npy.hpp"

namespace batchsvd::npz {

/// A malformed or unreadable archive or member, or a failure to write an archive. The message
/// names the file, and the member where there is one.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// The build has no libzip, so it can neither read nor write .npz files.
class Unavailable : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// True when this build reads and writes .npz files (it was built with libzip).
bool available();

/// One array of an archive: `name` is the member's name without ".npy" (numpy.load's key).
struct Member {
    std::string name;
    npy::Array array;
};

/// Every member of the archive at `path`, in archive order. Throws npz::Error when the file is
/// not a zip archive (an empty file included), a member's name does not end in ".npy" or is
/// just ".npy", two members share a name, a member cannot be read (damaged, encrypted or
/// compressed by a method libzip lacks) or its bytes are not a valid .npy file. An archive
/// without members gives an empty list.
std::vector<Member> read(const std::filesystem::path& path);

/// One array to write: stored as member NAME.npy with the header and little-endian data given.
struct PendingMember {
    std::string name;
    npy::Header header;
    std::span<const std::byte> data;
};

/// Writes the members, uncompressed (as numpy.savez), to a new archive at `path`, replacing
/// any file there only once the whole archive is written (through a temporary file beside
/// it). No members: an empty archive (as numpy.savez() with no arrays). The data must stay
/// valid during the call. Throws npz::Error.
void write(const std::filesystem::path& path, std::span<const PendingMember> members);

}  // namespace batchsvd::npz
