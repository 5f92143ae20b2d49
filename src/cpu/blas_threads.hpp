// SPDX-License-Identifier: BSD-3-Clause
// The BLAS's own threads, held to one while the CPU backend runs. The backend calls the BLAS
// (the preconditioning's products and eigensolver) from its own OpenMP threads, one matrix a
// thread: a BLAS that starts its own threads inside each of those calls oversubscribes the
// cores (OpenBLAS's pthreads build: 200 x 128^2 float64 on 2 cores 1.65 s against 0.23 s held
// to one), and its sums would depend on its thread count. OpenBLAS's thread setter is bound
// weakly, so any BLAS links. Without it: reference BLAS and BLIS's default build run on one
// thread; MKL and OpenBLAS's OpenMP build run on one inside an OpenMP parallel region.
#pragma once

namespace batchsvd::cpu {

/// While one of these lives (any number, on any threads), the BLAS runs on one thread; the
/// count it had before the first one is restored when the last one ends.
class SingleThreadedBlas {
public:
    SingleThreadedBlas();
    ~SingleThreadedBlas();
    SingleThreadedBlas(const SingleThreadedBlas&) = delete;
    SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;
};

}  // namespace batchsvd::cpu
