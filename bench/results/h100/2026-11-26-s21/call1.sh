#!/usr/bin/env bash
# Session 21, call 1 (H100): the split eigensolver's three kernels timed apart (syev_probe's
# `# phases` lines) and the split form in the library against cuSOLVER's syevBatched (the same
# binary, BATCHSVD_CUDA_EIGENSOLVER=split against the default), two rounds in both orders.
# From the repository root with gpu-pack/ and probe-carry/ carried.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SYEV_PROBE_CHUNK=1000 timeout 120 ./probe-carry/syev_probe 256:1000 300:1000 320:1000 2>&1 | grep -v chunks | tee $OUT/c1_syev_probe.csv
B=gpu-carry/batchsvd_gpu_bench
C=f64:1000:256:256,f64:1000:300:300,f64:1000:320:320
for r in 1 2; do
  for form in split default; do
    if [ $r = 2 ]; then form=$([ $form = split ] && echo default || echo split); fi
    echo "== $form, round $r"
    if [ $form = split ]; then export BATCHSVD_CUDA_EIGENSOLVER=split; else unset BATCHSVD_CUDA_EIGENSOLVER; fi
    $B --no-peers --no-sweep-count --cases $C --csv $OUT/c1_${form}_$r.csv --label "eigensolver $form" 2>/dev/null | tail -n +3 | grep -v '^plan'
  done
done
unset BATCHSVD_CUDA_EIGENSOLVER
