#!/usr/bin/env bash
# Session 21, call 8 (H100): the split vectors kernel's shared-memory loads that every lane
# makes alike as 16-byte loads (the reflector vectors while Q is formed, the cosines and sines
# of a group of rotations; ql_apply_sweep<true>). The eigensolver tests; the probe (the fused
# form too: ql_apply_sweep's scalar path, whose code moved); float64 1000 x 256^2 with every
# peer and the other split-form orders. From the repository root with gpu-pack/ and probe-carry/.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 gpu-carry/batchsvd_tests --gtest_filter='CudaSymmetricEig*:*Precondition*' > $OUT/c8_tests.log 2>&1
echo "tests rc $?"
grep -E '^\[  PASSED|^\[  FAILED|FAILED TEST|SKIPPED|Failure' $OUT/c8_tests.log | head -20
SYEV_PROBE_CHUNK=1000 timeout 120 ./probe-carry/syev_probe 128:1000 192:1000 236:1000 256:1000 320:1000 2>&1 | grep -v chunks | tee $OUT/c8_syev_probe.csv
B=gpu-carry/batchsvd_gpu_bench
$B --cap 20 --cases f64:1000:256:256 --csv $OUT/c8_issue5_256.csv --label "issue 5 256^2, session 21 call 8" 2>/dev/null | tail -n +2 | grep -v '^geo'
$B --no-peers --cases f64:1000:128:128,f64:1000:160:160,f64:1000:192:192,f64:1000:224:224,f64:1000:300:300,f32:1000:256:256,c64:1000:128:128,c64:1000:200:200,c128:1000:200:200 \
   --csv $OUT/c8_others.csv --label "session 21 call 8" 2>/dev/null | tail -n +3 | grep -v '^plan'
