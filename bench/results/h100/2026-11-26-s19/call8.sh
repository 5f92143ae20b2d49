#!/usr/bin/env bash
# Session 19, call 8: the eigensolver alone (syev_probe, own against syevBatched, with each
# phase's cycles), its tests and the preconditioning tests, and the blocked path with our
# eigensolver against cuSOLVER's (BATCHSVD_CUDA_EIGENSOLVER=cusolver, same binary), two rounds.
# From the repository root on the GPU machine with gpu-pack/ and probe-carry/ carried.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
B=gpu-carry/batchsvd_gpu_bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 120 ./probe-carry/syev_probe 64:1000 96:1000 128:1000 160:1000 200:1000 224:1000 237:1000 2>&1 | grep -v chunks | tee $OUT/c8_syev_probe.csv
timeout 200 gpu-carry/batchsvd_tests --gtest_filter='CudaSymmetricEig*:*Precondition*' >$OUT/c8_tests.log 2>&1
echo "tests rc $?"
grep -E '^\[  PASSED|^\[  FAILED|FAILED TEST|^\[ eig|Failure' $OUT/c8_tests.log | head -40
C=f64:1000:64:64:pre,f64:1000:64:64,f64:1000:80:80,f64:1000:96:96,f64:1000:128:128,f64:1000:160:160,f64:1000:200:200,f32:1000:96:96,f32:1000:128:128,f64:100:128:128
for r in 1 2; do
  echo "== own eigensolver, round $r"
  BATCHSVD_CUDA_EIGENSOLVER=own $B --no-peers --cases $C --csv $OUT/c8_own_$r.csv --label "own eigensolver" 2>/dev/null | tail -n +3 | grep -v '^plan'
  echo "== cusolver, round $r"
  BATCHSVD_CUDA_EIGENSOLVER=cusolver $B --no-peers --cases $C --csv $OUT/c8_cusolver_$r.csv --label "cusolver syevBatched" 2>/dev/null | tail -n +3 | grep -v '^plan'
done
