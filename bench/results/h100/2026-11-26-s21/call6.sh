#!/usr/bin/env bash
# Session 21, call 6 (H100): the split eigensolver's halves on two streams (a helper stream
# forked from and joined into the caller's; the library always passes one). The eigensolver and
# preconditioning tests (a two-stream form added); the probe (`split` against `split2`, the
# same kernels on one stream and on two); issue 5's float64 cases at 256^2 with every peer and
# the orders the split form took over. From the repository root with gpu-pack/ and probe-carry/.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 gpu-carry/batchsvd_tests --gtest_filter='CudaSymmetricEig*:*Precondition*' > $OUT/c6_tests.log 2>&1
echo "tests rc $?"
grep -E '^\[  PASSED|^\[  FAILED|FAILED TEST|SKIPPED|Failure' $OUT/c6_tests.log | head -20
SYEV_PROBE_CHUNK=1000 timeout 120 ./probe-carry/syev_probe 160:1000 192:1000 256:1000 320:1000 2>&1 | grep -v chunks | grep -v '^#' | tee $OUT/c6_syev_probe.csv
B=gpu-carry/batchsvd_gpu_bench
$B --cap 20 --cases f64:1000:256:256 --csv $OUT/c6_issue5_256.csv --label "issue 5 256^2, session 21 two streams" 2>/dev/null | tail -n +2 | grep -v '^geo'
$B --no-peers --cases f64:1000:160:160,f64:1000:192:192,f64:1000:224:224,f64:1000:300:300,f32:1000:256:256,c64:1000:128:128,c64:1000:200:200 \
   --csv $OUT/c6_others.csv --label "session 21 two streams" 2>/dev/null | tail -n +3 | grep -v '^plan'
