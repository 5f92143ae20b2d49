#!/usr/bin/env bash
# Session 18, call 4: the last of the preconditioning rule's edges (calls 2-3): batch 1 to 10
# at orders 256-4096, small batches at small orders, a tall 8:1 shape. Each case with the
# preconditioner forced on (pre) and off (nopre), no peers. From the repository root on the
# GPU machine with gpu-pack/ carried; files go to $OUT.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
B=gpu-carry/batchsvd_gpu_bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
both() { for c in "$@"; do printf '%s:pre,%s:nopre,' "$c" "$c"; done; }
SMALLB=$(both f64:1:256:256 f64:10:256:256 f64:1:512:512 f64:5:512:512 f64:10:128:128 f64:50:128:128 f64:100:96:96 f64:1000:64:64 c64:100:128:128 f32:50:256:256 f32:1:1024:1024 c128:1:1024:1024)
LARGE=$(both f64:1:4096:4096 f64:100:4096:512)
for g in SMALLB LARGE; do
  echo "== $g"
  $B --no-peers --no-sweep-count --cases ${!g%,} --csv $OUT/c4_$g.csv --label "rule edges $g" 2>$OUT/c4_$g.err | tail -n +3 | grep -v '^plan'
done
