// SPDX-License-Identifier: BSD-3-Clause
#include "cpu/isa.hpp"

#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace batchsvd::cpu {

bool isa_available(Isa isa) {
    switch (isa) {
    case Isa::baseline:
        return true;
    case Isa::avx2:
#if defined(BATCHSVD_CPU_HAVE_AVX2)
        return __builtin_cpu_supports("avx2");
#else
        return false;
#endif
    case Isa::avx512:
#if defined(BATCHSVD_CPU_HAVE_AVX512)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
#else
        return false;
#endif
    }
    return false;
}

namespace {

Isa choose() {
    Isa best = Isa::baseline;
    for (Isa isa : {Isa::avx2, Isa::avx512})
        if (isa_available(isa)) best = isa;
    // BATCHSVD_CPU_ISA lowers the choice (for measurements and tests); it never raises it.
    if (const char* want = std::getenv("BATCHSVD_CPU_ISA")) {
        for (Isa isa : {Isa::baseline, Isa::avx2})
            if (std::strcmp(want, to_string(isa)) == 0 && isa < best) best = isa;
    }
    return best;
}

}  // namespace

Isa chosen_isa() {
    static const Isa isa = choose();
    return isa;
}

const char* to_string(Isa isa) {
    switch (isa) {
    case Isa::baseline:
        return "baseline";
    case Isa::avx2:
        return "avx2";
    case Isa::avx512:
        return "avx512";
    }
    return "?";
}

}  // namespace batchsvd::cpu
