#!/usr/bin/env bash
# Session 18, call 8: the two interleaved halves in the library (blocked_path.cu
# blocked_slices) against one stream (BATCHSVD_CUDA_BLOCKED_SLICES=1) in the same run, every
# precision; issue 5's float64 cases with every peer; the GPU tests. From the repository root
# on the GPU machine with gpu-pack/ carried; files go to $OUT.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
B=gpu-carry/batchsvd_gpu_bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
C=f64:50:512:512,f64:100:512:512,f64:1000:256:256,f64:1000:128:128,f64:40:1024:1024,f32:1000:256:256,f32:1000:128:128,c64:1000:256:256,c64:200:384:384,c128:1000:128:128,c128:50:512:512,f64:1000:500:100
echo "== halves (default)"
$B --no-peers --no-sweep-count --cases $C --csv $OUT/c8_halves.csv --label "two halves" 2>/dev/null | tail -n +3 | grep -v '^plan'
echo "== one stream"
BATCHSVD_CUDA_BLOCKED_SLICES=1 $B --no-peers --no-sweep-count --cases $C --csv $OUT/c8_one.csv --label "one stream" 2>/dev/null | tail -n +3 | grep -v '^plan'
echo "== issue 5, every peer"
$B --cap 20 --cases f64:1000:64:64,f64:1000:128:128,f64:1000:256:256,f64:50:512:512,f64:1000:1000:16,f64:1:4096:4096 \
   --csv $OUT/c8_issue5.csv --label "issue 5, halves" 2>$OUT/c8_issue5.err | tee $OUT/c8_issue5.txt | tail -n +2 | grep -v '^geo'
echo "== tests"
timeout 330 gpu-carry/batchsvd_tests --gtest_filter='*Cuda*:*cuda*' >$OUT/c8_tests.log 2>&1
echo "tests rc $?"
grep -E '^\[  PASSED|^\[  FAILED|FAILED TEST|SKIPPED|tests ran' $OUT/c8_tests.log | head -20
