#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs on a machine with one or more GPUs: builds the Python package there, runs the Dask tests
# (python/tests/test_dask.py, test_dask_cuda.py: one dask-cuda worker a GPU) and the Dask-CUDA
# benchmark (bench/dask_bench.py --cuda): 1 and 2 GPU workers against a direct call on
# 10^6 x 32^2 float64 from host memory and from GPU memory, and the values of a batch larger
# than one GPU's memory (1.1 x 10^7 x 32^2 float64, 90 GB) from host memory.
#   scripts/gpu_dask.sh [--wheels DIR] [--tests-only | --bench-only] [--host-only] [--reps N]
# --host-only: of the benchmark, only 10^6 x 32^2 from host memory (threads= default and 8).
# --wheels DIR: install dask, distributed and dask-cuda from the wheels in DIR, without their
# dependencies and without an index (a machine without network whose image has the rest);
# else they must be installed (pip install ".[dask-cuda]").
# Output in $OUT (default gpu-out/): pybuild.log, pytest_dask.log, dask_*.csv.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out"
wheels= tests=1 bench=1 reps=3 host_only=0
while [ $# -gt 0 ]; do
  case $1 in
    --wheels) [ $# -ge 2 ] || { echo "gpu_dask: --wheels needs a directory" >&2; exit 2; }
              wheels=$2; shift ;;
    --tests-only) bench=0 ;;
    --bench-only) tests=0 ;;
    --host-only) host_only=1 ;;
    --reps) [ $# -ge 2 ] || { echo "gpu_dask: --reps needs a value" >&2; exit 2; }
            reps=$2; shift ;;
    *) echo "gpu_dask: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
if [ -n "$wheels" ]; then
  python3 -m pip install -q --no-index --no-deps "$wheels"/*.whl || { echo "gpu_dask: wheels failed" >&2; exit 1; }
fi
CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) python3 -m pip install -q --no-build-isolation --no-deps \
  -C cmake.define.CMAKE_CUDA_ARCHITECTURES=90 -C build-dir=/tmp/batchsvd-pybuild . >"$out/pybuild.log" 2>&1 \
  || { echo "gpu_dask: the Python build failed"; tail -20 "$out/pybuild.log"; exit 1; }
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader >"$out/gpus.txt" 2>&1
python3 -m pip list 2>/dev/null | grep -iE "^(dask|distributed|dask-cuda|cupy)" >>"$out/gpus.txt"
cat "$out/gpus.txt"
status=0
if [ $tests = 1 ]; then
  (cd python/tests && python3 -m pytest -q -rs test_dask.py test_dask_cuda.py) >"$out/pytest_dask.log" 2>&1 || status=1
  tail -8 "$out/pytest_dask.log"
fi
if [ $bench = 1 ]; then
  b() { python3 bench/dask_bench.py --cuda --reps "$reps" "$@"; }
  if [ $host_only = 1 ]; then
    b --batch 1000000 --m 32 --n 32 --chunks 125000,250000 --csv "$out/dask_host.csv" || status=1
  else
    b --batch 1000000 --m 32 --n 32 --chunks 62500,125000,250000 --csv "$out/dask_host.csv" || status=1
    b --batch 1000000 --m 32 --n 32 --chunks 125000,250000 --input cupy --csv "$out/dask_cupy.csv" || status=1
    b --batch 1000000 --m 32 --n 32 --chunks 125000 --threads-per-worker 2 --csv "$out/dask_host_2threads.csv" \
      || status=1
    b --batch 11000000 --m 32 --n 32 --chunks 500000 --values --no-direct --reps 2 --csv "$out/dask_large_values.csv" \
      || status=1
  fi
  b --batch 1000000 --m 32 --n 32 --chunks 125000,250000 --task-threads 8 --csv "$out/dask_host_8copythreads.csv" \
    || status=1
  cat "$out"/dask_*.csv
fi
exit $status
