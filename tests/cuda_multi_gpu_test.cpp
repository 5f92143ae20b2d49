// SPDX-License-Identifier: BSD-3-Clause
// A batch shared by several devices (Options::devices): every path, host and device data, the
// home device first or not, a NaN matrix in a later share, strided layouts whose gaps must
// survive, more devices than matrices; each result bitwise the one device's (the preconditioned
// path: to rounding), outputs poisoned first so that an unwritten element fails. Bad device lists are invalid_argument. The cases
// that need two devices skip, with a message, on a machine with fewer (scripts/gpu_check.sh
// runs them on a two-GPU machine); the split itself is tested everywhere.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <string>
#include <typeinfo>
#include <vector>

#include "batchsvd/batchsvd.hpp"
#include "cuda/common/fault_injection.hpp"
#include "cuda/multi_gpu/batch_over_devices.hpp"
#include "cuda/multi_gpu/one_matrix_over_devices.hpp"
#include "cuda/svd_cuda.hpp"
#include "cuda_test_support.hpp"
#include "testing/error_measures.hpp"
#include "testing/generators.hpp"

namespace batchsvd::test {
namespace {

#define SKIP_WITHOUT_TWO_GPUS()                                                                      \
    do {                                                                                             \
        if (cuda_devices().size() < 2)                                                               \
            GTEST_SKIP() << "fewer than two CUDA devices on this machine (" << cuda_devices().size() \
                         << "): the batch over several devices is not run here (it runs on a "       \
                            "two-GPU machine, see scripts/gpu_check.sh)";                           \
    } while (0)

#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call

/// A strided layout: lda = m + pad, matrices `gap` elements apart beyond one matrix.
struct Layout {
    index_t pad = 0, gap = 0;
};

/// Device operands from the home device's default memory pool instead of cudaMalloc (which
/// other devices cannot reach directly, so shares are copied: PeerSharesInPlaceBitwiseAsOneDevice).
bool operands_from_default_pool = false;

/// Solves `a` (m x n x batch, layout L) with opts; device data lives on `home` (-1: host data).
/// The outputs (cuda_test_support.hpp) are poisoned with NaN and their gaps with a sentinel
/// before the call.
/// With `direct`, a batch of one goes straight to the one-matrix path over opts.devices (even
/// one device, which the public call never spreads).
template <class T>
Outputs<T> solve(index_t m, index_t n, index_t batch, const std::vector<T>& a, Layout L, const Options& opts, int home,
                 bool direct = false) {
    auto call = [&](MatrixBatch<const T> ab, real_t<T>* sp, index_t ss, MatrixBatch<T> ub, MatrixBatch<T> vb, int* ip) {
#ifdef BATCHSVD_HAVE_NCCL
        if (direct) return cuda::gesvd_one_matrix_devices<T>(m, n, ab, sp, ub, vb, ip, opts);
#endif
        gesvd<T>(m, n, batch, ab, sp, ss, ub, vb, ip, opts);
    };
    using R = real_t<T>;
    const index_t k = std::min(m, n);
    const index_t lda = m + L.pad, sa = lda * n + L.gap;
    const index_t ldu = m + L.pad, su = ldu * k + L.gap, ldv = n + L.pad, sv = ldv * k + L.gap, ss = k + L.gap;
    std::vector<T> ha(std::size_t(sa * batch), T(R(7)));
    for (index_t b = 0; b < batch; ++b)
        for (index_t j = 0; j < n; ++j)
            for (index_t i = 0; i < m; ++i) ha[b * sa + j * lda + i] = a[(b * n + j) * m + i];
    Outputs<T> out;
    const R nan = std::numeric_limits<R>::quiet_NaN();
    out.s.assign(std::size_t(ss * batch), R(-3));
    out.u.assign(std::size_t(su * batch), T(R(-3)));
    out.v.assign(std::size_t(sv * batch), T(R(-3)));
    out.info.assign(std::size_t(batch), 12345);
    // Poison the elements the call must write; the gaps keep the sentinel -3.
    for (index_t b = 0; b < batch; ++b)
        for (index_t j = 0; j < k; ++j) {
            out.s[b * ss + j] = nan;
            for (index_t i = 0; i < m; ++i) out.u[b * su + j * ldu + i] = T(nan);
            for (index_t i = 0; i < n; ++i) out.v[b * sv + j * ldv + i] = T(nan);
        }
    if (home < 0) {
        call(MatrixBatch<const T>{ha.data(), lda, sa}, out.s.data(), ss, MatrixBatch<T>{out.u.data(), ldu, su},
             MatrixBatch<T>{out.v.data(), ldv, sv}, out.info.data());
        return out;
    }
    int previous = 0;
    EXPECT_EQ(cudaGetDevice(&previous), cudaSuccess);
    EXPECT_EQ(cudaSetDevice(home), cudaSuccess);
    {
        const bool pooled = operands_from_default_pool;
        DeviceArray<T> da(ha.size(), pooled), du(out.u.size(), pooled), dv(out.v.size(), pooled);
        DeviceArray<R> ds(out.s.size(), pooled);
        DeviceArray<int> di(out.info.size(), pooled);
        EXPECT_TRUE(da.p && du.p && dv.p && ds.p && di.p);
        EXPECT_EQ(cudaMemcpy(da.p, ha.data(), ha.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
        EXPECT_EQ(cudaMemcpy(du.p, out.u.data(), out.u.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
        EXPECT_EQ(cudaMemcpy(dv.p, out.v.data(), out.v.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
        EXPECT_EQ(cudaMemcpy(ds.p, out.s.data(), out.s.size() * sizeof(R), cudaMemcpyHostToDevice), cudaSuccess);
        EXPECT_EQ(cudaMemcpy(di.p, out.info.data(), out.info.size() * sizeof(int), cudaMemcpyHostToDevice), cudaSuccess);
        call(MatrixBatch<const T>{da.p, lda, sa}, ds.p, ss, MatrixBatch<T>{du.p, ldu, su}, MatrixBatch<T>{dv.p, ldv, sv},
             di.p);
        EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        EXPECT_EQ(cudaMemcpy(out.u.data(), du.p, out.u.size() * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
        EXPECT_EQ(cudaMemcpy(out.v.data(), dv.p, out.v.size() * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
        EXPECT_EQ(cudaMemcpy(out.s.data(), ds.p, out.s.size() * sizeof(R), cudaMemcpyDeviceToHost), cudaSuccess);
        EXPECT_EQ(cudaMemcpy(out.info.data(), di.p, out.info.size() * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
    }
    EXPECT_EQ(cudaSetDevice(previous), cudaSuccess);
    return out;
}

/// The outputs' gaps still hold the sentinel, every written element is finite where info == 0,
/// and e1-e4 of the first, a middle and the last finite matrix are below 30u.
template <class T>
void check_outputs(index_t m, index_t n, index_t batch, const std::vector<T>& a, Layout L, const Outputs<T>& o,
                   index_t nan_matrix, const std::string& what) {
    using R = real_t<T>;
    const index_t k = std::min(m, n);
    const index_t ldu = m + L.pad, su = ldu * k + L.gap, ldv = n + L.pad, sv = ldv * k + L.gap, ss = k + L.gap;
    for (index_t b = 0; b < batch; ++b) {
        ASSERT_EQ(o.info[b], b == nan_matrix ? info_nonfinite : 0) << what << ": matrix " << b;
        for (index_t j = ss * b + k; j < ss * (b + 1) && b + 1 < batch; ++j) ASSERT_EQ(o.s[j], R(-3)) << what << ": S gap";
        for (index_t j = 0; j < k; ++j)
            for (index_t i = m; i < ldu; ++i) ASSERT_EQ(o.u[b * su + j * ldu + i], T(R(-3))) << what << ": U gap";
        for (index_t j = 0; j < k; ++j)
            for (index_t i = n; i < ldv; ++i) ASSERT_EQ(o.v[b * sv + j * ldv + i], T(R(-3))) << what << ": V gap";
    }
    for (index_t b : {index_t(0), batch / 2, batch - 1}) {
        if (b == nan_matrix) continue;
        std::vector<T> u(std::size_t(m * k)), v(std::size_t(n * k));
        for (index_t j = 0; j < k; ++j) {
            for (index_t i = 0; i < m; ++i) u[j * m + i] = o.u[b * su + j * ldu + i];
            for (index_t i = 0; i < n; ++i) v[j * n + i] = o.v[b * sv + j * ldv + i];
        }
        const T* ab = a.data() + b * m * n;
        const auto ref = testing::reference_singular_values<T>(m, n, ab, m);
        const auto e = testing::measure<T>(m, n, ab, m, o.s.data() + b * ss, u.data(), m, v.data(), n, ref.data());
        EXPECT_TRUE(e.within(30)) << what << ": matrix " << b << " e1-e4 " << e.e1 << " " << e.e2 << " " << e.e3
                                  << " " << e.e4 << " (u = " << testing::unit_roundoff<T>() << ")";
    }
}

/// How a share's result must match the one device's: bitwise (the library's own kernels), or
/// to rounding (the preconditioned path: cuBLAS may choose its product kernels by the number of
/// matrices, so a share's rounding can differ; then every share's e1-e4 are checked, info must
/// match and S within 30u of the one device's).
/// `accuracy`: another algorithm (one matrix spread over the devices orders its pairs
/// otherwise): e1-e4 against LAPACK below 30u and the same info, nothing compared bitwise.
enum class Match { bitwise, rounding, accuracy };

/// One path's batch: one device against several, host and device data, each home device.
template <class T>
void check_case(const char* name, index_t m, index_t n, index_t batch, Options opts, Layout L = {}, index_t nan_matrix = -1,
                Match match = Match::bitwise) {
    const std::uint64_t seed = testing::fresh_seed();
    SCOPED_TRACE(std::string(name) + ", seed " + std::to_string(seed));
    auto a = testing::generate_batch<T>(testing::Family::logrand, m, n, batch, seed);
    if (nan_matrix >= 0) a[nan_matrix * m * n + m * n / 2] = T(std::numeric_limits<real_t<T>>::quiet_NaN());
    const auto one = solve<T>(m, n, batch, a, L, opts, 0);  // one device, device 0's memory
    check_outputs<T>(m, n, batch, a, L, one, nan_matrix, std::string(name) + " one device");
    const std::vector<int> all = cuda_devices();
    for (const std::vector<int>& devices : {std::vector<int>{0, 1}, std::vector<int>{1, 0}, all}) {
        Options o = opts;
        o.devices = devices;
        for (int home : {-1, 0, 1}) {
            const std::string what = std::string(name) + ", devices {" + std::to_string(devices[0]) + ", " +
                                     std::to_string(devices[1]) + (devices.size() > 2 ? ", ..." : "") + "}, " +
                                     (home < 0 ? "host data" : "data on device " + std::to_string(home));
            const auto several = solve<T>(m, n, batch, a, L, o, home);
            if (match == Match::bitwise) {
                EXPECT_TRUE(several == one) << what << ": not bitwise the one device's result";
                continue;
            }
            check_outputs<T>(m, n, batch, a, L, several, nan_matrix, what);
            EXPECT_EQ(several.info, one.info) << what;
            if (match == Match::accuracy) continue;
            const double u = testing::unit_roundoff<T>();
            for (std::size_t i = 0; i < one.s.size(); ++i)
                if (std::isfinite(double(one.s[i])))
                    ASSERT_LE(std::abs(double(several.s[i]) - double(one.s[i])), 30 * u * std::max(1.0, double(one.s[0])))
                        << what << ": S[" << i << "]";
        }
    }
    // Host data on one device is the same result too (the staged path, the same batch).
    Options o = opts;
    o.devices = {1};
    EXPECT_TRUE(solve<T>(m, n, batch, a, L, o, -1) == one) << name << ": host data on device 1 alone";
}

TEST(CudaMultiGpuSplit, SharesFollowTheWeights) {
    const auto s = cuda::split_by_weight(10, {0, 1}, {1, 1});
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].first, 0);
    EXPECT_EQ(s[0].count, 5);
    EXPECT_EQ(s[1].first, 5);
    EXPECT_EQ(s[1].count, 5);
    const auto t = cuda::split_by_weight(1000, {3, 1, 2}, {132, 66, 132});  // unequal devices
    ASSERT_EQ(t.size(), 3u);
    EXPECT_EQ(t[0].device, 3);
    EXPECT_EQ(t[0].count, 400);
    EXPECT_EQ(t[1].count, 200);
    EXPECT_EQ(t[2].count, 400);
    EXPECT_EQ(t[2].first + t[2].count, 1000);
    const auto u = cuda::split_by_weight(2, {0, 1, 2, 3}, {1, 1, 1, 1});  // more devices than matrices
    index_t total = 0;
    for (const auto& sh : u) {
        EXPECT_GT(sh.count, 0);
        EXPECT_EQ(sh.first, total);
        total += sh.count;
    }
    EXPECT_EQ(total, 2);
    EXPECT_EQ(u.size(), 2u);
}

TEST(CudaMultiGpuApi, BadDeviceListsAreInvalid) {
    SKIP_WITHOUT_CUDA("the device list checks");
    const index_t m = 4, n = 4, batch = 2;
    std::vector<double> a(m * n * batch, 1.0), s(n * batch), u(m * n * batch), v(n * n * batch);
    std::vector<int> info(batch);
    const int count = int(cuda_devices().size());
    auto code_of = [&](std::vector<int> devices, Backend backend = Backend::automatic) {
        Options o;
        o.devices = std::move(devices);
        o.backend = backend;
        try {
            gesvd<double>(m, n, batch, a.data(), s.data(), u.data(), v.data(), info.data(), o);
        } catch (const Error& e) {
            return int(e.code());
        }
        return -1;
    };
    EXPECT_EQ(code_of({count}), int(ErrorCode::invalid_argument)) << "a device past the last";
    EXPECT_EQ(code_of({-1}), int(ErrorCode::invalid_argument)) << "a negative device";
    EXPECT_EQ(code_of({0, 0}), int(ErrorCode::invalid_argument)) << "a device named twice";
    EXPECT_EQ(code_of({0}, Backend::cpu), int(ErrorCode::invalid_argument)) << "devices with the cpu backend";
    EXPECT_EQ(code_of({0}), -1) << "one valid device";
    EXPECT_EQ(info[0], 0);
}

TEST(CudaMultiGpuApi, OperandsOnTwoDevicesAreInvalid) {
    SKIP_WITHOUT_TWO_GPUS();
    const index_t m = 8, n = 8, batch = 3;
    DeviceArray<double> a(m * n * batch), s(n * batch), u(m * n * batch), v(n * n * batch);
    CUDA_OK(cudaSetDevice(1));
    DeviceArray<int> info(batch);  // on device 1, the rest on device 0
    CUDA_OK(cudaSetDevice(0));
    Options o;
    o.devices = {0, 1};
    try {
        gesvd<double>(m, n, batch, a.p, s.p, u.p, v.p, info.p, o);
        ADD_FAILURE() << "operands on two devices were accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::invalid_argument) << e.what();
    }
}

TEST(CudaMultiGpu, EveryPathBitwiseAsOneDevice) {
    SKIP_WITHOUT_TWO_GPUS();
    check_case<float>("tiny float32 3x3 x2001", 3, 3, 2001, Options{});
    check_case<double>("warp float64 24x24 x501, a NaN matrix", 24, 24, 501, Options{}, {}, 400);
    Options fused;
    fused.variant = JacobiVariant::unblocked;
    check_case<double>("fused float64 50x50 x51", 50, 50, 51, fused);
    check_case<double>("rows float64 40x40 x301", 40, 40, 301, Options{});
    check_case<double>("blocked float64 300x300 x5", 300, 300, 5, blocked_path());
    check_case<double>("preconditioned float64 64x64 x300", 64, 64, 300, Options{}, {}, -1, Match::rounding);
    check_case<double>("preconditioned float64 256x256 x40", 256, 256, 40, Options{}, {}, -1, Match::rounding);
    check_case<double>("qr float64 300x20 x201", 300, 20, 201, qr_always());
    check_case<std::complex<float>>("warp complex64 16x16 x301", 16, 16, 301, Options{});
    check_case<std::complex<double>>("fused complex128 40x40 x61, a NaN matrix", 40, 40, 61, Options{}, {}, 60);
    check_case<std::complex<float>>("qr complex64 24x150 x101 (wide)", 24, 150, 101, Options{});
}

/// BATCHSVD_CUDA_PEER_IN_PLACE=1: the other devices' shares of device data solved in place in
/// the home device's memory where the path reads each matrix once (tiny, warp, rows, fused), copied
/// elsewhere (blocked, QR): bitwise the one device's results either way.
TEST(CudaMultiGpu, PeerSharesInPlaceBitwiseAsOneDevice) {
    SKIP_WITHOUT_TWO_GPUS();
    auto cases = [](const char* how) {
        SCOPED_TRACE(how);
        check_case<float>("tiny float32 3x3 x2001", 3, 3, 2001, Options{});
        check_case<double>("warp float64 32x32 x1001, a NaN matrix", 32, 32, 1001, Options{}, {}, 700);
        Options fused;
        fused.variant = JacobiVariant::unblocked;
        check_case<double>("fused float64 50x50 x51", 50, 50, 51, fused);
        check_case<float>("rows float32 48x40 x203, a NaN matrix", 48, 40, 203, Options{}, {}, 150);
        check_case<std::complex<float>>("warp complex64 16x16 x301", 16, 16, 301, Options{});
        check_case<double>("warp float64 20x12 x77, padded", 20, 12, 77, Options{}, Layout{3, 5});
        check_case<double>("blocked float64 300x300 x5 (copied)", 300, 300, 5, blocked_path());
    };
    cases("in place (the default; cudaMalloc'd operands)");
    {
        struct Copied {
            Copied() { setenv("BATCHSVD_CUDA_PEER_IN_PLACE", "0", 1); }
            ~Copied() { unsetenv("BATCHSVD_CUDA_PEER_IN_PLACE"); }
        } copied;
        cases("copied (BATCHSVD_CUDA_PEER_IN_PLACE=0)");
    }
    struct Pooled {
        Pooled() { operands_from_default_pool = true; }
        ~Pooled() { operands_from_default_pool = false; }
    } pooled;
    cases("operands from the default memory pool, which grants no peer access: copied");
}

TEST(CudaMultiGpu, AnotherDeviceReachesLegacyAllocationsOnly) {
    SKIP_WITHOUT_TWO_GPUS();
    int can = 0;
    CUDA_OK(cudaDeviceCanAccessPeer(&can, 1, 0));
    if (!can) GTEST_SKIP() << "devices 1 and 0 have no peer access on this machine: nothing is solved in place";
    CUDA_OK(cudaSetDevice(0));
    DeviceArray<double> plain(1000), pooled(1000, true);
    ASSERT_TRUE(plain.p && pooled.p);
    std::vector<double> host(10);
    CUDA_OK(cudaSetDevice(1));
    const cudaError_t e = cudaDeviceEnablePeerAccess(0, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) (void)cudaGetLastError();
    else CUDA_OK(e);
    EXPECT_TRUE(cuda::current_device_reaches({plain.p, plain.p + 999, nullptr}));
    EXPECT_FALSE(cuda::current_device_reaches({plain.p, pooled.p}));
    EXPECT_FALSE(cuda::current_device_reaches({host.data()})) << "pageable host memory";
    CUDA_OK(cudaSetDevice(0));
    EXPECT_TRUE(cuda::current_device_reaches({plain.p, pooled.p})) << "its own device";
}

TEST(CudaMultiGpu, StridedLayoutsKeepTheirGaps) {
    SKIP_WITHOUT_TWO_GPUS();
    check_case<double>("warp float64 20x12 x77, padded", 20, 12, 77, Options{}, Layout{3, 5});
    check_case<std::complex<double>>("blocked complex128 70x50 x9, padded", 70, 50, 9, blocked_path(), Layout{2, 7});
}

TEST(CudaMultiGpu, MoreDevicesThanMatricesAndValuesOnly) {
    SKIP_WITHOUT_TWO_GPUS();
    check_case<double>("one matrix 120x100", 120, 100, 1, Options{});
    Options values;
    values.compute_u = values.compute_v = false;
    const index_t m = 50, n = 50, batch = 33;
    const auto a = testing::generate_batch<float>(testing::Family::random, m, n, batch, testing::fresh_seed());
    std::vector<float> s1(n * batch, -1), s2(n * batch, -2);
    std::vector<int> i1(batch, 7), i2(batch, 8);
    gesvd<float>(m, n, batch, a.data(), s1.data(), nullptr, nullptr, i1.data(), values);
    values.devices = cuda_devices();
    gesvd<float>(m, n, batch, a.data(), s2.data(), nullptr, nullptr, i2.data(), values);
    EXPECT_EQ(std::memcmp(s1.data(), s2.data(), s1.size() * sizeof(float)), 0) << "values only";
    EXPECT_EQ(i1, i2);
    // Nothing to decompose: every info is 0, on the host and on a device.
    std::vector<int> info(5, 3);
    gesvd<double>(0, 4, 5, nullptr, nullptr, nullptr, nullptr, info.data(), values);
    EXPECT_EQ(info, std::vector<int>(5, 0));
}

// One matrix over several devices (one_matrix_over_devices.cu).

#ifdef BATCHSVD_HAVE_NCCL
#define SKIP_WITHOUT_NCCL()                                                                                   \
    do {                                                                                                      \
        if (!cuda::nccl_found())                                                                              \
            GTEST_SKIP() << "NCCL not found at run time (libnccl.so.2, or BATCHSVD_NCCL_LIBRARY): one matrix " \
                            "over several devices not run";                                                   \
    } while (0)
#else
#define SKIP_WITHOUT_NCCL() GTEST_SKIP() << "built without NCCL's header: one matrix over several devices not built"
#endif

/// BATCHSVD_CUDA_SPREAD_MIN_ORDER for a scope: lets test-sized matrices spread.
class SpreadFrom {
public:
    explicit SpreadFrom(index_t order) { setenv("BATCHSVD_CUDA_SPREAD_MIN_ORDER", std::to_string(order).c_str(), 1); }
    ~SpreadFrom() { unsetenv("BATCHSVD_CUDA_SPREAD_MIN_ORDER"); }
    SpreadFrom(const SpreadFrom&) = delete;
    SpreadFrom& operator=(const SpreadFrom&) = delete;
};

#ifdef BATCHSVD_HAVE_NCCL
/// One device running the spread algorithm (two blocks, no exchanges): the ordering, the
/// root's load, gather and finalisation, host and device data; e1-e4 below 30u on every family.
template <class T> void check_one_device_spread(index_t m, index_t n, testing::Family family, Layout L = {}) {
    const std::uint64_t seed = testing::fresh_seed();
    const std::string name = std::string(testing::to_string(family)) + " " + std::to_string(m) + "x" + std::to_string(n) +
                             " " + typeid(T).name() + ", seed " + std::to_string(seed);
    const auto a = testing::generate_batch<T>(family, m, n, 1, seed);
    Options o;
    o.devices = {0};
    for (int home : {-1, 0}) {
        const auto out = solve<T>(m, n, 1, a, L, o, home, true);
        check_outputs<T>(m, n, 1, a, L, out, -1, name + (home < 0 ? " host data" : " device data"));
    }
}
#endif

TEST(CudaOneMatrixDevices, OneDeviceRunsTheSpreadOrdering) {
    SKIP_WITHOUT_CUDA("one matrix over devices");
    SKIP_WITHOUT_NCCL();
#ifdef BATCHSVD_HAVE_NCCL
    for (testing::Family f : {testing::Family::random, testing::Family::cluster0, testing::Family::geo})
        check_one_device_spread<double>(300, 200, f);
    check_one_device_spread<double>(130, 257, testing::Family::geo, Layout{3, 0});  // wide
    check_one_device_spread<double>(90, 33, testing::Family::logrand);               // one sub-block, padding
    check_one_device_spread<float>(260, 260, testing::Family::logrand);
    check_one_device_spread<std::complex<float>>(200, 170, testing::Family::random);
    check_one_device_spread<std::complex<double>>(150, 180, testing::Family::cluster1);
#endif
}

TEST(CudaOneMatrixDevices, SpreadOverDevicesMatchesOneDevice) {
    SKIP_WITHOUT_TWO_GPUS();
    SKIP_WITHOUT_NCCL();
    const SpreadFrom spread(1);
    Options o;
    o.devices = cuda_devices();
    ASSERT_TRUE(cuda::spread_one_matrix<double>(400, 260, o));
    ASSERT_TRUE(cuda::spread_one_matrix<std::complex<float>>(230, 515, o));
    ASSERT_FALSE(cuda::spread_one_matrix<double>(8, 8, o)) << "the warp kernel's sizes are not spread";
    check_case<double>("spread float64 400x260", 400, 260, 1, Options{}, Layout{2, 0}, -1, Match::accuracy);
    check_case<float>("spread float32 300x300", 300, 300, 1, Options{}, {}, -1, Match::accuracy);
    check_case<std::complex<float>>("spread complex64 230x515 (wide)", 230, 515, 1, Options{}, Layout{1, 0}, -1,
                                    Match::accuracy);
    check_case<std::complex<double>>("spread complex128 200x190", 200, 190, 1, Options{}, {}, -1, Match::accuracy);
    check_case<double>("spread float64 400x260 with a NaN", 400, 260, 1, Options{}, {}, 0, Match::accuracy);
    Options pre;
    pre.precondition = PreconditionMode::always;
    check_case<double>("spread float64 500x300 preconditioned", 500, 300, 1, pre, {}, -1, Match::accuracy);
}

TEST(CudaOneMatrixDevices, ValuesOnlySweepsAndTheSweepLimit) {
    SKIP_WITHOUT_TWO_GPUS();
    SKIP_WITHOUT_NCCL();
    const SpreadFrom spread(1);
    const index_t m = 320, n = 280;
    const auto a = testing::generate_batch<double>(testing::Family::logrand, m, n, 1, testing::fresh_seed());
    std::vector<double> s1(n, -1), s2(n, -2);
    int i1 = 7, i2 = 8, sw1 = -1, sw2 = -1;
    Options one;
    one.compute_u = one.compute_v = false;
    one.sweeps = &sw1;
    gesvd<double>(m, n, 1, a.data(), s1.data(), nullptr, nullptr, &i1, one);
    Options several = one;
    several.devices = cuda_devices();
    several.sweeps = &sw2;
    gesvd<double>(m, n, 1, a.data(), s2.data(), nullptr, nullptr, &i2, several);
    EXPECT_EQ(i1, 0);
    EXPECT_EQ(i2, 0);
    EXPECT_GE(sw2, 2) << "a sweep that rotates and the one that finds nothing to rotate";
    EXPECT_LE(sw2, 30);
    // e4 against LAPACK (testing/error_measures.hpp): ||S - S_ref||_F / (k max(1, s_ref_1)).
    const auto ref = testing::reference_singular_values<double>(m, n, a.data(), m);
    double sq = 0;
    for (index_t j = 0; j < n; ++j) sq += (s2[j] - ref[j]) * (s2[j] - ref[j]);
    EXPECT_LT(std::sqrt(sq) / (double(n) * std::max(1.0, double(ref[0]))), 30 * testing::unit_roundoff<double>());
    several.max_sweeps = 1;
    gesvd<double>(m, n, 1, a.data(), s2.data(), nullptr, nullptr, &i2, several);
    EXPECT_EQ(i2, 1) << "one sweep, not converged: info is the sweeps run";
    EXPECT_EQ(sw2, 1);
}

TEST(CudaOneMatrixDevices, AFaultOnOneDeviceStopsEveryDevice) {
    SKIP_WITHOUT_TWO_GPUS();
    SKIP_WITHOUT_NCCL();
    const SpreadFrom spread(1);
    const index_t m = 300, n = 260;
    const auto a = testing::generate_batch<double>(testing::Family::random, m, n, 1, testing::fresh_seed());
    Options o;
    o.devices = cuda_devices();
    std::vector<double> s(n), u(m * n), v(n * n);
    int info = 5;
    gesvd<double>(m, n, 1, a.data(), s.data(), u.data(), v.data(), &info, o);  // (the communicators exist)
    for (cuda::testing::FaultKind kind : {cuda::testing::FaultKind::alloc, cuda::testing::FaultKind::call}) {
        const char* kname = kind == cuda::testing::FaultKind::alloc ? "alloc" : "call";
        cuda::testing::arm_fault(kind, 0);  // count the points of one call
        gesvd<double>(m, n, 1, a.data(), s.data(), u.data(), v.data(), &info, o);
        const long points = cuda::testing::points_seen(kind);
        cuda::testing::disarm();
        ASSERT_GT(points, 3) << kname;
        for (long at : {1L, points / 3, points / 2, 2 * points / 3, points}) {
            cuda::testing::arm_fault(kind, at);
            const auto start = std::chrono::steady_clock::now();
            bool threw = false;
            try {
                gesvd<double>(m, n, 1, a.data(), s.data(), u.data(), v.data(), &info, o);
            } catch (const Error& e) {
                threw = true;
                EXPECT_TRUE(e.code() == ErrorCode::out_of_memory || e.code() == ErrorCode::device_error) << e.what();
            }
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            const long injected = cuda::testing::faults_injected();
            cuda::testing::disarm();
            EXPECT_EQ(threw, injected == 1) << kname << " fault at point " << at << " of " << points;
            EXPECT_LT(seconds, 60) << kname << " fault at point " << at << ": the devices took too long to stop";
        }
    }
    // Then a call succeeds again (new communicators where the fault aborted the old ones).
    const auto out = solve<double>(m, n, 1, a, {}, o, -1);
    check_outputs<double>(m, n, 1, a, {}, out, -1, "after the faults");
}

}  // namespace
}  // namespace batchsvd::test
