// SPDX-License-Identifier: BSD-3-Clause
// Injected faults (src/cuda/common/fault_injection.hpp) on every path of the CUDA backend:
// for one small solve of each path (tiny, warp, fused, blocked with both widths, chunks, two
// halves and in a new host thread, QR tall and wide, the preconditioned blocked path with each
// of its eigensolvers, host memory staged and streamed) and for one gesvd_vbatched call on its
// worker threads (VariableSizeBatchOnWorkerThreads), the injection points of one
// undisturbed solve are counted, then the solve is repeated with each point failing in turn,
// allocations and calls alike. Each failed solve must throw the documented Error
// (out_of_memory for an allocation, device_error for a launch or a cuBLAS/cuSOLVER call) naming
// what failed, leave the library's device memory and the device's free memory where they were,
// and leave the stream usable; the next solve must give bitwise the outputs of the undisturbed
// one. Every case skips, with a message, where no CUDA device exists.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "batchsvd/batchsvd.hpp"
#include "cuda/common/fault_injection.hpp"
#include "cuda/fused/fused_plan.hpp"
#include "cuda_test_support.hpp"
#include "testing/generators.hpp"

namespace batchsvd::test {
namespace {

namespace faults = ::batchsvd::cuda::testing;
using faults::FaultKind;

/// Sets environment variables (the CUDA backend's test switches) for its lifetime.
struct ScopedEnvs {
    std::vector<std::string> names;
    explicit ScopedEnvs(const std::vector<std::pair<std::string, std::string>>& vars) {
        for (const auto& [name, value] : vars) {
            setenv(name.c_str(), value.c_str(), 1);
            names.push_back(name);
        }
    }
    ~ScopedEnvs() {
        for (const std::string& name : names) unsetenv(name.c_str());
    }
    ScopedEnvs(const ScopedEnvs&) = delete;
    ScopedEnvs& operator=(const ScopedEnvs&) = delete;
};

/// Disarms the switch however the test ends.
struct Disarm {
    ~Disarm() { faults::disarm(); }
};

struct Stream {
    cudaStream_t s = nullptr;
    Stream() { cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); }
    ~Stream() {
        if (s) cudaStreamDestroy(s);
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
};

/// Device memory in use on the current device once all work is done and the memory pools
/// (the library's workspace pool and the default one) are trimmed to what is still allocated.
std::size_t device_bytes_in_use() {
    cudaDeviceSynchronize();
    batchsvd::release_cached_memory();
    int dev = 0;
    cudaGetDevice(&dev);
    cudaMemPool_t pool = nullptr;
    if (cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess) cudaMemPoolTrimTo(pool, 0);
    std::size_t free = 0, total = 0;
    cudaMemGetInfo(&free, &total);
    return total - free;
}

/// The free memory measured before and after a failed solve may differ by this much (the
/// driver's own bookkeeping, page granularity); a leaked workspace buffer of these cases is
/// not smaller than what the library counts, which must match exactly.
constexpr std::size_t kFreeMemoryTolerance = std::size_t(2) << 20;

/// What failed, from an injected error's message: the kernel, the library function or the
/// allocation ("DeviceBuffer", or the runtime call).
std::string failed_point(const std::string& message) {
    const std::string prefix = "batchsvd CUDA backend: ";
    std::string what = message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
    what = what.substr(0, what.find(" failed: "));
    if (what.rfind("launch of ", 0) == 0) return what.substr(10);
    if (what.rfind("device allocation of ", 0) == 0) return "DeviceBuffer";
    return what.substr(0, what.find('('));
}

/// The outputs of one solve as bytes (S, U, V, info), compared bitwise.
struct Outputs {
    std::vector<unsigned char> s, u, v, info;
    bool operator==(const Outputs& o) const { return s == o.s && u == o.u && v == o.v && info == o.info; }
};

/// One path's solve, on device pointers (a non-default stream) or host pointers, with outputs
/// poisoned (all bits set: NaN, info -1) before each call.
template <class T> class Solver {
public:
    Solver(index_t m, index_t n, index_t batch, Options o, bool host)
        : m_(m), n_(n), batch_(batch), k_(std::min(m, n)), o_(o), host_(host),
          a_(testing::generate_batch<T>(testing::Family::logrand, m, n, batch, testing::fresh_seed())),
          da_(a_.size()), ds_(k_ * batch), du_(m * k_ * batch), dv_(n * k_ * batch), dinfo_(batch),
          hs_(k_ * batch), hu_(m * k_ * batch), hv_(n * k_ * batch), hinfo_(batch) {
        o_.stream = stream_.s;
        o_.backend = Backend::cuda;
        ready_ = stream_.s && da_.p && ds_.p && du_.p && dv_.p && dinfo_.p &&
                 cudaMemcpy(da_.p, a_.data(), a_.size() * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess;
    }
    bool ready() const { return ready_; }
    cudaStream_t stream() const { return stream_.s; }

    /// Runs the solve (throws what gesvd throws); on device pointers it returns once enqueued.
    void run() {
        if (host_) {
            poison(hs_);
            poison(hu_);
            poison(hv_);
            poison(hinfo_);
            gesvd<T>(m_, n_, batch_, a_.data(), hs_.data(), hu_.data(), hv_.data(), hinfo_.data(), o_);
        } else {
            for (const auto& [p, bytes] : {std::pair<void*, std::size_t>{ds_.p, ds_.n * sizeof(real_t<T>)},
                                           {du_.p, du_.n * sizeof(T)}, {dv_.p, dv_.n * sizeof(T)},
                                           {dinfo_.p, dinfo_.n * sizeof(int)}})
                EXPECT_EQ(cudaMemsetAsync(p, 0xff, bytes, stream_.s), cudaSuccess);
            gesvd<T>(m_, n_, batch_, da_.p, ds_.p, du_.p, dv_.p, dinfo_.p, o_);
        }
    }

    /// The outputs of the last run, after waiting for it.
    Outputs outputs() {
        EXPECT_EQ(cudaStreamSynchronize(stream_.s), cudaSuccess);
        Outputs r;
        if (host_) {
            r.s = bytes_of(hs_);
            r.u = bytes_of(hu_);
            r.v = bytes_of(hv_);
            r.info = bytes_of(hinfo_);
        } else {
            r.s = copy_back(ds_);
            r.u = copy_back(du_);
            r.v = copy_back(dv_);
            r.info = copy_back(dinfo_);
        }
        return r;
    }

    /// Whether every matrix converged in the last run.
    bool converged() {
        const Outputs r = outputs();
        std::vector<int> info(batch_);
        std::memcpy(info.data(), r.info.data(), r.info.size());
        for (int i : info)
            if (i != 0) return false;
        return true;
    }

private:
    template <class X> static void poison(std::vector<X>& x) { std::memset(x.data(), 0xff, x.size() * sizeof(X)); }
    template <class X> static std::vector<unsigned char> bytes_of(const std::vector<X>& x) {
        std::vector<unsigned char> b(x.size() * sizeof(X));
        std::memcpy(b.data(), x.data(), b.size());
        return b;
    }
    template <class X> static std::vector<unsigned char> copy_back(const DeviceArray<X>& d) {
        std::vector<unsigned char> b(d.n * sizeof(X));
        EXPECT_EQ(cudaMemcpy(b.data(), d.p, b.size(), cudaMemcpyDeviceToHost), cudaSuccess);
        return b;
    }

    index_t m_, n_, batch_, k_;
    Options o_;
    bool host_;
    std::vector<T> a_;
    Stream stream_;
    DeviceArray<T> da_;
    DeviceArray<real_t<T>> ds_;
    DeviceArray<T> du_, dv_;
    DeviceArray<int> dinfo_;
    std::vector<real_t<T>> hs_;
    std::vector<T> hu_, hv_;
    std::vector<int> hinfo_;
    bool ready_ = false;
};

struct Case {
    const char* name;
    index_t m, n, batch;
    Options options;
    const char* path;  ///< what cuda::solve_path must start with ("" when not checked)
    std::vector<std::pair<std::string, std::string>> env;
    bool host = false;
    bool fresh_thread = false;  ///< each solve in a new host thread (its first pinned counts)
    /// The points of a solve may vary from run to run (work shared dynamically among host
    /// threads with thread-local allocations): a run that ends before the armed point solves
    /// undisturbed, and must give the undisturbed outputs.
    bool variable_points = false;
};

/// The whole check on one solver (see the top of the file): anything with ready(), stream(),
/// run(), outputs() and converged() as Solver has them.
template <class S> void exercise_solver(const Case& c, S& solver, const std::string& path);

/// The whole check on one case (see the top of the file).
template <class T> void exercise(const Case& c) {
    const ScopedEnvs env(c.env);
    const Disarm disarm;
    faults::disarm();
    const std::string path = cuda::solve_path<T>(c.m, c.n, c.batch, c.options);
    ASSERT_EQ(path.rfind(c.path, 0), 0u) << c.name << " took " << path;
    Solver<T> solver(c.m, c.n, c.batch, c.options, c.host);
    exercise_solver(c, solver, path);
}

template <class S> void exercise_solver(const Case& c, S& solver, const std::string& path) {
    ASSERT_TRUE(solver.ready()) << "test buffers";
    const auto run = [&] {
        if (!c.fresh_thread) return solver.run();
        std::exception_ptr error;
        std::thread t([&] {
            try {
                solver.run();
            } catch (...) {
                error = std::current_exception();
            }
        });
        t.join();
        if (error) std::rethrow_exception(error);
    };

    // Twice undisturbed: the first creates what the library keeps (handles, the thread's pinned
    // counts, loaded kernels), the second is the reference.
    run();
    ASSERT_TRUE(solver.converged()) << c.name;
    run();
    const Outputs reference = solver.outputs();

    // The points of one solve.
    long count[2] = {0, 0};
    faults::arm_fault(FaultKind::call, 0);
    run();
    const Outputs counted = solver.outputs();
    count[0] = faults::points_seen(FaultKind::alloc);
    count[1] = faults::points_seen(FaultKind::call);
    faults::disarm();
    EXPECT_EQ(faults::faults_injected(), 0);
    EXPECT_TRUE(counted == reference) << c.name << ": counting changed the outputs";
    EXPECT_GT(count[1], 0) << c.name << ": no launch counted";

    const std::size_t live = faults::live_device_bytes();
    const std::size_t in_use = device_bytes_in_use();
    std::size_t worst_drift = 0;
    std::map<std::string, int> failed[2];
    for (int kind = 0; kind < 2; ++kind) {
        const FaultKind fk = kind == 0 ? FaultKind::alloc : FaultKind::call;
        const char* kind_name = kind == 0 ? "allocation" : "call";
        for (long point = 1; point <= count[kind]; ++point) {
            SCOPED_TRACE(std::string(c.name) + ": " + kind_name + " " + std::to_string(point) + " of " +
                         std::to_string(count[kind]));
            faults::arm_fault(fk, point);
            bool thrown = false;
            try {
                run();
                (void)solver.outputs();
            } catch (const Error& e) {
                thrown = true;
                const std::string msg = e.what();
                EXPECT_EQ(e.code(), kind == 0 ? ErrorCode::out_of_memory : ErrorCode::device_error) << msg;
                EXPECT_NE(msg.find(" failed: "), std::string::npos) << msg;
                EXPECT_NE(msg.find("(injected) at "), std::string::npos) << msg;
                EXPECT_NE(msg.find("src/cuda/"), std::string::npos) << msg;  // the file and line
                ++failed[kind][failed_point(msg)];
            }
            if (!thrown && c.variable_points && faults::faults_injected() == 0 && faults::points_seen(fk) < point) {
                faults::disarm();
                EXPECT_TRUE(solver.outputs() == reference) << "a run short of the armed point";
                continue;
            }
            EXPECT_TRUE(thrown) << "no error";
            EXPECT_EQ(faults::faults_injected(), 1);
            faults::disarm();

            // Nothing left behind: the stream works, no error is pending, no memory is held.
            EXPECT_EQ(cudaStreamSynchronize(solver.stream()), cudaSuccess);
            EXPECT_EQ(cudaGetLastError(), cudaSuccess);
            EXPECT_EQ(faults::live_device_bytes(), live);
            const std::size_t now = device_bytes_in_use();
            const std::size_t drift = now > in_use ? now - in_use : in_use - now;
            worst_drift = std::max(worst_drift, drift);
            EXPECT_LE(drift, kFreeMemoryTolerance) << "device memory in use " << in_use << " before, " << now
                                                   << " after";

            // The next solve: bitwise the undisturbed one.
            run();
            EXPECT_TRUE(solver.outputs() == reference) << "outputs differ from the undisturbed solve";
            if (::testing::Test::HasFailure()) return;  // (one failure is enough to read)
        }
    }

    std::ostringstream sites;
    for (int kind = 0; kind < 2; ++kind) {
        sites << (kind == 0 ? "  allocations:" : "  calls:");
        for (const auto& [name, times] : failed[kind]) sites << " " << name << " x" << times;
        sites << "\n";
    }
    std::cout << "[ faults   ] " << c.name << " (" << path << "): " << count[0] << " allocation points, "
              << count[1] << " call points; device memory drift at most " << worst_drift << " bytes\n"
              << sites.str();
}

#define FAULT_CASE(test_name, T, ...)                                                            \
    TEST(CudaFaultInjection, test_name) {                                                        \
        SKIP_WITHOUT_CUDA("fault injection on the CUDA backend");                                \
        exercise<T>(Case{__VA_ARGS__});                                                          \
    }

FAULT_CASE(Tiny, float, "tiny float32 3x3 x40", 3, 3, 40, Options{}, "tiny")
FAULT_CASE(Warp, double, "warp float64 16x14 x5", 16, 14, 5, Options{}, "warp nc16")
FAULT_CASE(Rows, double, "rows float64 40x37 x5", 40, 37, 5, Options{}, "rows nc38")
FAULT_CASE(Fused, std::complex<float>, "fused complex64 60x45 x5", 60, 45, 5, Options{}, "fused")
FAULT_CASE(BlockedInChunks, double, "blocked float64 40x23 x3 in chunks of 2", 40, 23, 3, blocked_path(16),
           "blocked nb16", {{"BATCHSVD_CUDA_CHUNK", "2"}})
FAULT_CASE(BlockedSkipping, float, "blocked float32 60x40 x2", 60, 40, 2, blocked_path(16), "blocked nb16")
FAULT_CASE(BlockedWide32, std::complex<float>, "blocked complex64 23x40 x1 width 32", 23, 40, 1, blocked_path(32),
           "blocked nb32")
FAULT_CASE(BlockedHalves, std::complex<double>, "blocked complex128 40x23 x3 two halves", 40, 23, 3, blocked_path(16),
           "blocked nb16", {{"BATCHSVD_CUDA_BLOCKED_SLICES", "2"}})
FAULT_CASE(QrTall, double, "qr float64 150x20 x2", 150, 20, 2, qr_always(), "qr")
FAULT_CASE(QrWide, std::complex<double>, "qr complex128 20x150 x2", 20, 150, 2, qr_always(), "qr")
FAULT_CASE(PreconditionedFusedRefined, float, "preconditioned float32 48x40 x3 (fused eigensolver, refined)", 48, 40,
           3, preconditioned(), "blocked nb16 pre", {{"BATCHSVD_CUDA_PRECONDITION_REFINE", "1"}})
FAULT_CASE(PreconditionedSplit, double, "preconditioned float64 48x40 x3 (split eigensolver)", 48, 40, 3,
           preconditioned(), "blocked nb16 pre", {{"BATCHSVD_CUDA_EIGENSOLVER", "split"}})
FAULT_CASE(PreconditionedBisect, std::complex<float>, "preconditioned complex64 40x40 x2 (bisection eigensolver)", 40,
           40, 2, preconditioned(), "blocked nb16 pre", {{"BATCHSVD_CUDA_EIGENSOLVER", "bisect"}})
FAULT_CASE(PreconditionedCusolver, std::complex<double>, "preconditioned complex128 40x33 x2 (cuSOLVER eigensolver)",
           40, 33, 2, preconditioned(), "blocked nb16 pre", {{"BATCHSVD_CUDA_EIGENSOLVER", "cusolver"}})
FAULT_CASE(BlockedInFreshThreads, double, "blocked float64 40x23 x2, each solve in a new host thread", 40, 23, 2,
           blocked_path(16), "blocked nb16", {}, false, true)
FAULT_CASE(HostStaged, std::complex<float>, "host memory staged, complex64 16x14 x5", 16, 14, 5, Options{}, "warp",
           {}, true)
FAULT_CASE(HostStreamed, float, "host memory streamed, float32 40x23 x5 in chunks of 2", 40, 23, 5,
           blocked_path(16), "blocked nb16", {{"BATCHSVD_CUDA_CHUNK", "2"}}, true)

#undef FAULT_CASE

/// gesvd_vbatched on device memory: a mix of sizes with groups of their own and size classes
/// (padded, one of them wide), solved on the library's worker threads, so the points are
/// reached from several host threads at once.
template <class T> class VbatchedSolver {
public:
    explicit VbatchedSolver(const std::vector<std::pair<index_t, index_t>>& sizes) : info_(sizes.size()) {
        const std::uint64_t seed = testing::fresh_seed();
        for (std::size_t b = 0; b < sizes.size(); ++b) {
            const auto [m, n] = sizes[b];
            const index_t k = std::min(m, n);
            m_.push_back(m);
            n_.push_back(n);
            const std::vector<T> a = testing::generate_batch<T>(testing::Family::logrand, m, n, 1, seed + b);
            a_.emplace_back(a.size());
            s_.emplace_back(std::size_t(k));
            u_.emplace_back(std::size_t(m * k));
            v_.emplace_back(std::size_t(n * k));
            ready_ = ready_ && a_.back().p && s_.back().p && u_.back().p && v_.back().p &&
                     cudaMemcpy(a_.back().p, a.data(), a.size() * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess;
            pa_.push_back(a_.back().p);
            ps_.push_back(s_.back().p);
            pu_.push_back(u_.back().p);
            pv_.push_back(v_.back().p);
        }
        ready_ = ready_ && info_.p && stream_.s;
        o_.backend = Backend::cuda;
        o_.stream = stream_.s;
    }
    bool ready() const { return ready_; }
    cudaStream_t stream() const { return stream_.s; }
    void run() {
        for (std::size_t b = 0; b < m_.size(); ++b) {
            EXPECT_EQ(cudaMemsetAsync(s_[b].p, 0xff, s_[b].n * sizeof(real_t<T>), stream_.s), cudaSuccess);
            EXPECT_EQ(cudaMemsetAsync(u_[b].p, 0xff, u_[b].n * sizeof(T), stream_.s), cudaSuccess);
            EXPECT_EQ(cudaMemsetAsync(v_[b].p, 0xff, v_[b].n * sizeof(T), stream_.s), cudaSuccess);
        }
        EXPECT_EQ(cudaMemsetAsync(info_.p, 0xff, info_.n * sizeof(int), stream_.s), cudaSuccess);
        gesvd_vbatched<T>(index_t(m_.size()), m_.data(), n_.data(), MatrixList<const T>{pa_.data(), m_.data()},
                          ps_.data(), MatrixList<T>{pu_.data(), m_.data()}, MatrixList<T>{pv_.data(), n_.data()},
                          info_.p, o_);
    }
    Outputs outputs() {
        EXPECT_EQ(cudaStreamSynchronize(stream_.s), cudaSuccess);
        Outputs r;
        for (std::size_t b = 0; b < m_.size(); ++b) {
            append(r.s, s_[b]);
            append(r.u, u_[b]);
            append(r.v, v_[b]);
        }
        append(r.info, info_);
        return r;
    }
    bool converged() {
        std::vector<int> info(m_.size());
        EXPECT_EQ(cudaStreamSynchronize(stream_.s), cudaSuccess);
        EXPECT_EQ(cudaMemcpy(info.data(), info_.p, info.size() * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
        return std::all_of(info.begin(), info.end(), [](int i) { return i == 0; });
    }

private:
    template <class X> static void append(std::vector<unsigned char>& out, const DeviceArray<X>& d) {
        const std::size_t at = out.size();
        out.resize(at + d.n * sizeof(X));
        EXPECT_EQ(cudaMemcpy(out.data() + at, d.p, d.n * sizeof(X), cudaMemcpyDeviceToHost), cudaSuccess);
    }
    std::vector<index_t> m_, n_;
    std::deque<DeviceArray<T>> a_;  // (a deque: its elements never move)
    std::deque<DeviceArray<real_t<T>>> s_;
    std::deque<DeviceArray<T>> u_, v_;
    std::vector<const T*> pa_;
    std::vector<real_t<T>*> ps_;
    std::vector<T*> pu_, pv_;
    DeviceArray<int> info_;
    Stream stream_;
    Options o_;
    bool ready_ = true;
};

TEST(CudaFaultInjection, VariableSizeBatchOnWorkerThreads) {
    SKIP_WITHOUT_CUDA("fault injection on the CUDA backend");
    // 32 matrices of 6 x 6 (a group of their own), then one each of sizes that share size
    // classes (padded; 70 x 66 and 66 x 70 above order 64: four worker threads), a wide pair.
    std::vector<std::pair<index_t, index_t>> sizes(32, {6, 6});
    for (const auto& s : std::vector<std::pair<index_t, index_t>>{{70, 66}, {72, 65}, {66, 70}, {65, 72}, {10, 7}, {12, 5}})
        sizes.push_back(s);
    const Disarm disarm;
    faults::disarm();
    VbatchedSolver<double> solver(sizes);
    // (The blocked path's pinned counts are allocated once per host thread: how many this
    // call allocates depends on which workers take the padded classes.)
    exercise_solver(Case{"vbatched float64, 38 matrices in 5 groups", 0, 0, index_t(sizes.size()), Options{}, "",
                         {}, false, false, true},
                    solver, "vbatched");
}

}  // namespace
}  // namespace batchsvd::test
