// SPDX-License-Identifier: BSD-3-Clause
// batchsvd::distributed::gesvd under mpiexec (ctest runs it with 1, 2, 3 and 4 processes):
// the circle ordering meets every block pair once a sweep; tall, wide and square matrices of
// the harness's families in four precisions, with fewer columns than blocks too, e1-e4 < 30u
// against LAPACK and S within 30u of the one-process library's (so equal, to rounding, whatever
// the process count); a NaN gives info -1 on every process; sizes that differ between processes
// are invalid_argument on every process. Fresh random inputs each run (the seed is printed).
// Exit status 0 only when every process passed.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "batchsvd/distributed.hpp"
#include "core/block_ordering.hpp"
#include "testing/error_measures.hpp"
#include "testing/generators.hpp"

namespace {

using batchsvd::index_t;
int failures = 0;
int rank = 0, procs = 1;

void fail(const std::string& what) {
    ++failures;
    std::fprintf(stderr, "[rank %d] FAILED: %s\n", rank, what.c_str());
}

/// Every two of the 2P blocks meet exactly once in 2P - 1 steps.
void check_ordering() {
    for (int p = 1; p <= 9; ++p) {
        auto s = batchsvd::core::initial_slots(p);
        std::set<std::pair<int, int>> met;
        for (int step = 0; step < (p > 1 ? 2 * p - 1 : 1); ++step) {
            for (int r = 0; r < p; ++r) met.insert({std::min(s.top[r], s.bot[r]), std::max(s.top[r], s.bot[r])});
            s = batchsvd::core::next_slots(s);
        }
        if (met.size() != std::size_t(p * (2 * p - 1))) fail("ordering: " + std::to_string(p) + " processes");
    }
}

template <class T> void check_case(batchsvd::testing::Family fam, index_t m, index_t n, std::uint64_t seed) {
    using R = batchsvd::real_t<T>;
    const index_t k = std::min(m, n);
    std::vector<T> a;
    if (rank == 0) a = batchsvd::testing::generate_batch<T>(fam, m, n, 1, seed);
    const R nan = std::numeric_limits<R>::quiet_NaN();
    std::vector<R> s(std::size_t(k), nan);
    std::vector<T> u(std::size_t(m * k), T(nan)), v(std::size_t(n * k), T(nan));
    const std::string what = std::string(batchsvd::testing::to_string(fam)) + " " + std::to_string(m) + "x" +
                             std::to_string(n) + " (" + std::to_string(sizeof(T)) + "-byte elements), " +
                             std::to_string(procs) + " processes, seed " + std::to_string(seed);
    int info = 99;
    try {
        info = batchsvd::distributed::gesvd<T>(MPI_COMM_WORLD, 0, m, n, rank == 0 ? a.data() : nullptr, m,
                                               rank == 0 ? s.data() : nullptr, rank == 0 ? u.data() : nullptr, m,
                                               rank == 0 ? v.data() : nullptr, n);
    } catch (const std::exception& e) {
        fail(what + ": threw " + e.what());
        return;
    }
    if (info != 0) fail(what + ": info " + std::to_string(info));
    if (rank != 0) return;
    const auto ref = batchsvd::testing::reference_singular_values<T>(m, n, a.data(), m);
    const auto e = batchsvd::testing::measure<T>(m, n, a.data(), m, s.data(), u.data(), m, v.data(), n, ref.data());
    if (!e.within(30))
        fail(what + ": e1-e4 " + std::to_string(e.e1) + " " + std::to_string(e.e2) + " " + std::to_string(e.e3) + " " +
             std::to_string(e.e4));
    std::vector<R> s1(static_cast<std::size_t>(k));
    std::vector<T> u1(std::size_t(m * k)), v1(std::size_t(n * k));
    int info1 = 0;
    batchsvd::Options cpu;
    cpu.backend = batchsvd::Backend::cpu;
    batchsvd::gesvd<T>(m, n, 1, a.data(), s1.data(), u1.data(), v1.data(), &info1, cpu);
    // (to rounding, in e4's measure: ||S - S1||_F / (k max(1, s_1)) < 30u)
    double d2 = 0;
    for (index_t i = 0; i < k; ++i) d2 += (double(s[i]) - double(s1[i])) * (double(s[i]) - double(s1[i]));
    const double d = std::sqrt(d2) / (double(k) * std::max(1.0, double(s1[0]))) / batchsvd::testing::unit_roundoff<T>();
    if (!(d < 30)) fail(what + ": S differs from one process's by " + std::to_string(d) + "u");
}

void check_nan_and_mismatch() {
    std::vector<double> a(12, 1.0), s(3), u(12), v(9);
    if (rank == 0) a[5] = std::numeric_limits<double>::quiet_NaN();
    const int info = batchsvd::distributed::gesvd<double>(MPI_COMM_WORLD, 0, 4, 3, a.data(), 4, s.data(), u.data(), 4,
                                                          v.data(), 3);
    if (info != batchsvd::info_nonfinite) fail("NaN: info " + std::to_string(info));
    if (rank == 0 && !std::isnan(s[0])) fail("NaN: S not NaN");
    if (procs < 2) return;
    try {  // process 1 asks for another size
        batchsvd::distributed::gesvd<double>(MPI_COMM_WORLD, 0, 4, rank == 1 ? 2 : 3, a.data(), 4, s.data(), u.data(),
                                             4, v.data(), 3);
        fail("mismatched sizes were accepted");
    } catch (const batchsvd::Error& e) {
        if (e.code() != batchsvd::ErrorCode::invalid_argument) fail(std::string("mismatch: ") + e.what());
    }
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    std::uint64_t seed = batchsvd::testing::fresh_seed();  // (rank 0's, sent to every process)
    MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (rank == 0) std::printf("distributed_test: %d processes, seed %llu\n", procs, (unsigned long long)seed);
    check_ordering();
    using F = batchsvd::testing::Family;
    const std::pair<index_t, index_t> shapes[] = {{40, 30}, {30, 40}, {48, 48}, {7, 5}, {3, 9}, {1, 1}};
    int c = 0;
    for (const auto& [m, n] : shapes)
        for (F fam : {F::random, F::geo, F::cluster0}) {
            const std::uint64_t sd = seed + std::uint64_t(c++);
            check_case<float>(fam, m, n, sd);
            check_case<double>(fam, m, n, sd);
            check_case<std::complex<float>>(fam, m, n, sd);
            check_case<std::complex<double>>(fam, m, n, sd);
        }
    check_nan_and_mismatch();
    int total = failures;
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) std::printf("distributed_test: %s (%d failures)\n", total ? "FAILED" : "passed", total);
    MPI_Finalize();
    return total ? 1 : 0;
}
