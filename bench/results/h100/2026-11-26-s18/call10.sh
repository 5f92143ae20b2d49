#!/usr/bin/env bash
# Session 18, call 10: float64 1000 x 64^2 (and the unpreconditioned blocked path at 128^2 and
# 256^2) on session 16's code (0dd219e, its benchmark built outside this tree and packed as
# gpu-pack/old.tar.xz) and on the final code (5ee16a4), alternately on one machine: does the
# 3.8 -> 4.1 ms of sessions 17-18 come from the code? From the repository root on the GPU
# machine with gpu-pack/ carried; files go to $OUT.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
mkdir -p old && python3 -c "import tarfile; tarfile.open('gpu-pack/old.tar.xz').extractall('old')"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
C=f64:1000:64:64,f64:1000:128:128:nopre,f64:1000:256:256:nopre
for r in 1 2 3; do
  echo "== round $r: session 16 (0dd219e)"
  LD_LIBRARY_PATH=$PWD/old/gpu-carry/lib BATCHSVD_GIT_COMMIT=0dd219e old/gpu-carry/batchsvd_gpu_bench --no-peers --no-sweep-count \
    --cases $C --csv $OUT/c10_old_$r.csv --label "session 16 code, round $r" 2>/dev/null | tail -n +3 | grep -v '^plan'
  echo "== round $r: final (5ee16a4)"
  LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT) gpu-carry/batchsvd_gpu_bench --no-peers --no-sweep-count \
    --cases $C --csv $OUT/c10_new_$r.csv --label "final code, round $r" 2>/dev/null | tail -n +3 | grep -v '^plan'
done
