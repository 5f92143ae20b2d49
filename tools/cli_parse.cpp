// SPDX-License-Identifier: BSD-3-Clause
// The batchsvd command line with CLI11 (see cli_parse.hpp): the commands svd, demo and help,
// their options and help texts. Each option's value goes through the checked parsers of
// cli_args.hpp as it is met, so that every value is checked, the last of a repeated option
// counts and the last of --progress / --quiet wins. The only file that includes CLI11.
#include "cli_parse.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include "cli_args.hpp"

namespace batchsvd::cli {
namespace {

constexpr const char* program_description =
    "Singular value decomposition of batches of matrices, on the CPU or a CUDA GPU.";

constexpr const char* input_and_exit_text =
    "The input is a .npy file of dtype float32, float64, complex64 or complex128 (little- or\n"
    "big-endian), of shape (m, n) or (batch, m, n), in C or Fortran order; or an .npz archive\n"
    "(numpy.savez or numpy.savez_compressed) of such arrays, all of one dtype.\n"
    "Exit status: 0 success (also when some matrices did not converge or hold NaN/Inf: a\n"
    "warning says how many), 1 runtime, backend or output failure, 2 invalid usage or input.\n";

constexpr const char* svd_text =
    "Writes DIR/S.npy, DIR/U.npy, DIR/Vh.npy and DIR/info.npy with the conventions of\n"
    "numpy.linalg.svd(a, full_matrices=False): A = U @ diag(S) @ Vh; info.npy is the int32\n"
    "status of each matrix (0 ok, >0 not converged, <0 NaN or Inf). A batch of 20000 matrices\n"
    "or more is solved in 20 slices, so that progress can be reported after each.\n"
    "\n"
    "With IN.npz, --out names the output .npz file (its directory is created if missing): for\n"
    "each array NAME of IN.npz it holds NAME/S, NAME/U, NAME/Vh and NAME/info as above, and\n"
    "NAME/sweeps, the int32 count of Jacobi sweeps each matrix took. All matrices of all arrays\n"
    "are solved in one call (no --devices; --progress prints one line when it returns). An\n"
    "IN.npz without arrays gives an OUT.npz without arrays. Reading and writing .npz needs a\n"
    "batchsvd built with libzip.\n";

/// CLI11's help layout with the usage line first and lower-case "usage:".
class HelpFormatter final : public CLI::Formatter {
public:
    HelpFormatter() {
        label("Usage", "usage");
        label("SUBCOMMAND", "COMMAND");
        column_width(24);
    }
    std::string make_help(const CLI::App* app, std::string name,
                          CLI::AppFormatMode mode) const override {
        if (mode == CLI::AppFormatMode::Sub) return make_expanded(app);
        return make_usage(app, std::move(name)) + "\n" + make_description(app) +
               make_positionals(app) + make_groups(app, mode) + make_subcommands(app, mode) +
               "\n" + make_footer(app);
    }
};

/// "--name VALUE" (or "--name=VALUE"); `store` gets each value as it is met.
CLI::Option* add_value(CLI::App& app, const std::string& name, const std::string& value_name,
                       const std::string& help, std::function<void(const std::string&)> store) {
    return app.add_option_function<std::string>(name, std::move(store), help)
        ->type_name(value_name)
        ->trigger_on_parse();
}

/// "--name", a switch; `set` runs when it is met. A value is an error ("--no-u=1"), but for
/// CLI11's "--name=true".
CLI::Option* add_switch(CLI::App& app, const std::string& name, const std::string& help,
                        std::function<void()> set) {
    return app.add_flag_callback(name, std::move(set), help)
        ->disable_flag_override()
        ->trigger_on_parse();
}

/// --devices: "all" (every visible CUDA device; none: device 0, which the library then
/// reports missing) or device indices separated by commas.
std::vector<int> parse_devices(const std::string& text) {
    if (text == "all") {
        std::vector<int> all = cuda_devices();
        return all.empty() ? std::vector<int>{0} : all;
    }
    std::vector<int> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        out.push_back(static_cast<int>(parse_integer("--devices", text.substr(start, comma - start), 0, 1 << 20)));
        if (comma == std::string::npos) return out;
        start = comma + 1;
    }
}

/// --backend, --devices, --tol, --max-sweeps and --threads, which svd and demo share.
void add_solver_options(CLI::App& app, Options& opts) {
    add_value(app, "--backend", "B", "auto, cpu or cuda (default auto)",
              [&opts](const std::string& v) { opts.backend = parse_backend(v); });
    add_value(app, "--devices", "D", "CUDA devices that share the batch (or one large\nmatrix): all, or indices such as 0,1 (default: the\ncurrent device)",
              [&opts](const std::string& v) { opts.devices = parse_devices(v); });
    add_value(app, "--tol", "K", "convergence threshold K * unit roundoff (default 30)",
              [&opts](const std::string& v) { opts.tol_factor = parse_positive("--tol", v); });
    add_value(app, "--max-sweeps", "N", "sweep limit per matrix (default 100)",
              [&opts](const std::string& v) {
                  opts.max_sweeps = static_cast<int>(parse_integer("--max-sweeps", v, 1, 1000000));
              });
    add_value(app, "--threads", "T", "CPU backend threads (default: OMP_NUM_THREADS, else\nevery core)",
              [&opts](const std::string& v) {
                  opts.threads = static_cast<int>(parse_integer("--threads", v, 1, 100000));
              });
}

void add_svd_options(CLI::App& svd, SvdRequest& req) {
    add_value(svd, "IN", "", "the input matrices: IN.npy, or IN.npz (named arrays)",
              [&req](const std::string& v) {
                  if (v.empty()) throw UsageError("empty input file name");
                  req.input = v;
              })
        ->required();
    add_value(svd, "--out", "PATH",
              "output directory for IN.npy (created if missing),\nor the output file OUT.npz for IN.npz",
              [&req](const std::string& v) {
                  if (v.empty()) throw UsageError("empty --out name");
                  req.out = v;
              })
        ->required();
    add_solver_options(svd, req.opts);
    add_switch(svd, "--no-u", "do not compute or write U.npy (NAME/U)",
               [&req] { req.opts.compute_u = false; });
    add_switch(svd, "--no-v", "do not compute or write Vh.npy (NAME/Vh)",
               [&req] { req.opts.compute_v = false; });
    add_value(svd, "--method", "M",
              "singular values alone (with --no-u --no-v): automatic,\njacobi or bidiagonal (default automatic)",
              [&req](const std::string& v) {
                  if (v == "automatic") req.opts.method = SvdMethod::automatic;
                  else if (v == "jacobi") req.opts.method = SvdMethod::jacobi;
                  else if (v == "bidiagonal") req.opts.method = SvdMethod::bidiagonal;
                  else throw UsageError("--method must be automatic, jacobi or bidiagonal, got '" + v + "'");
              });
    add_switch(svd, "--progress", "report progress on stderr after each twentieth of the batch",
               [&req] { req.progress = Progress::always; });
    add_switch(svd, "--quiet",
               "no progress report (by default one appears once a run takes over 2 s)",
               [&req] { req.progress = Progress::never; });
}

constexpr std::int64_t demo_max_dim = 1 << 20, demo_max_elements = std::int64_t{1} << 30;

void add_demo_options(CLI::App& demo, DemoRequest& req) {
    add_value(demo, "--m", "M", "rows of each matrix (default 32)", [&req](const std::string& v) {
        req.m = parse_integer("--m", v, 1, demo_max_dim);
    });
    add_value(demo, "--n", "N", "columns of each matrix (default 32)",
              [&req](const std::string& v) { req.n = parse_integer("--n", v, 1, demo_max_dim); });
    add_value(demo, "--batch", "B", "matrices per family (default 1000)",
              [&req](const std::string& v) {
                  req.batch = parse_integer("--batch", v, 1, demo_max_elements);
              });
    add_value(demo, "--dtype", "D", "float32, float64, complex64 or complex128 (default float64)",
              [&req](const std::string& v) { req.dtype = parse_dtype(v); });
    add_value(demo, "--family", "F",
              "random, arith, cluster0, cluster1, logrand or geo\n(default: random, then geo)",
              [&req](const std::string& v) { req.families = {parse_family(v)}; });
    add_value(demo, "--seed", "S", "generator seed (default: a fresh one)",
              [&req](const std::string& v) {
                  req.seed = static_cast<std::uint64_t>(
                      parse_integer("--seed", v, 0, std::numeric_limits<std::int64_t>::max()));
              });
    add_solver_options(demo, req.opts);
}

/// The application, and the requests that its options' callbacks fill in.
class CommandLine {
public:
    CommandLine() {
        app_.formatter(std::make_shared<HelpFormatter>());
        app_.set_help_flag("-h,--help", "print this text and exit");
        app_.set_version_flag("--version", std::string("batchsvd ") + version(),
                              "print the library version and exit");
        // At most one command: a second command's name is then a plain argument (a file
        // named "demo"), not a command.
        app_.require_subcommand(0, 1);
        app_.footer(input_and_exit_text);

        svd_ = app_.add_subcommand("svd", "SVD of every matrix in IN.npy or IN.npz, as .npy files or an .npz");
        svd_->footer(std::string(svd_text) + "\n" + input_and_exit_text);
        add_svd_options(*svd_, svd_req_);

        demo_ = app_.add_subcommand("demo", "solve generated sample batches, print time and errors");
        demo_->footer("Prints a table of the time and the worst errors e1..e4 against 30u.\n");
        add_demo_options(*demo_, demo_req_);

        help_ = app_.add_subcommand("help", "print this text, or a command's ('help svd')");
        help_->add_option("COMMAND", help_topic_, "svd, demo or help")
            ->type_name("")
            ->check(CLI::IsMember({"svd", "demo", "help"}).description(""));
        help_->footer("");
        for (CLI::App* sub : {svd_, demo_, help_}) sub->group("Commands");
    }
    CommandLine(const CommandLine&) = delete;
    CommandLine& operator=(const CommandLine&) = delete;

    Command parse(std::span<const std::string_view> args) {
        std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 pops the back
        try {
            app_.parse(reversed);
        } catch (const CLI::CallForVersion& e) {
            return PrintText{std::string(e.what()) + "\n"};
        } catch (const CLI::Success&) {  // -h or --help: the help of the command it follows
            return PrintText{app_.help()};
        } catch (const CLI::RequiredError& e) {
            // An argument that nothing took explains it better ("svd -in.npy --out d").
            const std::vector<std::string> extras = app_.remaining(true);
            const auto extra = std::ranges::find_if(extras, [](const std::string& a) { return a != "--"; });
            throw UsageError(extra == extras.end()
                                 ? std::string(e.what())
                                 : "The following argument was not expected: " + *extra,
                             command_name());
        } catch (const CLI::ParseError& e) {
            throw UsageError(e.what(), command_name());
        } catch (const UsageError& e) {  // from a value parser, thrown through CLI11
            throw UsageError(e.what(), command_name());
        }
        if (*svd_) return svd_checked();
        if (*demo_) return demo_checked();
        if (*help_) {
            const CLI::App* topic = help_topic_.empty() ? &app_ : app_.get_subcommand(help_topic_);
            const std::string name = topic == &app_ ? "batchsvd" : "batchsvd " + help_topic_;
            return PrintText{topic->get_formatter()->make_help(topic, name,
                                                               CLI::AppFormatMode::Normal)};
        }
        throw UsageError("no command given");
    }

private:
    /// "batchsvd" or "batchsvd COMMAND" for the command parsed (or being parsed).
    std::string command_name() const {
        const auto subs = app_.get_subcommands();
        return subs.empty() ? app_.get_name() : app_.get_name() + " " + subs.front()->get_name();
    }

    /// An .npz input goes with an .npz output and one device; a .npy input with a directory.
    const SvdRequest& svd_checked() const {
        const SvdRequest& r = svd_req_;
        const auto fail = [](const std::string& what) { throw UsageError(what, "batchsvd svd"); };
        if (is_npz_path(r.input) && !is_npz_path(r.out))
            fail("with an .npz input, --out names the output .npz file, not '" + r.out.string() + "'");
        if (!is_npz_path(r.input) && is_npz_path(r.out))
            fail("--out '" + r.out.string() + "' names an .npz file, which needs an .npz input (a .npy "
                 "input gives a directory of .npy files)");
        if (is_npz_path(r.input) && !r.opts.devices.empty())
            fail("--devices does not apply to an .npz input: its arrays are solved in one call, on one device");
        return r;
    }

    const DemoRequest& demo_checked() const {
        if (demo_req_.m * demo_req_.n > demo_max_elements / demo_req_.batch)
            throw UsageError("demo batch too large: m * n * batch must be at most 2^30",
                             "batchsvd demo");
        return demo_req_;
    }

    CLI::App app_{program_description, "batchsvd"};
    CLI::App* svd_ = nullptr;
    CLI::App* demo_ = nullptr;
    CLI::App* help_ = nullptr;
    SvdRequest svd_req_;
    DemoRequest demo_req_;
    std::string help_topic_;
};

}  // namespace

Command parse_command_line(std::span<const std::string_view> args) {
    return CommandLine().parse(args);
}

}  // namespace batchsvd::cli
