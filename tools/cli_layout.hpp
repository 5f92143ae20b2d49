// SPDX-License-Identifier: BSD-3-Clause
// The layouts `batchsvd svd` converts between: an .npy array of one matrix (m, n) or a stack
// (batch, m, n), in C or Fortran order, to packed column-major matrices for the library; and
// the library's packed column-major U (m x k) and V (n x k) to the C-order U (m, k) and
// Vh = V^H (k, n) of numpy.linalg.svd(a, full_matrices=False).
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "batchsvd/batchsvd.hpp"
#include "npy.hpp"

namespace batchsvd::cli {

/// Matrix dimensions of an array: batch is 1 for a 2-D array.
struct Dims {
    index_t batch = 1, m = 0, n = 0;
    bool batched = false;
    index_t k() const { return m < n ? m : n; }
};

/// The dimensions of a shape (m, n) or (batch, m, n); none for any other number of axes.
inline std::optional<Dims> matrix_dims(std::span<const std::int64_t> shape) {
    if (shape.size() != 2 && shape.size() != 3) return std::nullopt;
    Dims d;
    d.batched = shape.size() == 3;
    if (d.batched) d.batch = shape[0];
    d.m = shape[shape.size() - 2];
    d.n = shape[shape.size() - 1];
    return d;
}

/// `shape` with the batch axis in front for a stack: the shape of a per-matrix result.
inline std::vector<std::int64_t> with_batch(const Dims& d, std::vector<std::int64_t> shape) {
    if (d.batched) shape.insert(shape.begin(), d.batch);
    return shape;
}

template <class T> std::span<const std::byte> bytes(const std::vector<T>& v) {
    return std::as_bytes(std::span<const T>(v));
}

template <class T> T conjugate(T x) {
    if constexpr (std::is_same_v<T, real_t<T>>) return x;
    else return std::conj(x);
}

/// The array's matrices as a packed column-major batch (lda = m, stride = m * n).
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

/// Packed column-major U, m x k per matrix, as C-order (batch, m, k).
template <class T>
std::vector<T> u_in_c_order(const std::vector<T>& u, const Dims& d) {
    const index_t k = d.k();
    const auto at = [](index_t i) { return static_cast<std::size_t>(i); };
    std::vector<T> out(u.size());
    for (index_t b = 0; b < d.batch; ++b)
        for (index_t i = 0; i < d.m; ++i)
            for (index_t j = 0; j < k; ++j)
                out[at(b * d.m * k + i * k + j)] = u[at(b * d.m * k + i + j * d.m)];
    return out;
}

/// Packed column-major V, n x k per matrix, as Vh = V^H in C order (batch, k, n).
template <class T>
std::vector<T> vh_in_c_order(const std::vector<T>& v, const Dims& d) {
    const index_t k = d.k();
    const auto at = [](index_t i) { return static_cast<std::size_t>(i); };
    std::vector<T> out(v.size());
    for (index_t b = 0; b < d.batch; ++b)
        for (index_t r = 0; r < k; ++r)
            for (index_t c = 0; c < d.n; ++c)
                out[at(b * k * d.n + r * d.n + c)] = conjugate(v[at(b * d.n * k + c + r * d.n)]);
    return out;
}

}  // namespace batchsvd::cli
