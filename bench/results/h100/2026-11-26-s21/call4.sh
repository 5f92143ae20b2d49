#!/usr/bin/env bash
# Session 21, call 4 (H100): Q's rows formed one pass a reflector (H_k applied and x v_{k+1}
# formed in the same pass); the split form the default from order 160 real, 128 complex. The
# eigensolver tests; the probe; issue 5's float64 cases with every peer; the split form forced
# against the default (the fused form) below the new edges, two rounds in both orders. From the
# repository root with gpu-pack/ and probe-carry/ carried.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 120 gpu-carry/batchsvd_tests --gtest_filter='CudaSymmetricEig*' > $OUT/c4_tests.log 2>&1
echo "tests rc $?"
grep -E '^\[  PASSED|^\[  FAILED|FAILED TEST|SKIPPED|Failure' $OUT/c4_tests.log | head -20
SYEV_PROBE_CHUNK=1000 timeout 100 ./probe-carry/syev_probe 128:1000 192:1000 256:1000 320:1000 2>&1 | grep -v chunks | tee $OUT/c4_syev_probe.csv
B=gpu-carry/batchsvd_gpu_bench
echo "== issue 5, every peer"
$B --cap 20 --cases f64:1000:64:64,f64:1000:128:128,f64:1000:256:256,f64:50:512:512,f64:1000:1000:16,f64:1:4096:4096 \
   --csv $OUT/c4_issue5.csv --label "issue 5, session 21" 2>$OUT/c4_issue5.err | tee $OUT/c4_issue5.txt | tail -n +2 | grep -v '^geo'
C=f64:1000:128:128,f64:1000:144:144,c64:1000:96:96,c64:1000:112:112,c128:1000:96:96,c128:1000:112:112
for r in 1 2; do
  for form in default split; do
    if [ $r = 2 ]; then form=$([ $form = default ] && echo split || echo default); fi
    echo "== $form, round $r"
    if [ $form = split ]; then export BATCHSVD_CUDA_EIGENSOLVER=split; else unset BATCHSVD_CUDA_EIGENSOLVER; fi
    $B --no-peers --no-sweep-count --cases $C --csv $OUT/c4_${form}_$r.csv --label "eigensolver $form" 2>/dev/null | tail -n +3 | grep -v '^plan'
  done
done
unset BATCHSVD_CUDA_EIGENSOLVER
