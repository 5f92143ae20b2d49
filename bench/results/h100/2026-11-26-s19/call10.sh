#!/usr/bin/env bash
# Session 19, call 10 (H100): issue 5's float64 cases with every peer on the final code; the
# same cases' eigensolver A/B (BATCHSVD_CUDA_EIGENSOLVER=cusolver, same binary, no peers); the
# eigensolver alone (syev_probe). From the repository root on the GPU machine with gpu-pack/
# and probe-carry/ carried; files go to $OUT.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
B=gpu-carry/batchsvd_gpu_bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== issue 5, every peer"
$B --cap 20 --cases f64:1000:64:64,f64:1000:128:128,f64:1000:256:256,f64:50:512:512,f64:1000:1000:16,f64:1:4096:4096 \
   --csv $OUT/c10_issue5.csv --label "issue 5, session 19" 2>$OUT/c10_issue5.err | tee $OUT/c10_issue5.txt | tail -n +2 | grep -v '^geo'
C=f64:1000:64:64,f64:1000:96:96,f64:1000:128:128,f64:1000:200:200,f32:1000:80:80,f32:1000:128:128,f64:1000:256:64
for r in 1 2; do
  echo "== own eigensolver, round $r"
  $B --no-peers --no-sweep-count --cases $C --csv $OUT/c10_own_$r.csv --label "own eigensolver" 2>/dev/null | tail -n +3 | grep -v '^plan'
  echo "== cusolver eigensolver, round $r"
  BATCHSVD_CUDA_EIGENSOLVER=cusolver $B --no-peers --no-sweep-count --cases $C --csv $OUT/c10_cusolver_$r.csv --label "cusolver syevBatched" 2>/dev/null | tail -n +3 | grep -v '^plan'
done
timeout 60 ./probe-carry/syev_probe 64:1000 96:1000 128:1000 200:1000 236:1000 2>&1 | grep -v chunks | tee $OUT/c10_syev_probe.csv
