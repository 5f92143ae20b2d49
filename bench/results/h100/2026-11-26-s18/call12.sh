#!/usr/bin/env bash
# Session 18, call 12: the two halves against one stream again, now that the float64 kernel is
# rid of its spills (call 8 measured them with the spilled kernel): the default (halves at
# 128-256), BATCHSVD_CUDA_BLOCKED_SLICES=1 and =2, twice each. Build of call 11 (90f53e8). From
# the repository root on the GPU machine with gpu-pack/ carried; files go to $OUT.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
B=gpu-carry/batchsvd_gpu_bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
C=f64:1000:128:128,f64:1000:256:256,f64:200:256:256,f64:50:512:512,f64:100:512:512
for r in 1 2; do
  for k in default 1 2; do
    echo "== round $r, slices $k"
    if [ $k = default ]; then unset BATCHSVD_CUDA_BLOCKED_SLICES; else export BATCHSVD_CUDA_BLOCKED_SLICES=$k; fi
    $B --no-peers --no-sweep-count --cases $C --csv $OUT/c12_slices_${k}_$r.csv --label "slices $k, round $r" 2>/dev/null | tail -n +3 | grep -v '^plan'
  done
done
