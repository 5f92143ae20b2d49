#!/usr/bin/env bash
# Session 18, call 9: the final build (two halves at orders 128-256 only, call 8): issue 5's
# float64 cases with every peer, and the GPU tests. From the repository root on the GPU
# machine with gpu-pack/ carried; files go to $OUT.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
B=gpu-carry/batchsvd_gpu_bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== issue 5, every peer"
$B --cap 20 --cases f64:1000:64:64,f64:1000:128:128,f64:1000:256:256,f64:50:512:512,f64:1000:1000:16,f64:1:4096:4096 \
   --csv $OUT/c9_issue5.csv --label "issue 5, session 18 final" 2>$OUT/c9_issue5.err | tee $OUT/c9_issue5.txt | tail -n +2 | grep -v '^geo'
echo "== tests"
timeout 330 gpu-carry/batchsvd_tests --gtest_filter='*Cuda*:*cuda*' >$OUT/c9_tests.log 2>&1
echo "tests rc $?"
grep -E '^\[  PASSED|^\[  FAILED|FAILED TEST|SKIPPED|tests ran' $OUT/c9_tests.log | head -20
