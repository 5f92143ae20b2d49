#!/usr/bin/env bash
# Session 19, call 17 (H100): the route and preconditioning tests after the last test change.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 gpu-carry/batchsvd_tests --gtest_filter='*Precondition*:*Qr*:*Blocked*:CudaSymmetricEig*' >$OUT/c17_tests.log 2>&1
echo "tests rc $?"
grep -E '^\[  PASSED|^\[  FAILED|FAILED TEST|Failure' -A3 $OUT/c17_tests.log | head -30
