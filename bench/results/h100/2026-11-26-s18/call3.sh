#!/usr/bin/env bash
# Session 18, call 3: more of the preconditioning rule's edges after call 2 found it winning
# at every edge it had: lower orders, tall shapes, small batches, orders above 1024. Each case
# with the preconditioner forced on (pre) and off (nopre), no peers. From the repository root
# on the GPU machine with gpu-pack/ carried; files go to $OUT.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
B=gpu-carry/batchsvd_gpu_bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
both() { for c in "$@"; do printf '%s:pre,%s:nopre,' "$c" "$c"; done; }
LOW=$(both f64:1000:72:72 f64:1000:80:80 f64:1000:88:88 f32:1000:96:96 f32:1000:112:112 c64:1000:64:64 c64:1000:80:80 c128:1000:64:64 c128:1000:80:80)
TALL=$(both f64:1000:256:128 f64:1000:384:128 f64:200:1024:256 f64:100:2048:512 f32:1000:512:256 c128:200:512:256 c64:1000:384:128)
BATCH=$(both f64:10:512:512 f64:20:512:512 f64:30:512:512 f64:20:256:256 f64:10:1024:1024 f64:1:1024:1024 f64:1:2048:2048 f32:20:512:512 f32:10:1024:1024 c128:20:512:512)
BIG=$(both f64:10:2048:2048 f32:20:2048:2048 c64:50:1024:1024 c128:20:1024:1024)
for g in LOW TALL BATCH BIG; do
  echo "== $g"
  $B --no-peers --no-sweep-count --cases ${!g%,} --csv $OUT/c3_$g.csv --label "rule edges $g" 2>$OUT/c3_$g.err | tail -n +3 | grep -v '^plan'
done
