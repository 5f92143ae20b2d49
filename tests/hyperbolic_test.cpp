// SPDX-License-Identifier: BSD-3-Clause
// The hyperbolic SVD and eigh_indefinite on both backends, four precisions: the HSVD's
// relations (G V = U S, U^H U = I, V^H J V = J') measured in long double, J of one sign equal
// to the SVD (bit for bit on the CPU), the per-matrix status codes, invalid arguments, and the
// eigenvalues of graded indefinite matrices to high relative accuracy against a binary128
// reference. The CUDA cases (HyperbolicCuda.*) take host memory with Backend::cuda and skip
// without a CUDA device; cuda_hyperbolic_test.cpp runs the same calls on device memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "batchsvd/batchsvd.hpp"
#include "testing/error_measures.hpp"
#include "testing/generators.hpp"
#include "testing/lapack.hpp"
#include "testing/quad_eigen.hpp"

namespace batchsvd::test {
namespace {

template <class T> struct is_cx : std::false_type {};
template <class R> struct is_cx<std::complex<R>> : std::true_type {};
template <class T> using Wide = std::conditional_t<is_cx<T>::value, std::complex<long double>, long double>;
template <class T> Wide<T> wide(T x) {
    if constexpr (is_cx<T>::value) return {x.real(), x.imag()}; else return x;
}
template <class T> long double ld_abs2(Wide<T> x) { return std::norm(std::complex<long double>(x)); }

template <class T> T nan_value() {
    const real_t<T> q = std::numeric_limits<real_t<T>>::quiet_NaN();
    if constexpr (is_cx<T>::value) return T(q, q); else return q;
}

template <class F> void each_type(F&& f) {
    f(float{});
    f(double{});
    f(std::complex<float>{});
    f(std::complex<double>{});
}

/// A random signature of n entries with both signs (n >= 2).
std::vector<int> mixed_signature(index_t n, std::mt19937_64& rng) {
    std::vector<int> j(n);
    for (auto& x : j) x = (rng() & 1) ? 1 : -1;
    if (std::count(j.begin(), j.end(), 1) == 0) j[0] = 1;
    if (std::count(j.begin(), j.end(), -1) == 0) j[n - 1] = -1;
    return j;
}

/// Skips the current test without a CUDA device (backend: what is not tested).
#define SKIP_CUDA_CASE_WITHOUT_DEVICE(backend)                                                          \
    do {                                                                                                \
        if ((backend) == Backend::cuda && !cuda_available())                                            \
            GTEST_SKIP() << "no CUDA device on this machine: the CUDA hsvd and eigh_indefinite are not " \
                            "run (they run on a GPU machine, see scripts/gpu_check.sh)";                 \
    } while (0)

template <class T> T conj_t(T x) {
    if constexpr (is_cx<T>::value) return std::conj(x); else return x;
}

template <class T> struct HsvdOut {
    std::vector<real_t<T>> s;
    std::vector<T> u, v;
    std::vector<int> jout, info, sweeps;
};

template <class T>
HsvdOut<T> run_hsvd(index_t m, index_t n, index_t batch, const std::vector<T>& g, const std::vector<int>& j,
                    index_t j_stride, Options o = {}, Backend backend = Backend::cpu) {
    HsvdOut<T> r;
    r.s.assign(n * batch, std::numeric_limits<real_t<T>>::quiet_NaN());  // poison: unwritten fails
    r.u.assign(m * n * batch, nan_value<T>());
    r.v.assign(n * n * batch, nan_value<T>());
    r.jout.assign(n * batch, 0);
    r.info.assign(batch, 12345);
    r.sweeps.assign(batch, -7);
    o.backend = backend;
    o.sweeps = r.sweeps.data();
    hsvd<T>(m, n, batch, MatrixBatch<const T>{g.data(), m, m * n}, SignatureBatch{j.data(), j_stride}, r.s.data(), n,
            r.jout.data(), n, MatrixBatch<T>{r.u.data(), m, m * n}, MatrixBatch<T>{r.v.data(), n, n * n},
            r.info.data(), o);
    return r;
}

struct HsvdErrors {
    long double residual = 0;  ///< max_j ||G v_j - s_j u_j|| / (||G||_F ||v_j||)
    long double orth_u = 0;    ///< max |(U^H U - I)_ik|
    long double j_unitary = 0; ///< max |(V^H J V - J')_ik| / (||v_i|| ||v_k||)
};

/// The HSVD's relations of matrix b, in long double.
template <class T>
HsvdErrors measure_hsvd(index_t m, index_t n, const T* g, const int* j, const real_t<T>* s, const T* u, const T* v,
                        const int* jout) {
    HsvdErrors e;
    long double gf = 0;
    for (index_t i = 0; i < m * n; ++i) gf += ld_abs2<T>(wide(g[i]));
    gf = std::sqrt(gf);
    for (index_t c = 0; c < n; ++c) {
        long double r2 = 0, v2 = 0;
        for (index_t k = 0; k < n; ++k) v2 += ld_abs2<T>(wide(v[k + c * n]));
        for (index_t i = 0; i < m; ++i) {
            Wide<T> x = 0;
            for (index_t k = 0; k < n; ++k) x += wide(g[i + k * m]) * wide(v[k + c * n]);
            x -= (long double)s[c] * wide(u[i + c * m]);
            r2 += ld_abs2<T>(x);
        }
        e.residual = std::max(e.residual, std::sqrt(r2) / (gf * std::sqrt(v2)));
    }
    for (index_t a = 0; a < n; ++a)
        for (index_t c = 0; c < n; ++c) {
            Wide<T> uu = 0, vjv = 0;
            long double na = 0, nc = 0;
            for (index_t i = 0; i < m; ++i) uu += conj_t(wide(u[i + a * m])) * wide(u[i + c * m]);
            for (index_t k = 0; k < n; ++k) {
                vjv += conj_t(wide(v[k + a * n])) * (long double)j[k] * wide(v[k + c * n]);
                na += ld_abs2<T>(wide(v[k + a * n]));
                nc += ld_abs2<T>(wide(v[k + c * n]));
            }
            const long double id = a == c ? 1 : 0;
            e.orth_u = std::max(e.orth_u, std::abs(std::complex<long double>(uu) - id));
            e.j_unitary = std::max(e.j_unitary, std::abs(std::complex<long double>(vjv) - id * jout[a]) /
                                                    std::sqrt(na * nc));
        }
    return e;
}

void hsvd_relations(Backend backend, std::vector<std::pair<index_t, index_t>> shapes = {}) {
    if (shapes.empty()) {
        // (On the GPU: up to 4 rows by the tiny kernel, 7 x 3 to 32 x 32 and 40 x 10 by the
        // warp kernel, complex128 to 16 columns; 33 x 33, 64 x 64 and 70 x 45 by the fused
        // kernel, 130 x 125 by the blocked iteration in float64 and the complex types.)
        shapes = {{2, 2}, {8, 8}, {20, 12}, {40, 10}, {33, 33}, {7, 3}, {100, 12}};
        if (backend == Backend::cpu) shapes.insert(shapes.end(), {{130, 40}, {90, 70}});
        else
            shapes.insert(shapes.end(), {{32, 32}, {16, 16}, {30, 17}, {64, 16}, {24, 5}, {64, 64}, {70, 45}, {130, 125},
                                         {4, 4}, {4, 3}, {3, 3}, {3, 1}});
    }
    each_type([backend, &shapes](auto zero) {
        using T = decltype(zero);
        const double u = testing::unit_roundoff<T>();
        for (auto [m, n] : shapes) {
            const index_t batch = 3;
            const std::uint64_t seed = testing::fresh_seed();
            SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(m) + "x" + std::to_string(n));
            std::mt19937_64 rng(seed);
            const std::vector<T> g = testing::generate_batch<T>(testing::Family::random, m, n, batch, seed);
            std::vector<int> j;  // one signature a matrix
            for (index_t b = 0; b < batch; ++b) {
                const std::vector<int> jb = mixed_signature(n, rng);
                j.insert(j.end(), jb.begin(), jb.end());
            }
            const HsvdOut<T> r = run_hsvd<T>(m, n, batch, g, j, n, {}, backend);
            for (index_t b = 0; b < batch; ++b) {
                ASSERT_EQ(r.info[b], 0) << "matrix " << b;
                EXPECT_GE(r.sweeps[b], 1);
                const int* jb = j.data() + b * n;
                const int* jo = r.jout.data() + b * n;
                const index_t npos = std::count(jb, jb + n, 1);
                for (index_t i = 0; i < n; ++i) EXPECT_EQ(jo[i], i < npos ? 1 : -1);
                const real_t<T>* s = r.s.data() + b * n;
                for (index_t i = 0; i < n; ++i) {
                    EXPECT_GT(s[i], 0);
                    if (i + 1 < n && jo[i] == jo[i + 1]) EXPECT_GE(s[i], s[i + 1]) << "sorted within a sign";
                }
                const HsvdErrors e = measure_hsvd<T>(m, n, g.data() + b * m * n, jb, s, r.u.data() + b * m * n,
                                                     r.v.data() + b * n * n, jo);
                EXPECT_LT(e.residual, 30 * u * std::sqrt(double(n))) << "matrix " << b;
                EXPECT_LT(e.orth_u, 30 * u * std::sqrt(double(m))) << "matrix " << b;
                EXPECT_LT(e.j_unitary, 30 * u * std::sqrt(double(n))) << "matrix " << b;
            }
            // Values only, and one signature for the whole batch: the same values.
            Options o;
            o.compute_u = o.compute_v = false;
            const HsvdOut<T> vals = run_hsvd<T>(m, n, batch, g, j, n, o, backend);
            for (index_t i = 0; i < n * batch; ++i) EXPECT_EQ(vals.s[i], r.s[i]);
            const HsvdOut<T> shared =
                run_hsvd<T>(m, n, batch, g, std::vector<int>(j.begin(), j.begin() + n), 0, {}, backend);
            EXPECT_EQ(0, std::memcmp(shared.s.data(), r.s.data(), n * sizeof(real_t<T>)));
            for (index_t b = 0; b < batch; ++b) EXPECT_EQ(shared.info[b], 0);
        }
    });
}

TEST(Hyperbolic, HsvdRelationsHoldInEveryPrecisionAndShape) { hsvd_relations(Backend::cpu); }
TEST(HyperbolicCuda, HsvdRelationsHoldInEveryPrecisionAndShape) {
    SKIP_CUDA_CASE_WITHOUT_DEVICE(Backend::cuda);
    hsvd_relations(Backend::cuda);
}

TEST(HyperbolicCuda, OneSignIsAnSvd) {
    // On the GPU a signature of one sign runs the same kernel with trigonometric rotations
    // only: the SVD's values to its accuracy, not gesvd's bits.
    SKIP_CUDA_CASE_WITHOUT_DEVICE(Backend::cuda);
    each_type([](auto zero) {
        using T = decltype(zero);
        const double u = testing::unit_roundoff<T>();
        for (auto [m, n] : {std::pair<index_t, index_t>{24, 16}, {40, 36}}) {  // warp, fused
            const index_t batch = 4;
            const std::uint64_t seed = testing::fresh_seed();
            SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(m) + "x" + std::to_string(n));
            const std::vector<T> g = testing::generate_batch<T>(testing::Family::geo, m, n, batch, seed);
            std::vector<real_t<T>> s(n * batch);
            std::vector<int> info(batch);
            Options o;
            o.backend = Backend::cpu;
            o.compute_u = o.compute_v = false;
            gesvd<T>(m, n, batch, g.data(), s.data(), nullptr, nullptr, info.data(), o);
            for (int sign : {1, -1}) {
                const HsvdOut<T> r = run_hsvd<T>(m, n, batch, g, std::vector<int>(n, sign), 0, {}, Backend::cuda);
                for (index_t b = 0; b < batch; ++b) {
                    EXPECT_EQ(r.info[b], 0);
                    for (index_t i = 0; i < n; ++i)  // (the SVD's absolute accuracy: u ||G||)
                        EXPECT_LE(std::abs(r.s[b * n + i] - s[b * n + i]), 30 * u * n * s[b * n]) << b << ", " << i;
                    const HsvdErrors e = measure_hsvd<T>(m, n, g.data() + b * m * n, std::vector<int>(n, sign).data(),
                                                         r.s.data() + b * n, r.u.data() + b * m * n,
                                                         r.v.data() + b * n * n, r.jout.data() + b * n);
                    EXPECT_LT(e.residual, 30 * u * std::sqrt(double(n)));
                    EXPECT_LT(e.orth_u, 30 * u * std::sqrt(double(m)));
                    EXPECT_LT(e.j_unitary, 30 * u * std::sqrt(double(n)));
                }
                for (int x : r.jout) EXPECT_EQ(x, sign);
            }
        }
    });
}

TEST(Hyperbolic, OneSignIsTheSvdBitForBit) {
    each_type([](auto zero) {
        using T = decltype(zero);
        const index_t m = 24, n = 17, batch = 4;
        const std::uint64_t seed = testing::fresh_seed();
        SCOPED_TRACE("seed " + std::to_string(seed));
        const std::vector<T> g = testing::generate_batch<T>(testing::Family::geo, m, n, batch, seed);
        std::vector<real_t<T>> s(n * batch);
        std::vector<T> u(m * n * batch), v(n * n * batch);
        std::vector<int> info(batch);
        Options o;
        o.backend = Backend::cpu;
        gesvd<T>(m, n, batch, g.data(), s.data(), u.data(), v.data(), info.data(), o);
        for (int sign : {1, -1}) {
            const HsvdOut<T> r = run_hsvd<T>(m, n, batch, g, std::vector<int>(n, sign), 0);
            EXPECT_EQ(0, std::memcmp(r.s.data(), s.data(), s.size() * sizeof(s[0])));
            EXPECT_EQ(0, std::memcmp(r.u.data(), u.data(), u.size() * sizeof(T)));
            EXPECT_EQ(0, std::memcmp(r.v.data(), v.data(), v.size() * sizeof(T)));
            for (int x : r.jout) EXPECT_EQ(x, sign);
            EXPECT_EQ(r.info, info);
        }
    });
}

void status_codes_are_isolated(Backend backend) {
    each_type([backend](auto zero) {
        using T = decltype(zero);
        using R = real_t<T>;
        const index_t m = 6, n = 4, batch = 5;
        const std::uint64_t seed = testing::fresh_seed();
        SCOPED_TRACE("seed " + std::to_string(seed));
        std::vector<T> g = testing::generate_batch<T>(testing::Family::random, m, n, batch, seed);
        const std::vector<int> j = {1, -1, -1, -1};
        const HsvdOut<T> clean = run_hsvd<T>(m, n, batch, g, j, 0, {}, backend);
        g[1 * m * n + 3] = T(std::numeric_limits<R>::quiet_NaN());           // matrix 1: NaN
        for (index_t i = 0; i < m; ++i) g[2 * m * n + i + 2 * m] = T(0);      // matrix 2: a zero column
        // Matrix 3: g_1 = g_3 = g_0 (j = +1, -1, -1): the first pair either ordering meets,
        // (0, 1) cyclic by rows (the SIMD lanes) or (0, 3) round-robin, has no hyperbolic
        // rotation (a pair met later would have been mixed by then, and the result is then a
        // singular value at rounding level, as the SVD gives). The GPU's round robin over
        // padded teams meets other pairs first: there the two-column case below stands for it.
        for (index_t i = 0; i < m; ++i) g[3 * m * n + i + 1 * m] = g[3 * m * n + i + 3 * m] = g[3 * m * n + i];
        const HsvdOut<T> r = run_hsvd<T>(m, n, batch, g, j, 0, {}, backend);
        EXPECT_EQ(r.info[0], 0);
        EXPECT_EQ(r.info[1], info_nonfinite);
        EXPECT_EQ(r.info[2], info_rank_deficient);
        if (backend == Backend::cpu) EXPECT_EQ(r.info[3], info_no_hyperbolic_rotation);
        else EXPECT_LT(r.info[3], 0);
        EXPECT_EQ(r.info[4], 0);
        for (index_t b : {0, 4}) {
            EXPECT_EQ(0, std::memcmp(&r.s[b * n], &clean.s[b * n], n * sizeof(R)));
            EXPECT_EQ(0, std::memcmp(&r.u[b * m * n], &clean.u[b * m * n], m * n * sizeof(T)));
        }
        for (index_t b : {1, 2, 3}) {
            for (index_t i = 0; i < n; ++i) EXPECT_TRUE(std::isnan(r.s[b * n + i]));
            for (index_t i = 0; i < m * n; ++i) EXPECT_TRUE(std::isnan(std::real(r.u[b * m * n + i])));
            for (index_t i = 0; i < n * n; ++i) EXPECT_TRUE(std::isnan(std::real(r.v[b * n * n + i])));
        }
        // Two equal columns of opposite signs alone: G J G^H = 0, no hyperbolic rotation exists.
        std::vector<T> pair(2 * m);
        for (index_t i = 0; i < m; ++i) pair[i] = pair[i + m] = g[i];
        const HsvdOut<T> p = run_hsvd<T>(m, 2, 1, pair, {1, -1}, 0, {}, backend);
        EXPECT_EQ(p.info[0], info_no_hyperbolic_rotation);
        // The sweep limit: one sweep cannot converge on a random 30 x 30 matrix.
        const index_t k = 30;
        const std::vector<T> big = testing::generate_batch<T>(testing::Family::random, k, k, 2, seed + 1);
        std::vector<int> jk(k, 1);
        for (index_t i = 0; i < k; i += 2) jk[i] = -1;
        Options o;
        o.max_sweeps = 1;
        const HsvdOut<T> lim = run_hsvd<T>(k, k, 2, big, jk, 0, o, backend);
        for (index_t b = 0; b < 2; ++b) {
            EXPECT_EQ(lim.info[b], 1);
            EXPECT_EQ(lim.sweeps[b], 1);
            for (index_t i = 0; i < k; ++i) EXPECT_TRUE(std::isfinite(lim.s[b * k + i]));
        }
        // The same cases at 4 x 3 and 4 x 2 (the GPU's tiny kernel): a clean matrix, NaN, a zero
        // column, and two equal columns of opposite signs alone (no hyperbolic rotation).
        {
            std::vector<T> t = testing::generate_batch<T>(testing::Family::random, 4, 3, 3, seed + 3);
            const std::vector<int> jt = {1, -1, 1};
            t[1 * 12 + 5] = T(std::numeric_limits<R>::quiet_NaN());
            for (index_t i = 0; i < 4; ++i) t[2 * 12 + i + 4] = T(0);
            const HsvdOut<T> tr = run_hsvd<T>(4, 3, 3, t, jt, 0, {}, backend);
            EXPECT_EQ(tr.info[0], 0);
            EXPECT_EQ(tr.info[1], info_nonfinite);
            EXPECT_EQ(tr.info[2], info_rank_deficient);
            for (index_t i = 0; i < 3; ++i) EXPECT_TRUE(std::isfinite(tr.s[i]));
            for (index_t i = 3; i < 9; ++i) EXPECT_TRUE(std::isnan(tr.s[i])) << i;
            std::vector<T> two(8);
            for (index_t i = 0; i < 4; ++i) two[i] = two[i + 4] = t[i];
            EXPECT_EQ(run_hsvd<T>(4, 2, 1, two, {1, -1}, 0, {}, backend).info[0], info_no_hyperbolic_rotation);
        }
        // The same cases at 40 x 36 (the GPU's fused kernel): a clean matrix, NaN, a zero
        // column, and G of rank one with half its columns of each sign, whose first round-robin
        // step pairs every +1 column with an equal -1 column (no hyperbolic rotation: on the
        // CPU, whose orderings differ, a later pair may leave it rank deficient instead).
        const index_t wm = 40, wn = 36;
        std::vector<T> w = testing::generate_batch<T>(testing::Family::random, wm, wn, 5, seed + 2);
        std::vector<int> jw(wn, 1);
        for (index_t i = 1; i < wn; i += 2) jw[i] = -1;
        const HsvdOut<T> wclean = run_hsvd<T>(wm, wn, 5, w, jw, 0, {}, backend);
        w[1 * wm * wn + 77] = T(std::numeric_limits<R>::infinity());
        for (index_t i = 0; i < wm; ++i) w[2 * wm * wn + i + 20 * wm] = T(0);
        for (index_t c = 1; c < wn; ++c)
            for (index_t i = 0; i < wm; ++i) w[3 * wm * wn + i + c * wm] = w[3 * wm * wn + i];
        const HsvdOut<T> wr = run_hsvd<T>(wm, wn, 5, w, jw, 0, {}, backend);
        EXPECT_EQ(wr.info[0], 0);
        EXPECT_EQ(wr.info[1], info_nonfinite);
        EXPECT_EQ(wr.info[2], info_rank_deficient);
        if (backend == Backend::cuda) EXPECT_EQ(wr.info[3], info_no_hyperbolic_rotation);
        else EXPECT_LT(wr.info[3], 0);
        EXPECT_EQ(wr.info[4], 0);
        for (index_t b : {0, 4}) {
            EXPECT_EQ(0, std::memcmp(&wr.s[b * wn], &wclean.s[b * wn], wn * sizeof(R)));
            EXPECT_EQ(0, std::memcmp(&wr.v[b * wn * wn], &wclean.v[b * wn * wn], wn * wn * sizeof(T)));
        }
        for (index_t b : {1, 2, 3}) {
            for (index_t i = 0; i < wn; ++i) EXPECT_TRUE(std::isnan(wr.s[b * wn + i])) << b << ", " << i;
            for (index_t i = 0; i < wm * wn; ++i) EXPECT_TRUE(std::isnan(std::real(wr.u[b * wm * wn + i])));
            for (index_t i = 0; i < wn; ++i) EXPECT_EQ(wr.jout[b * wn + i], i < wn / 2 ? 1 : -1);
        }
    });
}

TEST(Hyperbolic, StatusCodesAreIsolated) { status_codes_are_isolated(Backend::cpu); }
TEST(HyperbolicCuda, StatusCodesAreIsolated) {
    SKIP_CUDA_CASE_WITHOUT_DEVICE(Backend::cuda);
    status_codes_are_isolated(Backend::cuda);
}

TEST(HyperbolicCuda, BlockedIterationOnEveryShape) {
    // The blocked iteration (block pairs of 2 x 16 columns, the shapes past shared memory)
    // forced on the shapes of the other forms: one block (with padding), a ragged last block,
    // an odd count of blocks.
    SKIP_CUDA_CASE_WITHOUT_DEVICE(Backend::cuda);
    setenv("BATCHSVD_CUDA_HSVD_BLOCKED", "1", 1);
    struct Unset {
        ~Unset() { unsetenv("BATCHSVD_CUDA_HSVD_BLOCKED"); }
    } unset;
    hsvd_relations(Backend::cuda, {{2, 2}, {9, 9}, {40, 10}, {33, 33}, {70, 45}, {64, 64}, {100, 81}});
    status_codes_are_isolated(Backend::cuda);
}

TEST(Hyperbolic, ThreadsSharingOneMatrixGiveItsResultBitForBit) {
    // n >= 64 and fewer matrices than threads: the threads share each matrix's round-robin
    // steps; the result must be the one thread's, and the status cases must leave together.
    each_type([](auto zero) {
        using T = decltype(zero);
        const index_t m = 80, n = 70;
        const std::uint64_t seed = testing::fresh_seed();
        SCOPED_TRACE("seed " + std::to_string(seed));
        std::mt19937_64 rng(seed);
        std::vector<T> g = testing::generate_batch<T>(testing::Family::random, m, n, 3, seed);
        std::vector<int> j = mixed_signature(n, rng);
        j[0] = 1;
        j[n - 1] = -1;
        for (index_t i = 0; i < m; ++i) g[2 * m * n + i + (n - 1) * m] = g[2 * m * n + i];  // matrix 2: -3
        for (index_t i = 0; i < m; ++i) g[1 * m * n + i + 5 * m] = T(0);                     // matrix 1: -2
        Options one, two;
        one.threads = 1;
        two.threads = 2;
        const HsvdOut<T> a = run_hsvd<T>(m, n, 3, g, j, 0, one);
        for (index_t b = 0; b < 3; ++b) {
            const std::vector<T> gb(g.begin() + b * m * n, g.begin() + (b + 1) * m * n);
            const HsvdOut<T> shared = run_hsvd<T>(m, n, 1, gb, j, 0, two);
            EXPECT_EQ(shared.info[0], a.info[b]) << "matrix " << b;
            EXPECT_EQ(shared.sweeps[0], a.sweeps[b]) << "matrix " << b;
            EXPECT_EQ(0, std::memcmp(shared.s.data(), &a.s[b * n], n * sizeof(real_t<T>))) << "matrix " << b;
            EXPECT_EQ(0, std::memcmp(shared.u.data(), &a.u[b * m * n], m * n * sizeof(T))) << "matrix " << b;
            EXPECT_EQ(0, std::memcmp(shared.v.data(), &a.v[b * n * n], n * n * sizeof(T))) << "matrix " << b;
        }
        EXPECT_EQ(a.info[0], 0);
        EXPECT_EQ(a.info[1], info_rank_deficient);
        EXPECT_EQ(a.info[2], info_no_hyperbolic_rotation);
    });
}

TEST(Hyperbolic, InvalidArgumentsThrow) {
    std::vector<double> g = {1, 2, 3, 4, 0, 1, 0, 2, 5, 0, 1, 1}, s(4), u(12), v(16);
    std::vector<int> info(1), jout(4);
    auto call = [&](index_t m, index_t n, std::vector<int> j, Options o = {}) {
        hsvd<double>(m, n, 1, MatrixBatch<const double>{g.data(), std::max<index_t>(m, 1), m * n},
                     SignatureBatch{j.data(), 0}, s.data(), n, jout.data(), n,
                     MatrixBatch<double>{u.data(), std::max<index_t>(m, 1), m * n},
                     MatrixBatch<double>{v.data(), std::max<index_t>(n, 1), n * n}, info.data(), o);
    };
    auto code = [&](auto&& f) {
        try {
            f();
        } catch (const Error& e) {
            return e.code();
        }
        return ErrorCode::device_error;  // (no error thrown)
    };
    EXPECT_EQ(code([&] { call(2, 3, {1, -1, 1}); }), ErrorCode::invalid_argument);  // m < n
    EXPECT_EQ(code([&] { call(4, 3, {1, 0, -1}); }), ErrorCode::invalid_argument);  // j = 0
    EXPECT_EQ(code([&] { call(4, 3, {1, 2, -1}); }), ErrorCode::invalid_argument);
    Options o;
    o.max_sweeps = 0;
    EXPECT_EQ(code([&] { call(4, 3, {1, -1, 1}, o); }), ErrorCode::invalid_argument);
    o = {};
    o.backend = Backend::cuda;
    if (!cuda_available()) EXPECT_EQ(code([&] { call(4, 3, {1, -1, 1}, o); }), ErrorCode::backend_unavailable);
    else EXPECT_EQ(code([&] { call(4, 3, {1, 0, 1}, o); }), ErrorCode::invalid_argument);
    EXPECT_NO_THROW(call(4, 3, {1, -1, 1}));
    EXPECT_EQ(info[0], 0);
    std::vector<double> w(3);
    EXPECT_THROW(eigh_indefinite<double>(3, 1, MatrixBatch<const double>{g.data(), 2, 9}, w.data(), 3,
                                         MatrixBatch<double>{v.data(), 3, 9}, info.data()),
                 Error);  // lda < n
}

/// A graded indefinite Hermitian matrix A = D B D: B = Q diag(+-(1..2)) Q^H (condition <= 2,
/// both signs), D = diag(10^(-5 x_i)) with x_i spread over [0, 1] in a random order, so that
/// A's entries span 1e-10 to 1 and its eigenvalues about as much.
template <class T> std::vector<T> graded_indefinite(index_t n, std::uint64_t seed) {
    using R = real_t<T>;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(1, 2);
    using Q = std::conditional_t<is_cx<T>::value, std::complex<double>, double>;
    const std::vector<Q> q = testing::random_orthonormal<Q>(n, n, seed ^ 0x5eed);
    std::vector<double> lam(n), d(n);
    for (index_t i = 0; i < n; ++i) lam[i] = (i % 2 ? -1 : 1) * unit(rng);
    for (index_t i = 0; i < n; ++i) d[i] = std::pow(10.0, -5.0 * double(i) / double(std::max<index_t>(n - 1, 1)));
    std::shuffle(d.begin(), d.end(), rng);
    std::vector<T> a(n * n);
    for (index_t c = 0; c < n; ++c)
        for (index_t i = 0; i < n; ++i) {
            std::complex<double> x = 0;
            for (index_t k = 0; k < n; ++k)
                x += std::complex<double>(q[i + k * n]) * lam[k] * std::conj(std::complex<double>(q[c + k * n]));
            x *= d[i] * d[c];
            if (i == c) x = x.real();
            if constexpr (is_cx<T>::value) a[i + c * n] = T(R(x.real()), R(i == c ? 0 : x.imag()));
            else a[i + c * n] = R(x.real());
        }
    for (index_t c = 0; c < n; ++c)  // exactly Hermitian
        for (index_t i = 0; i < c; ++i) a[i + c * n] = conj_t(a[c + i * n]);
    return a;
}

template <class T> struct EighOut {
    std::vector<real_t<T>> w;
    std::vector<T> z;
    std::vector<int> info;
};

template <class T>
EighOut<T> run_eigh(index_t n, index_t batch, const std::vector<T>& a, bool vectors = true,
                    Backend backend = Backend::cpu) {
    EighOut<T> r;
    r.w.assign(n * batch, std::numeric_limits<real_t<T>>::quiet_NaN());
    r.z.assign(n * n * batch, nan_value<T>());
    r.info.assign(batch, 12345);
    Options o;
    o.compute_u = vectors;
    o.backend = backend;
    eigh_indefinite<T>(n, batch, MatrixBatch<const T>{a.data(), n, n * n}, r.w.data(), n,
                       MatrixBatch<T>{r.z.data(), n, n * n}, r.info.data(), o);
    return r;
}

/// max_i ||A z_i - w_i z_i|| / ||A||_F and max |Z^H Z - I| of one matrix, in long double.
template <class T> std::pair<long double, long double> eigh_residuals(index_t n, const T* a, const real_t<T>* w, const T* z) {
    long double af = 0, res = 0, orth = 0;
    for (index_t i = 0; i < n * n; ++i) af += ld_abs2<T>(wide(a[i]));
    af = std::sqrt(af);
    for (index_t c = 0; c < n; ++c) {
        long double r2 = 0;
        for (index_t i = 0; i < n; ++i) {
            Wide<T> x = -(long double)w[c] * wide(z[i + c * n]);
            for (index_t k = 0; k < n; ++k) x += wide(a[i + k * n]) * wide(z[k + c * n]);
            r2 += ld_abs2<T>(x);
        }
        res = std::max(res, std::sqrt(r2) / af);
        for (index_t c2 = 0; c2 < n; ++c2) {
            Wide<T> x = 0;
            for (index_t i = 0; i < n; ++i) x += conj_t(wide(z[i + c * n])) * wide(z[i + c2 * n]);
            orth = std::max(orth, std::abs(std::complex<long double>(x) - (long double)(c == c2)));
        }
    }
    return {res, orth};
}

void eigh_graded(Backend backend) {
    each_type([backend](auto zero) {
        using T = decltype(zero);
        const double u = testing::unit_roundoff<T>();
        // The bar: 1e-12 in double, the same multiple of u (about 9000 u) in single.
        const double bound = 1e-12 / testing::unit_roundoff<double>() * u;
        for (index_t n : {2, 5, 16, 33, 32, 64}) {
            // (32: the GPU's largest warp team; 33 and 64: the fused kernel, and two rows a
            // lane in the factorisation)
            if ((n == 32 || n == 64) && backend == Backend::cpu) continue;
            const index_t batch = n > 16 ? 2 : 4;
            const std::uint64_t seed = testing::fresh_seed();
            SCOPED_TRACE("seed " + std::to_string(seed) + ", n " + std::to_string(n));
            std::vector<T> a;
            for (index_t b = 0; b < batch; ++b) {
                const std::vector<T> ab = graded_indefinite<T>(n, seed + b);
                a.insert(a.end(), ab.begin(), ab.end());
            }
            const EighOut<T> r = run_eigh<T>(n, batch, a, true, backend);
            double worst = 0, worst_syevd = 0;
            for (index_t b = 0; b < batch; ++b) {
                ASSERT_EQ(r.info[b], 0) << "matrix " << b;
                const T* ab = a.data() + b * n * n;
                const std::vector<long double> ref = testing::reference_eigenvalues_quad<T>(n, ab, n);
                std::vector<T> copy(ab, ab + n * n);
                std::vector<real_t<T>> lw(n);
                ASSERT_EQ(testing::lapack::syevd_values<T>(int(n), copy.data(), int(n), lw.data()), 0);
                for (index_t i = 0; i < n; ++i) {
                    const double rel = double(std::abs((long double)r.w[b * n + i] - ref[i]) / std::abs(ref[i]));
                    worst = std::max(worst, rel);
                    worst_syevd = std::max(worst_syevd, double(std::abs((long double)lw[i] - ref[i]) / std::abs(ref[i])));
                    EXPECT_LE(rel, bound) << "matrix " << b << ", eigenvalue " << i << ": " << r.w[b * n + i]
                                          << " against " << double(ref[i]);
                }
                const auto [res, orth] = eigh_residuals<T>(n, ab, r.w.data() + b * n, r.z.data() + b * n * n);
                EXPECT_LT(res, 30 * u * n) << "matrix " << b;
                EXPECT_LT(orth, 30 * u * n) << "matrix " << b;
            }
            char note[96];
            std::snprintf(note, sizeof note, "%.2e (syevd %.2e)", worst, worst_syevd);
            ::testing::Test::RecordProperty(std::string(backend == Backend::cuda ? "cuda_" : "") + "worst_relative_n" +
                                                std::to_string(n) + "_" +
                                                (is_cx<T>::value ? "complex" : "real") + std::to_string(8 * sizeof(real_t<T>)),
                                            note);
            // Values only: the same eigenvalues.
            const EighOut<T> vals = run_eigh<T>(n, batch, a, false, backend);
            for (index_t i = 0; i < n * batch; ++i) EXPECT_EQ(vals.w[i], r.w[i]);
        }
    });
}

TEST(Hyperbolic, EighIndefiniteGradedEigenvaluesToRelativeAccuracy) { eigh_graded(Backend::cpu); }
TEST(HyperbolicCuda, EighIndefiniteGradedEigenvaluesToRelativeAccuracy) {
    SKIP_CUDA_CASE_WITHOUT_DEVICE(Backend::cuda);
    eigh_graded(Backend::cuda);
}

void eigh_special(Backend backend) {
    each_type([backend](auto zero) {
        using T = decltype(zero);
        using R = real_t<T>;
        const double u = testing::unit_roundoff<T>();
        for (index_t n : {9, 45}) {  // (on the GPU: the warp kernel, the fused one)
            const std::uint64_t seed = testing::fresh_seed();
            SCOPED_TRACE("seed " + std::to_string(seed) + ", n " + std::to_string(n));
            // Rank 5 with both signs (A = G J G^H, G n x 5), the zero matrix, a definite one, NaN.
            const std::vector<T> g = testing::generate_batch<T>(testing::Family::random, n, 5, 1, seed);
            const int js[5] = {1, -1, 1, 1, -1};
            std::vector<T> a(4 * n * n, T(0));
            for (index_t c = 0; c < n; ++c)
                for (index_t i = 0; i < n; ++i) {
                    std::complex<double> x = 0, y = 0;
                    for (index_t k = 0; k < 5; ++k) {
                        x += std::complex<double>(g[i + k * n]) * double(js[k]) * std::conj(std::complex<double>(g[c + k * n]));
                        y += std::complex<double>(g[i + k * n]) * std::conj(std::complex<double>(g[c + k * n]));
                    }
                    if constexpr (is_cx<T>::value) {
                        a[i + c * n] = T(R(x.real()), R(i == c ? 0 : x.imag()));
                        a[2 * n * n + i + c * n] = T(R(y.real() + (i == c)), R(i == c ? 0 : y.imag()));
                    } else {
                        a[i + c * n] = R(x.real());
                        a[2 * n * n + i + c * n] = R(y.real() + (i == c));
                    }
                }
            for (index_t b : {0, 2})
                for (index_t c = 0; c < n; ++c)
                    for (index_t i = 0; i < c; ++i) a[b * n * n + i + c * n] = conj_t(a[b * n * n + c + i * n]);
            a[3 * n * n + 4] = T(std::numeric_limits<R>::quiet_NaN());
            const EighOut<T> r = run_eigh<T>(n, 4, a, true, backend);
            EXPECT_EQ(r.info[0], 0);
            EXPECT_EQ(r.info[1], 0);
            EXPECT_EQ(r.info[2], 0);
            EXPECT_EQ(r.info[3], info_nonfinite);
            for (index_t b : {0, 1, 2}) {
                for (index_t i = 0; i + 1 < n; ++i) EXPECT_LE(r.w[b * n + i], r.w[b * n + i + 1]) << "ascending";
                const auto [res, orth] = eigh_residuals<T>(n, a.data() + b * n * n, r.w.data() + b * n, r.z.data() + b * n * n);
                if (b != 1) EXPECT_LT(res, 30 * u * n) << "matrix " << b;
                EXPECT_LT(orth, 30 * u * n) << "matrix " << b;
            }
            // Rank 5 of n: n - 5 eigenvalues are zero (to rounding), two negative, three positive.
            const std::vector<long double> ref = testing::reference_eigenvalues_quad<T>(n, a.data(), n);
            long double scale = 0;
            for (auto x : ref) scale = std::max(scale, std::abs(x));
            int neg = 0, pos = 0;
            for (index_t i = 0; i < n; ++i) {
                EXPECT_LE(std::abs((long double)r.w[i] - ref[i]), 30 * u * n * scale) << i;
                neg += r.w[i] < -1e3 * u * double(scale);
                pos += r.w[i] > 1e3 * u * double(scale);
            }
            EXPECT_EQ(neg, 2);
            EXPECT_EQ(pos, 3);
            for (index_t i = 0; i < n; ++i) EXPECT_EQ(r.w[n + i], R(0)) << "the zero matrix";
            for (index_t i = 0; i < n; ++i) EXPECT_GE(r.w[2 * n + i], R(1) - R(30 * u * n)) << "G G^H + I is >= I";
            for (index_t i = 0; i < n; ++i) EXPECT_TRUE(std::isnan(r.w[3 * n + i]));
        }
    });
}

TEST(Hyperbolic, EighIndefiniteDefiniteSingularAndSpecialMatrices) { eigh_special(Backend::cpu); }
TEST(HyperbolicCuda, EighIndefiniteDefiniteSingularAndSpecialMatrices) {
    SKIP_CUDA_CASE_WITHOUT_DEVICE(Backend::cuda);
    eigh_special(Backend::cuda);
}

TEST(Hyperbolic, EachMatrixGetsItsOwnResultWhateverItsGroup) {
    // Small real matrices go through the SIMD lanes a group at a time, others alone; a
    // matrix's results must not depend on its neighbours, the batch or the threads.
    each_type([](auto zero) {
        using T = decltype(zero);
        using R = real_t<T>;
        const index_t m = 14, n = 10, batch = 19;
        const std::uint64_t seed = testing::fresh_seed();
        SCOPED_TRACE("seed " + std::to_string(seed));
        std::mt19937_64 rng(seed);
        std::vector<T> g = testing::generate_batch<T>(testing::Family::random, m, n, batch, seed);
        std::vector<int> j;
        for (index_t b = 0; b < batch; ++b) {
            std::vector<int> jb = mixed_signature(n, rng);
            if (b % 5 == 3) jb.assign(n, b % 2 ? 1 : -1);  // one sign: the SVD
            j.insert(j.end(), jb.begin(), jb.end());
        }
        g[7 * m * n + 3] = T(std::numeric_limits<R>::quiet_NaN());
        Options two;
        two.threads = 2;
        const HsvdOut<T> all = run_hsvd<T>(m, n, batch, g, j, n, two);
        // Hermitian matrices from the same G: A = G J G^H's leading n x n part is not what we
        // need; take A = G^H diag(+-1) G (n x n, indefinite) instead.
        std::vector<T> a(n * n * batch);
        for (index_t b = 0; b < batch; ++b)
            for (index_t c = 0; c < n; ++c)
                for (index_t i = 0; i < n; ++i) {
                    T x = T(0);
                    for (index_t k = 0; k < m; ++k)
                        x += conj_t(g[b * m * n + k + i * m]) * T(R(k % 3 ? 1 : -1)) * g[b * m * n + k + c * m];
                    a[b * n * n + i + c * n] = x;
                }
        const EighOut<T> eall = run_eigh<T>(n, batch, a);
        for (index_t b = 0; b < batch; ++b) {
            const std::vector<T> gb(g.begin() + b * m * n, g.begin() + (b + 1) * m * n);
            const std::vector<int> jb(j.begin() + b * n, j.begin() + (b + 1) * n);
            const HsvdOut<T> one = run_hsvd<T>(m, n, 1, gb, jb, 0);
            EXPECT_EQ(one.info[0], all.info[b]) << "matrix " << b;
            EXPECT_EQ(one.sweeps[0], all.sweeps[b]) << "matrix " << b;
            EXPECT_EQ(0, std::memcmp(one.s.data(), &all.s[b * n], n * sizeof(R))) << "matrix " << b;
            EXPECT_EQ(0, std::memcmp(one.u.data(), &all.u[b * m * n], m * n * sizeof(T))) << "matrix " << b;
            EXPECT_EQ(0, std::memcmp(one.v.data(), &all.v[b * n * n], n * n * sizeof(T))) << "matrix " << b;
            const std::vector<T> ab(a.begin() + b * n * n, a.begin() + (b + 1) * n * n);
            const EighOut<T> eone = run_eigh<T>(n, 1, ab);
            EXPECT_EQ(eone.info[0], eall.info[b]) << "matrix " << b;
            EXPECT_EQ(0, std::memcmp(eone.w.data(), &eall.w[b * n], n * sizeof(R))) << "matrix " << b;
            EXPECT_EQ(0, std::memcmp(eone.z.data(), &eall.z[b * n * n], n * n * sizeof(T))) << "matrix " << b;
            if (b != 7) {
                EXPECT_EQ(all.info[b], 0) << "matrix " << b;
                EXPECT_EQ(eall.info[b], 0) << "matrix " << b;
            }
        }
        EXPECT_EQ(all.info[7], info_nonfinite);
        EXPECT_EQ(eall.info[7], info_nonfinite);
    });
}

}  // namespace
}  // namespace batchsvd::test
