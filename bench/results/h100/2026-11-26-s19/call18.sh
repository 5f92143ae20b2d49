#!/usr/bin/env bash
# Session 19, call 18 (H100): after the review's mends (one Householder reflector rule for the
# QR panels and the tridiagonalisation, shared helpers, the test's generator): the GPU tests, and
# a few timings without peers against call 13 / 16.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
gpu-carry/batchsvd_gpu_bench --no-peers --cases f64:1000:64:64,f64:1000:128:128,f64:1000:256:256,f64:1000:1000:16,c64:1000:128:128 \
   --csv $OUT/c18_check.csv --label "after the review" 2>/dev/null | tail -n +3 | grep -v '^plan'
timeout 420 gpu-carry/batchsvd_tests --gtest_filter='*Cuda*:*cuda*' >$OUT/c18_tests.log 2>&1
echo "tests rc $?"
grep -E '^\[  PASSED|^\[  FAILED|FAILED TEST|SKIPPED|Failure' $OUT/c18_tests.log | head -20
