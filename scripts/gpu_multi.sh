#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs on a machine with several GPUs: the GPU test suite (its multi-device cases need two
# GPUs; they skip with fewer) and the multi-GPU benchmark (bench/multi_gpu_bench.cpp: 1, 2, 4
# and 8 GPUs, those the machine has, against one in the same run), and with --python the
# Python package built there and its multi-device and thread tests. NVLink multicast stays off.
#   scripts/gpu_multi.sh [--tests-only | --bench-only] [--python] [--filter GTEST_FILTER]
#                        [--reps N] [--gpus 1,2,4,8] [--input device|host|both]
#                        [--case PRECISION:BATCHxMxN ...]
# (--filter: the tests to run, by default the whole GPU suite, '*Cuda*:*cuda*', about 6 minutes.)
# Output in $OUT (default gpu-out/): gpus.txt (the GPUs and their links), gpu_tests.log,
# multigpu.csv, pytest_multi_gpu.log. Binaries come from gpu-carry/ or gpu-pack/
# (scripts/gpu_build.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
export NCCL_NVLS_ENABLE=0
out=${OUT:-gpu-out}
mkdir -p "$out"
tests=1 bench=1 python=0 filter='*Cuda*:*cuda*' bench_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --tests-only) bench=0 ;;
    --bench-only) tests=0 ;;
    --python) python=1 ;;
    --filter) [ $# -ge 2 ] || { echo "gpu_multi: --filter needs a value" >&2; exit 2; }
              filter=$2; shift ;;
    --reps|--gpus|--input|--case)
      [ $# -ge 2 ] || { echo "gpu_multi: $1 needs a value" >&2; exit 2; }
      bench_args+=("$1" "$2"); shift ;;
    *) echo "gpu_multi: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[ -x gpu-carry/batchsvd_multi_gpu_bench ] || scripts/gpu_unpack.sh  # (gpu-pack/, scripts/gpu_build.sh)
[ -x gpu-carry/batchsvd_multi_gpu_bench ] || { echo "gpu_multi: no binaries: run scripts/gpu_build.sh" >&2; exit 1; }
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# NCCL for one matrix over several GPUs (loaded at run time): PyPI's, where no other is named.
if [ -z "${BATCHSVD_NCCL_LIBRARY:-}" ]; then
  nccl=$(python3 -c "import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], 'lib', 'libnccl.so.2'))" 2>/dev/null)
  if [ -n "$nccl" ] && [ -f "$nccl" ]; then export BATCHSVD_NCCL_LIBRARY=$nccl; fi
fi
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader; nvidia-smi topo -m; } \
  >"$out/gpus.txt" 2>&1
cat "$out/gpus.txt"
status=0
pyjob=
if [ $python = 1 ]; then  # (built while the tests run: the build uses the CPUs, the tests the GPUs)
  ( CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) python3 -m pip install -q --no-build-isolation --no-deps \
      -C cmake.define.CMAKE_CUDA_ARCHITECTURES=90 -C build-dir=/tmp/batchsvd-pybuild . >"$out/pybuild.log" 2>&1 ) &
  pyjob=$!
fi
if [ $tests = 1 ]; then
  gpu-carry/batchsvd_tests --gtest_filter="$filter" >"$out/gpu_tests.log" 2>&1 || status=1
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran" "$out/gpu_tests.log" | tail -12
fi
pyok=1
if [ -n "$pyjob" ]; then wait "$pyjob" || pyok=0; fi  # (before the benchmark: the build loads every CPU)
if [ $bench = 1 ]; then
  gpu-carry/batchsvd_multi_gpu_bench ${bench_args[@]+"${bench_args[@]}"} >"$out/multigpu.csv" || status=1
  cat "$out/multigpu.csv"
fi
if [ -n "$pyjob" ]; then
  if [ $pyok = 1 ]; then
    python3 -m pytest -q -rs python/tests/test_multi_gpu.py python/tests/test_threads_gpu.py \
      >"$out/pytest_multi_gpu.log" 2>&1 || status=1
    tail -8 "$out/pytest_multi_gpu.log"
  else
    echo "gpu_multi: the Python build failed (pybuild.log)"; tail -20 "$out/pybuild.log"; status=1
  fi
fi
exit $status
