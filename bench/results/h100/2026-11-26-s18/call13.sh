#!/usr/bin/env bash
# Session 18, call 13: after the review's mends (shared block reductions, pair skipping from
# block stamps alone, the halves rule in svd_cuda.cu, a test helper): the GPU tests, and
# issue 5's float64 cases plus float32 / complex 256^2 without peers (against call 11). From
# the repository root on the GPU machine with gpu-pack/ carried; files go to $OUT.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
B=gpu-carry/batchsvd_gpu_bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
$B --no-peers --cases f64:1000:64:64,f64:1000:128:128,f64:1000:256:256,f64:50:512:512,f32:1000:256:256,c64:1000:256:256,c128:1000:128:128 \
   --csv $OUT/c13_check.csv --label "after the review" 2>/dev/null | tail -n +3 | grep -v '^plan'
timeout 330 gpu-carry/batchsvd_tests --gtest_filter='*Cuda*:*cuda*' >$OUT/c13_tests.log 2>&1
echo "tests rc $?"
grep -E '^\[  PASSED|^\[  FAILED|FAILED TEST|SKIPPED' $OUT/c13_tests.log | head -20
