// SPDX-License-Identifier: BSD-3-Clause
// One matrix by the processes of an MPI communicator: the one-sided block Jacobi method of
// include/batchsvd/distributed.hpp. Novakovic's section 5 shortens each block pair by a
// Cholesky factor of its Gram matrix and runs one inner sweep (the "block-oriented" variant);
// here the pair is solved to convergence by the library's own SVD (its "full block" variant),
// which keeps Jacobi's accuracy on graded matrices, and a pair already orthogonal is skipped.
#include "batchsvd/distributed.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <exception>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "core/block_ordering.hpp"
#include "core/scalar.hpp"

namespace batchsvd::distributed {
namespace {

[[noreturn]] void invalid(const std::string& what) {
    throw Error(ErrorCode::invalid_argument, "batchsvd::distributed::gesvd: " + what);
}

void check_mpi(int rc, const char* what) {
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    throw Error(ErrorCode::device_error, std::string("batchsvd::distributed: ") + what + " failed: " +
                                             std::string(text, std::size_t(len)));
}
#define BATCHSVD_MPI_CHECK(call) check_mpi((call), #call)

/// Every argument that must agree across processes, as integers.
struct Signature {
    std::int64_t m, n, root, tsize, complex, max_sweeps, compute_u, compute_v;
    double tol;
};

/// One process's two blocks: columns [0, w_top) of w and y are block `top`, the rest `bot`.
template <class T> struct Pair {
    index_t rows_w = 0, rows_v = 0, w_top = 0, w_bot = 0;
    std::vector<T> w, y;  // rows_w x (w_top + w_bot), rows_v x (w_top + w_bot)
    T* w_col(index_t c) { return w.data() + c * rows_w; }
    T* y_col(index_t c) { return y.data() + c * rows_v; }
};

/// Whether any two columns of the pair fail the convergence test.
template <class T> bool needs_rotation(Pair<T>& p, double tol) {
    const index_t cols = p.w_top + p.w_bot;
    std::vector<double> norm2(static_cast<std::size_t>(cols));
    for (index_t c = 0; c < cols; ++c) {
        double acc = 0;
        for (index_t i = 0; i < p.rows_w; ++i) acc += double(core::abs2(p.w_col(c)[i]));
        norm2[c] = acc;
    }
    for (index_t i = 0; i < cols; ++i)
        for (index_t j = i + 1; j < cols; ++j) {
            if (norm2[i] == 0 || norm2[j] == 0) continue;
            T dot = T(0);
            const T* x = p.w_col(i);
            const T* z = p.w_col(j);
            for (index_t r = 0; r < p.rows_w; ++r) dot += core::conj_of(x[r]) * z[r];
            if (std::sqrt(double(core::abs2(dot))) > tol * std::sqrt(norm2[i]) * std::sqrt(norm2[j])) return true;
        }
    return false;
}

/// The columns of Q nearest the identity: perm[i] is the column of Q with the largest entry in
/// row i (greedily, rows with the largest entries first, each column once). The library's SVD
/// sorts the singular values; taking its columns in this order instead leaves each column in
/// its block, so that the method stays the cyclic block Jacobi method: with the sorted order,
/// columns migrate between blocks every step, pairs of columns miss each other, and the
/// iteration converged only linearly (40 x 30 on 2 processes: 67 sweeps against 5).
template <class T> std::vector<index_t> nearest_identity(const std::vector<T>& q, index_t cols) {
    std::vector<double> rowmax(std::size_t(cols), 0.0);
    for (index_t j = 0; j < cols; ++j)
        for (index_t i = 0; i < cols; ++i) rowmax[i] = std::max(rowmax[i], double(core::abs2(q[i + j * cols])));
    std::vector<index_t> rows(static_cast<std::size_t>(cols));
    for (index_t i = 0; i < cols; ++i) rows[i] = i;
    std::stable_sort(rows.begin(), rows.end(), [&](index_t x, index_t y) { return rowmax[x] > rowmax[y]; });
    std::vector<index_t> perm(std::size_t(cols), -1);
    std::vector<char> used(std::size_t(cols), 0);
    for (index_t i : rows) {
        index_t best = -1;
        double bv = -1;
        for (index_t j = 0; j < cols; ++j)
            if (!used[j] && double(core::abs2(q[i + j * cols])) > bv) {
                bv = double(core::abs2(q[i + j * cols]));
                best = j;
            }
        perm[i] = best;
        used[best] = 1;
    }
    return perm;
}

/// The pair's SVD by the library: W_pair = U S Q^H; W_pair <- U S, Y_pair <- Y_pair Q, the
/// columns in nearest_identity's order.
template <class T> void rotate(Pair<T>& p, const Options& base) {
    using R = real_t<T>;
    const index_t cols = p.w_top + p.w_bot, rows = p.rows_w;
    std::vector<R> s(static_cast<std::size_t>(cols));
    std::vector<T> u(std::size_t(rows * cols)), q(std::size_t(cols * cols));
    int info = 0;
    Options o;
    o.backend = Backend::cpu;
    o.tol_factor = base.tol_factor;
    batchsvd::gesvd<T>(rows, cols, 1, p.w.data(), s.data(), u.data(), q.data(), &info, o);
    const std::vector<index_t> perm = nearest_identity(q, cols);
    for (index_t c = 0; c < cols; ++c)
        for (index_t i = 0; i < rows; ++i) p.w[i + c * rows] = u[i + perm[c] * rows] * T(s[perm[c]]);
    std::vector<T> y(p.y.size(), T(0));
    for (index_t c = 0; c < cols; ++c)
        for (index_t l = 0; l < cols; ++l) {
            const T ql = q[l + perm[c] * cols];
            if (ql == T(0)) continue;
            const T* src = p.y_col(l);
            T* dst = y.data() + c * p.rows_v;
            for (index_t i = 0; i < p.rows_v; ++i) dst[i] += src[i] * ql;
        }
    p.y.swap(y);
}

/// Column range of block b of `total` columns cut into `blocks` (the first total % blocks one wider).
std::pair<index_t, index_t> block_range(int b, index_t total, int blocks) {
    const index_t base = total / blocks, extra = total % blocks;
    const index_t first = b * base + std::min<index_t>(b, extra);
    return {first, base + (b < extra ? 1 : 0)};
}

/// Throws on every process when any process failed this step (its own error where it failed).
void agree_on_errors(MPI_Comm comm, int rank, const std::exception_ptr& mine) {
    int failed = mine ? rank + 1 : 0;
    BATCHSVD_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm));
    if (mine) std::rethrow_exception(mine);
    if (failed)
        throw Error(ErrorCode::device_error,
                    "batchsvd::distributed::gesvd: process " + std::to_string(failed - 1) + " failed; stopped");
}

/// A duplicate of the caller's communicator (RAII), so that the library's messages never match
/// the caller's.
class OwnComm {
public:
    explicit OwnComm(MPI_Comm c) { BATCHSVD_MPI_CHECK(MPI_Comm_dup(c, &comm_)); }
    ~OwnComm() { (void)MPI_Comm_free(&comm_); }
    OwnComm(const OwnComm&) = delete;
    OwnComm& operator=(const OwnComm&) = delete;
    MPI_Comm get() const { return comm_; }

private:
    MPI_Comm comm_ = MPI_COMM_NULL;
};

}  // namespace

template <class T>
int gesvd(MPI_Comm caller_comm, int root, index_t m, index_t n, const T* a, index_t lda, real_t<T>* s, T* u,
          index_t ldu, T* v, index_t ldv, const Options& opts) {
    using R = real_t<T>;
    const OwnComm own(caller_comm);
    const MPI_Comm comm = own.get();
    int rank = 0, procs = 1;
    BATCHSVD_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    BATCHSVD_MPI_CHECK(MPI_Comm_size(comm, &procs));

    // 1. The arguments every process must share, compared before anything moves.
    const Signature mine{m, n, root, std::int64_t(sizeof(T)), core::is_complex_v<T> ? 1 : 0, opts.max_sweeps,
                         opts.compute_u ? 1 : 0, opts.compute_v ? 1 : 0, opts.tol_factor};
    std::vector<Signature> all(static_cast<std::size_t>(procs));
    BATCHSVD_MPI_CHECK(MPI_Allgather(&mine, int(sizeof(Signature)), MPI_BYTE, all.data(), int(sizeof(Signature)),
                                     MPI_BYTE, comm));
    for (int r = 0; r < procs; ++r) {
        const Signature& o = all[std::size_t(r)];
        if (o.m != m || o.n != n || o.root != root || o.tsize != mine.tsize || o.complex != mine.complex ||
            o.max_sweeps != mine.max_sweeps || o.compute_u != mine.compute_u || o.compute_v != mine.compute_v ||
            o.tol != mine.tol)
            invalid("process " + std::to_string(r) + " passed other sizes, root, precision or options than process " +
                    std::to_string(rank) + " (m " + std::to_string(o.m) + " x n " + std::to_string(o.n) + ", root " +
                    std::to_string(o.root) + ")");
    }
    if (root < 0 || root >= procs) invalid("root " + std::to_string(root) + " is not a process of the communicator");
    if (m < 0 || n < 0) invalid("negative size");
    if (!(opts.tol_factor > 0) || opts.max_sweeps < 1) invalid("tol_factor must be positive and max_sweeps >= 1");
    const index_t k = std::min(m, n);
    // (Errors of the root's own arguments go to every process.)
    int root_bad = 0;
    if (rank == root && k > 0)
        root_bad = (!a || lda < m || !s || (opts.compute_u && (!u || ldu < m)) || (opts.compute_v && (!v || ldv < n))) ? 1 : 0;
    BATCHSVD_MPI_CHECK(MPI_Bcast(&root_bad, 1, MPI_INT, root, comm));
    if (root_bad) invalid("the root's A, S, U or V is null or has a leading dimension below its rows");
    if (k == 0) return 0;

    // 2. W (A, or A^H for a wide A: M >= N) on the root; NaN/Inf anywhere ends it there.
    const bool wide = m < n;
    const index_t M = std::max(m, n), N = k;
    std::vector<T> W;
    int nonfinite = 0;
    if (rank == root) {
        W.resize(std::size_t(M * N));
        for (index_t j = 0; j < n; ++j)
            for (index_t i = 0; i < m; ++i) {
                const T x = a[i + j * lda];
                if (!core::is_finite(x)) nonfinite = 1;
                if (wide) W[j + i * M] = core::conj_of(x);
                else W[i + j * M] = x;
            }
    }
    BATCHSVD_MPI_CHECK(MPI_Bcast(&nonfinite, 1, MPI_INT, root, comm));
    if (nonfinite) {
        if (rank == root) {
            const R nan = std::numeric_limits<R>::quiet_NaN();
            std::fill(s, s + k, nan);
            for (index_t j = 0; j < k; ++j) {
                if (opts.compute_u) std::fill(u + j * ldu, u + j * ldu + m, T(nan));
                if (opts.compute_v) std::fill(v + j * ldv, v + j * ldv + n, T(nan));
            }
        }
        return info_nonfinite;
    }

    // 3. Two blocks a process; V starts as the identity.
    const int blocks = 2 * procs;
    core::BlockSlots slots = core::initial_slots(procs);
    Pair<T> p;
    p.rows_w = M;
    p.rows_v = N;
    auto width = [&](int b) { return block_range(b, N, blocks).second; };
    auto load = [&](int top, int bot) {
        p.w_top = width(top);
        p.w_bot = width(bot);
        p.w.assign(std::size_t(M * (p.w_top + p.w_bot)), T(0));
        p.y.assign(std::size_t(N * (p.w_top + p.w_bot)), T(0));
    };
    load(slots.top[rank], slots.bot[rank]);
    for (int half = 0; half < 2; ++half) {
        const int b = half == 0 ? slots.top[rank] : slots.bot[rank];
        const auto [first, w] = block_range(b, N, blocks);
        const index_t at = half == 0 ? 0 : p.w_top;
        for (index_t c = 0; c < w; ++c) p.y[(first + c) + (at + c) * N] = T(1);
    }
    for (int r = 0; r < procs; ++r)
        for (int half = 0; half < 2; ++half) {
            const int b = half == 0 ? slots.top[r] : slots.bot[r];
            const auto [first, w] = block_range(b, N, blocks);
            const index_t at = half == 0 ? 0 : width(slots.top[r]);
            const int count = int(M * w * index_t(sizeof(T)));
            if (w == 0) continue;
            if (r == root && rank == root) std::copy_n(W.data() + first * M, M * w, p.w.data() + at * M);
            else if (rank == root) BATCHSVD_MPI_CHECK(MPI_Send(W.data() + first * M, count, MPI_BYTE, r, b, comm));
            else if (rank == r)
                BATCHSVD_MPI_CHECK(MPI_Recv(p.w.data() + at * M, count, MPI_BYTE, root, b, comm, MPI_STATUS_IGNORE));
        }

    // 4. Sweeps of 2P - 1 steps; after each, the rotations of every process added up. A pair
    //    counts as orthogonal below tol_factor u sqrt(M): a pair the library has just solved
    //    meets its own test (tol_factor u) on the columns it worked on, and recomputing the
    //    products of M-long columns adds about sqrt(M) u; the root's final SVD (step 5) then
    //    holds every pair to tol_factor u.
    const double tol = opts.tol_factor * double(std::numeric_limits<R>::epsilon()) / 2 *
                       std::sqrt(double(std::max<index_t>(M, 1)));
    int sweeps = 0;
    bool converged = false;
    std::vector<T> send_w, send_y, recv_w, recv_y;
    while (!converged && sweeps < opts.max_sweeps) {
        int rotated = 0;
        for (int step = 0; step < (procs > 1 ? blocks - 1 : 1); ++step) {
            std::exception_ptr error;
            try {
                if (needs_rotation(p, tol)) {
                    rotate(p, opts);
                    ++rotated;
                }
            } catch (...) {
                error = std::current_exception();
            }
            agree_on_errors(comm, rank, error);
            if (procs == 1) break;
            // The circle method's exchange (core/block_ordering.hpp), in two phases.
            const core::BlockSlots next = core::next_slots(slots);
            const index_t wt = p.w_top, wb = p.w_bot;
            const index_t nt = width(next.top[rank]), nbw = width(next.bot[rank]);
            Pair<T> q;
            q.rows_w = M;
            q.rows_v = N;
            q.w_top = nt;
            q.w_bot = nbw;
            q.w.assign(std::size_t(M * (nt + nbw)), T(0));
            q.y.assign(std::size_t(N * (nt + nbw)), T(0));
            // Phase A: tops move right (process 0 sends its bot); process P-1 keeps its top as its bot.
            {
                const bool sends = rank < procs - 1;
                const index_t at = rank == 0 ? wt : 0, w = rank == 0 ? wb : wt;
                const int dest = sends ? rank + 1 : MPI_PROC_NULL, src = rank > 0 ? rank - 1 : MPI_PROC_NULL;
                const int tag = 1;  // (messages between two processes keep their order)
                BATCHSVD_MPI_CHECK(MPI_Sendrecv(p.w.data() + at * M, int(M * w * index_t(sizeof(T))), MPI_BYTE, dest, tag,
                                                q.w.data(), int(M * nt * index_t(sizeof(T))), MPI_BYTE, src, tag, comm,
                                                MPI_STATUS_IGNORE));
                BATCHSVD_MPI_CHECK(MPI_Sendrecv(p.y.data() + at * N, int(N * w * index_t(sizeof(T))), MPI_BYTE, dest, tag + 1,
                                                q.y.data(), int(N * nt * index_t(sizeof(T))), MPI_BYTE, src, tag + 1, comm,
                                                MPI_STATUS_IGNORE));
                if (rank == 0) {  // keeps its top
                    std::copy_n(p.w.data(), M * wt, q.w.data());
                    std::copy_n(p.y.data(), N * wt, q.y.data());
                }
                if (rank == procs - 1) {  // its top becomes its bot
                    std::copy_n(p.w.data(), M * wt, q.w.data() + nt * M);
                    std::copy_n(p.y.data(), N * wt, q.y.data() + nt * N);
                }
            }
            // Phase B: bots move left.
            {
                const int dest = rank > 0 ? rank - 1 : MPI_PROC_NULL;
                const int src = rank < procs - 1 ? rank + 1 : MPI_PROC_NULL;
                const bool sends = rank > 0;
                const index_t w = sends ? wb : 0;
                const int tag = 3;
                BATCHSVD_MPI_CHECK(MPI_Sendrecv(p.w.data() + wt * M, int(M * w * index_t(sizeof(T))), MPI_BYTE, dest, tag,
                                                q.w.data() + nt * M, int(rank < procs - 1 ? M * nbw * index_t(sizeof(T)) : 0),
                                                MPI_BYTE, src, tag, comm, MPI_STATUS_IGNORE));
                BATCHSVD_MPI_CHECK(MPI_Sendrecv(p.y.data() + wt * N, int(N * w * index_t(sizeof(T))), MPI_BYTE, dest, tag + 1,
                                                q.y.data() + nt * N, int(rank < procs - 1 ? N * nbw * index_t(sizeof(T)) : 0),
                                                MPI_BYTE, src, tag + 1, comm, MPI_STATUS_IGNORE));
            }
            p = std::move(q);
            slots = next;
        }
        ++sweeps;
        BATCHSVD_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &rotated, 1, MPI_INT, MPI_SUM, comm));
        converged = rotated == 0;
    }

    // 5. The root gathers W and V by block, and the library's SVD of W normalises, sorts and
    //    completes: W = U_W S Q^H, so W_0 = U_W S (V Q)^H.
    std::vector<T> V;
    if (rank == root) {
        V.assign(std::size_t(N * N), T(0));
        W.assign(std::size_t(M * N), T(0));
    }
    for (int r = 0; r < procs; ++r)
        for (int half = 0; half < 2; ++half) {
            const int b = half == 0 ? slots.top[r] : slots.bot[r];
            const auto [first, w] = block_range(b, N, blocks);
            if (w == 0) continue;
            const index_t at = half == 0 ? 0 : width(slots.top[r]);
            if (r == root && rank == root) {
                std::copy_n(p.w.data() + at * M, M * w, W.data() + first * M);
                std::copy_n(p.y.data() + at * N, N * w, V.data() + first * N);
            } else if (rank == root) {
                BATCHSVD_MPI_CHECK(MPI_Recv(W.data() + first * M, int(M * w * index_t(sizeof(T))), MPI_BYTE, r, 2 * b, comm,
                                            MPI_STATUS_IGNORE));
                BATCHSVD_MPI_CHECK(MPI_Recv(V.data() + first * N, int(N * w * index_t(sizeof(T))), MPI_BYTE, r, 2 * b + 1,
                                            comm, MPI_STATUS_IGNORE));
            } else if (rank == r) {
                BATCHSVD_MPI_CHECK(MPI_Send(p.w.data() + at * M, int(M * w * index_t(sizeof(T))), MPI_BYTE, root, 2 * b, comm));
                BATCHSVD_MPI_CHECK(MPI_Send(p.y.data() + at * N, int(N * w * index_t(sizeof(T))), MPI_BYTE, root, 2 * b + 1, comm));
            }
        }
    int info = converged ? 0 : sweeps;
    if (rank == root) {
        std::vector<T> uw(std::size_t(M * N)), q(std::size_t(N * N));
        int final_info = 0;
        Options o;
        o.backend = Backend::cpu;
        o.tol_factor = opts.tol_factor;
        batchsvd::gesvd<T>(M, N, 1, W.data(), s, uw.data(), q.data(), &final_info, o);
        // V Q: the right vectors of W_0.
        std::vector<T> vq(std::size_t(N * N), T(0));
        for (index_t c = 0; c < N; ++c)
            for (index_t l = 0; l < N; ++l) {
                const T ql = q[l + c * N];
                for (index_t i = 0; i < N; ++i) vq[i + c * N] += V[i + l * N] * ql;
            }
        const std::vector<T>& left = wide ? vq : uw;   // A's U: m x k
        const std::vector<T>& right = wide ? uw : vq;  // A's V: n x k
        const index_t lrows = wide ? N : M, rrows = wide ? M : N;
        for (index_t c = 0; c < k; ++c) {
            if (opts.compute_u) std::copy_n(left.data() + c * lrows, m, u + c * ldu);
            if (opts.compute_v) std::copy_n(right.data() + c * rrows, n, v + c * ldv);
        }
        (void)final_info;
    }
    return info;
}

#define BATCHSVD_INSTANTIATE_(T)                                                                      \
    template int gesvd<T>(MPI_Comm, int, index_t, index_t, const T*, index_t, real_t<T>*, T*, index_t, T*, \
                          index_t, const Options&);
BATCHSVD_INSTANTIATE_(float)
BATCHSVD_INSTANTIATE_(double)
BATCHSVD_INSTANTIATE_(std::complex<float>)
BATCHSVD_INSTANTIATE_(std::complex<double>)
#undef BATCHSVD_INSTANTIATE_

}  // namespace batchsvd::distributed
