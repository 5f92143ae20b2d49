// SPDX-License-Identifier: BSD-3-Clause
// Tests of the .npy reader/writer (tools/npy.hpp): round trips of every dtype and layout,
// hand-written headers as NumPy and others write them, and rejection (npy::Error, never a
// crash) of truncated, corrupt, unsupported or overflowing files.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "npy.hpp"

namespace npy = batchsvd::npy;
using Bytes = std::vector<std::byte>;

namespace {

Bytes to_bytes(std::string_view s) {
    Bytes b;
    for (char c : s) b.push_back(static_cast<std::byte>(c));
    return b;
}

/// A file with the given version and dict text (no padding added), followed by `data`.
Bytes make_file(std::string_view dict, int major, const Bytes& data) {
    Bytes f = to_bytes("\x93NUMPY");
    f.push_back(std::byte(major));
    f.push_back(std::byte{0});
    const std::size_t len_bytes = major == 1 ? 2 : 4;
    for (std::size_t i = 0; i < len_bytes; ++i)
        f.push_back(std::byte((dict.size() >> (8 * i)) & 0xff));
    const Bytes d = to_bytes(dict);
    f.insert(f.end(), d.begin(), d.end());
    f.insert(f.end(), data.begin(), data.end());
    return f;
}

template <class T> Bytes raw(const std::vector<T>& v) {
    const auto s = std::as_bytes(std::span<const T>(v));
    return Bytes(s.begin(), s.end());
}

Bytes random_bytes(std::size_t n, std::mt19937& rng) {
    Bytes b(n);
    for (std::byte& x : b) x = std::byte(rng() & 0xff);
    return b;
}

const npy::Dtype all_dtypes[] = {npy::Dtype::float32, npy::Dtype::float64, npy::Dtype::complex64,
                                 npy::Dtype::complex128, npy::Dtype::int32};

}  // namespace

TEST(Npy, RoundTripsEveryDtypeShapeAndOrder) {
    std::mt19937 rng(7);
    const std::vector<std::vector<std::int64_t>> shapes = {{5, 3}, {4, 2, 6}, {1, 1}, {3, 0, 2},
                                                           {7}, {}};
    for (npy::Dtype dt : all_dtypes)
        for (const auto& shape : shapes)
            for (bool fortran : {false, true}) {
                const npy::Header h{dt, fortran, shape};
                const Bytes data =
                    random_bytes(static_cast<std::size_t>(h.count()) * npy::element_size(dt), rng);
                const Bytes file = npy::serialize(h, data);
                SCOPED_TRACE(h.dict());
                // version 1.0, data 64-byte aligned, header ends in a newline
                EXPECT_EQ(std::to_integer<int>(file[6]), 1);
                const std::size_t header_len = std::to_integer<std::size_t>(file[8]) +
                                               256 * std::to_integer<std::size_t>(file[9]);
                EXPECT_EQ((10 + header_len) % 64, 0u);
                EXPECT_EQ(file[10 + header_len - 1], std::byte{'\n'});
                EXPECT_EQ(file.size(), 10 + header_len + data.size());

                const npy::Array a = npy::parse(file);
                EXPECT_EQ(a.header.dtype, dt);
                EXPECT_EQ(a.header.fortran_order, fortran);
                EXPECT_EQ(a.header.shape, shape);
                EXPECT_EQ(a.data, data);
            }
}

TEST(Npy, WritesNumpyStyleDict) {
    EXPECT_EQ((npy::Header{npy::Dtype::float64, false, {2, 3}}.dict()),
              "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }");
    EXPECT_EQ((npy::Header{npy::Dtype::float32, false, {3}}.dict()),
              "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }");
    EXPECT_EQ((npy::Header{npy::Dtype::int32, false, {}}.dict()),
              "{'descr': '<i4', 'fortran_order': False, 'shape': (), }");
    EXPECT_EQ((npy::Header{npy::Dtype::complex128, true, {2, 3, 4}}.dict()),
              "{'descr': '<c16', 'fortran_order': True, 'shape': (2, 3, 4), }");
    EXPECT_STREQ(npy::descr(npy::Dtype::complex64), "<c8");
}

TEST(Npy, FileRoundTripAndTypedValues) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("batchsvd_npy_test_" + std::to_string(std::random_device{}()) + ".npy");
    const std::vector<std::complex<double>> v = {{1, -2}, {3.5, 0}, {-0.25, 1e300}, {0, 0},
                                                 {5, 6},  {7, 8}};
    npy::write<std::complex<double>>(path, {3, 2}, v);
    const npy::Array a = npy::read(path);
    std::filesystem::remove(path);
    EXPECT_EQ(a.header.shape, (std::vector<std::int64_t>{3, 2}));
    EXPECT_FALSE(a.header.fortran_order);
    EXPECT_EQ(a.values<std::complex<double>>(), v);
    EXPECT_THROW(a.values<double>(), npy::Error);
    EXPECT_THROW(a.values<std::complex<float>>(), npy::Error);
}

TEST(Npy, ReadsMissingFileAsError) {
    EXPECT_THROW(npy::read("/nonexistent/dir/batchsvd_missing.npy"), npy::Error);
    EXPECT_THROW(npy::read(std::filesystem::temp_directory_path()), npy::Error);  // a directory
}

TEST(Npy, ParsesHandWrittenHeaders) {
    const std::vector<double> v = {1, 2, 3, 4, 5, 6};
    const Bytes data = raw(v);
    const std::vector<std::string> dicts = {
        "{'shape': (2, 3), 'fortran_order': False, 'descr': '<f8'}",
        "{ 'descr' : '<f8' ,\t'fortran_order':False,'shape':(2,3,),}\n",
        "{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": ( 2 , 3 ) }      \n",
        "{'fortran_order': False, 'descr': '=f8', 'shape': (2, 3)}",
    };
    for (int major : {1, 2, 3})
        for (const std::string& d : dicts) {
            SCOPED_TRACE(d);
            const npy::Array a = npy::parse(make_file(d, major, data));
            EXPECT_EQ(a.header.dtype, npy::Dtype::float64);
            EXPECT_FALSE(a.header.fortran_order);
            EXPECT_EQ(a.header.shape, (std::vector<std::int64_t>{2, 3}));
            EXPECT_EQ(a.values<double>(), v);
        }
    const npy::Array f = npy::parse(
        make_file("{'descr': '<f8', 'fortran_order': True, 'shape': (3, 2), }", 1, data));
    EXPECT_TRUE(f.header.fortran_order);
    const npy::Array one = npy::parse(make_file("{'descr':'<f8','fortran_order':False,'shape':(6,)}", 1, data));
    EXPECT_EQ(one.header.shape, (std::vector<std::int64_t>{6}));
}

TEST(Npy, ByteSwapsBigEndianData) {
    Bytes be;  // 1.5 and -2 as big-endian doubles, then a big-endian complex64 (1, 2)
    for (std::uint64_t bits : {0x3FF8000000000000ull, 0xC000000000000000ull})
        for (int i = 7; i >= 0; --i) be.push_back(std::byte((bits >> (8 * i)) & 0xff));
    const npy::Array a = npy::parse(make_file("{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }", 1, be));
    EXPECT_EQ(a.values<double>(), (std::vector<double>{1.5, -2}));

    Bytes c;
    for (std::uint32_t bits : {0x3F800000u, 0x40000000u})
        for (int i = 3; i >= 0; --i) c.push_back(std::byte((bits >> (8 * i)) & 0xff));
    const npy::Array z = npy::parse(make_file("{'descr': '>c8', 'fortran_order': False, 'shape': (1, 1), }", 1, c));
    EXPECT_EQ(z.values<std::complex<float>>(), (std::vector<std::complex<float>>{{1, 2}}));
}

TEST(Npy, RejectsEveryTruncation) {
    const npy::Header h{npy::Dtype::complex64, true, {2, 3, 4}};
    const Bytes file = npy::serialize(h, Bytes(h.count() * 8, std::byte{1}));
    ASSERT_NO_THROW(npy::parse(file));
    for (std::size_t len = 0; len < file.size(); ++len)
        EXPECT_THROW(npy::parse(std::span(file).first(len)), npy::Error) << "length " << len;
    Bytes longer = file;
    longer.push_back(std::byte{0});
    EXPECT_THROW(npy::parse(longer), npy::Error);  // bytes after the data
}

TEST(Npy, RejectsBadMagicAndVersion) {
    const Bytes data(8, std::byte{0});
    const std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }";
    Bytes f = make_file(dict, 1, data);
    ASSERT_NO_THROW(npy::parse(f));
    for (std::size_t i = 0; i < 6; ++i) {
        Bytes bad = f;
        bad[i] ^= std::byte{0x20};
        EXPECT_THROW(npy::parse(bad), npy::Error) << "magic byte " << i;
    }
    for (int major : {0, 4, 255}) {
        Bytes bad = make_file(dict, 1, data);
        bad[6] = std::byte(major);
        EXPECT_THROW(npy::parse(bad), npy::Error) << "major " << major;
    }
    Bytes minor = f;
    minor[7] = std::byte{1};
    EXPECT_THROW(npy::parse(minor), npy::Error);
    Bytes long_header = f;  // header length beyond the end of the file
    long_header[8] = std::byte{0xff};
    long_header[9] = std::byte{0xff};
    EXPECT_THROW(npy::parse(long_header), npy::Error);
    Bytes v2 = make_file(dict, 2, data);
    v2[11] = std::byte{0x80};  // 4-byte length of about 2^31
    EXPECT_THROW(npy::parse(v2), npy::Error);
}

TEST(Npy, RejectsMalformedDicts) {
    const Bytes data(8, std::byte{0});
    const std::vector<std::string> bad = {
        "",
        "{",
        "}",
        "descr: '<f8'",
        "{'descr': '<f8', 'fortran_order': False}",                         // no shape
        "{'descr': '<f8', 'shape': (1,)}",                                  // no fortran_order
        "{'fortran_order': False, 'shape': (1,)}",                          // no descr
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'x': 1}",  // extra key
        "{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (1,)}",
        "{'descr': '<f8', 'fortran_order': 0, 'shape': (1,)}",
        "{'descr': '<f8', 'fortran_order': Falsey, 'shape': (1,)}",
        "{'descr': '<f8', 'fortran_order': false, 'shape': (1,)}",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1)}",  // an int, not a tuple
        "{'descr': '<f8', 'fortran_order': False, 'shape': [1]}",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (-1,)}",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (01,)}",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1.0,)}",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1,,)}",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (,)}",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1,) ",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1,)} x",
        "{'descr': '<f8' 'fortran_order': False, 'shape': (1,)}",
        "{'descr': '<f8, 'fortran_order': False, 'shape': (1,)}",
        "{'descr': '<f8\\', 'fortran_order': False, 'shape': (1,)}",
        "{descr: '<f8', 'fortran_order': False, 'shape': (1,)}",
        std::string("{'descr': '<f8', 'fortran_order': False, 'shape': (1,)}") + '\0',
    };
    for (const std::string& d : bad)
        for (int major : {1, 3})
            EXPECT_THROW(npy::parse(make_file(d, major, data)), npy::Error) << d;
}

TEST(Npy, RejectsUnsupportedDtypes) {
    for (std::string descr : {"<i8", "<f2", "|u1", "|b1", "<U3", "|O", "<f16", "f8", "|f8",
                              "<c32", "<M8[ns]", ""}) {
        const std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (1,), }";
        EXPECT_THROW(npy::parse(make_file(dict, 1, Bytes(8, std::byte{0}))), npy::Error) << descr;
    }
    EXPECT_THROW(npy::parse(make_file("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1,), }",
                                      1, Bytes(8, std::byte{0}))),
                 npy::Error);
}

TEST(Npy, RejectsOverflowingShapes) {
    const std::vector<std::string> shapes = {
        "(9223372036854775808,)",             // 2^63: not an int64
        "(99999999999999999999999999,)",      //
        "(4611686018427387904, 4)",           // product overflows int64
        "(3037000500, 3037000500, 3037000500)",
        "(1152921504606846976,)",             // 2^60 elements: the byte count overflows
        "(1000000, 1000000)",                 // fits, but the file is far too short
    };
    for (const std::string& s : shapes) {
        const std::string dict = "{'descr': '<c16', 'fortran_order': False, 'shape': " + s + ", }";
        EXPECT_THROW(npy::parse(make_file(dict, 1, Bytes(16, std::byte{0}))), npy::Error) << s;
    }
    EXPECT_THROW((npy::Header{npy::Dtype::float64, false, {-1, 2}}.count()), npy::Error);
    EXPECT_THROW(npy::serialize(npy::Header{npy::Dtype::float64, false, {2}}, Bytes(8)), npy::Error);
}

TEST(Npy, SurvivesRandomCorruption) {
    // Random byte flips in the header of a valid file: parse either succeeds or throws
    // npy::Error (run under a sanitizer to also catch out-of-bounds reads).
    std::mt19937 rng(12345);
    const npy::Header h{npy::Dtype::float32, false, {3, 5}};
    const Bytes file = npy::serialize(h, Bytes(60, std::byte{2}));
    int parsed = 0, rejected = 0;
    for (int trial = 0; trial < 5000; ++trial) {
        Bytes f = file;
        const int flips = 1 + static_cast<int>(rng() % 4);
        for (int i = 0; i < flips; ++i)
            f[rng() % 64] = std::byte(rng() & 0xff);
        if (rng() % 4 == 0) f.resize(rng() % f.size());
        try {
            const npy::Array a = npy::parse(f);
            EXPECT_EQ(static_cast<std::size_t>(a.header.count()) * npy::element_size(a.header.dtype),
                      a.data.size());
            ++parsed;
        } catch (const npy::Error&) {
            ++rejected;
        }
    }
    EXPECT_GT(rejected, 0);
    EXPECT_EQ(parsed + rejected, 5000);
}

// The fuzz corpus's .npy inputs (first byte 1, see tools/fuzz_inputs.cpp), seeds and any
// input that once crashed the reader: each parses or fails with npy::Error, nothing else.
TEST(Npy, FuzzCorpusReplays) {
    const std::filesystem::path dir = BATCHSVD_FUZZ_CORPUS;
    int replayed = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        std::ifstream in(entry.path(), std::ios::binary);
        std::vector<char> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (raw.empty() || (raw[0] & 1) == 0) continue;  // argument inputs: the CLI test's job
        const auto* bytes = reinterpret_cast<const std::byte*>(raw.data()) + 1;
        try {
            const npy::Array a = npy::parse({bytes, raw.size() - 1});
            EXPECT_GT(a.header.shape.size(), 0u) << entry.path();
        } catch (const npy::Error&) {
        }
        ++replayed;
    }
    EXPECT_GE(replayed, 4) << "the corpus in " << dir << " holds the .npy seeds";
}
