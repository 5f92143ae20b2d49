// SPDX-License-Identifier: BSD-3-Clause
// All-or-nothing writing of the tool's output files: each file goes to a hidden temporary
// name in the output directory first and is renamed into place only when all are written.
#pragma once

#include <filesystem>
#include <span>
#include <string>

#include "npy.hpp"

namespace batchsvd::cli {

struct PendingFile {
    std::string name;  ///< file name inside the output directory, e.g. "S.npy"
    npy::Header header;
    std::span<const std::byte> data;
};

/// Creates `dir` if missing and writes every file; throws OutputError on failure. A failed
/// write leaves no new file behind; only a rename failing midway (after every file was
/// written in full) can leave some of the files in place.
void write_outputs(const std::filesystem::path& dir, std::span<const PendingFile> files);

}  // namespace batchsvd::cli
