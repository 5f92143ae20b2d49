// SPDX-License-Identifier: BSD-3-Clause
// The instruction sets the CPU backend is compiled for, and the one a process uses.
//
// svd_cpu.cpp (the whole backend: QR, preconditioning, Jacobi, finalisation) is compiled once
// per instruction set, each copy in a namespace of its own (BATCHSVD_CPU_BEGIN below), and the
// dispatcher (isa.cpp) calls the best copy the processor runs; the lanes kernel
// (lanes/jacobi_lanes_isa.cpp) likewise. The copies are compiled without fused multiply-adds
// (-ffp-contract=off) and every sum has a fixed order, so for real types they give bitwise
// the same results; only their vector width differs. Complex types take the baseline copy
// (entry.cpp says why).
#pragma once

namespace batchsvd::cpu {

/// Instruction sets, lowest first.
enum class Isa { baseline, avx2, avx512 };

/// Whether this build has a copy for `isa` and this processor runs it.
bool isa_available(Isa isa);
/// The best available one; BATCHSVD_CPU_ISA=baseline|avx2|avx512 asks for a lower one.
Isa chosen_isa();
const char* to_string(Isa isa);

}  // namespace batchsvd::cpu

// The namespace of the current copy (isa_baseline unless the build names another): the
// backend's headers open it with BATCHSVD_CPU_BEGIN, so each copy's templates are its own.
#if !defined(BATCHSVD_CPU_ISA_NS)
#define BATCHSVD_CPU_ISA_NS isa_baseline
#endif
#define BATCHSVD_CPU_BEGIN \
    namespace batchsvd::cpu {  \
    inline namespace BATCHSVD_CPU_ISA_NS {
#define BATCHSVD_CPU_END \
    }                    \
    }
