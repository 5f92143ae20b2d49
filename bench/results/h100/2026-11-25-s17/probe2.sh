#!/usr/bin/env bash
# Session 17, call 5: the refinement step (from order 256, as fixed after calls 3-4) and the
# skipping of converged pairs, each on and off (BATCHSVD_CUDA_PRECONDITION_REFINE,
# BATCHSVD_CUDA_BLOCKED_SKIP), the per-sweep log, and the new GPU tests. From the repository
# root on the GPU machine with gpu-pack/ carried; files go to $OUT.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
B=gpu-carry/batchsvd_gpu_bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
C=f64:1000:256:256,f64:1000:128:128,f64:50:512:512,c128:1000:256:256,f32:1000:256:256,c64:1000:256:256,f64:1000:64:64,f64:10:512:512,f64:1000:256:256:nopre
echo "== default: refine from 256, skipping on"
$B --no-peers --cases $C --csv $OUT/c5_default.csv --label "refine from 256, skip on" 2>$OUT/c5_default.err | tail -n +3
echo "== refine off"
BATCHSVD_CUDA_PRECONDITION_REFINE=0 $B --no-peers --cases $C --csv $OUT/c5_norefine.csv --label "refine off, skip on" 2>/dev/null | tail -n +3 | grep -v "^plan"
echo "== skipping off"
BATCHSVD_CUDA_BLOCKED_SKIP=0 $B --no-peers --no-sweep-count --cases $C --csv $OUT/c5_noskip.csv --label "refine from 256, skip off" 2>/dev/null | tail -n +3 | grep -v "^plan"
echo "== both off (session 16's pipeline less its two copies)"
BATCHSVD_CUDA_BLOCKED_SKIP=0 BATCHSVD_CUDA_PRECONDITION_REFINE=0 $B --no-peers --no-sweep-count --cases $C --csv $OUT/c5_neither.csv --label "refine off, skip off" 2>/dev/null | tail -n +3 | grep -v "^plan"
for c in f64:1000:256:256 f64:50:512:512; do
  echo "== sweep log, default, $c"
  BATCHSVD_CUDA_SWEEP_LOG=1 $B --no-peers --no-sweep-count --reps 1 --cases $c 2>&1 >/dev/null | grep '^blocked sweep' | sort | uniq -c | sort -k4n | head -16
done
echo "== tests"
timeout 150 gpu-carry/batchsvd_tests --gtest_filter='*PreconditionRefinement*:*BlockedSkipping*:*PreconditionedFamilies*:*PreconditionedNeeds*:*BlockedFamilies*:*BlockedPairSplit*' >$OUT/c5_tests.log 2>&1
grep -E '^\[  PASSED|^\[  FAILED|FAILED TEST' $OUT/c5_tests.log | head -20
