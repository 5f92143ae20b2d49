#!/usr/bin/env bash
# Session 21, call 2 (H100): the split form's vectors kernel with grouped rotations and Q formed
# with the next reflector prefetched, its reduction with 1, 2 or 4 threads a row; the split form
# the default from the fused form's largest order to its own. The eigensolver and
# preconditioning tests; the probe (`# phases` lines: each kernel apart); the library's default
# against BATCHSVD_CUDA_EIGENSOLVER=cusolver, two rounds in both orders. From the repository
# root with gpu-pack/ and probe-carry/ carried.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 gpu-carry/batchsvd_tests --gtest_filter='CudaSymmetricEig*:*Precondition*' > $OUT/c2_tests.log 2>&1
echo "tests rc $?"
grep -E '^\[  PASSED|^\[  FAILED|FAILED TEST|SKIPPED|Failure' $OUT/c2_tests.log | head -20
SYEV_PROBE_CHUNK=1000 timeout 150 ./probe-carry/syev_probe 128:1000 236:1000 256:1000 300:1000 320:1000 2>&1 | grep -v chunks | tee $OUT/c2_syev_probe.csv
B=gpu-carry/batchsvd_gpu_bench
C=f64:1000:256:256,f64:1000:300:300,f64:1000:320:320,f32:1000:256:256,c64:1000:200:200
for r in 1 2; do
  for form in default cusolver; do
    if [ $r = 2 ]; then form=$([ $form = default ] && echo cusolver || echo default); fi
    echo "== $form, round $r"
    if [ $form = cusolver ]; then export BATCHSVD_CUDA_EIGENSOLVER=cusolver; else unset BATCHSVD_CUDA_EIGENSOLVER; fi
    $B --no-peers --no-sweep-count --cases $C --csv $OUT/c2_${form}_$r.csv --label "eigensolver $form" 2>/dev/null | tail -n +3 | grep -v '^plan'
  done
done
unset BATCHSVD_CUDA_EIGENSOLVER
