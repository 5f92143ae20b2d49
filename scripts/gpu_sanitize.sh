#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs, on the GPU machine, compute-sanitizer's memcheck, synccheck and initcheck over the GPU
# test cases that reach every kernel and path: the tiny, warp, fused and blocked kernels, QR
# pre-processing, the preconditioner (its safeguard and refinement), NaN/Inf in a batch, rank
# deficiency, scaling, U/V off, the sweep limit, workspace chunks and host streaming, in all
# four precisions (one process each, side by side); racecheck over one small batch per path.
# Logs go to $OUT (or gpu-out/):
# memcheck.log, racecheck.log, synccheck.log, initcheck.log; the last lines are each tool's
# error summary. Binaries come from gpu-carry/ or gpu-pack/ (scripts/gpu_build.sh).
#   scripts/gpu_sanitize.sh [memcheck|racecheck|synccheck|initcheck ...]   (default: all four)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out"
[ -x gpu-carry/batchsvd_tests ] || scripts/gpu_unpack.sh  # (gpu-pack/, scripts/gpu_build.sh)
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
tools=("$@")
[ ${#tools[@]} -eq 0 ] && tools=(memcheck racecheck synccheck initcheck)
# Every path, on small batches (the sanitizers slow kernels down 10-100x).
cases='CudaDevice/*.NanMatrixMidBatch:CudaDevice/*.UOrVOffAndValuesOnly:CudaDevice/*.RankDeficientAndZero'
cases+=':CudaDevice/*.ScalingOfHugeAndTinyEntries:CudaDevice/*.MaxSweepsReported'
cases+=':CudaDevice/*.SmallKernelsAreDeterministic:CudaDevice/*.BlockedPathIsDeterministic'
cases+=':CudaDevice/*.BlockedMaskedBatchMixesEasyAndHard:CudaDevice/*.TinyTraps:CudaDevice/*.TinyNonFiniteIsolated'
cases+=':CudaDevice/*.WorkspaceChunksMatchWholeBatch:CudaDevice/*.HostStreamedChunksMatchWholeBatch'
cases+=':CudaDevice/*.PreconditionSafeguardDropsABadBasis:CudaDevice/*.PreconditionRefinementEdgeCases'
cases+=':CudaDeviceApi.*'
# racecheck tracks every shared-memory access and is 100x slower still: one small batch per
# path (CudaDevice.EveryPathOnASmallBatch).
small='CudaDevice/*.EveryPathOnASmallBatch'
status=0
for tool in "${tools[@]}"; do
  echo "== compute-sanitizer --tool $tool"
  if [ "$tool" = racecheck ]; then
    compute-sanitizer --tool racecheck --print-limit 50 gpu-carry/batchsvd_tests --gtest_filter="$small" \
      >"$out/racecheck.log" 2>&1 || status=1
    grep -E "RACECHECK SUMMARY|^\[  PASSED|^\[  FAILED" "$out/racecheck.log" | tail -4
    continue
  fi
  # One process per precision (the typed tests' index 0-3) and one for the API tests, side
  # by side: the instrumented kernels leave the GPU mostly idle, so four run in about the time
  # of one. Their logs are joined into $tool.log, one section each.
  pids=()
  for part in 0 1 2 3 api; do
    if [ "$part" = api ]; then filter='CudaDeviceApi.*'
    else filter=$(echo "$cases" | sed "s#CudaDevice/\*\.#CudaDevice/$part.#g; s#:CudaDeviceApi\.\*##"); fi
    compute-sanitizer --tool "$tool" --print-limit 50 gpu-carry/batchsvd_tests --gtest_filter="$filter" \
      >"$out/$tool.$part.log" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  : >"$out/$tool.log"
  for part in 0 1 2 3 api; do
    { echo "=== part $part"; cat "$out/$tool.$part.log"; } >>"$out/$tool.log"
    rm -f "$out/$tool.$part.log"
  done
  grep -E "^=== part|ERROR SUMMARY|^\[  PASSED|^\[  FAILED" "$out/$tool.log"
done
exit $status
