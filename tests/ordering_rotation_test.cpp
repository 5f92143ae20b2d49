// SPDX-License-Identifier: BSD-3-Clause
// The shared algorithm pieces: the round-robin ordering and the rotation formulas (src/core),
// and the Householder reflectors of the QR pre-processing (src/cpu/householder_qr.hpp, whose
// tail-norm rule the CUDA kernel follows).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <set>

#include "core/block_ordering.hpp"
#include "core/ordering.hpp"
#include "core/rotation.hpp"
#include "cpu/householder_qr.hpp"

namespace batchsvd::test {
namespace {

TEST(RoundRobin, EveryPairOncePerSweepInDisjointSteps) {
    for (int n = 1; n <= 41; ++n) {
        std::set<std::pair<int, int>> seen;
        for (int s = 0; s < core::round_robin_steps(n); ++s) {
            std::set<int> used;
            for (int p = 0; p < core::round_robin_pairs(n); ++p) {
                const core::IndexPair ij = core::round_robin_pair(n, s, p);
                ASSERT_LT(ij.i, ij.j);
                ASSERT_TRUE(used.insert(ij.i).second && used.insert(ij.j).second) << "step not disjoint, n=" << n;
                if (ij.j < n) ASSERT_TRUE(seen.insert({ij.i, ij.j}).second) << "pair twice, n=" << n;
            }
        }
        EXPECT_EQ(seen.size(), size_t(n) * (n - 1) / 2) << "n=" << n;
    }
}

// The ordering of the one-matrix path over P devices: blocks moved by the circle method
// (initial_slots, next_slots), each cut into k sub-blocks paired by sub_block_pair_table. A
// sweep must pair every two sub-blocks of the matrix exactly once, in steps whose pairs on a
// device are disjoint, with the same step count as the one-device round robin (2Pk - 1), and
// must leave every block back where it started.
TEST(SubBlockOrdering, EverySubBlockPairOncePerSweep) {
    for (int procs = 1; procs <= 8; ++procs) {
        for (int k = 2; k <= 10; k += 2) {
            const std::vector<int> table = core::sub_block_pair_table(k);
            ASSERT_EQ(table.size(), std::size_t(2 * k - 1) * k * 2);
            std::set<std::pair<int, int>> seen;
            core::BlockSlots slots = core::initial_slots(procs);
            int steps = 0;
            for (int block_step = 0; block_step < 2 * procs - 1; ++block_step) {
                const int first = block_step == 0 ? 0 : k - 1;  // internal steps once a sweep
                for (int s = first; s < 2 * k - 1; ++s, ++steps) {
                    for (int r = 0; r < procs; ++r) {
                        std::set<int> used;
                        for (int p = 0; p < k; ++p) {
                            const int i = table[2 * (s * k + p)], j = table[2 * (s * k + p) + 1];
                            ASSERT_LT(i, j);
                            ASSERT_LT(j, 2 * k);
                            ASSERT_TRUE(used.insert(i).second && used.insert(j).second) << "step not disjoint";
                            // local sub-block -> global: top's are block top[r], bot's bot[r]
                            auto global = [&](int x) { return (x < k ? slots.top[r] : slots.bot[r]) * k + x % k; };
                            const int gi = std::min(global(i), global(j)), gj = std::max(global(i), global(j));
                            ASSERT_TRUE(seen.insert({gi, gj}).second)
                                << "pair twice: procs=" << procs << " k=" << k << " (" << gi << ", " << gj << ")";
                        }
                    }
                }
                slots = core::next_slots(slots);
            }
            const int n = 2 * procs * k;
            EXPECT_EQ(seen.size(), std::size_t(n) * (n - 1) / 2) << "procs=" << procs << " k=" << k;
            EXPECT_EQ(steps, n - 1);
            const core::BlockSlots home = core::initial_slots(procs);
            EXPECT_EQ(slots.top, home.top);
            EXPECT_EQ(slots.bot, home.bot);
        }
    }
    EXPECT_THROW(core::sub_block_pair_table(3), std::invalid_argument);
    EXPECT_THROW(core::sub_block_pair_table(0), std::invalid_argument);
}

// The data movement that carries out next_slots on each process (core::block_moves): every
// send matched by the peer's receive in order, every half of the second buffer written exactly
// once (a half left unwritten would keep another block's columns), and the result next_slots.
TEST(SubBlockOrdering, BlockMovesCarryOutTheCircle) {
    for (int procs = 2; procs <= 8; ++procs) {
        core::BlockSlots slots = core::initial_slots(procs);
        for (int step = 0; step < 2 * procs - 1; ++step) {
            std::vector<std::array<int, 2>> next(procs, {-1, -1});
            // sent[src][dst]: the halves src sends to dst, in order; likewise received.
            std::vector<std::vector<std::vector<int>>> sent(procs, std::vector<std::vector<int>>(procs)),
                received(procs, std::vector<std::vector<int>>(procs));
            for (int r = 0; r < procs; ++r) {
                const core::BlockMoves m = core::block_moves(procs, r);
                for (const auto& [half, peer] : m.send) sent[r][peer].push_back(half);
                for (const auto& [half, peer] : m.recv) received[peer][r].push_back(half);
                for (const auto& [from, to] : m.move) {
                    ASSERT_EQ(next[r][to], -1) << "half written twice";
                    next[r][to] = from == 0 ? slots.top[r] : slots.bot[r];
                }
            }
            for (int src = 0; src < procs; ++src)
                for (int dst = 0; dst < procs; ++dst) {
                    ASSERT_EQ(sent[src][dst].size(), received[src][dst].size()) << src << " -> " << dst;
                    for (std::size_t i = 0; i < sent[src][dst].size(); ++i) {
                        const int to = received[src][dst][i];
                        ASSERT_EQ(next[dst][to], -1) << "half written twice";
                        next[dst][to] = sent[src][dst][i] == 0 ? slots.top[src] : slots.bot[src];
                    }
                }
            const core::BlockSlots want = core::next_slots(slots);
            for (int r = 0; r < procs; ++r) {
                EXPECT_EQ(next[r][0], want.top[r]) << "procs " << procs << " step " << step << " rank " << r;
                EXPECT_EQ(next[r][1], want.bot[r]) << "procs " << procs << " step " << step << " rank " << r;
            }
            slots = want;
        }
    }
    EXPECT_TRUE(core::block_moves(1, 0).send.empty());
}

template <class R> void check_rotation(R a, R b, R c) {
    const core::Rotation<R> r = core::jacobi_rotation(a, b, c);
    const R sn = r.cs * r.t;
    // off-diagonal of J^T [[a c][c b]] J must vanish relative to the diagonal
    const R off = r.cs * sn * (a - b) + (r.cs * r.cs - sn * sn) * c;
    const R u = core::precision<R>::unit_roundoff;
    EXPECT_LE(std::fabs(off), 8 * u * (std::fabs(a) + std::fabs(b) + c)) << a << " " << b << " " << c;
    EXPECT_LE(std::fabs(r.cs * r.cs + sn * sn - 1), 4 * u);
    EXPECT_LE(std::fabs(r.t), R(1));  // the inner rotation: |phi| <= pi/4
    const core::TrackedNorms<R> nn = core::rotate_norms(a, b, c, r.t);
    const R na = r.cs * r.cs * a - 2 * r.cs * sn * c + sn * sn * b;
    EXPECT_LE(std::fabs(nn.a - na), 8 * u * (a + b));
}

TEST(Rotation, DiagonalisesSymmetric2x2) {
    std::mt19937_64 g(42);
    std::uniform_real_distribution<double> ud(0, 1);
    for (int i = 0; i < 2000; ++i) {
        const double a = std::exp(20 * (ud(g) - 0.5)), b = std::exp(20 * (ud(g) - 0.5));
        const double c = ud(g) * std::sqrt(a * b);  // Cauchy-Schwarz: |c| <= sqrt(ab)
        check_rotation<double>(a, b, c);
        check_rotation<float>(float(a), float(b), float(c) * 0.999f);
    }
    check_rotation<double>(1, 1, 0.5);        // cot(2 phi) = 0: phi = pi/4
    check_rotation<double>(1e30, 1, 1e-3);    // huge cot(2 phi): cos = 1, no overflow
    check_rotation<float>(1e18f, 1, 1e-3f);
}

TEST(Rotation, ConvergenceTest) {
    EXPECT_FALSE(core::needs_rotation(1e-17, 1.0, 1.0, core::convergence_tolerance<double>(30)));
    EXPECT_TRUE(core::needs_rotation(1e-12, 1.0, 1.0, core::convergence_tolerance<double>(30)));
    // no overflow of a*b for huge norms
    EXPECT_TRUE(core::needs_rotation(1e300, 1e300, 1e300, 1e-15));
    // k u, not raised for long columns (sqrt(m) u let e2 pass 30u at m = 8192)
    EXPECT_DOUBLE_EQ(core::convergence_tolerance<double>(30), 30 * core::precision<double>::unit_roundoff);
    EXPECT_FLOAT_EQ(core::convergence_tolerance<float>(30), 30 * core::precision<float>::unit_roundoff);
}

/// Columns of rounding noise of rounding noise (rank deficiency leaves them in R) have entries
/// whose squares are subnormal: the tail norm must keep its relative accuracy there, or the
/// reflector I - tau v v^T is not orthogonal (tau (1 + |v_tail|^2) must be 2). With plain sums
/// of squares this is off by about 1e-3 in float at 1e-20 (it was 7% on a GPU run).
template <class R> void check_tiny_tail_reflector(R scale) {
    std::mt19937 g(7);
    std::uniform_real_distribution<R> d(-1, 1);
    const index_t m = 12;
    std::vector<R> w(m);
    for (R& x : w) x = d(g) * scale;
    R tau = 0;
    cpu::householder_qr<R>(m, 1, w.data(), m, &tau);
    ASSERT_NE(tau, R(0));
    long double vv = 1;
    for (index_t i = 1; i < m; ++i) vv += (long double)w[i] * w[i];
    EXPECT_LE(std::fabs(double(tau * vv - 2)), 8 * core::precision<R>::unit_roundoff) << scale;
}
TEST(HouseholderQr, ReflectorsStayOrthogonalOnSubnormalSquares) {
    check_tiny_tail_reflector<float>(1e-20f);
    check_tiny_tail_reflector<float>(1e-3f);
    check_tiny_tail_reflector<double>(1e-160);
    check_tiny_tail_reflector<double>(1.0);
}

}  // namespace
}  // namespace batchsvd::test
