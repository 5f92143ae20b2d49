#!/usr/bin/env bash
# Session 19, call 11 (H100): the GPU tests on the final code; the tall float64 route
# (blocked_beats_fused up to 4:1 preconditioned) and a few rule cases against forced routes.
# From the repository root on the GPU machine with gpu-pack/ carried; files go to $OUT.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
B=gpu-carry/batchsvd_gpu_bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
$B --no-peers --no-sweep-count --cases f64:1000:128:64,f64:1000:128:64:qr,f64:1000:256:64,f64:1000:256:64:qr,f64:1000:100:64,f64:1000:100:64:fused,f64:1000:40:40,f64:1000:40:40:fused,f32:1000:64:64,f32:1000:80:80,f32:1000:80:80:fused \
   --csv $OUT/c11_routes.csv --label "routes" 2>/dev/null | tail -n +3
timeout 420 gpu-carry/batchsvd_tests --gtest_filter='*Cuda*:*cuda*' >$OUT/c11_tests.log 2>&1
echo "tests rc $?"
grep -E '^\[  PASSED|^\[  FAILED|FAILED TEST|SKIPPED|tests ran|Failure' $OUT/c11_tests.log | head -30
