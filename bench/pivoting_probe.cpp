// SPDX-License-Identifier: BSD-3-Clause
// Does the J-factorisation's pivoting matter for eigh_indefinite's relative accuracy?
// On graded indefinite matrices A = D B D (B = Q diag(+-(1..2)) Q^T, D = diag(10^(-g x)), x
// spread over [0, 1] in a random order), the eigenvalues from
//   complete: batchsvd::eigh_indefinite (Bunch-Parlett complete pivoting, then the HSVD),
//   partial:  LAPACK's dsytrf (Bunch-Kaufman partial pivoting; dsyconv for L and D), G = P L W
//             formed here, then batchsvd::hsvd on G,
//   syevd:    LAPACK's dsyevd,
// are compared with a binary128 Jacobi reference (testing/quad_eigen.hpp): the worst and the
// median relative error over every eigenvalue of `count` matrices. Also prints the worst
// ||A - G J G^T|| / ||A|| of the partial factorisation (the check that G was formed right).
//   batchsvd_pivoting_probe [--n 16] [--count 50] [--grading 10]   (grading g: entries down to 10^-g)
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "batchsvd/batchsvd.hpp"
#include "testing/generators.hpp"
#include "testing/lapack.hpp"
#include "testing/quad_eigen.hpp"

extern "C" {
void dsytrf_(const char*, const int*, double*, const int*, int*, double*, const int*, int*, std::size_t);
void dsyconv_(const char*, const char*, const int*, double*, const int*, const int*, double*, int*, std::size_t,
              std::size_t);
}

using namespace batchsvd;

namespace {

std::vector<double> graded(int n, double g, std::mt19937_64& rng) {
    const std::vector<double> q = testing::random_orthonormal<double>(n, n, rng());
    std::uniform_real_distribution<double> unit(1, 2);
    std::vector<double> lam(n), d(n), a(std::size_t(n) * n);
    for (int i = 0; i < n; ++i) lam[i] = (i % 2 ? -1 : 1) * unit(rng);
    for (int i = 0; i < n; ++i) d[i] = std::pow(10.0, -g * i / double(std::max(n - 1, 1)));
    std::shuffle(d.begin(), d.end(), rng);
    for (int c = 0; c < n; ++c)
        for (int i = c; i < n; ++i) {
            double x = 0;
            for (int k = 0; k < n; ++k) x += q[i + k * n] * lam[k] * q[c + k * n];
            a[i + c * n] = a[c + i * n] = x * d[i] * d[c];
        }
    return a;
}

/// G and J from dsytrf (lower) and dsyconv: A = P L D L^T P^T, D's 2 x 2 blocks split by their
/// eigendecomposition. Returns false if LAPACK reports an error.
bool partial_factor(int n, const std::vector<double>& a, std::vector<double>& G, std::vector<int>& J) {
    std::vector<double> f = a, e(n);
    std::vector<int> ipiv(n);
    int info = 0, lwork = -1;
    double q = 0;
    dsytrf_("L", &n, f.data(), &n, ipiv.data(), &q, &lwork, &info, 1);
    lwork = std::max(1, int(q));
    std::vector<double> work(lwork);
    dsytrf_("L", &n, f.data(), &n, ipiv.data(), work.data(), &lwork, &info, 1);
    if (info < 0) return false;
    dsyconv_("L", "C", &n, f.data(), &n, ipiv.data(), e.data(), &info, 1, 1);
    if (info != 0) return false;
    // The permutation: dsytrf's interchanges, applied in order (lower: from the first pivot on).
    std::vector<int> perm(n);
    for (int i = 0; i < n; ++i) perm[i] = i;
    for (int k = 0; k < n;) {
        if (ipiv[k] > 0) {
            std::swap(perm[k], perm[ipiv[k] - 1]);
            k += 1;
        } else {
            std::swap(perm[k + 1], perm[-ipiv[k] - 1]);
            k += 2;
        }
    }
    // L (unit lower) from f, D from f's diagonal and e (e[k] = D(k+1, k) for a 2 x 2 block at k).
    G.assign(std::size_t(n) * n, 0.0);
    J.assign(n, 0);
    std::vector<double> W(std::size_t(n) * n, 0.0);  // block-diagonal W with D = W J W^T
    for (int k = 0; k < n;) {
        if (ipiv[k] > 0) {
            const double d = f[k + k * n];
            W[k + k * n] = std::sqrt(std::fabs(d));
            J[k] = d > 0 ? 1 : -1;
            k += 1;
        } else {
            const double a11 = f[k + k * n], a22 = f[(k + 1) + (k + 1) * n], b = e[k];
            // Symmetric 2 x 2 [[a11, b], [b, a22]]: rotation angle by Rutishauser's formulas.
            const double theta = (a22 - a11) / (2 * b);
            const double t = (theta >= 0 ? 1 : -1) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
            const double c = 1 / std::sqrt(t * t + 1), s = t * c;
            const double l1 = a11 - t * b, l2 = a22 + t * b;
            // Q = [[c, s], [-s, c]] (columns: eigenvectors of l1, l2)
            const double r1 = std::sqrt(std::fabs(l1)), r2 = std::sqrt(std::fabs(l2));
            W[k + k * n] = c * r1;
            W[(k + 1) + k * n] = -s * r1;
            W[k + (k + 1) * n] = s * r2;
            W[(k + 1) + (k + 1) * n] = c * r2;
            J[k] = l1 > 0 ? 1 : -1;
            J[k + 1] = l2 > 0 ? 1 : -1;
            k += 2;
        }
    }
    // G = P L W: row perm[i] of G is row i of L W.
    for (int c = 0; c < n; ++c)
        for (int i = 0; i < n; ++i) {
            double x = 0;
            for (int k = 0; k <= i; ++k) {
                const double l = k == i ? 1.0 : f[i + k * n];
                x += l * W[k + c * n];
            }
            G[perm[i] + c * n] = x;
        }
    return true;
}

struct Stats {
    std::vector<double> rel;
    void add(double x) { rel.push_back(x); }
    double worst() const { return rel.empty() ? 0 : *std::max_element(rel.begin(), rel.end()); }
    double median() {
        if (rel.empty()) return 0;
        std::nth_element(rel.begin(), rel.begin() + rel.size() / 2, rel.end());
        return rel[rel.size() / 2];
    }
};

}  // namespace

int main(int argc, char** argv) {
    int n = 16, count = 50;
    double grading = 10;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i];
        if (k == "--n") n = std::stoi(argv[i + 1]);
        else if (k == "--count") count = std::stoi(argv[i + 1]);
        else if (k == "--grading") grading = std::stod(argv[i + 1]);
        else {
            std::fprintf(stderr, "usage: batchsvd_pivoting_probe [--n N] [--count C] [--grading G]\n");
            return 2;
        }
    }
    std::mt19937_64 rng(testing::fresh_seed());
    Stats complete, partial, syevd;
    double worst_factor = 0;
    int failures = 0;
    for (int t = 0; t < count; ++t) {
        const std::vector<double> a = graded(n, grading, rng);
        const std::vector<long double> ref = testing::reference_eigenvalues_quad<double>(n, a.data(), n);
        // complete pivoting
        std::vector<double> w(n);
        int info = 0;
        Options o;
        o.compute_u = o.compute_v = false;
        o.backend = Backend::cpu;
        eigh_indefinite<double>(n, 1, MatrixBatch<const double>{a.data(), n, n * n}, w.data(), n,
                                MatrixBatch<double>{nullptr, n, n * n}, &info, o);
        for (int i = 0; i < n; ++i) complete.add(double(std::fabs((long double)w[i] - ref[i]) / std::fabs(ref[i])));
        // partial pivoting: LAPACK's factorisation, our HSVD
        std::vector<double> G;
        std::vector<int> J;
        if (!partial_factor(n, a, G, J)) {
            ++failures;
            continue;
        }
        double an = 0, rn = 0;
        for (int c = 0; c < n; ++c)
            for (int i = 0; i < n; ++i) {
                double x = 0;
                for (int k = 0; k < n; ++k) x += G[i + k * n] * J[k] * G[c + k * n];
                rn = std::max(rn, std::fabs(x - a[i + c * n]));
                an = std::max(an, std::fabs(a[i + c * n]));
            }
        worst_factor = std::max(worst_factor, rn / an);
        std::vector<double> s(n);
        std::vector<int> jout(n);
        hsvd<double>(n, n, 1, MatrixBatch<const double>{G.data(), n, n * n}, SignatureBatch{J.data(), 0}, s.data(), n,
                     jout.data(), n, MatrixBatch<double>{nullptr, n, n * n}, MatrixBatch<double>{nullptr, n, n * n},
                     &info, o);
        if (info != 0) {
            ++failures;
            continue;
        }
        std::vector<double> lam(n);
        for (int i = 0; i < n; ++i) lam[i] = jout[i] * s[i] * s[i];
        std::sort(lam.begin(), lam.end());
        for (int i = 0; i < n; ++i) partial.add(double(std::fabs((long double)lam[i] - ref[i]) / std::fabs(ref[i])));
        // dsyevd
        std::vector<double> copy = a, ws(n);
        testing::lapack::syevd_values<double>(n, copy.data(), n, ws.data());
        for (int i = 0; i < n; ++i) syevd.add(double(std::fabs((long double)ws[i] - ref[i]) / std::fabs(ref[i])));
    }
    std::printf("n=%d count=%d grading=1e-%g failures=%d partial_factor_residual=%.2e\n", n, count, grading, failures,
                worst_factor);
    std::printf("method,worst_relative_error,median_relative_error\n");
    std::printf("complete_bunch_parlett,%.3e,%.3e\n", complete.worst(), complete.median());
    std::printf("partial_bunch_kaufman,%.3e,%.3e\n", partial.worst(), partial.median());
    std::printf("dsyevd,%.3e,%.3e\n", syevd.worst(), syevd.median());
    return 0;
}
