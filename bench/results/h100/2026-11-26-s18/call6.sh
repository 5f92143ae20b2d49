#!/usr/bin/env bash
# Session 18, call 6: the README's quick table with every peer, on the build of call 5; and
# the two quick rows that session 18's rule newly preconditions, with it off. From the
# repository root on the GPU machine with gpu-pack/ carried; files go to $OUT.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT)
B=gpu-carry/batchsvd_gpu_bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== quick group, every peer"
$B --cap 15 --group quick --csv $OUT/c6_quick.csv --label "quick, session 18" 2>$OUT/c6_quick.err | tee $OUT/c6_quick.txt | tail -n +2
echo "== newly preconditioned quick rows, preconditioning off"
$B --no-peers --no-sweep-count --cases f64:1000:500:100:nopre,f64:100:512:512:nopre --csv $OUT/c6_nopre.csv --label "quick rows, nopre" 2>/dev/null | tail -n +3 | grep -v '^plan'
