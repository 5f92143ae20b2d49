#!/usr/bin/env bash
# Session 21, call 5 (H100): the committed code (1869704): every GPU test, and the other
# precisions at the orders the split form took over (no peers). From the repository root with
# gpu-pack/ carried.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
gpu-carry/batchsvd_gpu_bench --no-peers --cases f32:1000:256:256,c64:1000:200:200,c128:1000:200:200,c128:1000:128:128,f64:1000:300:300,f64:1000:200:200 \
   --csv $OUT/c5_others.csv --label "session 21, other precisions" 2>/dev/null | tail -n +3 | grep -v '^plan'
timeout 450 gpu-carry/batchsvd_tests --gtest_filter='*Cuda*:*cuda*' >$OUT/c5_tests.log 2>&1
echo "tests rc $?"
grep -E '^\[  PASSED|^\[  FAILED|FAILED TEST|SKIPPED|Failure' $OUT/c5_tests.log | head -20
