#!/usr/bin/env bash
# Session 21, call 15 (H100): the final code (a4af7d5: two halves up to real order 336): every
# GPU test; issue 5's float64 cases with every peer; the orders whose route changed (default,
# now halves, against one stream). From the repository root with gpu-pack/ carried.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
B=gpu-carry/batchsvd_gpu_bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 gpu-carry/batchsvd_tests --gtest_filter='*Cuda*:*cuda*' >$OUT/c15_tests.log 2>&1
echo "tests rc $?"
grep -E '^\[  PASSED|^\[  FAILED|FAILED TEST|SKIPPED|Failure' $OUT/c15_tests.log | head -20
echo "== issue 5, every peer"
$B --cap 20 --cases f64:1000:64:64,f64:1000:128:128,f64:1000:256:256,f64:50:512:512,f64:1000:1000:16,f64:1:4096:4096 \
   --csv $OUT/c15_issue5.csv --label "issue 5, session 21 final" 2>$OUT/c15_issue5.err | tee $OUT/c15_issue5.txt | tail -n +2 | grep -v '^geo'
echo "== 300^2 and 320^2: default (halves) against one stream"
$B --no-peers --no-sweep-count --cases f64:1000:300:300,f64:1000:320:320,f64:400:300:300 --csv $OUT/c15_default.csv --label "default" 2>/dev/null | tail -n +3 | grep -v '^plan'
BATCHSVD_CUDA_BLOCKED_SLICES=1 $B --no-peers --no-sweep-count --cases f64:1000:300:300,f64:1000:320:320,f64:400:300:300 --csv $OUT/c15_one.csv --label "one stream" 2>/dev/null | tail -n +3 | grep -v '^plan'
