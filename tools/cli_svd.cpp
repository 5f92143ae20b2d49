// SPDX-License-Identifier: BSD-3-Clause
// `batchsvd svd IN.npy --out DIR`: reads a batch of matrices from a .npy file, solves it with
// batchsvd::gesvd and writes S, U, Vh and info as numpy.linalg.svd(a, full_matrices=False)
// would (A = U @ diag(S) @ Vh).
#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "cli_args.hpp"
#include "cli_commands.hpp"
#include "cli_output.hpp"
#include "npy.hpp"

namespace batchsvd::cli {
namespace {

static_assert(sizeof(int) == sizeof(std::int32_t), "info is written as int32");

/// Matrix dimensions of the input: batch is 1 for a 2-D array.
struct Dims {
    index_t batch = 1, m = 0, n = 0;
    bool batched = false;
};

Dims matrix_dims(const npy::Header& h) {
    Dims d;
    if (h.shape.size() == 3) {
        d.batched = true;
        d.batch = h.shape[0];
    } else if (h.shape.size() != 2) {
        throw InputError("input must have 2 dimensions (m, n) or 3 (batch, m, n), not " +
                         std::to_string(h.shape.size()));
    }
    d.m = h.shape[h.shape.size() - 2];
    d.n = h.shape[h.shape.size() - 1];
    return d;
}

/// The input's matrices as a packed column-major batch (lda = m, stride = m * n).
template <class T>
std::vector<T> gather_column_major(const npy::Array& a, const Dims& d) {
    // element (b, i, j) of the array is at b * sb + i * si + j * sj
    const index_t sb = a.header.fortran_order ? 1 : d.m * d.n;
    const index_t si = a.header.fortran_order ? d.batch : d.n;
    const index_t sj = a.header.fortran_order ? d.batch * d.m : 1;
    std::vector<T> out(static_cast<std::size_t>(d.batch * d.m * d.n));
    const std::byte* src = a.data.data();
    for (index_t b = 0; b < d.batch; ++b)
        for (index_t j = 0; j < d.n; ++j)
            for (index_t i = 0; i < d.m; ++i)
                std::memcpy(&out[static_cast<std::size_t>(b * d.m * d.n + i + j * d.m)],
                            src + (b * sb + i * si + j * sj) * index_t(sizeof(T)), sizeof(T));
    return out;
}

template <class T> T conjugate(T x) {
    if constexpr (std::is_same_v<T, real_t<T>>) return x;
    else return std::conj(x);
}

std::vector<std::int64_t> with_batch(const Dims& d, std::vector<std::int64_t> shape) {
    if (d.batched) shape.insert(shape.begin(), d.batch);
    return shape;
}

template <class T> std::span<const std::byte> bytes(const std::vector<T>& v) {
    return std::as_bytes(std::span<const T>(v));
}

void warn_about_info(const std::vector<int>& info, const Options& opts) {
    std::size_t slow = 0, bad = 0;
    for (int i : info) {
        slow += i > 0;
        bad += i < 0;
    }
    if (slow == 0 && bad == 0) return;
    std::fputs("batchsvd: warning:", stderr);
    if (slow > 0)
        std::fprintf(stderr, " %zu of %zu matrices did not converge within %d sweeps (info > 0)%s",
                     slow, info.size(), opts.max_sweeps, bad > 0 ? ";" : "");
    if (bad > 0)
        std::fprintf(stderr, " %zu of %zu matrices hold NaN or Inf (info < 0)", bad, info.size());
    std::fputs("; see info.npy\n", stderr);
}

template <class T> int solve_and_write(const npy::Array& input, const SvdRequest& req) {
    using R = real_t<T>;
    const Dims d = matrix_dims(input.header);
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
    const auto at = [](index_t i) { return static_cast<std::size_t>(i); };
    std::vector<T> u_rows(u.size()), vh(v.size());
    for (index_t b = 0; b < d.batch && want_u; ++b)
        for (index_t i = 0; i < d.m; ++i)
            for (index_t j = 0; j < k; ++j)
                u_rows[at(b * d.m * k + i * k + j)] = u[at(b * d.m * k + i + j * d.m)];
    for (index_t b = 0; b < d.batch && want_v; ++b)
        for (index_t r = 0; r < k; ++r)
            for (index_t c = 0; c < d.n; ++c)
                vh[at(b * k * d.n + r * d.n + c)] = conjugate(v[at(b * d.n * k + c + r * d.n)]);

    const npy::Dtype t = npy::dtype_v<T>, rt = npy::dtype_v<R>;
    std::vector<PendingFile> files;
    files.push_back({"S.npy", {rt, false, with_batch(d, {k})}, bytes(s)});
    if (want_u) files.push_back({"U.npy", {t, false, with_batch(d, {d.m, k})}, bytes(u_rows)});
    if (want_v) files.push_back({"Vh.npy", {t, false, with_batch(d, {k, d.n})}, bytes(vh)});
    files.push_back({"info.npy", {npy::Dtype::int32, false, with_batch(d, {})}, bytes(info)});
    write_outputs(req.out_dir, files);

    std::printf("batchsvd: %lld matri%s %lldx%lld %s, backend %s, %.3f ms; wrote %zu files to %s\n",
                static_cast<long long>(d.batch), d.batch == 1 ? "x" : "ces",
                static_cast<long long>(d.m), static_cast<long long>(d.n),
                npy::name(input.header.dtype), backend_label(req.opts.backend),
                elapsed.count(), files.size(), req.out_dir.string().c_str());
    warn_about_info(info, req.opts);
    return exit_ok;
}

}  // namespace

int run_svd(const SvdRequest& req) {
    npy::Array input = npy::read(req.input);
    matrix_dims(input.header);  // reject a bad shape before anything else
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
