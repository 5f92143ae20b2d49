#!/usr/bin/env bash
# Session 19, call 14 (H100): the tall route for float32 and the complex types (default against
# bpre, as call 9 did for float64), and the two halves for complex64 (which session 18 left
# out, with cuSOLVER's eigensolver). From the repository root on the GPU machine with gpu-pack/.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
B=gpu-carry/batchsvd_gpu_bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
C=""
for t in f32 c64 c128; do for s in 100:64 128:64 256:64 200:100; do C="$C,$t:1000:$s,$t:1000:$s:bpre"; done; done
$B --no-peers --no-sweep-count --cases ${C#,} --csv $OUT/c14_tall.csv --label "tall routes" 2>/dev/null | tail -n +3
H=c64:1000:128:128,c64:1000:160:160,c128:1000:128:128
for r in 1 2; do
  echo "== halves forced, round $r"
  BATCHSVD_CUDA_BLOCKED_SLICES=2 $B --no-peers --no-sweep-count --cases $H --csv $OUT/c14_halves_2_$r.csv --label "two halves" 2>/dev/null | tail -n +3 | grep -v '^plan'
  echo "== one stream, round $r"
  BATCHSVD_CUDA_BLOCKED_SLICES=1 $B --no-peers --no-sweep-count --cases $H --csv $OUT/c14_halves_1_$r.csv --label "one stream" 2>/dev/null | tail -n +3 | grep -v '^plan'
done
