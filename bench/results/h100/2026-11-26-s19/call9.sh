#!/usr/bin/env bash
# Session 19, call 9: the preconditioning rule with our eigensolver: small orders (float64
# 40-72, float32 56-96) and small batches, each the default route against the blocked path
# preconditioned (bpre/pre), and the two halves (BATCHSVD_CUDA_BLOCKED_SLICES=1 against the
# default). From the repository root on the GPU machine with gpu-pack/ carried.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
B=gpu-carry/batchsvd_gpu_bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
C=""
for n in 40 48 56 64 72; do C="$C,f64:1000:$n:$n,f64:1000:$n:$n:bpre"; done
for n in 56 64 72 80 88 96; do C="$C,f32:1000:$n:$n,f32:1000:$n:$n:bpre"; done
for b in 10 30 100; do for n in 64 96 128; do C="$C,f64:$b:$n:$n,f64:$b:$n:$n:bpre"; done; done
for b in 10 100; do for n in 96 128; do C="$C,f32:$b:$n:$n,f32:$b:$n:$n:bpre"; done; done
C="$C,f64:1000:128:64,f64:1000:128:64:bpre,f64:1000:256:64,f64:1000:256:64:bpre"
$B --no-peers --no-sweep-count --cases ${C#,} --csv $OUT/c9_rule.csv --label "rule with own eigensolver" 2>/dev/null | tail -n +3 | grep -v '^plan'
H=f64:1000:128:128,f64:1000:160:160,f64:1000:200:200,f32:1000:128:128,f64:200:128:128
for r in 1 2; do
  echo "== halves default, round $r"
  $B --no-peers --no-sweep-count --cases $H --csv $OUT/c9_halves_default_$r.csv --label "halves default" 2>/dev/null | tail -n +3 | grep -v '^plan'
  echo "== one stream, round $r"
  BATCHSVD_CUDA_BLOCKED_SLICES=1 $B --no-peers --no-sweep-count --cases $H --csv $OUT/c9_halves_one_$r.csv --label "one stream" 2>/dev/null | tail -n +3 | grep -v '^plan'
done
