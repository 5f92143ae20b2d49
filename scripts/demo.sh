#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The README's first command: install dependencies, build, and run an SVD of a sample batch
# on the best backend present (the GPU if there is one, else the CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
source scripts/env.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$JOBS" --target batchsvd_cli
build/tools/batchsvd demo
