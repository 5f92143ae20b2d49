// SPDX-License-Identifier: BSD-3-Clause
// `batchsvd svd IN.npy --out DIR`: reads a batch of matrices from a .npy file, solves it with
// batchsvd::gesvd and writes S, U, Vh and info as numpy.linalg.svd(a, full_matrices=False)
// would (A = U @ diag(S) @ Vh). An .npz input goes to run_svd_npz (cli_svd_npz.cpp).
#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cli_args.hpp"
#include "cli_commands.hpp"
#include "cli_layout.hpp"
#include "cli_output.hpp"
#include "cli_report.hpp"
#include "npy.hpp"

namespace batchsvd::cli {
namespace {

static_assert(sizeof(int) == sizeof(std::int32_t), "info is written as int32");

Dims input_dims(const npy::Header& h) {
    const std::optional<Dims> d = matrix_dims(h.shape);
    if (!d)
        throw InputError("input must have 2 dimensions (m, n) or 3 (batch, m, n), not " +
                         std::to_string(h.shape.size()));
    return *d;
}

template <class T> int solve_and_write(const npy::Array& input, const SvdRequest& req) {
    using R = real_t<T>;
    const Dims d = input_dims(input.header);
    const index_t k = std::min(d.m, d.n);
    const std::vector<T> a = gather_column_major<T>(input, d);
    const auto count = [&](index_t per) { return static_cast<std::size_t>(d.batch * per); };
    const bool want_u = req.opts.compute_u, want_v = req.opts.compute_v;

    std::vector<R> s(count(k));
    std::vector<T> u(want_u ? count(d.m * k) : 0), v(want_v ? count(d.n * k) : 0);
    std::vector<int> info(count(1), 0);
    const auto start = std::chrono::steady_clock::now();
    const auto seconds = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    // Large batches are solved in 20 slices (each still thousands of matrices for the GPU), so
    // that a run of more than a few seconds can report its progress after each.
    const index_t slices = d.batch >= 20000 || req.progress == Progress::always ? 20 : 1;
    const index_t slice = std::max<index_t>(1, (d.batch + slices - 1) / slices);
    for (index_t first = 0; first < d.batch && k > 0; first += slice) {
        const index_t cnt = std::min(slice, d.batch - first);
        gesvd<T>(d.m, d.n, cnt, a.data() + first * d.m * d.n, s.data() + first * k,
                 want_u ? u.data() + first * d.m * k : nullptr,
                 want_v ? v.data() + first * d.n * k : nullptr, info.data() + first, req.opts);
        const bool show = req.progress == Progress::always ||
                          (req.progress == Progress::automatic && seconds() > 2.0);
        if (show)
            std::fprintf(stderr, "batchsvd: %lld of %lld matrices (%.0f%%), %.1f s\n",
                         static_cast<long long>(first + cnt), static_cast<long long>(d.batch),
                         100.0 * double(first + cnt) / double(d.batch), seconds());
    }
    const std::chrono::duration<double, std::milli> elapsed =
        std::chrono::steady_clock::now() - start;

    // U: column-major m x k per matrix -> C-order (m, k); Vh = V^H: C-order (k, n).
    const std::vector<T> u_rows = want_u ? u_in_c_order(u, d) : std::vector<T>{};
    const std::vector<T> vh = want_v ? vh_in_c_order(v, d) : std::vector<T>{};

    const npy::Dtype t = npy::dtype_v<T>, rt = npy::dtype_v<R>;
    std::vector<PendingFile> files;
    files.push_back({"S.npy", {rt, false, with_batch(d, {k})}, bytes(s)});
    if (want_u) files.push_back({"U.npy", {t, false, with_batch(d, {d.m, k})}, bytes(u_rows)});
    if (want_v) files.push_back({"Vh.npy", {t, false, with_batch(d, {k, d.n})}, bytes(vh)});
    files.push_back({"info.npy", {npy::Dtype::int32, false, with_batch(d, {})}, bytes(info)});
    write_outputs(req.out, files);

    std::printf("batchsvd: %lld matri%s %lldx%lld %s, backend %s, %.3f ms; wrote %zu files to %s\n",
                static_cast<long long>(d.batch), d.batch == 1 ? "x" : "ces",
                static_cast<long long>(d.m), static_cast<long long>(d.n),
                npy::name(input.header.dtype), backend_label(req.opts.backend),
                elapsed.count(), files.size(), req.out.string().c_str());
    warn_about_info(info, req.opts.max_sweeps, "see info.npy");
    return exit_ok;
}

}  // namespace

int run_svd(const SvdRequest& req) {
    if (is_npz_path(req.input)) return run_svd_npz(req);
    npy::Array input = npy::read(req.input);
    input_dims(input.header);  // reject a bad shape before anything else
    switch (input.header.dtype) {
    case npy::Dtype::float32: return solve_and_write<float>(input, req);
    case npy::Dtype::float64: return solve_and_write<double>(input, req);
    case npy::Dtype::complex64: return solve_and_write<std::complex<float>>(input, req);
    case npy::Dtype::complex128: return solve_and_write<std::complex<double>>(input, req);
    case npy::Dtype::int32: break;
    }
    throw InputError(std::string("unsupported dtype ") + npy::name(input.header.dtype) +
                     " for svd (supported: float32, float64, complex64, complex128)");
}

}  // namespace batchsvd::cli
