// SPDX-License-Identifier: BSD-3-Clause
// `batchsvd svd IN.npz --out OUT.npz`: every array of an .npz archive (a matrix (m, n) or a
// stack (batch, m, n), all of one dtype, any order and byte order) solved in one call of
// batchsvd::gesvd_vbatched. For each array NAME the output archive holds NAME/S, NAME/U,
// NAME/Vh and NAME/info, shaped as the .npy mode's S.npy, U.npy, Vh.npy and info.npy for that
// array alone, and NAME/sweeps (int32, shaped as info: the Jacobi sweeps each matrix took).
#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "cli_args.hpp"
#include "cli_commands.hpp"
#include "cli_layout.hpp"
#include "cli_report.hpp"
#include "npy.hpp"
#include "npz.hpp"

namespace batchsvd::cli {
namespace {
namespace fs = std::filesystem;

static_assert(sizeof(int) == sizeof(std::int32_t), "info and sweeps are written as int32");

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

std::string shape_text(const std::vector<std::int64_t>& shape) {
    std::string s = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + (shape.size() == 1 ? ",)" : ")");
}

Dims array_dims(const npz::Member& m, const fs::path& archive) {
    const std::optional<Dims> d = matrix_dims(m.array.header.shape);
    if (!d)
        throw InputError(quoted(archive) + ": array '" + m.name + "' has shape " +
                         shape_text(m.array.header.shape) +
                         ": each array must be a matrix (m, n) or a stack of matrices (batch, m, n)");
    return *d;
}

bool solvable(npy::Dtype t) { return t != npy::Dtype::int32; }

/// The one dtype of all the arrays (they are solved in one call).
npy::Dtype common_dtype(std::span<const npz::Member> members, const fs::path& archive) {
    const npz::Member& first = members.front();
    for (const npz::Member& m : members) {
        const npy::Dtype t = m.array.header.dtype;
        if (!solvable(t))
            throw InputError(quoted(archive) + ": array '" + m.name + "' has dtype " +
                             npy::name(t) +
                             "; svd takes float32, float64, complex64 or complex128");
        if (t != first.array.header.dtype)
            throw InputError(quoted(archive) + ": arrays '" + first.name + "' (" +
                             npy::name(first.array.header.dtype) + ") and '" + m.name + "' (" +
                             npy::name(t) +
                             ") differ in dtype: all arrays of an .npz are solved in one call "
                             "and must share one dtype");
    }
    return first.array.header.dtype;
}

/// One input array: its matrices, packed column-major, and their results.
template <class T> struct ArrayJob {
    std::string name;
    Dims d;
    index_t first = 0;  ///< index of its first matrix in the call
    std::vector<T> a;
    std::vector<real_t<T>> s;
    std::vector<T> u, v;  ///< column-major for the call; then U and Vh in C order
};

/// "see bad/info in OUT.npz" for the arrays with nonzero info (at most three named).
template <class T>
std::string where_info_is(std::span<const ArrayJob<T>> jobs, std::span<const int> info,
                          const fs::path& out) {
    std::vector<std::string> names;
    for (const ArrayJob<T>& j : jobs)
        for (index_t b = 0; b < j.d.batch; ++b)
            if (info[static_cast<std::size_t>(j.first + b)] != 0) {
                names.push_back(j.name + "/info");
                break;
            }
    std::string see = "see ";
    for (std::size_t i = 0; i < names.size() && i < 3; ++i) see += (i ? ", " : "") + names[i];
    if (names.size() > 3) see += " and " + std::to_string(names.size() - 3) + " more arrays' info";
    return see + " in " + out.string();
}

/// Creates the output's directory if missing, and writes the archive (OutputError on failure).
void write_archive(const fs::path& out, std::span<const npz::PendingMember> members) {
    std::error_code ec;
    if (out.has_parent_path()) {
        fs::create_directories(out.parent_path(), ec);
        if (ec)
            throw OutputError("cannot create directory " + quoted(out.parent_path()) + ": " +
                              ec.message());
    }
    try {
        npz::write(out, members);
    } catch (const npz::Error& e) {
        throw OutputError(e.what());
    }
}

template <class T> int solve_and_write(std::vector<npz::Member>& members, const SvdRequest& req) {
    using R = real_t<T>;
    const bool want_u = req.opts.compute_u, want_v = req.opts.compute_v;
    std::vector<ArrayJob<T>> jobs;
    index_t total = 0;
    for (npz::Member& m : members) {
        ArrayJob<T> j{m.name, array_dims(m, req.input), total, {}, {}, {}, {}};
        const index_t k = j.d.k();
        const auto count = [&](index_t per) { return static_cast<std::size_t>(j.d.batch * per); };
        j.a = gather_column_major<T>(m.array, j.d);
        std::vector<std::byte>().swap(m.array.data);  // the input is no longer needed
        j.s.resize(count(k));
        if (want_u) j.u.resize(count(j.d.m * k));
        if (want_v) j.v.resize(count(j.d.n * k));
        total += j.d.batch;
        jobs.push_back(std::move(j));
    }

    // The call's per-matrix tables. Empty matrices (k = 0) take null pointers.
    const auto cnt = static_cast<std::size_t>(total);
    std::vector<index_t> m(cnt), n(cnt), lda(cnt), ldu(cnt), ldv(cnt);
    std::vector<const T*> a(cnt);
    std::vector<R*> s(cnt);
    std::vector<T*> u(cnt), v(cnt);
    std::vector<int> info(cnt, 0), sweeps(cnt, 0);
    for (ArrayJob<T>& j : jobs) {
        const index_t k = j.d.k();
        for (index_t b = 0; b < j.d.batch; ++b) {
            const auto i = static_cast<std::size_t>(j.first + b);
            m[i] = j.d.m;
            n[i] = j.d.n;
            lda[i] = ldu[i] = std::max<index_t>(1, j.d.m);
            ldv[i] = std::max<index_t>(1, j.d.n);
            if (k == 0) continue;
            a[i] = j.a.data() + b * j.d.m * j.d.n;
            s[i] = j.s.data() + b * k;
            if (want_u) u[i] = j.u.data() + b * j.d.m * k;
            if (want_v) v[i] = j.v.data() + b * j.d.n * k;
        }
    }
    Options opts = req.opts;
    opts.sweeps = sweeps.data();
    const auto start = std::chrono::steady_clock::now();
    gesvd_vbatched<T>(total, m.data(), n.data(), MatrixList<const T>{a.data(), lda.data()}, s.data(),
                      MatrixList<T>{u.data(), ldu.data()}, MatrixList<T>{v.data(), ldv.data()},
                      info.data(), opts);
    const std::chrono::duration<double, std::milli> elapsed =
        std::chrono::steady_clock::now() - start;
    if (req.progress == Progress::always)  // one call: one line, when it has returned
        std::fprintf(stderr, "batchsvd: %lld of %lld matrices (100%%), %.1f s\n",
                     static_cast<long long>(total), static_cast<long long>(total),
                     elapsed.count() / 1000);

    const npy::Dtype t = npy::dtype_v<T>, rt = npy::dtype_v<R>, i32 = npy::Dtype::int32;
    std::vector<npz::PendingMember> out;
    for (ArrayJob<T>& j : jobs) {
        const Dims& d = j.d;
        const index_t k = d.k();
        const auto per_matrix = [&](const std::vector<int>& x) {
            return std::as_bytes(std::span<const int>(x).subspan(static_cast<std::size_t>(j.first),
                                                                  static_cast<std::size_t>(d.batch)));
        };
        if (want_u) j.u = u_in_c_order(j.u, d);
        if (want_v) j.v = vh_in_c_order(j.v, d);
        out.push_back({j.name + "/S", {rt, false, with_batch(d, {k})}, bytes(j.s)});
        if (want_u) out.push_back({j.name + "/U", {t, false, with_batch(d, {d.m, k})}, bytes(j.u)});
        if (want_v) out.push_back({j.name + "/Vh", {t, false, with_batch(d, {k, d.n})}, bytes(j.v)});
        out.push_back({j.name + "/info", {i32, false, with_batch(d, {})}, per_matrix(info)});
        out.push_back({j.name + "/sweeps", {i32, false, with_batch(d, {})}, per_matrix(sweeps)});
    }
    write_archive(req.out, out);

    std::printf("batchsvd: %lld matri%s in %zu array%s, %s, backend %s, %.3f ms; wrote %zu arrays to %s\n",
                static_cast<long long>(total), total == 1 ? "x" : "ces", jobs.size(),
                jobs.size() == 1 ? "" : "s", npy::name(t), backend_label(req.opts.backend),
                elapsed.count(), out.size(), req.out.string().c_str());
    warn_about_info(info, req.opts.max_sweeps,
                    where_info_is<T>(std::span<const ArrayJob<T>>(jobs), info, req.out));
    return exit_ok;
}

}  // namespace

int run_svd_npz(const SvdRequest& req) {
    std::error_code ec;
    if (fs::equivalent(req.input, req.out, ec))
        throw UsageError("--out names the input file " + quoted(req.input) +
                         ": write the results to another file", "batchsvd svd");
    std::vector<npz::Member> members = npz::read(req.input);
    if (members.empty()) {  // no arrays: no results, an empty archive
        write_archive(req.out, {});
        std::printf("batchsvd: %s holds no arrays; wrote an empty archive to %s\n",
                    req.input.string().c_str(), req.out.string().c_str());
        return exit_ok;
    }
    for (const npz::Member& m : members) array_dims(m, req.input);  // shapes first, then dtypes
    switch (common_dtype(members, req.input)) {
    case npy::Dtype::float32: return solve_and_write<float>(members, req);
    case npy::Dtype::float64: return solve_and_write<double>(members, req);
    case npy::Dtype::complex64: return solve_and_write<std::complex<float>>(members, req);
    case npy::Dtype::complex128: return solve_and_write<std::complex<double>>(members, req);
    case npy::Dtype::int32: break;
    }
    throw InputError("unsupported dtype");  // (common_dtype rejects int32)
}

}  // namespace batchsvd::cli
