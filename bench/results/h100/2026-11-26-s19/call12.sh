#!/usr/bin/env bash
# Session 19, call 12 (H100): the eigensolver for complex (Hermitian) matrices too: its tests
# and the preconditioning tests; complex64 / complex128 with our eigensolver against cuSOLVER's
# heevBatched (BATCHSVD_CUDA_EIGENSOLVER=cusolver, same binary); the complex rule's small orders
# (default route against bpre). From the repository root on the GPU machine with gpu-pack/.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
B=gpu-carry/batchsvd_gpu_bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 240 gpu-carry/batchsvd_tests --gtest_filter='CudaSymmetricEig*:*Precondition*' >$OUT/c12_tests.log 2>&1
echo "tests rc $?"
grep -E '^\[  PASSED|^\[  FAILED|FAILED TEST|^\[ eig|Failure' $OUT/c12_tests.log | head -60
C=c64:1000:96:96,c64:1000:128:128,c64:1000:160:160,c128:1000:64:64,c128:1000:96:96,c128:1000:128:128,c128:1000:160:160
for r in 1 2; do
  echo "== own eigensolver, round $r"
  $B --no-peers --no-sweep-count --cases $C --csv $OUT/c12_own_$r.csv --label "own eigensolver, complex" 2>/dev/null | tail -n +3 | grep -v '^plan'
  echo "== cusolver, round $r"
  BATCHSVD_CUDA_EIGENSOLVER=cusolver $B --no-peers --no-sweep-count --cases $C --csv $OUT/c12_cusolver_$r.csv --label "cusolver heevBatched" 2>/dev/null | tail -n +3 | grep -v '^plan'
done
R=""
for n in 40 48 56; do R="$R,c128:1000:$n:$n,c128:1000:$n:$n:bpre"; done
for n in 56 64 72 80 88; do R="$R,c64:1000:$n:$n,c64:1000:$n:$n:bpre"; done
echo "== complex rule edges"
$B --no-peers --no-sweep-count --cases ${R#,} --csv $OUT/c12_rule.csv --label "complex rule edges" 2>/dev/null | tail -n +3
