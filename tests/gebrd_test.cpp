// SPDX-License-Identifier: BSD-3-Clause
// gebrd on both backends, four precisions: LAPACK's ?gebrd outputs (d, e, tauq, taup and
// the reflectors in A) to rounding, Q B P^H reconstructs A with Q and P unitary (in long
// double), every shape (tall, wide, square, 1 x n, n x 1, empty; on the GPU also shapes past
// shared memory), NaN/Inf -> info -1; and singular values by the bidiagonal route
// (SvdMethod) against LAPACK (e4). The CUDA cases take host memory with Backend::cuda (the
// device-pointer form is in cuda_device_test.cpp) and skip where no GPU exists.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <vector>

#include "batchsvd/batchsvd.hpp"
#include "testing/error_measures.hpp"
#include "testing/generators.hpp"
#include "testing/lapack.hpp"

namespace batchsvd::test {
namespace {

template <class T> struct is_cx : std::false_type {};
template <class R> struct is_cx<std::complex<R>> : std::true_type {};
using LC = std::complex<long double>;
template <class T> LC lc(T x) { return LC(std::real(x), std::imag(x)); }

template <class F> void each_type(F&& f) {
    f(float{});
    f(double{});
    f(std::complex<float>{});
    f(std::complex<double>{});
}

template <class T> struct Brd {
    std::vector<T> a, tauq, taup;
    std::vector<real_t<T>> d, e;
    std::vector<int> info;
};

/// Skips the current test without a CUDA device (backend: what is not tested).
#define SKIP_CUDA_CASE_WITHOUT_DEVICE(backend)                                                             \
    do {                                                                                                   \
        if ((backend) == Backend::cuda && !cuda_available())                                               \
            GTEST_SKIP() << "no CUDA device on this machine: the CUDA gebrd is not run (it runs on a GPU " \
                            "machine, see scripts/gpu_check.sh)";                                          \
    } while (0)

template <class T>
Brd<T> run_gebrd(index_t m, index_t n, index_t batch, const std::vector<T>& a, Backend backend = Backend::cpu) {
    const index_t k = std::min(m, n), st = std::max<index_t>(k, 1);
    Brd<T> r;
    r.a = a;
    const real_t<T> q = std::numeric_limits<real_t<T>>::quiet_NaN();
    r.d.assign(st * batch, q);
    r.e.assign(st * batch, q);
    r.tauq.assign(st * batch, T(q));
    r.taup.assign(st * batch, T(q));
    r.info.assign(batch, 77);
    Options o;
    o.backend = backend;
    gebrd<T>(m, n, batch, MatrixBatch<T>{r.a.data(), std::max<index_t>(m, 1), m * n},
             BidiagonalBatch<T>{r.d.data(), r.e.data(), r.tauq.data(), r.taup.data(), st}, r.info.data(), o);
    return r;
}

/// Q (m x m) or P (n x n) from the stored reflectors of one matrix, in long double:
/// Q = H(0) ... H(k-1), H(i) = I - tauq(i) v v^H, v(i + off) = 1 and v below it from A's column i;
/// P = G(0) ... G(k-1), G(i) = I - taup(i) u u^H, u(i + off) = 1 and u after it from A's row i,
/// conjugated (?gebd2 conjugates the row back after the reflector is applied).
std::vector<LC> form(index_t size, index_t k, bool rows, index_t off, const std::vector<LC>& A, index_t lda,
                     const std::vector<LC>& tau) {
    std::vector<LC> M(size * size, LC(0));
    for (index_t i = 0; i < size; ++i) M[i + i * size] = 1;
    for (index_t i = k - 1; i >= 0; --i) {  // M <- H(i) M, from the last reflector
        const index_t h = i + off;
        if (h >= size) continue;
        std::vector<LC> v(size, LC(0));
        v[h] = 1;
        for (index_t r = h + 1; r < size; ++r) v[r] = rows ? std::conj(A[i + r * lda]) : A[r + i * lda];
        for (index_t c = 0; c < size; ++c) {
            LC s = 0;
            for (index_t r = 0; r < size; ++r) s += std::conj(v[r]) * M[r + c * size];
            s *= tau[i];
            for (index_t r = 0; r < size; ++r) M[r + c * size] -= v[r] * s;
        }
    }
    return M;
}

template <class T> void check_matrix(index_t m, index_t n, const T* a0, const Brd<T>& r, index_t b, double u) {
    const index_t k = std::min(m, n), st = std::max<index_t>(k, 1);
    std::vector<LC> A(m * n), tq(k), tp(k);
    for (index_t i = 0; i < m * n; ++i) A[i] = lc(r.a[b * m * n + i]);
    for (index_t i = 0; i < k; ++i) {
        tq[i] = lc(r.tauq[b * st + i]);
        tp[i] = lc(r.taup[b * st + i]);
    }
    const bool upper = m >= n;
    const std::vector<LC> Q = form(m, k, false, upper ? 0 : 1, A, m, tq);
    const std::vector<LC> P = form(n, k, true, upper ? 1 : 0, A, m, tp);
    // B (m x n) from d and e, then Q B P^H against A.
    std::vector<LC> B(m * n, LC(0));
    for (index_t i = 0; i < k; ++i) {
        B[i + i * m] = (long double)r.d[b * st + i];
        if (i + 1 < k) {
            if (upper) B[i + (i + 1) * m] = (long double)r.e[b * st + i];
            else B[(i + 1) + i * m] = (long double)r.e[b * st + i];
        }
    }
    long double anorm = 0, err = 0, oq = 0, op = 0;
    for (index_t i = 0; i < m * n; ++i) anorm = std::max(anorm, std::abs(lc(a0[i])));
    // B P^H first (B has two entries a row), then Q (B P^H).
    std::vector<LC> BP(m * n, LC(0));
    for (index_t p = 0; p < m; ++p)
        for (index_t q = std::max<index_t>(p - 1, 0); q <= std::min<index_t>(p + 1, n - 1); ++q) {
            const LC bpq = B[p + q * m];
            if (bpq == LC(0)) continue;
            for (index_t c = 0; c < n; ++c) BP[p + c * m] += bpq * std::conj(P[c + q * n]);
        }
    for (index_t c = 0; c < n; ++c)
        for (index_t i = 0; i < m; ++i) {
            LC x = 0;
            for (index_t p = 0; p < m; ++p) x += Q[i + p * m] * BP[p + c * m];
            err = std::max(err, std::abs(x - lc(a0[i + c * m])));
        }
    auto orth = [](const std::vector<LC>& M, index_t s) {
        long double w = 0;
        for (index_t a = 0; a < s; ++a)
            for (index_t c = 0; c < s; ++c) {
                LC x = 0;
                for (index_t r = 0; r < s; ++r) x += std::conj(M[r + a * s]) * M[r + c * s];
                w = std::max(w, std::abs(x - LC(a == c ? 1 : 0)));
            }
        return w;
    };
    oq = orth(Q, m);
    op = orth(P, n);
    const double lim = 30 * u * std::max<index_t>(std::max(m, n), 1);
    EXPECT_LE(err, lim * std::max<long double>(anorm, 1e-300L) * std::max<index_t>(n, 1)) << "matrix " << b;
    EXPECT_LE(oq, lim) << "Q of matrix " << b;
    EXPECT_LE(op, lim) << "P of matrix " << b;
}

/// Shapes of both backends, and (CUDA) shapes whose working matrix does not fit in a block's
/// shared memory (in place when tall, through a workspace when wide).
std::vector<std::pair<index_t, index_t>> semantics_shapes(Backend backend, bool large_type) {
    std::vector<std::pair<index_t, index_t>> s = {{8, 8}, {20, 7}, {7, 20}, {1, 6}, {6, 1}, {1, 1}, {33, 31}, {2, 3}, {64, 64}};
    if (backend == Backend::cuda) {
        s.push_back({130, 97});
        if (large_type) s.insert(s.end(), {{200, 160}, {150, 200}});  // past 227 KB of shared memory
        else s.push_back({260, 230});
    }
    return s;
}

void lapack_semantics_and_reconstruction(Backend backend) {
    each_type([backend](auto zero) {
        using T = decltype(zero);
        using R = real_t<T>;
        const double u = testing::unit_roundoff<T>();
        for (auto [m, n] : semantics_shapes(backend, sizeof(T) >= 8)) {
            const index_t batch = m * n > 10000 ? 2 : 3, k = std::min(m, n), st = std::max<index_t>(k, 1);
            const std::uint64_t seed = testing::fresh_seed();
            SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(m) + "x" + std::to_string(n));
            for (testing::Family f : {testing::Family::random, testing::Family::geo}) {
                const std::vector<T> a = testing::generate_batch<T>(f, m, n, batch, seed);
                const Brd<T> r = run_gebrd<T>(m, n, batch, a, backend);
                for (index_t b = 0; b < batch; ++b) {
                    ASSERT_EQ(r.info[b], 0);
                    check_matrix<T>(m, n, a.data() + b * m * n, r, b, u);
                    // LAPACK's ?gebrd on the same matrix: the same numbers to rounding.
                    std::vector<T> la(a.begin() + b * m * n, a.begin() + (b + 1) * m * n), tq(st), tp(st);
                    std::vector<R> d(st), e(st);
                    ASSERT_EQ(testing::lapack::gebrd<T>(int(m), int(n), la.data(), int(m), d.data(), e.data(), tq.data(),
                                                        tp.data()),
                              0);
                    R amax = 0;
                    for (index_t i = 0; i < m * n; ++i) amax = std::max(amax, std::abs(a[b * m * n + i]));
                    const double tol = 100 * u * std::max(m, n);
                    // The reflectors of later steps depend on trailing matrices that rounding
                    // perturbs in proportion to their conditioning, so the conventions (signs,
                    // conjugations, storage) are compared on the first step's: d(0), e(0),
                    // tauq(0), taup(0), A's first column and first row.
                    // (d and e likewise: later entries differ from LAPACK's by rounding times the
                    // trailing matrices' conditioning; Q B P^H above checks all of them.)
                    EXPECT_NEAR(r.d[b * st], d[0], tol * amax) << "d(0)";
                    if (k > 1) EXPECT_NEAR(r.e[b * st], e[0], tol * amax) << "e(0)";
                    EXPECT_LE(std::abs(r.tauq[b * st] - tq[0]), tol) << "tauq(0)";
                    EXPECT_LE(std::abs(r.taup[b * st] - tp[0]), tol) << "taup(0)";
                    for (index_t i = 2; i < m; ++i)
                        EXPECT_LE(std::abs(r.a[b * m * n + i] - la[i]), tol) << "A(" << i << ", 0)";
                    for (index_t c = 2; c < n; ++c)
                        EXPECT_LE(std::abs(r.a[b * m * n + c * m] - la[c * m]), tol) << "A(0, " << c << ")";
                }
            }
        }
    });
}

TEST(Gebrd, LapackSemanticsAndReconstruction) { lapack_semantics_and_reconstruction(Backend::cpu); }

TEST(GebrdCuda, LapackSemanticsAndReconstruction) {
    SKIP_CUDA_CASE_WITHOUT_DEVICE(Backend::cuda);
    lapack_semantics_and_reconstruction(Backend::cuda);
}

void nonfinite_and_empty(Backend backend) {
    each_type([backend](auto zero) {
        using T = decltype(zero);
        using R = real_t<T>;
        for (auto [m, n] : {std::pair<index_t, index_t>{5, 4}, {4, 5}}) {
            const index_t batch = 3, k = std::min(m, n);
            const std::uint64_t seed = testing::fresh_seed();
            std::vector<T> a = testing::generate_batch<T>(testing::Family::random, m, n, batch, seed);
            const Brd<T> clean = run_gebrd<T>(m, n, batch, a, backend);
            a[1 * m * n + 7] = T(std::numeric_limits<R>::infinity());
            const Brd<T> r = run_gebrd<T>(m, n, batch, a, backend);
            EXPECT_EQ(r.info[0], 0);
            EXPECT_EQ(r.info[1], info_nonfinite);
            EXPECT_EQ(r.info[2], 0);
            for (index_t i = 0; i < k; ++i) {
                EXPECT_TRUE(std::isnan(r.d[k + i]));
                EXPECT_TRUE(std::isnan(std::real(r.tauq[k + i])));
                EXPECT_TRUE(std::isnan(std::real(r.taup[k + i])));
            }
            for (index_t i = 0; i + 1 < k; ++i) EXPECT_TRUE(std::isnan(r.e[k + i]));
            for (index_t i = 0; i < m * n; ++i) EXPECT_TRUE(std::isnan(std::real(r.a[m * n + i])));
            for (index_t b : {0, 2})
                for (index_t i = 0; i < k; ++i) EXPECT_EQ(r.d[b * k + i], clean.d[b * k + i]) << "isolated";
        }
        // Empty matrices: nothing written but info.
        const Brd<T> e0 = run_gebrd<T>(0, 3, 2, {}, backend);
        EXPECT_EQ(e0.info, std::vector<int>(2, 0));
    });
}

TEST(GebrdCuda, NonFiniteAndEmpty) {
    SKIP_CUDA_CASE_WITHOUT_DEVICE(Backend::cuda);
    nonfinite_and_empty(Backend::cuda);
}

TEST(Gebrd, NonFiniteEmptyAndErrors) {
    nonfinite_and_empty(Backend::cpu);
    std::vector<double> a(6, 1.0), d(2), e(2);
    int info = 0;
    EXPECT_THROW(gebrd<double>(3, 2, 1, MatrixBatch<double>{a.data(), 2, 6}, BidiagonalBatch<double>{d.data(), e.data()},
                               &info),
                 Error);  // lda < m
    if (!cuda_available()) {  // (no GPU, or a build without the CUDA backend)
        Options o;
        o.backend = Backend::cuda;
        try {
            gebrd<double>(3, 2, 1, MatrixBatch<double>{a.data(), 3, 6}, BidiagonalBatch<double>{d.data(), e.data()}, &info, o);
            ADD_FAILURE() << "no error";
        } catch (const Error& err) {
            EXPECT_EQ(err.code(), ErrorCode::backend_unavailable);
        }
    }
}

void values_by_the_bidiagonal_route(Backend backend) {
    each_type([backend](auto zero) {
        using T = decltype(zero);
        using R = real_t<T>;
        const double u = testing::unit_roundoff<T>();
        std::vector<std::pair<index_t, index_t>> shapes = {{16, 16}, {60, 50}, {30, 90}, {1, 5}, {5, 1}, {70, 70}};
        if (backend == Backend::cuda) shapes.insert(shapes.end(), {{3, 2}, {140, 120}, {180, 250}});  // (past shared memory)
        for (auto [m, n] : shapes) {
            const index_t batch = 4, k = std::min(m, n);
            const std::uint64_t seed = testing::fresh_seed();
            SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(m) + "x" + std::to_string(n));
            for (testing::Family f : {testing::Family::random, testing::Family::geo, testing::Family::arith}) {
                std::vector<T> a = testing::generate_batch<T>(f, m, n, batch, seed);
                a[2 * m * n] = T(std::numeric_limits<R>::quiet_NaN());
                std::vector<R> s(k * batch, R(-1));
                std::vector<int> info(batch, 5), sweeps(batch, 5);
                Options o;
                o.backend = backend;
                o.compute_u = o.compute_v = false;
                o.method = SvdMethod::bidiagonal;
                o.sweeps = sweeps.data();
                gesvd<T>(m, n, batch, a.data(), s.data(), nullptr, nullptr, info.data(), o);
                for (index_t b = 0; b < batch; ++b) {
                    EXPECT_EQ(sweeps[b], 0);
                    if (b == 2) {
                        EXPECT_EQ(info[b], info_nonfinite);
                        for (index_t i = 0; i < k; ++i) EXPECT_TRUE(std::isnan(s[b * k + i]));
                        continue;
                    }
                    ASSERT_EQ(info[b], 0);
                    const auto ref = testing::reference_singular_values<T>(m, n, a.data() + b * m * n, m);
                    double e4 = 0, s1 = std::max<double>(1, ref[0]);
                    for (index_t i = 0; i < k; ++i) e4 += std::pow(double(s[b * k + i]) - double(ref[i]), 2);
                    e4 = std::sqrt(e4) / (double(k) * s1);
                    EXPECT_LT(e4, 30 * u) << "matrix " << b;
                    for (index_t i = 0; i + 1 < k; ++i) EXPECT_GE(s[b * k + i], s[b * k + i + 1]);
                }
            }
        }
    });
}

TEST(GebrdCuda, ValuesByTheBidiagonalRoute) {
    SKIP_CUDA_CASE_WITHOUT_DEVICE(Backend::cuda);
    values_by_the_bidiagonal_route(Backend::cuda);
}

TEST(Gebrd, ValuesByTheBidiagonalRoute) {
    values_by_the_bidiagonal_route(Backend::cpu);
    // With vectors the bidiagonal method is invalid.
    std::vector<double> a(4, 1.0), s(2), uu(4), vv(4);
    int info = 0;
    Options o;
    o.method = SvdMethod::bidiagonal;
    EXPECT_THROW(gesvd<double>(2, 2, 1, a.data(), s.data(), uu.data(), vv.data(), &info, o), Error);
}

TEST(Gebrd, ListsGiveEachMatrixItsOwnResult) {
    // gebrd_vbatched and values-only gesvd_vbatched (each matrix by the method its size takes)
    // give every matrix bitwise what it gets alone.
    each_type([](auto zero) {
        using T = decltype(zero);
        using R = real_t<T>;
        const std::vector<std::pair<index_t, index_t>> shapes = {{30, 26}, {5, 9}, {0, 4}, {70, 40}, {12, 12}, {33, 80}};
        const index_t batch = index_t(shapes.size());
        const std::uint64_t seed = testing::fresh_seed();
        SCOPED_TRACE("seed " + std::to_string(seed));
        std::vector<std::vector<T>> a(batch);
        std::vector<index_t> m(batch), n(batch), ld(batch);
        for (index_t b = 0; b < batch; ++b) {
            m[b] = shapes[b].first;
            n[b] = shapes[b].second;
            ld[b] = std::max<index_t>(m[b], 1);
            a[b] = testing::generate_batch<T>(testing::Family::random, m[b], n[b], 1, seed + b);
        }
        a[4][5] = T(std::numeric_limits<R>::quiet_NaN());
        // gebrd_vbatched against gebrd one matrix at a time
        std::vector<std::vector<T>> w = a, tq(batch), tp(batch);
        std::vector<std::vector<R>> d(batch), e(batch);
        std::vector<T*> wp(batch), tqp(batch), tpp(batch);
        std::vector<R*> dp(batch), ep(batch);
        for (index_t b = 0; b < batch; ++b) {
            const index_t k = std::max<index_t>(std::min(m[b], n[b]), 1);
            tq[b].assign(k, T(-7));
            tp[b].assign(k, T(-7));
            d[b].assign(k, R(-7));
            e[b].assign(k, R(-7));
            wp[b] = w[b].data();
            tqp[b] = tq[b].data();
            tpp[b] = tp[b].data();
            dp[b] = d[b].data();
            ep[b] = e[b].data();
        }
        std::vector<int> info(batch, 9);
        Options o;
        o.threads = 2;
        gebrd_vbatched<T>(batch, m.data(), n.data(), MatrixList<T>{wp.data(), ld.data()},
                          BidiagonalList<T>{dp.data(), ep.data(), tqp.data(), tpp.data()}, info.data(), o);
        for (index_t b = 0; b < batch; ++b) {
            const index_t k = std::min(m[b], n[b]);
            const index_t st = std::max<index_t>(k, 1);
            std::vector<T> w1 = a[b], tq1(st), tp1(st);
            std::vector<R> d1(st), e1(st);
            int info1 = 9;
            gebrd<T>(m[b], n[b], 1, MatrixBatch<T>{w1.data(), ld[b], 0}, BidiagonalBatch<T>{d1.data(), e1.data(), tq1.data(), tp1.data(), st},
                     &info1);
            EXPECT_EQ(info[b], info1) << "matrix " << b;
            EXPECT_EQ(info[b], b == 4 ? info_nonfinite : 0) << "matrix " << b;
            EXPECT_EQ(0, std::memcmp(w[b].data(), w1.data(), w1.size() * sizeof(T))) << "matrix " << b;
            EXPECT_EQ(0, std::memcmp(d[b].data(), d1.data(), k * sizeof(R))) << "matrix " << b;
        }
        // values alone in a list, automatic and bidiagonal
        for (SvdMethod method : {SvdMethod::automatic, SvdMethod::bidiagonal, SvdMethod::jacobi}) {
            std::vector<std::vector<R>> sv(batch);
            std::vector<R*> sp(batch);
            std::vector<const T*> ap(batch);
            std::vector<T*> none(batch, nullptr);
            for (index_t b = 0; b < batch; ++b) {
                sv[b].assign(std::max<index_t>(std::min(m[b], n[b]), 1), R(-7));
                sp[b] = sv[b].data();
                ap[b] = a[b].data();
            }
            std::vector<int> inf(batch, 9), sw(batch, 9);
            Options ov;
            ov.compute_u = ov.compute_v = false;
            ov.method = method;
            ov.backend = Backend::cpu;
            ov.sweeps = sw.data();
            gesvd_vbatched<T>(batch, m.data(), n.data(), MatrixList<const T>{ap.data(), ld.data()}, sp.data(),
                              MatrixList<T>{none.data(), ld.data()}, MatrixList<T>{none.data(), ld.data()}, inf.data(), ov);
            for (index_t b = 0; b < batch; ++b) {
                const index_t k = std::min(m[b], n[b]);
                std::vector<R> s1(std::max<index_t>(k, 1), R(-7));
                int i1 = 9, w1 = 9;
                Options o1 = ov;
                o1.sweeps = &w1;
                gesvd<T>(m[b], n[b], 1, MatrixBatch<const T>{a[b].data(), ld[b], 0}, s1.data(), std::max<index_t>(k, 1),
                         MatrixBatch<T>{nullptr, ld[b], 0}, MatrixBatch<T>{nullptr, ld[b], 0}, &i1, o1);
                EXPECT_EQ(inf[b], i1) << "matrix " << b;
                EXPECT_EQ(sw[b], w1) << "matrix " << b;
                EXPECT_EQ(0, std::memcmp(sv[b].data(), s1.data(), k * sizeof(R))) << "matrix " << b;
            }
        }
    });
}

}  // namespace
}  // namespace batchsvd::test
