#!/usr/bin/env bash
# Session 18, call 7: concurrent slices again, now that slices of 20 or more matrices keep the
# preconditioning (call 1's slices of 25 x 512^2 fell below the old rule's batch of 50); and
# float64 1000 x 64^2 with the pair skipping on and off, three times each (call 5-6's 4.1-4.2 ms
# against session 15's 3.8). Build of calls 5-6. From the repository root on the GPU machine
# with gpu-pack/ carried; files go to $OUT.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
B=gpu-carry/batchsvd_gpu_bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
C=f64:50:512:512,f64:100:512:512,f64:1000:256:256,f64:1000:128:128,f32:1000:256:256
for k in 1 2 4; do
  echo "== concurrent $k"
  $B --no-peers --no-sweep-count --concurrent $k --cases $C --csv $OUT/c7_concurrent$k.csv --label "concurrent $k" 2>/dev/null | tail -n +3 | grep -v '^plan'
done
for r in 1 2 3; do
  echo "== 64^2, skipping on then off, round $r"
  $B --no-peers --no-sweep-count --cases f64:1000:64:64 2>/dev/null | tail -n +3 | grep -v '^plan'
  BATCHSVD_CUDA_BLOCKED_SKIP=0 $B --no-peers --no-sweep-count --cases f64:1000:64:64 2>/dev/null | tail -n +3 | grep -v '^plan'
done
