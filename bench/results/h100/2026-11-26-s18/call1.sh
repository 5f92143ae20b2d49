#!/usr/bin/env bash
# Session 18, call 1: the GPU tests; issue 5's float64 cases with every peer; whether two or
# four concurrent calls on slices of the batch beat one (the preconditioner's eigensolve may
# leave the GPU idle); what a looser convergence threshold saves in sweeps and costs in e1-e4.
# From the repository root on the GPU machine with gpu-pack/ carried; files go to $OUT.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
B=gpu-carry/batchsvd_gpu_bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
C=f64:1000:256:256,f64:1000:128:128,f64:50:512:512
echo "== concurrent slices (ms): 1, 2, 4 calls"
for k in 1 2 4; do
  $B --no-peers --no-sweep-count --concurrent $k --cases $C,f32:1000:256:256 --csv $OUT/c1_concurrent$k.csv --label "concurrent $k" 2>/dev/null | tail -n +3 | grep -v '^plan'
done
echo "== tol_factor 30, 60, 120, 300 (sweeps, errors)"
for t in 30 60 120 300; do
  $B --no-peers --tol-factor $t --cases $C --csv $OUT/c1_tol$t.csv --label "tol_factor $t" 2>/dev/null | tail -n +3 | grep -v '^plan'
done
for t in 30 120; do
  echo "== sweep log, tol_factor $t, f64:1000:256:256"
  BATCHSVD_CUDA_SWEEP_LOG=1 $B --no-peers --no-sweep-count --reps 1 --tol-factor $t --cases f64:1000:256:256 2>&1 >/dev/null | grep '^blocked sweep' | sort | uniq -c | sort -k4n | head -8
done
echo "== tests"
timeout 330 gpu-carry/batchsvd_tests --gtest_filter='*Cuda*:*cuda*' >$OUT/c1_tests.log 2>&1
echo "tests rc $?"
grep -E '^\[  PASSED|^\[  FAILED|FAILED TEST|SKIPPED|tests ran' $OUT/c1_tests.log | head -20
