#!/usr/bin/env bash
# Session 21, call 12 (H100): the final code: every GPU test; compute-sanitizer's memcheck and
# synccheck over the eigensolver tests (both forms, real and complex, orders up to the split
# form's largest). From the repository root with gpu-pack/ carried.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 gpu-carry/batchsvd_tests --gtest_filter='*Cuda*:*cuda*' >$OUT/c12_tests.log 2>&1
echo "tests rc $?"
grep -E '^\[  PASSED|^\[  FAILED|FAILED TEST|SKIPPED|Failure' $OUT/c12_tests.log | head -20
for tool in memcheck synccheck; do
  timeout 130 compute-sanitizer --tool $tool --print-limit 20 gpu-carry/batchsvd_tests --gtest_filter='CudaSymmetricEig*' >$OUT/c12_$tool.log 2>&1
  echo "$tool rc $?"
  grep -E "ERROR SUMMARY|^\[  PASSED|^\[  FAILED" $OUT/c12_$tool.log | tail -3
done
