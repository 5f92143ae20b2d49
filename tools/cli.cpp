// main() of the batchsvd command-line tool: usage text, subcommand dispatch and the mapping
// of errors to one-line messages and exit statuses (0 ok, 1 runtime failure, 2 bad usage or
// input).
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "cli_args.hpp"
#include "cli_commands.hpp"
#include "npy.hpp"

namespace batchsvd::cli {

const char* const usage_text = R"(usage: batchsvd <command> [options]

commands:
  svd IN.npy --out DIR [options]  SVD of every matrix in IN.npy, written as DIR/S.npy,
                                  DIR/U.npy, DIR/Vh.npy and DIR/info.npy, with the
                                  conventions of numpy.linalg.svd(a, full_matrices=False):
                                  A = U @ diag(S) @ Vh; info.npy is the int32 status of each
                                  matrix (0 ok, >0 not converged, <0 NaN or Inf)
  demo [options]                  solve generated sample batches, print time and errors
  help, --help, -h                print this text
  --version                       print the library version

svd options:
  --out DIR          output directory, created if missing (required)
  --backend B        auto, cpu or cuda (default auto)
  --no-u             do not compute or write U.npy
  --no-v             do not compute or write Vh.npy
  --tol K            convergence threshold K * unit roundoff (default 30)
  --max-sweeps N     sweep limit per matrix (default 100)
  --progress         report progress on stderr after each twentieth of the batch
  --quiet            no progress report (by default one appears once a run takes over 2 s)

demo options:
  --m M, --n N       matrix size (default 32 x 32)
  --batch B          matrices per family (default 1000)
  --dtype D          float32, float64, complex64 or complex128 (default float64)
  --family F         random, arith, cluster0, cluster1, logrand or geo
                     (default: random, then geo)
  --seed S           generator seed (default: a fresh one)
  --backend, --tol, --max-sweeps as for svd

The input is a .npy file of dtype float32, float64, complex64 or complex128 (little- or
big-endian), of shape (m, n) or (batch, m, n), in C or Fortran order.
Exit status: 0 success (also when some matrices did not converge or hold NaN/Inf: a warning
says how many), 1 runtime, backend or output failure, 2 invalid usage or input.
)";

namespace {

void error_line(const std::string& what) { std::fprintf(stderr, "batchsvd: error: %s\n", what.c_str()); }

/// Keeps messages on one line whatever the exception text holds.
std::string one_line(const char* what) {
    std::string s(what);
    for (char& c : s)
        if (c == '\n' || c == '\r') c = ' ';
    return s;
}

int dispatch(std::span<const std::string_view> args) {
    if (args.empty()) throw UsageError("no command given");
    const std::string_view cmd = args[0];
    const auto rest = args.subspan(1);
    const bool wants_help = !rest.empty() && (rest[0] == "--help" || rest[0] == "-h");
    if (cmd == "help" || cmd == "--help" || cmd == "-h" || wants_help) {
        std::fputs(usage_text, stdout);
        return exit_ok;
    }
    if (cmd == "--version") {
        std::printf("batchsvd %s\n", version());
        return exit_ok;
    }
    if (cmd == "svd") return run_svd(rest);
    if (cmd == "demo") return run_demo(rest);
    throw UsageError("unknown command '" + std::string(cmd) + "'");
}

}  // namespace
}  // namespace batchsvd::cli

int main(int argc, char** argv) {
    using namespace batchsvd::cli;
    try {
        const std::vector<std::string_view> args(argv + (argc > 0 ? 1 : 0), argv + argc);
        return dispatch(args);
    } catch (const UsageError& e) {
        error_line(one_line(e.what()) + " (see 'batchsvd --help')");
        return exit_usage;
    } catch (const InputError& e) {
        error_line(one_line(e.what()));
        return exit_usage;
    } catch (const batchsvd::npy::Error& e) {
        error_line(one_line(e.what()));
        return exit_usage;
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
