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

#include "cpu/batch_loops.hpp"
#include "cpu/hyperbolic/bunch_parlett.hpp"
#include "cpu/hyperbolic/hsvd_one_matrix.hpp"
#include "cpu/hyperbolic/hyperbolic_cpu.hpp"
#include "cpu/isa.hpp"
#include "cpu/lanes/jacobi_lanes.hpp"


namespace batchsvd::cpu {

namespace {

using namespace isa_baseline::hyperbolic;


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

/// group(b0, count, ws, x, vv) for every group of lane_count consecutive matrices (the last
/// one shorter), the groups a thread each, x and vv the lanes' interleaved storage.
template <class T, class Workspace, class Group> void over_lane_groups(index_t batch, const Options& opts, Group&& group) {
    constexpr index_t L = lane_count<real_t<T>>;
    const index_t groups = (batch + L - 1) / L;
    BatchErrors errors;
#pragma omp parallel num_threads(threads_for(opts, groups))
    {
        Workspace ws;
        std::vector<T> x, vv;
#pragma omp for schedule(dynamic, 1)
        for (index_t q = 0; q < groups; ++q)
            errors.run([&] { group(q * L, int(std::min(L, batch - q * L)), ws, x, vv); });
    }
    errors.rethrow();
}

/// hsvd on small real matrices, lane_count at a time, one a SIMD lane (cpu/lanes/): orders
/// from 2 to 64; matrices of more than 64 rows are reduced to R by Householder QR first (as
/// hsvd_mixed does for m >= 2n), a lane each. Against the per-matrix iteration on the 2-core
/// development machine (alternating J, 2026-11-27): float64 1.7-3.4x at 4^2-64^2, float32
/// 1.9-5.1x at 4^2-48^2 and 1.03x at 64^2 (docs/hyperbolic.md).
inline constexpr index_t hsvd_lanes_max_cols = 64;
inline constexpr index_t hsvd_lanes_max_rows = 64;

template <class T> bool hsvd_lanes_suit(index_t m, index_t n) {
    if constexpr (is_cplx<T>::value) {
        return false;
    } else {
        (void)m;
        return lanes_enabled() && n >= 2 && n <= hsvd_lanes_max_cols;
    }
}

/// One group: the matrices b0 .. b0 + count - 1 (count <= lane_count). A matrix of one sign,
/// with NaN/Inf, or all zero takes the per-matrix code; the others are checked, reordered (+1
/// columns first) and scaled as hsvd_mixed does, packed a lane each, iterated together and
/// finished as hsvd_mixed finishes. A matrix's result does not depend on its group.
template <class T, class One>
void hsvd_lane_group(index_t m, index_t n, index_t b0, int count, MatrixBatch<const T> g, SignatureBatch j,
                     real_t<T>* s, index_t s_stride, int* j_out, index_t j_out_stride, MatrixBatch<T> u,
                     MatrixBatch<T> v, int* info, const Options& opts, std::vector<T>& x, std::vector<T>& vv,
                     One&& alone) {
    if constexpr (!is_cplx<T>::value) {
        using R = T;
        constexpr int L = lane_count<R>;
        const bool qr = m > hsvd_lanes_max_rows;  // the lanes iterate on R (n x n)
        const index_t rows = qr ? n : m;
        x.assign(std::size_t(rows * n * L), R(0));
        std::vector<R> wq(qr ? std::size_t(m * n * L) : 0), tau(qr ? std::size_t(n * L) : 0), left;
        if (opts.compute_v) {
            vv.assign(std::size_t(n * n * L), R(0));
            for (index_t c = 0; c < n; ++c)
                for (int l = 0; l < L; ++l) vv[std::size_t((c * n + c) * L + l)] = R(1);
        }
        R negligible[L] = {};
        int npos[L] = {}, sweeps[L] = {}, status[L] = {}, scale[L] = {};
        bool converged[L] = {}, packed[L] = {};
        std::vector<index_t> order(std::size_t(n) * L);
        for (int l = 0; l < count; ++l) {
            const index_t b = b0 + l;
            const R* gb = g.data + b * g.stride;
            const int* jb = j.data + b * j.stride;
            bool one_sign = true, finite = true;
            R maxabs = 0;
            for (index_t c = 0; c < n; ++c) one_sign = one_sign && jb[c] == jb[0];
            for (index_t c = 0; c < n; ++c)
                for (index_t i = 0; i < m; ++i) {
                    finite = finite && std::isfinite(gb[i + c * g.ld]);
                    maxabs = std::max(maxabs, std::fabs(gb[i + c * g.ld]));
                }
            if (one_sign || !finite || maxabs == 0) {
                alone(b);
                continue;
            }
            index_t* ord = order.data() + l * n;
            npos[l] = int(signature_order(n, jb, ord));
            const int e = scale_exponent(maxabs);
            if (qr) {
                R* W = wq.data() + l * m * n;
                for (index_t q = 0; q < n; ++q)
                    for (index_t i = 0; i < m; ++i) {
                        const R y = gb[i + ord[q] * g.ld];
                        W[i + q * m] = e ? std::ldexp(y, e) : y;
                    }
                householder_qr(m, n, W, m, tau.data() + l * n);
                for (index_t q = 0; q < n; ++q)
                    for (index_t i = 0; i <= q; ++i) x[std::size_t((q * rows + i) * L + l)] = W[i + q * m];
            } else {
                for (index_t q = 0; q < n; ++q)
                    for (index_t i = 0; i < m; ++i) {
                        const R y = gb[i + ord[q] * g.ld];
                        x[std::size_t((q * rows + i) * L + l)] = e ? std::ldexp(y, e) : y;
                    }
            }
            negligible[l] = core::negligible_norm(std::ldexp(maxabs, e));
            scale[l] = e;
            packed[l] = true;
        }
        LaneGroup<R> grp;
        grp.rows = int(rows);
        grp.cols = int(n);
        grp.x = x.data();
        grp.v = opts.compute_v ? vv.data() : nullptr;
        grp.tol = core::convergence_tolerance<R>(opts.tol_factor);
        grp.negligible = negligible;
        grp.max_sweeps = opts.max_sweeps;
        grp.sweeps = sweeps;
        grp.converged = converged;
        grp.npos = npos;
        grp.status = status;
        jacobi_lanes(grp, chosen_isa());
        std::vector<R> sigma(n);
        std::vector<index_t> perm(n);
        for (int l = 0; l < count; ++l) {
            if (!packed[l]) continue;
            const index_t b = b0 + l;
            R* sb = s + b * s_stride;
            R* ub = opts.compute_u ? u.data + b * u.stride : nullptr;
            R* vb = opts.compute_v ? v.data + b * v.stride : nullptr;
            int* jo = j_out ? j_out + b * j_out_stride : nullptr;
            if (jo)
                for (index_t c = 0; c < n; ++c) jo[c] = c < npos[l] ? 1 : -1;
            if (opts.sweeps) opts.sweeps[b] = sweeps[l];
            if (status[l] != 0) {
                for (index_t c = 0; c < n; ++c) sb[c] = std::numeric_limits<R>::quiet_NaN();
                if (ub) fill_nan(m, n, ub, u.ld);
                if (vb) fill_nan(n, n, vb, v.ld);
                info[b] = status[l];
                continue;
            }
            // S from the norms, sorted within each sign (stable), U the normalised columns.
            for (index_t c = 0; c < n; ++c) {
                R acc = 0;
                for (index_t i = 0; i < rows; ++i) {
                    const R y = x[std::size_t((c * rows + i) * L + l)];
                    acc += y * y;
                }
                sigma[c] = std::sqrt(acc);
            }
            sign_sorted_order(npos[l], sigma, perm);
            for (index_t r = 0; r < n; ++r) sb[r] = std::ldexp(sigma[perm[r]], -scale[l]);
            if (ub && !qr)
                for (index_t r = 0; r < n; ++r) {
                    const R f = R(1) / sigma[perm[r]];
                    for (index_t i = 0; i < m; ++i) ub[i + r * u.ld] = x[std::size_t((perm[r] * rows + i) * L + l)] * f;
                }
            if (ub && qr) {  // U = Q [U_R; 0]
                left.assign(std::size_t(m * n), R(0));
                for (index_t r = 0; r < n; ++r) {
                    const R f = R(1) / sigma[perm[r]];
                    for (index_t i = 0; i < n; ++i) left[i + r * m] = x[std::size_t((perm[r] * rows + i) * L + l)] * f;
                }
                apply_q(m, n, wq.data() + l * m * n, m, tau.data() + l * n, n, left.data(), m);
                for (index_t r = 0; r < n; ++r) std::copy_n(left.data() + r * m, m, ub + r * u.ld);
            }
            if (vb) {
                const index_t* ord = order.data() + l * n;
                for (index_t r = 0; r < n; ++r)
                    for (index_t q = 0; q < n; ++q) vb[ord[q] + r * v.ld] = vv[std::size_t((perm[r] * n + q) * L + l)];
            }
            info[b] = converged[l] ? 0 : sweeps[l];
        }
    }
}

/// The eigenvalues lambda (n) in ascending order to w (stable), and when z is set their
/// eigenvectors, the columns of U (n x n, ld n), to z.
template <class T>
void write_ascending(index_t n, const real_t<T>* lambda, const T* U, real_t<T>* w, T* z, index_t ldz,
                     std::vector<index_t>& perm) {
    perm.resize(n);
    std::iota(perm.begin(), perm.end(), index_t(0));
    std::stable_sort(perm.begin(), perm.end(), [&](index_t x, index_t y) { return lambda[x] < lambda[y]; });
    for (index_t i = 0; i < n; ++i) w[i] = lambda[perm[i]];
    if (z)
        for (index_t i = 0; i < n; ++i) std::copy_n(U + perm[i] * n, n, z + i * ldz);
}

template <class T> struct EighWorkspace {
    HsvdWorkspace<T> h;
    std::vector<T> s, g, u, z, tau;
    std::vector<real_t<T>> sigma, lambda;
    std::vector<int> j, jout;
    std::vector<index_t> perm;
};

/// S (n x n, both triangles) <- the Hermitian matrix whose lower triangle is a's (the diagonal's
/// imaginary part dropped), scaled by 2^e (e = scale_exponent of its largest magnitude,
/// maxabs). False, S unfinished, when an entry read is NaN or Inf.
template <class T>
bool load_hermitian(index_t n, const T* a, index_t lda, std::vector<T>& S, real_t<T>& maxabs, int& e) {
    using R = real_t<T>;
    S.resize(std::size_t(n) * n);
    maxabs = 0;
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
    if (!finite) return false;
    e = scale_exponent(maxabs);
    if (e != 0)
        for (T& x : S) {
            if constexpr (is_cplx<T>::value) x = T(std::ldexp(x.real(), e), std::ldexp(x.imag(), e));
            else x = std::ldexp(x, e);
        }
    return true;
}

/// Eigenvalues (ascending) and, when z is set, eigenvectors of one Hermitian matrix (lower
/// triangle of a).
template <class T>
HsvdStatus eigh_one(index_t n, const T* a, index_t lda, real_t<T>* w, T* z, index_t ldz, const Options& opts,
                    EighWorkspace<T>& ws, int team) {
    using R = real_t<T>;
    const bool want_z = z != nullptr;
    R maxabs = 0;
    int e = 0;
    if (!load_hermitian(n, a, lda, ws.s, maxabs, e)) {
        for (index_t i = 0; i < n; ++i) w[i] = std::numeric_limits<R>::quiet_NaN();
        if (want_z) fill_nan(n, n, z, ldz);
        return {info_nonfinite, 0};
    }
    T* S = ws.s.data();
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
    write_ascending(n, ws.lambda.data(), ws.u.data(), w, z, ldz, ws.perm);
    return st;
}

}  // namespace

template <class T>
void hsvd(index_t m, index_t n, index_t batch, MatrixBatch<const T> g, SignatureBatch j, real_t<T>* s,
          index_t s_stride, int* j_out, index_t j_out_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
          const Options& opts) {
    auto one = [&](index_t b, HsvdWorkspace<T>& ws, int team) {
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
    };
    if (hsvd_lanes_suit<T>(m, n)) {
        over_lane_groups<T, HsvdWorkspace<T>>(batch, opts, [&](index_t b0, int count, HsvdWorkspace<T>& ws,
                                                               std::vector<T>& x, std::vector<T>& vv) {
            hsvd_lane_group<T>(m, n, b0, count, g, j, s, s_stride, j_out, j_out_stride, u, v, info, opts, x, vv,
                               [&](index_t b) { one(b, ws, 1); });
        });
        return;
    }
    over_batch<HsvdWorkspace<T>>(batch, n, opts, one);
}

/// eigh_indefinite on small real matrices, lane_count at a time: each matrix factored (as
/// eigh_one does), those of full rank with both signs in G solved together by
/// hsvd_lane_group, the others (definite, singular, NaN/Inf) by eigh_one.
template <class T, class Alone>
void eigh_lane_group(index_t n, index_t b0, int count, MatrixBatch<const T> a, real_t<T>* w, index_t w_stride,
                     MatrixBatch<T> z, int* info, const Options& opts, EighWorkspace<T>& ws, std::vector<T>& x,
                     std::vector<T>& vv, Alone&& alone) {
    if constexpr (!is_cplx<T>::value) {
        using R = T;
        constexpr int L = lane_count<R>;
        const bool want_z = opts.compute_u;
        std::vector<R> gbuf(std::size_t(n * n * L)), sig(std::size_t(n * L)), ubuf(want_z ? std::size_t(n * n * L) : 0);
        std::vector<int> jbuf(std::size_t(n * L)), jout(std::size_t(n * L)), linfo(L), lsweeps(L);
        index_t member[L];
        int scale[L];
        int count_in = 0;
        for (int l = 0; l < count; ++l) {
            const index_t b = b0 + l;
            R maxabs = 0;
            int e = 0;
            if (!load_hermitian(n, a.data + b * a.stride, a.ld, ws.s, maxabs, e) || maxabs == 0) {
                alone(b);
                continue;
            }
            R* G = gbuf.data() + count_in * n * n;
            int* J = jbuf.data() + count_in * n;
            const index_t r = bunch_parlett(n, ws.s.data(), G, J);
            const bool mixed = std::any_of(J, J + r, [&](int q) { return q != J[0]; });
            if (r < n || !mixed) {
                alone(b);
                continue;
            }
            member[count_in] = b;
            scale[count_in] = e;
            ++count_in;
        }
        if (count_in == 0) return;
        Options o = opts;
        o.compute_v = false;
        o.sweeps = lsweeps.data();
        HsvdWorkspace<T> hws;
        hsvd_lane_group<T>(n, n, 0, count_in, MatrixBatch<const T>{gbuf.data(), n, n * n}, SignatureBatch{jbuf.data(), n},
                           sig.data(), n, jout.data(), n, MatrixBatch<T>{want_z ? ubuf.data() : nullptr, n, n * n},
                           MatrixBatch<T>{nullptr, n, n * n}, linfo.data(), o, x, vv, [&](index_t q) {
                               // (not reached: every member has both signs, finite entries and full rank)
                               const HsvdStatus st =
                                   hsvd_mixed<T>(n, n, gbuf.data() + q * n * n, n, jbuf.data() + q * n, sig.data() + q * n,
                                                 jout.data() + q * n, want_z ? ubuf.data() + q * n * n : nullptr, n,
                                                 nullptr, n, o, hws);
                               linfo[q] = st.info;
                               lsweeps[q] = st.sweeps;
                           });
        std::vector<R> lam(n);
        std::vector<index_t> perm(n);
        for (int q = 0; q < count_in; ++q) {
            const index_t b = member[q];
            R* wb = w + b * w_stride;
            R* zb = want_z ? z.data + b * z.stride : nullptr;
            info[b] = linfo[q];
            if (opts.sweeps) opts.sweeps[b] = lsweeps[q];
            if (linfo[q] < 0) {
                for (index_t i = 0; i < n; ++i) wb[i] = std::numeric_limits<R>::quiet_NaN();
                if (zb) fill_nan(n, n, zb, z.ld);
                continue;
            }
            for (index_t i = 0; i < n; ++i) {
                const R sv = sig[q * n + i];
                lam[i] = std::ldexp(R(jout[q * n + i]) * sv * sv, -scale[q]);
            }
            write_ascending(n, lam.data(), ubuf.data() + q * n * n, wb, zb, z.ld, perm);
        }
    }
}

template <class T>
void eigh_indefinite(index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* w, index_t w_stride,
                     MatrixBatch<T> z, int* info, const Options& opts) {
    auto one = [&](index_t b, EighWorkspace<T>& ws, int team) {
        HsvdStatus st;
        if (n > 0)
            st = eigh_one<T>(n, a.data + b * a.stride, a.ld, w + b * w_stride,
                             opts.compute_u ? z.data + b * z.stride : nullptr, z.ld, opts, ws, team);
        info[b] = st.info;
        if (opts.sweeps) opts.sweeps[b] = st.sweeps;
    };
    if (hsvd_lanes_suit<T>(n, n)) {
        over_lane_groups<T, EighWorkspace<T>>(batch, opts, [&](index_t b0, int count, EighWorkspace<T>& ws,
                                                               std::vector<T>& x, std::vector<T>& vv) {
            eigh_lane_group<T>(n, b0, count, a, w, w_stride, z, info, opts, ws, x, vv, [&](index_t b) { one(b, ws, 1); });
        });
        return;
    }
    over_batch<EighWorkspace<T>>(batch, n, opts, one);
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
