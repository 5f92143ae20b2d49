#!/usr/bin/env bash
# Session 19, call 15 (H100): the GPU tests after the tall and complex64 rules of call 14,
# and issue 5's float64 1000 x 64^2 and 128^2 again without peers (their routes are unchanged).
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
gpu-carry/batchsvd_gpu_bench --no-peers --cases f64:1000:64:64,f64:1000:128:128,c64:1000:100:64,f32:1000:256:64 \
   --csv $OUT/c15_check.csv --label "after the tall rules" 2>/dev/null | tail -n +3 | grep -v '^plan'
timeout 420 gpu-carry/batchsvd_tests --gtest_filter='*Cuda*:*cuda*' >$OUT/c15_tests.log 2>&1
echo "tests rc $?"
grep -E '^\[  PASSED|^\[  FAILED|FAILED TEST|SKIPPED|Failure' $OUT/c15_tests.log | head -20
