// SPDX-License-Identifier: BSD-3-Clause
// The commands of the batchsvd tool: what each is asked to do (filled in from the command
// line by parse_command_line, cli_parse.hpp) and the function that does it. Each returns the
// exit status and throws InputError / OutputError / npy::Error / npz::Error /
// npz::Unavailable / batchsvd::Error, which main() turns into a one-line message and an exit
// status.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "batchsvd/batchsvd.hpp"
#include "npy.hpp"
#include "testing/generators.hpp"

namespace batchsvd::cli {

/// When `svd` reports its progress on stderr.
enum class Progress {
    automatic,  ///< once the run has taken over 2 s
    always,     ///< --progress
    never       ///< --quiet
};

/// `batchsvd svd IN.npy --out DIR [options]` or `batchsvd svd IN.npz --out OUT.npz [options]`
struct SvdRequest {
    std::filesystem::path input;
    std::filesystem::path out;  ///< the output directory, or the .npz file for an .npz input
    Options opts;
    Progress progress = Progress::automatic;
};

/// `batchsvd demo [options]`
struct DemoRequest {
    index_t m = 32, n = 32, batch = 1000;
    npy::Dtype dtype = npy::Dtype::float64;
    std::vector<testing::Family> families{testing::Family::random, testing::Family::geo};
    std::optional<std::uint64_t> seed;  ///< none: a fresh one
    Options opts;
};

/// True for a path whose extension is .npz (in any case): `svd` then reads and writes .npz.
inline bool is_npz_path(const std::filesystem::path& p) {
    std::string ext = p.extension().string();
    for (char& c : ext)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return ext == ".npz";
}

int run_svd(const SvdRequest& req);      // cli_svd.cpp (hands an .npz input to run_svd_npz)
int run_svd_npz(const SvdRequest& req);  // cli_svd_npz.cpp
int run_demo(const DemoRequest& req);    // cli_demo.cpp

}  // namespace batchsvd::cli
