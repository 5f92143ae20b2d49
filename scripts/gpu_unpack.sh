#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# On the GPU machine: unpacks every archive in gpu-pack/ (scripts/gpu_build.sh)
# into gpu-carry/. Python's tarfile, as the machine may lack xz. The scripts/gpu_*.sh call it
# when their program is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
shopt -s nullglob
for f in gpu-pack/*.tar.xz; do
  python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall()" "$f"
done
