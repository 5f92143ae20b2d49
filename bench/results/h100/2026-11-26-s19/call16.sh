#!/usr/bin/env bash
# Session 19, call 16 (H100): the GPU tests on the final code (the routing override limited to
# the automatic rule), and issue 5's 64^2 / 128^2 without peers.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
gpu-carry/batchsvd_gpu_bench --no-peers --cases f64:1000:64:64,f64:1000:128:128,f64:1000:256:64 \
   --csv $OUT/c16_check.csv --label "final" 2>/dev/null | tail -n +3 | grep -v '^plan'
timeout 420 gpu-carry/batchsvd_tests --gtest_filter='*Cuda*:*cuda*' >$OUT/c16_tests.log 2>&1
echo "tests rc $?"
grep -E '^\[  PASSED|^\[  FAILED|FAILED TEST|SKIPPED|Failure' $OUT/c16_tests.log | head -20
