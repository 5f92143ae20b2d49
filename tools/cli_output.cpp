// SPDX-License-Identifier: BSD-3-Clause
// All-or-nothing output writing (see cli_output.hpp).
#include "cli_output.hpp"

#include <unistd.h>

#include <system_error>
#include <vector>

#include "cli_args.hpp"

namespace batchsvd::cli {
namespace fs = std::filesystem;

namespace {

/// Temporary files not yet renamed into place; removed when the owner goes out of scope.
class TempFiles {
public:
    TempFiles() = default;
    TempFiles(const TempFiles&) = delete;
    TempFiles& operator=(const TempFiles&) = delete;
    ~TempFiles() {
        std::error_code ec;
        for (const fs::path& p : paths_) fs::remove(p, ec);
    }
    void add(fs::path p) { paths_.push_back(std::move(p)); }
    void release() { paths_.clear(); }

private:
    std::vector<fs::path> paths_;
};

}  // namespace

void write_outputs(const fs::path& dir, std::span<const PendingFile> files) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw OutputError("cannot create directory '" + dir.string() + "': " + ec.message());
    if (!fs::is_directory(dir, ec))
        throw OutputError("'" + dir.string() + "' is not a directory");

    const std::string suffix = ".tmp-" + std::to_string(::getpid());
    TempFiles temps;
    std::vector<fs::path> tmp_paths;
    for (const PendingFile& f : files) {
        fs::path tmp = dir / ("." + f.name + suffix);
        temps.add(tmp);
        try {
            npy::write(tmp, f.header, f.data);
        } catch (const npy::Error& e) {
            throw OutputError(e.what());
        }
        tmp_paths.push_back(std::move(tmp));
    }
    for (std::size_t i = 0; i < files.size(); ++i) {
        fs::rename(tmp_paths[i], dir / files[i].name, ec);
        if (ec)
            throw OutputError("cannot rename '" + tmp_paths[i].string() + "' to '" +
                              files[i].name + "': " + ec.message());
    }
    temps.release();
}

}  // namespace batchsvd::cli
