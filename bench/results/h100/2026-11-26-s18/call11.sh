#!/usr/bin/env bash
# Session 18, call 11: the float64 pair kernel without the per-pair records (kBlockedPairRecords:
# back to session 16's 4 bytes of spills) against session 16's code (0dd219e, gpu-pack/old.tar.xz)
# on one machine, as call 10; issue 5's float64 cases with every peer; the GPU tests. From the
# repository root on the GPU machine with gpu-pack/ carried; files go to $OUT.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
mkdir -p old && python3 -c "import tarfile; tarfile.open('gpu-pack/old.tar.xz').extractall('old')"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
C=f64:1000:64:64,f64:1000:128:128:nopre,f64:1000:256:256:nopre
for r in 1 2; do
  echo "== round $r: session 16 (0dd219e)"
  LD_LIBRARY_PATH=$PWD/old/gpu-carry/lib BATCHSVD_GIT_COMMIT=0dd219e old/gpu-carry/batchsvd_gpu_bench --no-peers --no-sweep-count \
    --cases $C 2>/dev/null | tail -n +3 | grep -v '^plan'
  echo "== round $r: this build"
  LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT) gpu-carry/batchsvd_gpu_bench --no-peers --no-sweep-count \
    --cases $C --csv $OUT/c11_ab_$r.csv --label "records off in float64, round $r" 2>/dev/null | tail -n +3 | grep -v '^plan'
done
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
B=gpu-carry/batchsvd_gpu_bench
echo "== issue 5, every peer"
$B --cap 20 --cases f64:1000:64:64,f64:1000:128:128,f64:1000:256:256,f64:50:512:512,f64:1000:1000:16,f64:1:4096:4096 \
   --csv $OUT/c11_issue5.csv --label "issue 5, session 18 final" 2>$OUT/c11_issue5.err | tee $OUT/c11_issue5.txt | tail -n +2 | grep -v '^geo'
echo "== tests"
timeout 330 gpu-carry/batchsvd_tests --gtest_filter='*Cuda*:*cuda*' >$OUT/c11_tests.log 2>&1
echo "tests rc $?"
grep -E '^\[  PASSED|^\[  FAILED|FAILED TEST|SKIPPED|tests ran' $OUT/c11_tests.log | head -20
