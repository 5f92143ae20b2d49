#!/usr/bin/env bash
# Session 17, calls 1 and 2: the refinement step of the preconditioner on and off, cuSOLVER's
# syevBatched ALG_1, the per-sweep log, and the preconditioning tests. Run from the repository
# root on the GPU machine with gpu-pack/ carried; files go to $OUT.
set -u
P=${1:-c2}  # file prefix: the call
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
B=gpu-carry/batchsvd_gpu_bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
C=f64:1000:256:256,f64:1000:128:128,f64:50:512:512,c128:1000:128:128,f32:1000:256:256,f64:1000:256:256:nopre
echo "== refine on (default)"
$B --no-peers --cases $C --csv $OUT/${P}_refine.csv --label "refine on" 2>$OUT/${P}_refine.err | tail -n +3
echo "== refine off"
BATCHSVD_CUDA_PRECONDITION_REFINE=0 $B --no-peers --cases $C --csv $OUT/${P}_norefine.csv --label "refine off" 2>/dev/null | tail -n +3
echo "== syev ALG_1, refine on"
BATCHSVD_CUDA_SYEV_ALG=1 $B --no-peers --no-sweep-count --cases f64:1000:256:256,f64:1000:128:128,f64:50:512:512 --csv $OUT/${P}_alg1.csv --label "syev ALG_1" 2>/dev/null | tail -n +3
for r in 1 0; do
  for c in f64:1000:256:256 f64:1000:128:128 f64:50:512:512; do
    echo "== sweep log refine=$r $c (counts of lines over warm-up and timed runs)"
    BATCHSVD_CUDA_SWEEP_LOG=1 BATCHSVD_CUDA_PRECONDITION_REFINE=$r $B --no-peers --no-sweep-count --reps 2 --cases $c 2>&1 >/dev/null | grep '^blocked sweep' | sort | uniq -c | sort -k4n | head -20
  done
done
echo "== tests"
timeout 200 gpu-carry/batchsvd_tests --gtest_filter='*Precondition*:*Blocked*' >$OUT/${P}_tests.log 2>&1
grep -E '^\[  PASSED|^\[  FAILED|FAILED TEST|tests ran' $OUT/${P}_tests.log | head
