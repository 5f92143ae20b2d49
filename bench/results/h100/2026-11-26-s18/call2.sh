#!/usr/bin/env bash
# Session 18, call 2: the automatic preconditioning rule's edges (svd_cuda.cu use_precondition)
# now that single precision refines its eigenbasis from order 256: each case with the
# preconditioner forced on (pre) and off (nopre), no peers. From the repository root on the GPU
# machine with gpu-pack/ carried; files go to $OUT.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
B=gpu-carry/batchsvd_gpu_bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
both() { for c in "$@"; do printf '%s:pre,%s:nopre,' "$c" "$c"; done; }
F32=$(both f32:1000:128:128 f32:1000:160:160 f32:1000:320:320 f32:200:384:384 f32:100:512:512 f32:50:512:512 f32:50:1024:1024)
F64=$(both f64:1000:96:96 f64:1000:112:112 f64:100:640:640 f64:50:768:768 f64:50:1024:1024 f64:1000:512:384)
CPX=$(both c64:200:384:384 c64:50:512:512 c128:200:384:384 c128:50:512:512 c64:1000:96:96 c128:1000:96:96)
for g in F32 F64 CPX; do
  echo "== $g"
  $B --no-peers --no-sweep-count --cases ${!g%,} --csv $OUT/c2_$g.csv --label "rule edges $g" 2>$OUT/c2_$g.err | tail -n +3 | grep -v '^plan'
done
