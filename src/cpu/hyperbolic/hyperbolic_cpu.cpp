// SPDX-License-Identifier: BSD-3-Clause
// The CPU backend's hsvd and eigh_indefinite: OpenMP over the batch, one matrix a thread
// (dynamic schedule), each matrix's result independent of the thread count and of the batch.
// A signature of one sign is an SVD and goes to the CPU backend's gesvd.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include <omp.h>

#include "cpu/batch_errors.hpp"
#include "cpu/hyperbolic/bunch_parlett.hpp"
#include "cpu/hyperbolic/hsvd_one_matrix.hpp"
#include "cpu/hyperbolic/hyperbolic_cpu.hpp"


namespace batchsvd::cpu {

namespace {

using namespace isa_baseline::hyperbolic;

int threads_for(const Options& opts, index_t batch) {
    const int t = opts.threads > 0 ? opts.threads : omp_get_max_threads();
    return static_cast<int>(std::max<index_t>(1, std::min<index_t>(t, batch)));
}

/// Runs one(b, ws, team) for every matrix: a thread each, or, when the matrices are too few
/// for the threads and large enough (n >= 64, as the SVD's rule), one after another with every
/// thread sharing each one's round-robin steps (team). Each matrix's result is the same either way.
template <class Workspace, class One>
void over_batch(index_t batch, index_t n, const Options& opts, One&& one) {
    const int all = opts.threads > 0 ? opts.threads : omp_get_max_threads();
    BatchErrors errors;
    if (n >= 64 && batch < all && all > 1) {
        Workspace ws;
        for (index_t b = 0; b < batch; ++b) errors.run([&] { one(b, ws, all); });
    } else {
#pragma omp parallel num_threads(threads_for(opts, batch))
        {
            Workspace ws;
#pragma omp for schedule(dynamic, 1)
            for (index_t b = 0; b < batch; ++b) errors.run([&] { one(b, ws, 1); });
        }
    }
    errors.rethrow();
}

/// The SVD of one matrix by the CPU backend's gesvd on `team` threads (1 inside the caller's
/// loop over the batch), through the public entry (the backend's own is an inline namespace
/// of this one).
template <class T>
HsvdStatus svd_of(index_t m, index_t n, const T* g, index_t ldg, real_t<T>* s, T* u, index_t ldu, T* v, index_t ldv,
                  bool want_u, bool want_v, const Options& opts, int team = 1) {
    Options o;
    o.compute_u = want_u;
    o.compute_v = want_v;
    o.tol_factor = opts.tol_factor;
    o.max_sweeps = opts.max_sweeps;
    o.threads = team;
    o.backend = Backend::cpu;
    o.method = SvdMethod::jacobi;  // values alone keep the Jacobi iteration's relative accuracy
    int info = 0, sweeps = 0;
    o.sweeps = &sweeps;
    batchsvd::gesvd<T>(m, n, 1, MatrixBatch<const T>{g, ldg, 0}, s, n, MatrixBatch<T>{u, ldu, 0}, MatrixBatch<T>{v, ldv, 0},
             &info, o);
    return {info, sweeps};
}

template <class T> struct EighWorkspace {
    HsvdWorkspace<T> h;
    std::vector<T> s, g, u, z, tau;
    std::vector<real_t<T>> sigma, lambda;
    std::vector<int> j, jout;
    std::vector<index_t> perm;
};

/// Eigenvalues (ascending) and, when z is set, eigenvectors of one Hermitian matrix (lower
/// triangle of a).
template <class T>
HsvdStatus eigh_one(index_t n, const T* a, index_t lda, real_t<T>* w, T* z, index_t ldz, const Options& opts,
                    EighWorkspace<T>& ws, int team) {
    using R = real_t<T>;
    const bool want_z = z != nullptr;
    ws.s.resize(std::size_t(n) * n);
    T* S = ws.s.data();
    R maxabs = 0;
    bool finite = true;
    for (index_t c = 0; c < n; ++c) {
        const R d = std::real(a[c + c * lda]);
        finite = finite && std::isfinite(d);
        maxabs = std::max(maxabs, std::fabs(d));
        S[c + c * n] = T(d);
        for (index_t i = c + 1; i < n; ++i) {
            const T x = a[i + c * lda];
            finite = finite && std::isfinite(std::real(x)) && std::isfinite(std::imag(x));
            maxabs = std::max({maxabs, std::fabs(std::real(x)), std::fabs(std::imag(x))});
            S[i + c * n] = x;
            S[c + i * n] = core::conj_of(x);
        }
    }
    if (!finite) {
        for (index_t i = 0; i < n; ++i) w[i] = std::numeric_limits<R>::quiet_NaN();
        if (want_z) fill_nan(n, n, z, ldz);
        return {info_nonfinite, 0};
    }
    const int e = hsvd_scale_exponent(maxabs);
    if (e != 0)
        for (T& x : ws.s) {
            if constexpr (is_cplx<T>::value) x = T(std::ldexp(x.real(), e), std::ldexp(x.imag(), e));
            else x = std::ldexp(x, e);
        }
    ws.g.resize(std::size_t(n) * n);
    ws.j.resize(n);
    const index_t r = maxabs == 0 ? 0 : bunch_parlett(n, S, ws.g.data(), ws.j.data());
    // The HSVD of G (n x r): lambda = j' sigma^2, eigenvectors U.
    ws.sigma.assign(n, R(0));
    ws.jout.assign(n, 1);
    ws.u.assign(std::size_t(n) * n, T(0));
    HsvdStatus st;
    if (r > 0) {
        const bool one_sign = std::all_of(ws.j.begin(), ws.j.begin() + r, [&](int x) { return x == ws.j[0]; });
        if (one_sign) {
            st = svd_of<T>(n, r, ws.g.data(), n, ws.sigma.data(), ws.u.data(), n, nullptr, n, want_z, false, opts,
                           team);
            std::fill(ws.jout.begin(), ws.jout.begin() + r, ws.j[0]);
        } else {
            Options o = opts;
            o.compute_u = want_z;
            o.compute_v = false;
            st = hsvd_mixed<T>(n, r, ws.g.data(), n, ws.j.data(), ws.sigma.data(), ws.jout.data(), ws.u.data(), n,
                               nullptr, n, o, ws.h, team);
        }
        if (st.info < 0) {
            for (index_t i = 0; i < n; ++i) w[i] = std::numeric_limits<R>::quiet_NaN();
            if (want_z) fill_nan(n, n, z, ldz);
            return st;
        }
    }
    ws.lambda.resize(n);
    for (index_t i = 0; i < n; ++i)
        ws.lambda[i] = i < r ? std::ldexp(R(ws.jout[i]) * ws.sigma[i] * ws.sigma[i], -e) : R(0);
    if (want_z && r < n) {
        // A singular A: its null space completes U's columns to an orthonormal basis, the
        // last n - r columns of Q in U = Q R (Householder QR of U's first r columns).
        ws.z.assign(ws.u.begin(), ws.u.end());
        ws.tau.resize(std::max<index_t>(r, 1));
        if (r > 0) householder_qr(n, r, ws.z.data(), n, ws.tau.data());
        T* extra = ws.u.data() + r * n;
        std::fill(extra, extra + (n - r) * n, T(0));
        for (index_t c = 0; c < n - r; ++c) extra[r + c + c * n] = T(1);
        if (r > 0) apply_q(n, r, ws.z.data(), n, ws.tau.data(), n - r, extra, n);
    }
    ws.perm.resize(n);
    std::iota(ws.perm.begin(), ws.perm.end(), index_t(0));
    std::stable_sort(ws.perm.begin(), ws.perm.end(), [&](index_t x, index_t y) { return ws.lambda[x] < ws.lambda[y]; });
    for (index_t i = 0; i < n; ++i) w[i] = ws.lambda[ws.perm[i]];
    if (want_z)
        for (index_t i = 0; i < n; ++i) std::copy_n(ws.u.data() + ws.perm[i] * n, n, z + i * ldz);
    return st;
}

}  // namespace

template <class T>
void hsvd(index_t m, index_t n, index_t batch, MatrixBatch<const T> g, SignatureBatch j, real_t<T>* s,
          index_t s_stride, int* j_out, index_t j_out_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
          const Options& opts) {
    over_batch<HsvdWorkspace<T>>(batch, n, opts, [&](index_t b, HsvdWorkspace<T>& ws, int team) {
        const T* gb = g.data + b * g.stride;
        const int* jb = j.data + b * j.stride;
        real_t<T>* sb = s + b * s_stride;
        int* job = j_out ? j_out + b * j_out_stride : nullptr;
        T* ub = opts.compute_u ? u.data + b * u.stride : nullptr;
        T* vb = opts.compute_v ? v.data + b * v.stride : nullptr;
        HsvdStatus st;
        const bool one_sign = std::all_of(jb, jb + n, [&](int x) { return x == jb[0]; });
        if (n == 0) {
            st = {0, 0};
        } else if (one_sign) {
            st = svd_of<T>(m, n, gb, g.ld, sb, ub, u.ld, vb, v.ld, opts.compute_u, opts.compute_v, opts, team);
            if (job) std::fill(job, job + n, jb[0]);
        } else {
            st = hsvd_mixed<T>(m, n, gb, g.ld, jb, sb, job, ub, u.ld, vb, v.ld, opts, ws, team);
        }
        info[b] = st.info;
        if (opts.sweeps) opts.sweeps[b] = st.sweeps;
    });
}

template <class T>
void eigh_indefinite(index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* w, index_t w_stride,
                     MatrixBatch<T> z, int* info, const Options& opts) {
    over_batch<EighWorkspace<T>>(batch, n, opts, [&](index_t b, EighWorkspace<T>& ws, int team) {
        HsvdStatus st;
        if (n > 0)
            st = eigh_one<T>(n, a.data + b * a.stride, a.ld, w + b * w_stride,
                             opts.compute_u ? z.data + b * z.stride : nullptr, z.ld, opts, ws, team);
        info[b] = st.info;
        if (opts.sweeps) opts.sweeps[b] = st.sweeps;
    });
}

#define BATCHSVD_INSTANTIATE_(T)                                                                                      \
    template void hsvd<T>(index_t, index_t, index_t, MatrixBatch<const T>, SignatureBatch, real_t<T>*, index_t, int*, \
                          index_t, MatrixBatch<T>, MatrixBatch<T>, int*, const Options&);                             \
    template void eigh_indefinite<T>(index_t, index_t, MatrixBatch<const T>, real_t<T>*, index_t, MatrixBatch<T>,     \
                                     int*, const Options&);
BATCHSVD_INSTANTIATE_(float)
BATCHSVD_INSTANTIATE_(double)
BATCHSVD_INSTANTIATE_(std::complex<float>)
BATCHSVD_INSTANTIATE_(std::complex<double>)
#undef BATCHSVD_INSTANTIATE_

}  // namespace batchsvd::cpu
