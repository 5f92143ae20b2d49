// SPDX-License-Identifier: BSD-3-Clause
// jacobi_lanes on the copy for the instruction set asked for (cpu/isa.hpp chooses it).
#include "cpu/lanes/jacobi_lanes.hpp"

#include <cstdlib>
#include <cstring>

namespace batchsvd::cpu {

namespace {

template <class R> void dispatch(const LaneGroup<R>& g, Isa isa) {
    switch (isa) {
#if defined(BATCHSVD_CPU_HAVE_AVX512)
    case Isa::avx512:
        lanes_avx512::jacobi_lanes(g);
        return;
#endif
#if defined(BATCHSVD_CPU_HAVE_AVX2)
    case Isa::avx2:
        lanes_avx2::jacobi_lanes(g);
        return;
#endif
    default:
        lanes_baseline::jacobi_lanes(g);
    }
}

}  // namespace

bool lanes_enabled() {
    static const bool enabled = [] {
        const char* want = std::getenv("BATCHSVD_CPU_LANES");
        return !(want && std::strcmp(want, "off") == 0);
    }();
    return enabled;
}

void jacobi_lanes(const LaneGroup<float>& g, Isa isa) { dispatch(g, isa); }
void jacobi_lanes(const LaneGroup<double>& g, Isa isa) { dispatch(g, isa); }

}  // namespace batchsvd::cpu
