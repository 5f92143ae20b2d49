#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The CPU build's test suite under AddressSanitizer and UndefinedBehaviorSanitizer (GCC):
# the library, the CPU backend, the CLI and the .npy reader; the CUDA backend is left out
# (device code runs under compute-sanitizer on a GPU machine instead, see the README).
#   scripts/sanitize.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
source scripts/env.sh
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBATCHSVD_WITH_CUDA=OFF \
      -DBATCHSVD_BUILD_TESTS=ON -DBATCHSVD_BUILD_TOOLS=ON -DBATCHSVD_BUILD_BENCH=OFF \
      -DCMAKE_CXX_FLAGS="$san" -DCMAKE_EXE_LINKER_FLAGS="$san" -DCMAKE_SHARED_LINKER_FLAGS="$san"
cmake --build build-asan -j "$JOBS"
# detect_leaks stays on; the consumer-project test builds its own tree without the flags.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
(cd build-asan && ctest -j "$JOBS" --output-on-failure --timeout 3600 -E consumer_project)
