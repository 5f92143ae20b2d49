// SPDX-License-Identifier: BSD-3-Clause
// The choice among jacobi_lanes's instruction sets, once per process.
#include "cpu/lanes/jacobi_lanes.hpp"

#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace batchsvd::cpu {

bool lane_isa_available(LaneIsa isa) {
    switch (isa) {
    case LaneIsa::baseline:
        return true;
    case LaneIsa::avx2:
#if defined(BATCHSVD_LANES_HAVE_AVX2)
        return __builtin_cpu_supports("avx2");
#else
        return false;
#endif
    case LaneIsa::avx512:
#if defined(BATCHSVD_LANES_HAVE_AVX512)
        return __builtin_cpu_supports("avx512f");
#else
        return false;
#endif
    }
    return false;
}

namespace {

LaneIsa choose_lane_isa() {
    LaneIsa best = LaneIsa::baseline;
    for (LaneIsa isa : {LaneIsa::avx2, LaneIsa::avx512})
        if (lane_isa_available(isa)) best = isa;
    // BATCHSVD_CPU_LANES lowers the choice (for measurements and tests); it never raises it.
    if (const char* want = std::getenv("BATCHSVD_CPU_LANES")) {
        const LaneIsa asked = std::strcmp(want, "baseline") == 0 ? LaneIsa::baseline
                              : std::strcmp(want, "avx2") == 0   ? LaneIsa::avx2
                                                                 : LaneIsa::avx512;
        if (asked < best) best = asked;
    }
    return best;
}

template <class R> void dispatch(const LaneGroup<R>& g, LaneIsa isa) {
    switch (isa) {
#if defined(BATCHSVD_LANES_HAVE_AVX512)
    case LaneIsa::avx512:
        lanes_avx512::jacobi_lanes(g);
        return;
#endif
#if defined(BATCHSVD_LANES_HAVE_AVX2)
    case LaneIsa::avx2:
        lanes_avx2::jacobi_lanes(g);
        return;
#endif
    default:
        lanes_baseline::jacobi_lanes(g);
    }
}

}  // namespace

LaneIsa lane_isa() {
    static const LaneIsa isa = choose_lane_isa();
    return isa;
}

bool lanes_enabled() {
    static const bool enabled = [] {
        const char* want = std::getenv("BATCHSVD_CPU_LANES");
        return !(want && std::strcmp(want, "off") == 0);
    }();
    return enabled;
}

void jacobi_lanes(const LaneGroup<float>& g, LaneIsa isa) { dispatch(g, isa); }
void jacobi_lanes(const LaneGroup<double>& g, LaneIsa isa) { dispatch(g, isa); }

}  // namespace batchsvd::cpu
