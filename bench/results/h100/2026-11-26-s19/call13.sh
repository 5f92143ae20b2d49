#!/usr/bin/env bash
# Session 19, call 13 (H100): the final code: issue 5's float64 cases with every peer, a few
# other precisions without peers, and the GPU tests. From the repository root on the GPU
# machine with gpu-pack/ carried; files go to $OUT.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
B=gpu-carry/batchsvd_gpu_bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== issue 5, every peer"
$B --cap 20 --cases f64:1000:64:64,f64:1000:128:128,f64:1000:256:256,f64:50:512:512,f64:1000:1000:16,f64:1:4096:4096 \
   --csv $OUT/c13_issue5.csv --label "issue 5, session 19 final" 2>$OUT/c13_issue5.err | tee $OUT/c13_issue5.txt | tail -n +2 | grep -v '^geo'
echo "== other precisions"
$B --no-peers --cases f32:1000:128:128,f32:1000:256:256,c64:1000:128:128,c128:1000:64:64,c128:1000:128:128 \
   --csv $OUT/c13_others.csv --label "session 19 final, other precisions" 2>/dev/null | tail -n +3 | grep -v '^plan'
timeout 400 gpu-carry/batchsvd_tests --gtest_filter='*Cuda*:*cuda*' >$OUT/c13_tests.log 2>&1
echo "tests rc $?"
grep -E '^\[  PASSED|^\[  FAILED|FAILED TEST|SKIPPED|Failure' $OUT/c13_tests.log | head -20
