#!/usr/bin/env bash
# Session 21, call 9 (H100): the README's quick table with every peer on 1486421 (the split
# eigensolver the default from order 160 real, 128 complex). From the repository root with
# gpu-pack/ carried.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
B=gpu-carry/batchsvd_gpu_bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== quick group, every peer"
$B --cap 15 --group quick --csv $OUT/c9_quick.csv --label "quick, session 21" 2>$OUT/c9_quick.err | tee $OUT/c9_quick.txt | tail -n +2
