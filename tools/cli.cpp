// SPDX-License-Identifier: BSD-3-Clause
// main() of the batchsvd command-line tool: parses the command line (cli_parse.hpp), runs the
// command and maps errors to one-line messages and exit statuses (0 ok, 1 runtime failure,
// 2 bad usage or input).
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <variant>
#include <vector>

#include "cli_args.hpp"
#include "cli_commands.hpp"
#include "cli_parse.hpp"
#include "npy.hpp"
#include "npz.hpp"

namespace batchsvd::cli {
namespace {

void error_line(const std::string& what) { std::fprintf(stderr, "batchsvd: error: %s\n", what.c_str()); }

/// Keeps messages on one line whatever the exception text holds.
std::string one_line(const char* what) {
    std::string s(what);
    for (char& c : s)
        if (c == '\n' || c == '\r') c = ' ';
    return s;
}

struct Runner {
    int operator()(const PrintText& p) const {
        std::fputs(p.text.c_str(), stdout);
        return exit_ok;
    }
    int operator()(const SvdRequest& req) const { return run_svd(req); }
    int operator()(const DemoRequest& req) const { return run_demo(req); }
};

}  // namespace
}  // namespace batchsvd::cli

int main(int argc, char** argv) {
    using namespace batchsvd::cli;
    try {
        const std::vector<std::string_view> args(argv + (argc > 0 ? 1 : 0), argv + argc);
        return std::visit(Runner{}, parse_command_line(args));
    } catch (const UsageError& e) {
        error_line(one_line(e.what()) + " (see '" + e.command() + " --help')");
        return exit_usage;
    } catch (const InputError& e) {
        error_line(one_line(e.what()));
        return exit_usage;
    } catch (const batchsvd::npy::Error& e) {
        error_line(one_line(e.what()));
        return exit_usage;
    } catch (const batchsvd::npz::Error& e) {  // reading; write failures come as OutputError
        error_line(one_line(e.what()));
        return exit_usage;
    } catch (const batchsvd::npz::Unavailable& e) {  // a build without libzip
        error_line(one_line(e.what()));
        return exit_failure;
    } catch (const OutputError& e) {
        error_line(one_line(e.what()));
        return exit_failure;
    } catch (const batchsvd::Error& e) {
        error_line(one_line(e.what()));
        return e.code() == batchsvd::ErrorCode::invalid_argument ? exit_usage : exit_failure;
    } catch (const std::bad_alloc&) {
        error_line("out of memory");
        return exit_failure;
    } catch (const std::exception& e) {
        error_line(one_line(e.what()));
        return exit_failure;
    }
}
