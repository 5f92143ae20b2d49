// SPDX-License-Identifier: BSD-3-Clause
// CPU backend: OpenMP over the batch, one workspace per thread, one matrix per iteration; for
// large matrices, or a batch smaller than the thread count, the threads share each matrix's
// rotations instead; small real matrices a SIMD lane each (lane_groups.hpp).
//
// Compiled once per instruction set (cpu/isa.hpp; src/CMakeLists.txt names the namespace and
// the target). Everything from outside the backend is included first, under the baseline
// target: code compiled for a wider set must stay in this copy's own namespace, and the
// standard library's templates are instantiated with the target of their definition, so
// their shared (COMDAT) copies stay baseline code whichever copy the linker keeps.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <limits>
#include <new>
#include <numeric>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "batchsvd/batchsvd.hpp"
#include "core/ordering.hpp"
#include "core/precision.hpp"
#include "core/rotation.hpp"
#include "core/scalar.hpp"
#include "cpu/isa.hpp"
#include "cpu/blas_threads.hpp"
#include "cpu/lanes/jacobi_lanes.hpp"

#if defined(BATCHSVD_CPU_TARGET_AVX2)
#pragma GCC target("avx2")
#elif defined(BATCHSVD_CPU_TARGET_AVX512)
#pragma GCC target("avx512f,avx512dq,avx512vl,avx512bw")
#endif

#include "cpu/lane_groups.hpp"
#include "cpu/svd_one_matrix.hpp"

BATCHSVD_CPU_BEGIN
namespace {

/// Holds the BLAS to one thread while a call may precondition (cpu/blas_threads.hpp).
class BlasThreadsFor {
public:
    explicit BlasThreadsFor(bool preconditions) {
        if (preconditions) held_.emplace();
    }

private:
    std::optional<SingleThreadedBlas> held_;
};

/// The threads of a call (Options::threads, else OpenMP's default).
inline int call_threads(const Options& opts) { return opts.threads > 0 ? opts.threads : omp_get_max_threads(); }

/// The chunk of dynamic scheduling over `items`: up to `most` at once, but small enough that
/// every thread gets about four chunks. A fixed chunk of 8 left 13 of 16 threads idle on a
/// batch of 20 (128^2 float64 on the 16-core Xeon: 43 ms, 2026-11-27).
inline int chunk_for(index_t items, int threads, int most) {
    return int(std::clamp<index_t>(items / (4 * index_t(threads)), 1, most));
}

/// One matrix solved by the calling thread alone.
template <class T> void solve_alone(const MatrixJob<T>& j, const Options& opts, Workspace<T>& ws, bool& out_of_memory) {
    try {
        const MatrixStatus st = svd_one_matrix<T>(j.m, j.n, j.a, j.lda, j.s, j.u, j.ldu, j.v, j.ldv, opts, ws);
        *j.info = st.info;
        if (j.sweeps) *j.sweeps = st.sweeps;
    } catch (const std::bad_alloc&) {
#pragma omp atomic write
        out_of_memory = true;
    }
}

/// job(0) .. job(count - 1), of one shape, solved as one lane group by the calling thread
/// (real types: lane_groups.hpp).
template <class T, class Job>
void solve_group(int count, Job&& job, const Options& opts, Workspace<T>& ws, LaneWorkspace<T>& lw,
                 bool& out_of_memory) {
    try {
        solve_lane_group<T>(count, job, opts, ws, lw);
    } catch (const std::bad_alloc&) {
#pragma omp atomic write
        out_of_memory = true;
    }
}

/// Large matrices: up to `threads` prepared at once (copy, QR, preconditioning, whose BLAS
/// calls are held to one thread each), then finished at once, a thread each, or one alone
/// with the threads sharing its pairs. Preparing them one at a time left every thread but one idle through
/// the preconditioning: half of the time at 400^2 on 2 cores. job(i) gives matrix i of count.
template <class T, class Job>
void solve_shared(index_t count, int threads, const Options& opts, Job&& job, bool& out_of_memory) {
    const index_t group = std::min<index_t>(count, threads);
    std::vector<Workspace<T>> ws(static_cast<std::size_t>(group));
    std::vector<Prepared<real_t<T>>> prepared(static_cast<std::size_t>(group));
    std::vector<char> ready(static_cast<std::size_t>(group));
    for (index_t b0 = 0; b0 < count; b0 += group) {
        const index_t size = std::min(group, count - b0);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
        for (index_t i = 0; i < size; ++i) {
            const MatrixJob<T> j = job(b0 + i);
            ready[std::size_t(i)] = 0;
            try {
                prepared[std::size_t(i)] =
                    prepare_matrix<T>(j.m, j.n, j.a, j.lda, j.s, j.u, j.ldu, j.v, j.ldv, opts, ws[std::size_t(i)]);
                ready[std::size_t(i)] = 1;
            } catch (const std::bad_alloc&) {
#pragma omp atomic write
                out_of_memory = true;
            }
        }
        // Finishing: several prepared matrices at once, a thread each; one alone with the
        // threads sharing its pairs. Sharing every matrix's pairs (one after another) was
        // 1.7-1.9x faster at 256-512 on 2 cores before preconditioning, when 9-13 sweeps of
        // several matrices thrashed the cache; with 2-3 sweeps it is slower (464^2 x 2
        // float64 on 2 cores 70-74 ms against 55), and on 16 threads a team waits on a
        // barrier every step for 8 pairs a thread at 256^2 (16-core Xeon, float64: 256^2 x 15
        // 155 ms shared, 256^2 x 13 42 ms a thread each; 2026-11-27). Teams of threads / size
        // on each matrix need nested parallel regions, and libgomp's nested teams cost more
        // than they gain (512^2 x 2 1.66 s in teams of 8 against 0.34 s shared).
        auto finish = [&](index_t i, int team) {  // team: threads sharing its pairs
            if (!ready[std::size_t(i)]) return;
            const MatrixJob<T> j = job(b0 + i);
            try {
                const MatrixStatus st =
                    finish_matrix<T>(prepared[std::size_t(i)], j.s, j.u, j.ldu, j.v, j.ldv, opts, ws[std::size_t(i)], team);
                *j.info = st.info;
                if (j.sweeps) *j.sweeps = st.sweeps;
            } catch (const std::bad_alloc&) {
#pragma omp atomic write
                out_of_memory = true;
            }
        };
        if (size == 1) {
            finish(0, threads);
        } else {
#pragma omp parallel for num_threads(int(size)) schedule(static, 1)
            for (index_t i = 0; i < size; ++i) finish(i, 1);
        }
    }
}

}  // namespace

template <class T>
void gesvd(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s,
           index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
           const Options& opts) {
    bool out_of_memory = false;
    auto job = [&](index_t b) {
        return MatrixJob<T>{m, n, a.data + b * a.stride, a.ld, s + b * s_stride,
                            opts.compute_u ? u.data + b * u.stride : nullptr, u.ld,
                            opts.compute_v ? v.data + b * v.stride : nullptr, v.ld, info + b,
                            opts.sweeps ? opts.sweeps + b : nullptr};
    };
    // solve_shared: when there are too few matrices to give every thread one (worth it from
    // 64 columns: the last one alone gets every thread), and from 288 columns, where the
    // matrices are prepared a group at a time (their LAPACK calls on one thread each) and
    // finished a thread each (solve_shared says why not shared). Small real matrices take
    // the lanes.
    const index_t k = std::min(m, n);
    const BlasThreadsFor blas(solve_calls_blas<T>(m, n, opts));
    const int threads = call_threads(opts);
    if constexpr (!is_cplx<T>::value) {
        if (lanes_suit<T>(m, n, opts)) {  // lane_count matrices at a time, one a SIMD lane
            constexpr index_t L = lane_count<T>;
            const index_t groups = (batch + L - 1) / L;
#pragma omp parallel num_threads(threads)
            {
                Workspace<T> ws;
                LaneWorkspace<T> lw;
#pragma omp for schedule(dynamic, chunk_for(groups, threads, 4))
                for (index_t g = 0; g < groups; ++g)
                    solve_group<T>(int(std::min(L, batch - g * L)), [&](int l) { return job(g * L + l); }, opts, ws,
                                   lw, out_of_memory);
            }
            if (out_of_memory) throw Error(ErrorCode::out_of_memory, "batchsvd: CPU workspace allocation failed");
            return;
        }
    }
    if ((k >= 64 && batch < threads) || k >= 288) {
        solve_shared<T>(batch, threads, opts, job, out_of_memory);
    } else {
#pragma omp parallel num_threads(threads)
        {
            Workspace<T> ws;
#pragma omp for schedule(dynamic, chunk_for(batch, threads, 8))
            for (index_t b = 0; b < batch; ++b) solve_alone(job(b), opts, ws, out_of_memory);
        }
    }
    if (out_of_memory) throw Error(ErrorCode::out_of_memory, "batchsvd: CPU workspace allocation failed");
}

template <class T>
void gesvd_vbatched(index_t batch, const index_t* m, const index_t* n, MatrixList<const T> a,
                    real_t<T>* const* s, MatrixList<T> u, MatrixList<T> v, int* info,
                    const Options& opts) {
    std::vector<index_t> order(static_cast<std::size_t>(batch));
    std::iota(order.begin(), order.end(), index_t(0));
    auto cost = [&](index_t b) { return double(m[b]) * double(n[b]) * double(std::min(m[b], n[b])); };
    std::stable_sort(order.begin(), order.end(), [&](index_t x, index_t y) { return cost(x) > cost(y); });
    bool calls_blas = false;
    for (index_t b = 0; b < batch && !calls_blas; ++b) calls_blas = solve_calls_blas<T>(m[b], n[b], opts);
    const BlasThreadsFor blas(calls_blas);
    const int threads = call_threads(opts);
    bool out_of_memory = false;
    // (An empty matrix needs nothing: svd_one_matrix gives it info 0 and 0 sweeps.)
    auto job = [&](index_t b) {
        return MatrixJob<T>{m[b], n[b], a.data[b], a.ld[b], s[b], opts.compute_u ? u.data[b] : nullptr,
                            opts.compute_u ? u.ld[b] : 1, opts.compute_v ? v.data[b] : nullptr,
                            opts.compute_v ? v.ld[b] : 1, info + b, opts.sweeps ? opts.sweeps + b : nullptr};
    };
    // The large ones (as gesvd: from 288 columns a matrix and its V fill a core's cache)
    // prepared several at once and finished one after another with the threads sharing their
    // pairs (solve_shared), then the rest one a thread, largest first.
    std::size_t first_small = 0;
    while (first_small < order.size() && std::min(m[order[first_small]], n[order[first_small]]) >= 288)
        ++first_small;
    solve_shared<T>(index_t(first_small), threads, opts, [&](index_t i) { return job(order[std::size_t(i)]); },
                    out_of_memory);
    // The small real ones that the lanes take, grouped by shape, lane_count a group (after
    // the rest: they are the cheapest).
    std::vector<index_t> alone, lanes;
    for (std::size_t i = first_small; i < order.size(); ++i)
        (lanes_suit<T>(m[order[i]], n[order[i]], opts) ? lanes : alone).push_back(order[i]);
    std::stable_sort(lanes.begin(), lanes.end(),
                     [&](index_t x, index_t y) { return std::pair(m[x], n[x]) < std::pair(m[y], n[y]); });
    std::vector<std::pair<std::size_t, int>> groups;  // (first in `lanes`, count)
    for (std::size_t i = 0; i < lanes.size();) {
        std::size_t e = i + 1;
        while (e < lanes.size() && e - i < std::size_t(lane_count<real_t<T>>) && m[lanes[e]] == m[lanes[i]] &&
               n[lanes[e]] == n[lanes[i]])
            ++e;
        groups.emplace_back(i, int(e - i));
        i = e;
    }
    const index_t items = index_t(alone.size() + groups.size());
#pragma omp parallel num_threads(threads)
    {
        Workspace<T> ws;
        [[maybe_unused]] LaneWorkspace<real_t<T>> lw;
#pragma omp for schedule(dynamic, 1)
        for (index_t i = 0; i < items; ++i) {
            if (i < index_t(alone.size())) {
                solve_alone(job(alone[std::size_t(i)]), opts, ws, out_of_memory);
                continue;
            }
            if constexpr (!is_cplx<T>::value) {
                const auto [start, count] = groups[std::size_t(i) - alone.size()];
                solve_group<T>(count, [&](int l) { return job(lanes[start + std::size_t(l)]); }, opts, ws, lw,
                               out_of_memory);
            }
        }
    }
    if (out_of_memory) throw Error(ErrorCode::out_of_memory, "batchsvd: CPU workspace allocation failed");
}

#define BATCHSVD_INSTANTIATE_(T)                                                          \
    template void gesvd<T>(index_t, index_t, index_t, MatrixBatch<const T>, real_t<T>*, \
                           index_t, MatrixBatch<T>, MatrixBatch<T>, int*, const Options&); \
    template void gesvd_vbatched<T>(index_t, const index_t*, const index_t*, MatrixList<const T>, \
                                    real_t<T>* const*, MatrixList<T>, MatrixList<T>, int*,        \
                                    const Options&);
BATCHSVD_INSTANTIATE_(float)
BATCHSVD_INSTANTIATE_(double)
BATCHSVD_INSTANTIATE_(std::complex<float>)
BATCHSVD_INSTANTIATE_(std::complex<double>)
#undef BATCHSVD_INSTANTIATE_

BATCHSVD_CPU_END
