// SPDX-License-Identifier: BSD-3-Clause
// Reader and writer of NumPy .npy files (format versions 1.0, 2.0 and 3.0) for the dtypes the
// batchsvd tool handles: float32, float64, complex64, complex128 and int32. The reader is
// strict and bounds-checked: anything it cannot fully account for throws npy::Error.
// Big-endian files ('>f8' etc.) are accepted and byte-swapped to the host order on reading;
// the writer always writes little-endian, version 1.0 headers padded to 64 bytes.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace batchsvd::npy {

/// Every failure to read, parse or write a .npy file.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum class Dtype { float32, float64, complex64, complex128, int32 };

std::size_t element_size(Dtype d);
/// NumPy's name ("float64") and the little-endian descr the writer uses ("<f8").
const char* name(Dtype d);
const char* descr(Dtype d);

template <class T> struct dtype_of;
template <> struct dtype_of<float> { static constexpr Dtype value = Dtype::float32; };
template <> struct dtype_of<double> { static constexpr Dtype value = Dtype::float64; };
template <> struct dtype_of<std::complex<float>> { static constexpr Dtype value = Dtype::complex64; };
template <> struct dtype_of<std::complex<double>> { static constexpr Dtype value = Dtype::complex128; };
template <> struct dtype_of<std::int32_t> { static constexpr Dtype value = Dtype::int32; };
template <class T> inline constexpr Dtype dtype_v = dtype_of<T>::value;

struct Header {
    Dtype dtype = Dtype::float64;
    bool fortran_order = false;
    std::vector<std::int64_t> shape;  ///< empty for a 0-d array

    /// Number of elements (product of the shape); throws npy::Error on overflow.
    std::int64_t count() const;
    /// The header's dict, as NumPy writes it: {'descr': '<f8', 'fortran_order': False, ...}
    std::string dict() const;
};

/// A whole .npy file in memory; `data` is in host (little-endian) byte order.
struct Array {
    Header header;
    std::vector<std::byte> data;

    /// The elements in file order; throws npy::Error unless header.dtype matches T.
    template <class T> std::vector<T> values() const {
        if (header.dtype != dtype_v<T>)
            throw Error(std::string("dtype is ") + name(header.dtype) + ", expected " +
                        name(dtype_v<T>));
        std::vector<T> out(data.size() / sizeof(T));
        if (!out.empty()) std::memcpy(out.data(), data.data(), out.size() * sizeof(T));
        return out;
    }
};

/// Parses the bytes of a complete .npy file. Trailing bytes after the data are an error.
Array parse(std::span<const std::byte> file);
/// Reads and parses a file.
Array read(const std::filesystem::path& path);

/// The file's bytes before the data (magic, version, length and the padded dict) for a header
/// and a data size, which must equal header.count() * element_size(header.dtype).
std::vector<std::byte> header_bytes(const Header& header, std::size_t data_size);

/// The complete file (header and data) for a header and its raw little-endian data;
/// data.size() must equal header.count() * element_size(header.dtype).
std::vector<std::byte> serialize(const Header& header, std::span<const std::byte> data);
/// Writes serialize(header, data) to `path` (replacing it); throws npy::Error on failure.
void write(const std::filesystem::path& path, const Header& header,
           std::span<const std::byte> data);

/// Typed convenience: a C-order array of the given shape.
template <class T>
void write(const std::filesystem::path& path, std::vector<std::int64_t> shape,
           std::span<const T> values) {
    write(path, Header{dtype_v<T>, false, std::move(shape)}, std::as_bytes(values));
}

}  // namespace batchsvd::npy
