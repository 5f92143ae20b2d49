#!/usr/bin/env bash
# Session 21, call 10 (H100): one sweep's breakdown (Gram / eigensolver / update; the rest of a
# one-sweep solve, which includes the preconditioning) at issue 5's 1000 x 256^2 and 50 x 512^2
# on b68ce5e, and 50 x 512^2's time with the preconditioner's eigensolve on cuSOLVER (the
# default there) for the record. From the repository root with gpu-pack/ carried.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
B=gpu-carry/batchsvd_gpu_bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
$B --no-peers --breakdown --cases f64:1000:256:256,f64:50:512:512,f64:1000:300:300 --csv $OUT/c10_breakdown.csv \
   --label "breakdown, session 21" 2>&1 | grep -E "breakdown|float64|plan" | tee $OUT/c10_breakdown.txt
