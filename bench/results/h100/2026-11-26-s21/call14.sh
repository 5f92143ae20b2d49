#!/usr/bin/env bash
# Session 21, call 14 (H100): with the split eigensolver, do the blocked path's two halves
# (orders 128-256, batch x N^2 >= 2^23) still win? The same binary (a8259df; 22a3d36 differs in comments only) with
# BATCHSVD_CUDA_BLOCKED_SLICES=1 (one stream) and =2 (two halves), two rounds in both orders,
# float64 and complex64 at 128^2-320^2. From the repository root with gpu-pack/ carried.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
B=gpu-carry/batchsvd_gpu_bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
C=f64:1000:128:128,f64:1000:192:192,f64:1000:256:256,f64:1000:300:300,f64:1000:320:320,c64:1000:200:200
for r in 1 2; do
  for sl in 1 2; do
    if [ $r = 2 ]; then sl=$((3 - sl)); fi
    echo "== slices $sl, round $r"
    BATCHSVD_CUDA_BLOCKED_SLICES=$sl $B --no-peers --no-sweep-count --cases $C --csv $OUT/c14_slices${sl}_$r.csv --label "slices $sl" 2>/dev/null | tail -n +3 | grep -v '^plan'
  done
done
