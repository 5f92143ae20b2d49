#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs on the GPU machine: the soak (bench/soak.cu), random calls of the CUDA backend for a
# fixed time, every result checked on the GPU and device memory sampled after every call.
#   scripts/gpu_soak.sh [--seconds S] [--seed N]      (default 480 s: with start-up and the
#                                                      last call, about 8.5 minutes)
# Output in $OUT (default gpu-out/): soak.log (the GPU's line, the header, every failed call
# in full, progress, the summary: calls, failures, worst errors, memory and its high-water
# mark) and soak_calls.log.gz (one line per call). The exit status is the soak's: 0 when every
# call passed and memory stayed flat.
# The binary comes from gpu-carry/ (or its packed form in gpu-pack/, as
# scripts/gpu_check.sh), else from build-gpu/bench/, else it is built there first.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out"
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --seconds|--seed) [ $# -ge 2 ] || { echo "gpu_soak: $1 needs a value" >&2; exit 2; }
                      args+=("$1" "$2"); shift ;;
    *) echo "gpu_soak: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[ -x gpu-carry/batchsvd_soak ] || scripts/gpu_unpack.sh  # (gpu-pack/, scripts/gpu_build.sh)
bin=gpu-carry/batchsvd_soak
if [ ! -x "$bin" ]; then
  bin=build-gpu/bench/batchsvd_soak
  if [ ! -x "$bin" ]; then
    source scripts/env.sh
    cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
          -DBATCHSVD_BUILD_TESTS=OFF -DBATCHSVD_BUILD_TOOLS=OFF -DBATCHSVD_BUILD_BENCH=ON >/dev/null &&
      cmake --build build-gpu -j "$JOBS" --target batchsvd_soak || { echo "gpu_soak: build failed" >&2; exit 1; }
  fi
fi
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export BATCHSVD_GIT_COMMIT=${BATCHSVD_GIT_COMMIT:-$(cat gpu-carry/COMMIT 2>/dev/null || echo unknown)}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$out/soak.log" 2>&1
"$bin" ${args[@]+"${args[@]}"} --calls "$out/soak_calls.log" >>"$out/soak.log" 2>&1
status=$?
gzip -f "$out/soak_calls.log" 2>/dev/null ||
  python3 - "$out/soak_calls.log" <<'EOF'
import gzip, os, shutil, sys
with open(sys.argv[1], "rb") as src, gzip.open(sys.argv[1] + ".gz", "wb") as dst:
    shutil.copyfileobj(src, dst)
os.remove(sys.argv[1])
EOF
tail -n 14 "$out/soak.log"
echo "gpu_soak: exit status $status"
exit $status
