#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs on the GPU machine, in one go: the GPU test suite, then the benchmark
# against cuSOLVER in the same run, and prints a short table last. Logs and CSV go to $OUT
# (or gpu-out/ when OUT is unset).
#   scripts/gpu_check.sh [--tests-only | --bench-only] [--cases LIST] [--filter GTEST_FILTER]
#                        [--breakdown]   (blocked-path cases: time each part of a sweep)
#                        [--cpu-baseline] (LAPACK gesvd/gesvj in an OpenMP loop on the host)
#                        [--group quick|small|square|square_1000|tall|wide|large|tiny] [--cap SECONDS]
# Binaries come from gpu-carry/ or its packed form gpu-pack/ (scripts/gpu_build.sh on
# a machine without a GPU); where neither is present they are built here first.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out"
run_tests=1 run_bench=1 cases="" filter="*Cuda*:*cuda*" breakdown=0 cpu=0 group="" cap=""
while [ $# -gt 0 ]; do
  case $1 in
    --tests-only) run_bench=0 ;;
    --bench-only) run_tests=0 ;;
    --cases) cases=$2; shift ;;
    --filter) filter=$2; shift ;;
    --breakdown) breakdown=1 ;;
    --cpu-baseline) cpu=1 ;;
    --group) group=$2; shift ;;
    --cap) cap=$2; shift ;;
    *) echo "gpu_check: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
need=()
[ $run_tests -eq 1 ] && need+=(gpu-carry/batchsvd_tests)
[ $run_bench -eq 1 ] && need+=(gpu-carry/batchsvd_gpu_bench)
missing() { for b in "${need[@]}"; do [ -x "$b" ] || return 0; done; return 1; }
if missing; then scripts/gpu_unpack.sh; fi  # (gpu-pack/, scripts/gpu_build.sh)
if missing; then
  scripts/gpu_build.sh tests gpu_bench || { echo "gpu_check: build failed" >&2; exit 1; }
fi
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# NCCL for one matrix over several GPUs (loaded at run time): PyPI's, where no other is named.
if [ -z "${BATCHSVD_NCCL_LIBRARY:-}" ]; then
  nccl=$(python3 -c "import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], 'lib', 'libnccl.so.2'))" 2>/dev/null)
  if [ -n "$nccl" ] && [ -f "$nccl" ]; then export BATCHSVD_NCCL_LIBRARY=$nccl; fi
fi
export BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT 2>/dev/null || echo unknown)
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
status=0
if [ $run_tests -eq 1 ]; then
  # Every CUDA case (device pointers, and the shared harness on the cuda backend).
  gpu-carry/batchsvd_tests --gtest_filter="$filter" >"$out/gpu_tests.log" 2>&1
  status=$?
  tail -n 5 "$out/gpu_tests.log"
fi
if [ $run_bench -eq 1 ]; then
  args=(--csv "$out/gpu_bench.csv" --label "scripts/gpu_check.sh")
  [ -n "$cases" ] && args+=(--cases "$cases")
  [ $breakdown -eq 1 ] && args+=(--breakdown)
  [ $cpu -eq 1 ] && args+=(--cpu-baseline)
  [ -n "$group" ] && args+=(--group "$group")
  [ -n "$cap" ] && args+=(--cap "$cap")
  gpu-carry/batchsvd_gpu_bench "${args[@]}" 2>"$out/gpu_bench.err" | tee "$out/gpu_bench.txt"
  [ ${PIPESTATUS[0]} -eq 0 ] || status=1
fi
echo "gpu_check: tests $( [ $run_tests -eq 1 ] && grep -E '^\[  PASSED|FAILED TEST' "$out/gpu_tests.log" | head -3 | tr '\n' ' ')"
exit $status
