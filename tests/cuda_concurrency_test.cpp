// SPDX-License-Identifier: BSD-3-Clause
// The CUDA backend called from several host threads at once. Each thread has a stream and
// device buffers of its own and runs every path (tiny, warp, fused, blocked, QR,
// preconditioned, complex types, a NaN matrix, host memory staged through the device) several
// times, in an order rotated by thread so that different paths overlap; every result (S, U, V,
// info) must be bitwise the one a serial run on the legacy default stream gave. The plan, and
// with it the bits, depends on the size, the batch and the device, never on the stream or on
// other callers (docs/reliability.md, Determinism). Every case skips, with a message, where no
// CUDA device exists.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdint>
#include <cstring>
#include <exception>
#include <iostream>
#include <latch>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "batchsvd/batchsvd.hpp"
#include "cuda/fused/fused_plan.hpp"
#include "cuda_test_support.hpp"
#include "testing/generators.hpp"

namespace batchsvd::test {
namespace {

enum class Precision { f32, f64, c64, c128 };

std::size_t element_bytes(Precision p) {
    switch (p) {
        case Precision::f32: return sizeof(float);
        case Precision::f64: return sizeof(double);
        case Precision::c64: return sizeof(std::complex<float>);
        case Precision::c128: return sizeof(std::complex<double>);
    }
    return 0;
}
std::size_t real_bytes(Precision p) {
    return p == Precision::f32 || p == Precision::c64 ? sizeof(float) : sizeof(double);
}

/// One problem every caller solves.
struct Case {
    const char* name;
    Precision precision;
    index_t batch, m, n;
    Options opts;
    testing::Family family;
    const char* path;          ///< what cuda::solve_path must begin with (device cases)
    bool preconditioned;       ///< whether that path must end in " pre"
    bool host = false;         ///< host pointers through the CUDA backend (staged on the stream)
    index_t nan_matrix = -1;   ///< a matrix holding a NaN (info_nonfinite), or -1

    index_t k() const { return std::min(m, n); }
    std::size_t a_bytes() const { return std::size_t(batch * m * n) * element_bytes(precision); }
    std::size_t s_bytes() const { return std::size_t(batch * k()) * real_bytes(precision); }
    std::size_t u_bytes() const { return std::size_t(batch * m * k()) * element_bytes(precision); }
    std::size_t v_bytes() const { return std::size_t(batch * n * k()) * element_bytes(precision); }
};

Options options(JacobiVariant variant, QrMode qr, PreconditionMode pre) {
    Options o;
    o.variant = variant;
    o.qr = qr;
    o.precondition = pre;
    return o;
}

/// The cases: sizes that docs/architecture.md's dispatch table sends to each path (the path
/// is checked), forced through Options where the automatic rule would choose another.
const std::vector<Case>& all_cases() {
    using V = JacobiVariant;
    using Q = QrMode;
    using P = PreconditionMode;
    const Options automatic{};
    static const std::vector<Case> cases{
        {"tiny float32 2000 x 3x3", Precision::f32, 2000, 3, 3, automatic, testing::Family::logrand, "tiny", false},
        {"warp float64 500 x 24x24", Precision::f64, 500, 24, 24, automatic, testing::Family::logrand, "warp nc24",
         false},
        // (100^2 float64 goes to the blocked path by itself: the fused kernel is forced.)
        {"fused float64 100 x 100x100, a NaN matrix", Precision::f64, 100, 100, 100,
         options(V::unblocked, Q::automatic, P::never), testing::Family::random, "fused", false, false, 37},
        {"blocked float64 20 x 200x200", Precision::f64, 20, 200, 200, options(V::blocked, Q::automatic, P::never),
         testing::Family::random, "blocked", false},
        {"qr float64 200 x 300x20", Precision::f64, 200, 300, 20, options(V::automatic, Q::always, P::automatic),
         testing::Family::logrand, "qr", false},
        {"preconditioned float64 20 x 256x256", Precision::f64, 20, 256, 256,
         options(V::automatic, Q::automatic, P::always), testing::Family::random, "blocked", true},
        {"warp complex64 400 x 16x16", Precision::c64, 400, 16, 16, automatic, testing::Family::logrand, "warp nc16",
         false},
        {"rows float32 300 x 40x40", Precision::f32, 300, 40, 40, automatic, testing::Family::logrand, "rows nc40",
         false},
        {"qr complex64 100 x 24x150 (wide)", Precision::c64, 100, 24, 150, automatic, testing::Family::logrand, "qr",
         false},
        {"fused complex128 60 x 40x40", Precision::c128, 60, 40, 40, automatic, testing::Family::logrand, "fused",
         false},
        {"preconditioned complex128 8 x 96x96", Precision::c128, 8, 96, 96,
         options(V::automatic, Q::automatic, P::always), testing::Family::random, "blocked", true},
        {"host memory float64 50 x 40x30", Precision::f64, 50, 40, 30, automatic, testing::Family::logrand, "", false,
         true},
    };
    return cases;
}

template <class T> std::vector<unsigned char> typed_input(const Case& c, std::uint64_t seed) {
    auto a = testing::generate_batch<T>(c.family, c.m, c.n, c.batch, seed);
    if (c.nan_matrix >= 0) a[c.nan_matrix * c.m * c.n + c.m * c.n / 2] = T(std::numeric_limits<real_t<T>>::quiet_NaN());
    std::vector<unsigned char> bytes(a.size() * sizeof(T));
    std::memcpy(bytes.data(), a.data(), bytes.size());
    return bytes;
}
std::vector<unsigned char> make_input(const Case& c, std::uint64_t seed) {
    switch (c.precision) {
        case Precision::f32: return typed_input<float>(c, seed);
        case Precision::f64: return typed_input<double>(c, seed);
        case Precision::c64: return typed_input<std::complex<float>>(c, seed);
        case Precision::c128: return typed_input<std::complex<double>>(c, seed);
    }
    return {};
}

template <class T> std::string typed_path(const Case& c) { return cuda::solve_path<T>(c.m, c.n, c.batch, c.opts); }
std::string path_of(const Case& c) {
    switch (c.precision) {
        case Precision::f32: return typed_path<float>(c);
        case Precision::f64: return typed_path<double>(c);
        case Precision::c64: return typed_path<std::complex<float>>(c);
        case Precision::c128: return typed_path<std::complex<double>>(c);
    }
    return {};
}

template <class T>
void typed_solve(const Case& c, const void* a, void* s, void* u, void* v, int* info, cudaStream_t stream) {
    Options o = c.opts;
    o.stream = stream;
    if (c.host) o.backend = Backend::cuda;
    gesvd<T>(c.m, c.n, c.batch, static_cast<const T*>(a), static_cast<real_t<T>*>(s), static_cast<T*>(u),
             static_cast<T*>(v), info, o);
}
void solve(const Case& c, const void* a, void* s, void* u, void* v, int* info, cudaStream_t stream) {
    switch (c.precision) {
        case Precision::f32: return typed_solve<float>(c, a, s, u, v, info, stream);
        case Precision::f64: return typed_solve<double>(c, a, s, u, v, info, stream);
        case Precision::c64: return typed_solve<std::complex<float>>(c, a, s, u, v, info, stream);
        case Precision::c128: return typed_solve<std::complex<double>>(c, a, s, u, v, info, stream);
    }
}

void cuda_ok(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

/// A non-blocking stream of one caller, destroyed on scope exit.
struct OwnStream {
    cudaStream_t s = nullptr;
    OwnStream() { cuda_ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"); }
    ~OwnStream() {
        if (s) {
            (void)cudaStreamSynchronize(s);
            (void)cudaStreamDestroy(s);
        }
    }
    OwnStream(const OwnStream&) = delete;
    OwnStream& operator=(const OwnStream&) = delete;
};

/// The host copy of one solve's outputs, as bytes.
struct Result {
    std::vector<unsigned char> s, u, v;
    std::vector<int> info;
};

/// Outputs are set to these bytes before every solve: all bits set is NaN in S, U and V; info
/// gets a value no solve writes. An element a solve failed to write then differs.
constexpr unsigned char kPoison = 0xFF, kInfoPoison = 0x5A;

/// One caller's operands of one case: device buffers of its own (the input copied in once), or
/// for a host case the caller's host memory.
struct Operands {
    const Case& c;
    const std::vector<unsigned char>& input;
    DeviceArray<unsigned char> a, s, u, v;
    DeviceArray<int> info;
    Operands(const Case& cs, const std::vector<unsigned char>& in, cudaStream_t stream)
        : c(cs), input(in), a(cs.host ? 0 : cs.a_bytes()), s(cs.host ? 0 : cs.s_bytes()),
          u(cs.host ? 0 : cs.u_bytes()), v(cs.host ? 0 : cs.v_bytes()), info(cs.host ? 0 : std::size_t(cs.batch)) {
        if (c.host) return;
        if (!a.p || !s.p || !u.p || !v.p || !info.p) throw std::runtime_error(std::string(c.name) + ": cudaMalloc failed");
        cuda_ok(cudaMemcpyAsync(a.p, input.data(), input.size(), cudaMemcpyHostToDevice, stream), "copy of A");
        cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    }

    /// One solve on `stream` (null: the legacy default stream), outputs poisoned first and
    /// copied back after.
    Result run(cudaStream_t stream) {
        Result r;
        r.s.assign(c.s_bytes(), kPoison);
        r.u.assign(c.u_bytes(), kPoison);
        r.v.assign(c.v_bytes(), kPoison);
        r.info.assign(std::size_t(c.batch), 0);
        std::memset(r.info.data(), kInfoPoison, r.info.size() * sizeof(int));
        if (c.host) {  // synchronous
            solve(c, input.data(), r.s.data(), r.u.data(), r.v.data(), r.info.data(), stream);
            return r;
        }
        cuda_ok(cudaMemsetAsync(s.p, kPoison, c.s_bytes(), stream), "poison S");
        cuda_ok(cudaMemsetAsync(u.p, kPoison, c.u_bytes(), stream), "poison U");
        cuda_ok(cudaMemsetAsync(v.p, kPoison, c.v_bytes(), stream), "poison V");
        cuda_ok(cudaMemsetAsync(info.p, kInfoPoison, std::size_t(c.batch) * sizeof(int), stream), "poison info");
        solve(c, a.p, s.p, u.p, v.p, info.p, stream);
        cuda_ok(cudaMemcpyAsync(r.s.data(), s.p, c.s_bytes(), cudaMemcpyDeviceToHost, stream), "copy of S");
        cuda_ok(cudaMemcpyAsync(r.u.data(), u.p, c.u_bytes(), cudaMemcpyDeviceToHost, stream), "copy of U");
        cuda_ok(cudaMemcpyAsync(r.v.data(), v.p, c.v_bytes(), cudaMemcpyDeviceToHost, stream), "copy of V");
        cuda_ok(cudaMemcpyAsync(r.info.data(), info.p, r.info.size() * sizeof(int), cudaMemcpyDeviceToHost, stream),
                "copy of info");
        cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize after the solve");
        return r;
    }
};

/// Empty when `got` is bitwise `want`, else where they first differ.
std::string first_difference(const Case& c, const Result& got, const Result& want) {
    const auto compare = [](const char* name, const void* x, const void* y, std::size_t bytes,
                            std::size_t element) -> std::string {
        if (std::memcmp(x, y, bytes) == 0) return {};
        const auto* p = static_cast<const unsigned char*>(x);
        const auto* q = static_cast<const unsigned char*>(y);
        std::size_t i = 0;
        while (p[i] == q[i]) ++i;
        return std::string(name) + " differs from element " + std::to_string(i / element) + " on";
    };
    for (std::string d : {compare("info", got.info.data(), want.info.data(), want.info.size() * sizeof(int), sizeof(int)),
                          compare("S", got.s.data(), want.s.data(), want.s.size(), real_bytes(c.precision)),
                          compare("U", got.u.data(), want.u.data(), want.u.size(), element_bytes(c.precision)),
                          compare("V", got.v.data(), want.v.data(), want.v.size(), element_bytes(c.precision))})
        if (!d.empty()) return d;
    return {};
}

/// `threads` host threads run every case `repeats` times, each thread on its own non-blocking
/// stream (own_streams) or all of them on the legacy default stream, and compare every result
/// with a serial run's. Failures are reported by the calling test.
void run_against_serial(int threads, int repeats, bool own_streams) {
    const std::vector<Case>& cases = all_cases();
    for (const Case& c : cases) {
        if (c.host) continue;
        const std::string path = path_of(c);
        const bool pre = path.size() > 4 && path.substr(path.size() - 4) == " pre";
        EXPECT_EQ(path.rfind(c.path, 0), 0u) << c.name << " took " << path;
        EXPECT_EQ(pre, c.preconditioned) << c.name << " took " << path;
    }
    const std::uint64_t seed = testing::fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::vector<std::vector<unsigned char>> inputs;
    for (std::size_t i = 0; i < cases.size(); ++i) inputs.push_back(make_input(cases[i], seed + 1000 * i));

    // The reference: one thread, the legacy default stream, one case after another.
    std::vector<Result> reference;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        Operands ops(cases[i], inputs[i], nullptr);
        reference.push_back(ops.run(nullptr));
        for (index_t b = 0; b < cases[i].batch; ++b)
            ASSERT_EQ(reference[i].info[b], b == cases[i].nan_matrix ? info_nonfinite : 0)
                << cases[i].name << ", matrix " << b << " (serial run)";
    }

    std::latch start(threads);
    std::mutex mutex;
    std::vector<std::string> failures;
    const auto began = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            const auto report = [&](const std::string& what) {
                const std::lock_guard<std::mutex> lock(mutex);
                failures.push_back("thread " + std::to_string(t) + ": " + what);
            };
            bool started = false;
            try {
                std::unique_ptr<OwnStream> own;
                if (own_streams) own = std::make_unique<OwnStream>();
                const cudaStream_t stream = own ? own->s : nullptr;
                std::vector<std::unique_ptr<Operands>> ops;
                for (std::size_t i = 0; i < cases.size(); ++i)
                    ops.push_back(std::make_unique<Operands>(cases[i], inputs[i], stream));
                started = true;
                start.arrive_and_wait();  // every thread's operands ready: the solves overlap
                for (int r = 0; r < repeats; ++r)
                    for (std::size_t j = 0; j < cases.size(); ++j) {
                        const std::size_t i = (j + std::size_t(t)) % cases.size();
                        const Result got = ops[i]->run(stream);
                        const std::string d = first_difference(cases[i], got, reference[i]);
                        if (!d.empty()) report(std::string(cases[i].name) + ", repeat " + std::to_string(r) + ": " + d);
                    }
            } catch (const std::exception& e) {
                report(std::string("exception: ") + e.what());
                if (!started) start.count_down();  // (the others must not wait for this thread)
            }
        });
    for (std::thread& th : pool) th.join();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    std::cout << threads << " threads (" << (own_streams ? "own streams" : "the legacy default stream") << ") x "
              << repeats << " repeats x " << cases.size() << " cases: " << seconds << " s\n";
    const std::size_t shown = std::min<std::size_t>(failures.size(), 40);
    for (std::size_t i = 0; i < shown; ++i) ADD_FAILURE() << failures[i];
    EXPECT_TRUE(failures.empty()) << failures.size() << " results differ from the serial run's (" << shown
                                  << " shown)";
}

TEST(CudaConcurrency, ThreadsOnOwnStreamsMatchSerialBitwise) {
    SKIP_WITHOUT_CUDA("concurrency case");
    run_against_serial(8, 3, true);
}

/// Threads that share the legacy default stream: their work interleaves in one queue, and the
/// blocked path's host waits (one pinned count block per thread) and stream-ordered workspace
/// must still keep each call's results its own.
TEST(CudaConcurrency, ThreadsSharingTheDefaultStreamMatchSerialBitwise) {
    SKIP_WITHOUT_CUDA("concurrency case");
    run_against_serial(4, 1, false);
}

}  // namespace
}  // namespace batchsvd::test
