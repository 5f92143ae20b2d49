#!/usr/bin/env bash
# Session 21, call 11 (H100): the split reduction's rank-2 update with rows k+1+p and n-1-p on
# the same threads, four slots a pair (two threads a row elsewhere). The eigensolver and
# preconditioning tests; the probe (`# phases`: the reduction with one and two threads a row);
# float64 1000 x 256^2 with every peer and the split form's other orders. From the repository
# root with gpu-pack/ and probe-carry/ carried.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 gpu-carry/batchsvd_tests --gtest_filter='CudaSymmetricEig*:*Precondition*' > $OUT/c11_tests.log 2>&1
echo "tests rc $?"
grep -E '^\[  PASSED|^\[  FAILED|FAILED TEST|SKIPPED|Failure' $OUT/c11_tests.log | head -20
SYEV_PROBE_CHUNK=1000 timeout 120 ./probe-carry/syev_probe 192:1000 236:1000 256:1000 300:1000 320:1000 2>&1 | grep -v chunks | tee $OUT/c11_syev_probe.csv
B=gpu-carry/batchsvd_gpu_bench
$B --cap 20 --cases f64:1000:256:256 --csv $OUT/c11_issue5_256.csv --label "issue 5 256^2, session 21 call 11" 2>/dev/null | tail -n +2 | grep -v '^geo'
$B --no-peers --cases f64:1000:160:160,f64:1000:192:192,f64:1000:224:224,f64:1000:300:300,f32:1000:256:256,c64:1000:128:128,c64:1000:200:200,c128:1000:200:200 \
   --csv $OUT/c11_others.csv --label "session 21 call 11" 2>/dev/null | tail -n +3 | grep -v '^plan'
