#!/usr/bin/env bash
# Session 21, call 3 (H100): the reduction with at most two threads a row, the split launcher's
# order check and the test fix (the structured test's order within the complex split form's
# range). The eigensolver and preconditioning tests; the probe at the orders where the fused and
# the split forms both fit (`# split` lines now with the cycles forming Q took); the library with
# the split form forced (BATCHSVD_CUDA_EIGENSOLVER=split) against the default (the fused form
# there), two rounds in both orders. From the repository root with gpu-pack/ and probe-carry/.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 gpu-carry/batchsvd_tests --gtest_filter='CudaSymmetricEig*:*Precondition*' > $OUT/c3_tests.log 2>&1
echo "tests rc $?"
grep -E '^\[  PASSED|^\[  FAILED|FAILED TEST|SKIPPED|Failure' $OUT/c3_tests.log | head -20
SYEV_PROBE_CHUNK=1000 timeout 150 ./probe-carry/syev_probe 160:1000 192:1000 208:1000 224:1000 256:1000 2>&1 | grep -v chunks | tee $OUT/c3_syev_probe.csv
B=gpu-carry/batchsvd_gpu_bench
C=f64:1000:160:160,f64:1000:192:192,f64:1000:224:224,c64:1000:128:128,c64:1000:160:160,c128:1000:160:160
for r in 1 2; do
  for form in default split; do
    if [ $r = 2 ]; then form=$([ $form = default ] && echo split || echo default); fi
    echo "== $form, round $r"
    if [ $form = split ]; then export BATCHSVD_CUDA_EIGENSOLVER=split; else unset BATCHSVD_CUDA_EIGENSOLVER; fi
    $B --no-peers --no-sweep-count --cases $C --csv $OUT/c3_${form}_$r.csv --label "eigensolver $form" 2>/dev/null | tail -n +3 | grep -v '^plan'
  done
done
unset BATCHSVD_CUDA_EIGENSOLVER
