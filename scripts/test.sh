#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The README's test command (and CI's, through .ci/run): build everything (the CUDA backend
# too when nvcc exists, so that kernels keep compiling), run the C++ test suite, then build
# and install the Python package (pip install .) and run its pytest suite. GPU cases skip
# with a message on machines without a CUDA device.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
source scripts/env.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATCHSVD_BUILD_TESTS=ON \
      -DBATCHSVD_BUILD_TOOLS=ON -DBATCHSVD_BUILD_BENCH=ON
cmake --build build -j "$JOBS"
(cd build && ctest -j "$JOBS" --output-on-failure --timeout 1800)
# (--break-system-packages: a Debian python3 refuses pip installs outside a venv otherwise)
python3 -m pip install -q --force-reinstall --no-deps . ||
  python3 -m pip install -q --force-reinstall --no-deps --break-system-packages .
(cd python/tests && python3 -m pytest -q -p no:cacheprovider .)
