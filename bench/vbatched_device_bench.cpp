// SPDX-License-Identifier: BSD-3-Clause
// Matrices of different sizes through the C++ API on one GPU, every operand in device memory:
// one gesvd_vbatched call on the whole list against one gesvd call per exact shape on the same
// matrices packed by shape beforehand (what a careful user does without the list call), the
// shapes of bench/vbatched_bench.py's cases (the Python benchmark adds the framework's cost of
// one array a matrix; this one is the library alone):
//     mixed_small    10000 square matrices, orders uniform in 2..64
//     mixed_shapes    2000 matrices, m and n each uniform in 16..256
//     heavy_tail     20000 square matrices, orders round(exp(uniform(log 2, log 512)))
// Entries uniform in [0, 1), fresh every run (the seed from the clock unless --seed, printed).
// The list's matrices lie one after another in one allocation in draw order (ld = m); U, S
// and V likewise. Times: CUDA events on the caller's stream around the call (gesvd_vbatched
// returns when every group is done; the per-shape loop is followed by the end event), after a
// warm-up, the median of --reps runs. Every status must be 0 in both (max_info says).
//   batchsvd_vbatched_device_bench [--cases mixed_small,mixed_shapes,heavy_tail]
//       [--precisions float64,float32] [--reps 5] [--seed S] [--scale 1]
// CSV on stdout: gpu, date, commit, mode=vbatched, api=c++, case, precision, batch,
// distinct_shapes, batchsvd_ms, per_size_ms, per_size_ratio, largest_group_ms,
// largest_group_fraction, max_info.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "batchsvd/batchsvd.hpp"
#include "cuda_bench_support.hpp"

namespace {

using batchsvd::index_t;
using batchsvd::bench::Buffer;

constexpr const char* kProgram = "vbatched_device_bench";
#define CK(call) batchsvd::bench::cuda_check((call), #call, kProgram)

/// Device memory of `n` elements.
template <class T> struct DeviceArray : Buffer<T> {
    explicit DeviceArray(std::size_t n) : Buffer<T>(n, false, kProgram) {}
};

struct Event {
    cudaEvent_t e = nullptr;
    Event() { CK(cudaEventCreate(&e)); }
    ~Event() { cudaEventDestroy(e); }
};

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string x; std::getline(in, x, ',');)
        if (!x.empty()) out.push_back(x);
    return out;
}

std::vector<std::pair<index_t, index_t>> draw_shapes(const std::string& c, double scale, std::mt19937_64& g) {
    const index_t count = std::max<index_t>(1, index_t(std::llround((c == "mixed_small" ? 10000 : c == "mixed_shapes" ? 2000 : 20000) * scale)));
    std::vector<std::pair<index_t, index_t>> shapes;
    std::uniform_int_distribution<index_t> small(2, 64), side(16, 256);
    std::uniform_real_distribution<double> logs(std::log(2.0), std::log(512.0));
    for (index_t i = 0; i < count; ++i) {
        if (c == "mixed_small") {
            const index_t o = small(g);
            shapes.emplace_back(o, o);
        } else if (c == "mixed_shapes") {
            const index_t m = side(g);
            shapes.emplace_back(m, side(g));
        } else {
            const index_t o = index_t(std::llround(std::exp(logs(g))));
            shapes.emplace_back(o, o);
        }
    }
    return shapes;
}

/// Median ms of fn() between two events on `st`, after one warm-up.
template <class F> double median_ms(cudaStream_t st, int reps, F&& fn) {
    fn();
    CK(cudaStreamSynchronize(st));
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
        Event a, b;
        CK(cudaEventRecord(a.e, st));
        fn();
        CK(cudaEventRecord(b.e, st));
        CK(cudaEventSynchronize(b.e));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a.e, b.e));
        t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

struct Row {
    index_t batch = 0, shapes = 0;
    double list_ms = 0, per_size_ms = 0, largest_ms = 0;
    int max_info = 0;
};

template <class T>
Row run_case(const std::vector<std::pair<index_t, index_t>>& shapes, std::uint64_t seed, int reps, cudaStream_t st) {
    const index_t batch = index_t(shapes.size());
    const std::size_t nb = shapes.size();
    // The list: matrix b at its offset in draw order; its outputs likewise.
    std::vector<std::size_t> oa(nb + 1), os(oa.size()), ou(oa.size()), ov(oa.size());
    for (index_t b = 0; b < batch; ++b) {
        const auto [m, n] = shapes[std::size_t(b)];
        const index_t k = std::min(m, n);
        oa[b + 1] = oa[b] + std::size_t(m * n);
        os[b + 1] = os[b] + std::size_t(k);
        ou[b + 1] = ou[b] + std::size_t(m * k);
        ov[b + 1] = ov[b] + std::size_t(n * k);
    }
    std::vector<T> host(oa.back());
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<T> uni(T(0), T(1));
    for (T& x : host) x = uni(g);
    DeviceArray<T> a(oa.back()), u(ou.back()), v(ov.back()), pa(oa.back()), pu(ou.back()), pv(ov.back());
    DeviceArray<T> s(os.back()), ps(os.back());
    DeviceArray<int> info(nb), pinfo(nb);
    CK(cudaMemcpy(a.p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    std::vector<index_t> ms(nb), ns(nb), lda(nb), ldu(nb),
        ldv(nb);
    std::vector<const T*> ap(nb);
    std::vector<T*> sp(nb), up(nb), vp(nb);
    std::map<std::pair<index_t, index_t>, std::vector<index_t>> groups;
    for (index_t b = 0; b < batch; ++b) {
        const auto [m, n] = shapes[std::size_t(b)];
        ms[b] = m;
        ns[b] = n;
        lda[b] = ldu[b] = std::max<index_t>(1, m);
        ldv[b] = std::max<index_t>(1, n);
        ap[b] = a.p + oa[b];
        sp[b] = s.p + os[b];
        up[b] = u.p + ou[b];
        vp[b] = v.p + ov[b];
        groups[shapes[std::size_t(b)]].push_back(b);
    }
    // Per shape: the same matrices packed by shape (copied once, outside the timing).
    struct Group {
        index_t m, n, count;
        std::size_t a, s, u, v;  // offsets into pa, ps, pu, pv; info at `first`
        index_t first;
    };
    std::vector<Group> packed;
    std::size_t fa = 0, fs = 0, fu = 0, fv = 0;
    index_t first = 0;
    for (const auto& [shape, idx] : groups) {
        const auto [m, n] = shape;
        const index_t k = std::min(m, n), c = index_t(idx.size());
        packed.push_back(Group{m, n, c, fa, fs, fu, fv, first});
        for (index_t j = 0; j < c; ++j)
            CK(cudaMemcpy(pa.p + fa + std::size_t(j * m * n), a.p + oa[idx[std::size_t(j)]], std::size_t(m * n) * sizeof(T),
                          cudaMemcpyDeviceToDevice));
        fa += std::size_t(c * m * n);
        fs += std::size_t(c * k);
        fu += std::size_t(c * m * k);
        fv += std::size_t(c * n * k);
        first += c;
    }
    batchsvd::Options o;
    o.stream = st;
    auto list_call = [&] {
        batchsvd::gesvd_vbatched<T>(batch, ms.data(), ns.data(), batchsvd::MatrixList<const T>{ap.data(), lda.data()},
                                    sp.data(), batchsvd::MatrixList<T>{up.data(), ldu.data()},
                                    batchsvd::MatrixList<T>{vp.data(), ldv.data()}, info.p, o);
    };
    auto one_group = [&](const Group& gr) {
        batchsvd::gesvd<T>(gr.m, gr.n, gr.count, pa.p + gr.a, ps.p + gr.s, pu.p + gr.u, pv.p + gr.v, pinfo.p + gr.first, o);
    };
    Row r;
    r.batch = batch;
    r.shapes = index_t(groups.size());
    r.list_ms = median_ms(st, reps, list_call);
    r.per_size_ms = median_ms(st, reps, [&] {
        for (const Group& gr : packed) one_group(gr);
    });
    const Group& largest = *std::max_element(packed.begin(), packed.end(), [](const Group& x, const Group& y) {
        return double(x.count) * x.m * x.n * std::min(x.m, x.n) < double(y.count) * y.m * y.n * std::min(y.m, y.n);
    });
    r.largest_ms = median_ms(st, reps, [&] { one_group(largest); });
    std::vector<int> hi(nb), hp(nb);
    CK(cudaMemcpy(hi.data(), info.p, hi.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hp.data(), pinfo.p, hp.size() * sizeof(int), cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < hi.size(); ++i) {
        if (std::abs(hi[i]) > std::abs(r.max_info)) r.max_info = hi[i];
        if (std::abs(hp[i]) > std::abs(r.max_info)) r.max_info = hp[i];
    }
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    std::string cases = "mixed_small,mixed_shapes,heavy_tail", precisions = "float64,float32";
    int reps = 5;
    double scale = 1;
    std::uint64_t seed = std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "vbatched_device_bench: %s needs a value\n", arg.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (arg == "--cases") cases = value();
        else if (arg == "--precisions") precisions = value();
        else if (arg == "--reps") reps = std::max(1, std::atoi(value().c_str()));
        else if (arg == "--seed") seed = std::strtoull(value().c_str(), nullptr, 10);
        else if (arg == "--scale") scale = std::atof(value().c_str());
        else {
            std::fprintf(stderr, "vbatched_device_bench: unknown option %s (see the source's header)\n", arg.c_str());
            return 2;
        }
    }
    for (const std::string& c : split(cases))
        if (c != "mixed_small" && c != "mixed_shapes" && c != "heavy_tail") {
            std::fprintf(stderr, "vbatched_device_bench: unknown case %s\n", c.c_str());
            return 2;
        }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        std::fprintf(stderr, "vbatched_device_bench: no CUDA device\n");
        return 2;
    }
    const std::string gpu = batchsvd::bench::gpu_name(kProgram), date = batchsvd::bench::today(),
                      commit = batchsvd::bench::git_commit();
    cudaStream_t st = nullptr;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    std::fprintf(stderr, "vbatched_device_bench: seed %llu\n", static_cast<unsigned long long>(seed));
    std::printf("gpu,date,commit,mode,api,case,precision,batch,distinct_shapes,batchsvd_ms,per_size_ms,per_size_ratio,"
                "largest_group_ms,largest_group_fraction,max_info\n");
    int ci = 0;
    for (const std::string& c : split(cases)) {
        std::mt19937_64 g(seed + 1000003ull * std::uint64_t(ci++));
        const auto shapes = draw_shapes(c, scale, g);
        for (const std::string& p : split(precisions)) {
            Row r;
            if (p == "float64") r = run_case<double>(shapes, seed + 7, reps, st);
            else if (p == "float32") r = run_case<float>(shapes, seed + 7, reps, st);
            else {
                std::fprintf(stderr, "vbatched_device_bench: precision %s (float64 or float32)\n", p.c_str());
                return 2;
            }
            std::printf("\"%s\",%s,%s,vbatched,c++,%s,%s,%lld,%lld,%.4f,%.4f,%.4f,%.4f,%.4f,%d\n", gpu.c_str(), date.c_str(),
                        commit.c_str(), c.c_str(), p.c_str(), static_cast<long long>(r.batch),
                        static_cast<long long>(r.shapes), r.list_ms, r.per_size_ms, r.per_size_ms / r.list_ms,
                        r.largest_ms, r.largest_ms / r.list_ms, r.max_info);
            std::fflush(stdout);
        }
    }
    CK(cudaStreamDestroy(st));
    return 0;
}
