#!/usr/bin/env bash
# Session 19, call 19 (H100): the review's mends (c1cba2a) against the code before them (297f03c,
# built outside this tree and carried as gpu-old/old.tar.xz), alternately, three rounds, one
# machine: call 18 measured 2-6% slower on another machine. ORDER=new runs the mends first in
# each round (call 20), against a warming GPU favouring whichever runs first.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
mkdir -p old && python3 -c "import tarfile; tarfile.open('gpu-old/old.tar.xz').extractall('old')"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
C=f64:1000:64:64,f64:1000:128:128,f64:1000:1000:16
P=${PREFIX:-c19}
run_old() {
  echo "== round $1: 297f03c"
  LD_LIBRARY_PATH=$PWD/old/gpu-carry/lib BATCHSVD_GIT_COMMIT=297f03c old/gpu-carry/batchsvd_gpu_bench --no-peers --no-sweep-count \
    --cases $C --csv $OUT/${P}_old_$1.csv --label "before the mends" 2>/dev/null | tail -n +3 | grep -v '^plan'
}
run_new() {
  echo "== round $1: c1cba2a"
  LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT) gpu-carry/batchsvd_gpu_bench --no-peers --no-sweep-count \
    --cases $C --csv $OUT/${P}_new_$1.csv --label "after the mends" 2>/dev/null | tail -n +3 | grep -v '^plan'
}
for r in 1 2 3; do
  if [ "${ORDER:-old}" = new ]; then run_new $r; run_old $r; else run_old $r; run_new $r; fi
done
