// SPDX-License-Identifier: BSD-3-Clause
// Test matrices of abfasi Table 1 (see generators.hpp).
#include "testing/generators.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <random>

namespace batchsvd::testing {
namespace {

/// complex conjugate that keeps real types real (std::conj would return a complex)
template <class X> X cj(const X& x) {
    if constexpr (std::is_floating_point_v<X>) return x; else return std::conj(x);
}

template <class T> constexpr bool is_cplx_v = !std::is_same_v<T, real_t<T>>;

/// Independent stream per matrix, so a batch is the same whatever the thread count.
std::uint64_t mix(std::uint64_t seed, std::uint64_t b) {
    std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (b + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

using C = std::complex<double>;

/// rows x cols matrix with orthonormal columns (double or complex<double>): Gaussian
/// columns orthonormalised by classical Gram-Schmidt run twice.
template <class S> std::vector<S> random_orthonormal(index_t rows, index_t cols, std::mt19937_64& g) {
    std::normal_distribution<double> nd;
    std::vector<S> q(static_cast<size_t>(rows) * cols);
    for (auto& x : q) {
        if constexpr (std::is_same_v<S, C>) x = C(nd(g), nd(g)); else x = nd(g);
    }
    for (index_t j = 0; j < cols; ++j) {
        S* y = q.data() + j * rows;
        for (int pass = 0; pass < 2; ++pass)
            for (index_t c = 0; c < j; ++c) {
                const S* x = q.data() + c * rows;
                S d{};
                for (index_t i = 0; i < rows; ++i) d += cj(x[i]) * y[i];
                for (index_t i = 0; i < rows; ++i) y[i] -= x[i] * d;
            }
        double nrm = 0;
        for (index_t i = 0; i < rows; ++i) nrm += std::norm(y[i]);
        nrm = std::sqrt(nrm);
        for (index_t i = 0; i < rows; ++i) y[i] /= nrm;
    }
    return q;
}

template <class T>
void generate_one(Family f, index_t m, index_t n, double cond, std::uint64_t seed, T* out) {
    std::mt19937_64 g(seed);
    if (f == Family::random) {
        std::uniform_real_distribution<double> ud(0.0, 1.0);
        for (index_t i = 0; i < m * n; ++i) {
            if constexpr (is_cplx_v<T>) out[i] = T(ud(g), ud(g)); else out[i] = T(ud(g));
        }
        return;
    }
    using S = std::conditional_t<is_cplx_v<T>, C, double>;
    const index_t k = std::min(m, n);
    const std::vector<double> sigma = family_singular_values(f, k, cond, g());
    const std::vector<S> x = random_orthonormal<S>(m, k, g);
    const std::vector<S> y = random_orthonormal<S>(n, k, g);
    for (index_t j = 0; j < n; ++j)
        for (index_t i = 0; i < m; ++i) {
            S acc{};
            for (index_t r = 0; r < k; ++r) acc += x[i + r * m] * sigma[r] * cj(y[j + r * n]);
            if constexpr (is_cplx_v<T>)
                out[i + j * m] = T(static_cast<real_t<T>>(acc.real()), static_cast<real_t<T>>(acc.imag()));
            else
                out[i + j * m] = static_cast<T>(acc);
        }
}

}  // namespace

const char* to_string(Family f) {
    switch (f) {
        case Family::random: return "random";
        case Family::arith: return "arith";
        case Family::cluster0: return "cluster0";
        case Family::cluster1: return "cluster1";
        case Family::logrand: return "logrand";
        case Family::geo: return "geo";
    }
    return "?";
}

std::optional<Family> family_from_string(std::string_view name) {
    for (Family f : all_families)
        if (name == to_string(f)) return f;
    return std::nullopt;
}

template <> double default_condition<float>() { return 1e5; }
template <> double default_condition<double>() { return 1e10; }
template <> double default_condition<std::complex<float>>() { return 1e5; }
template <> double default_condition<std::complex<double>>() { return 1e10; }

std::vector<double> family_singular_values(Family f, index_t k, double cond, std::uint64_t seed) {
    std::vector<double> s(k, 1.0);
    if (f == Family::random || k <= 1) return f == Family::random ? std::vector<double>{} : s;
    const double inv = 1.0 / cond;
    for (index_t i = 0; i < k; ++i) {
        const double x = double(i) / double(k - 1);  // (i-1)/(n-1) with 1-based i
        switch (f) {
            case Family::arith: s[i] = 1.0 - x * (1.0 - inv); break;
            case Family::cluster0: s[i] = i == 0 ? 1.0 : inv; break;
            case Family::cluster1: s[i] = i == k - 1 ? inv : 1.0; break;
            case Family::geo: s[i] = std::pow(cond, -x); break;
            default: break;
        }
    }
    if (f == Family::logrand) {
        std::mt19937_64 g(seed);
        std::uniform_real_distribution<double> ud(std::log(inv), 0.0);
        for (auto& v : s) v = std::exp(ud(g));
        std::sort(s.begin(), s.end(), std::greater<>());
    }
    return s;
}

template <class T>
std::vector<T> generate_batch(Family f, index_t m, index_t n, index_t batch, std::uint64_t seed,
                              double cond) {
    std::vector<T> a(static_cast<size_t>(m * n * batch));
#pragma omp parallel for schedule(dynamic, 16)
    for (index_t b = 0; b < batch; ++b) generate_one<T>(f, m, n, cond, mix(seed, b), a.data() + b * m * n);
    return a;
}

std::uint64_t fresh_seed() {
    // Successive calls in one process give base, base+1, ...: a failing test that prints its
    // seed is replayed with BATCHSVD_TEST_SEED=<that seed> (its first call returns it).
    static std::uint64_t next = [] {
        if (const char* env = std::getenv("BATCHSVD_TEST_SEED")) return std::uint64_t(std::strtoull(env, nullptr, 0));
        std::random_device rd;
        return (std::uint64_t(rd()) << 32) ^ rd();
    }();
    return next++;
}

template <class S> std::vector<S> random_orthonormal(index_t rows, index_t cols, std::uint64_t seed) {
    std::mt19937_64 g(seed);
    return random_orthonormal<S>(rows, cols, g);
}
template std::vector<double> random_orthonormal<double>(index_t, index_t, std::uint64_t);
template std::vector<std::complex<double>> random_orthonormal<std::complex<double>>(index_t, index_t, std::uint64_t);

template std::vector<float> generate_batch<float>(Family, index_t, index_t, index_t, std::uint64_t, double);
template std::vector<double> generate_batch<double>(Family, index_t, index_t, index_t, std::uint64_t, double);
template std::vector<std::complex<float>> generate_batch<std::complex<float>>(Family, index_t, index_t, index_t, std::uint64_t, double);
template std::vector<std::complex<double>> generate_batch<std::complex<double>>(Family, index_t, index_t, index_t, std::uint64_t, double);

}  // namespace batchsvd::testing
