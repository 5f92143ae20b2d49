#!/usr/bin/env bash
# Session 21, call 17 (H100): the fused eigensolver's sweeps now go through the grouped
# ql_apply_sweep; the cases that use it (float64 1000 x 64^2, 96^2, 128^2) on the session's first
# code (1916110, gpu-old/batchsvd_gpu_bench.xz, built in a worktree) and its last (a4af7d5)
# alternately on one machine, three rounds, the old one first in rounds 1 and 3. From the
# repository root with gpu-pack/ and gpu-old/ carried.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('gpu-old/batchsvd_gpu_bench.xz'), open('gpu-old/batchsvd_gpu_bench', 'wb'))"
chmod +x gpu-old/batchsvd_gpu_bench
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
C=f64:1000:64:64,f64:1000:96:96,f64:1000:128:128
for r in 1 2 3; do
  order="old new"; [ $r = 2 ] && order="new old"
  for which in $order; do
    if [ $which = old ]; then B=gpu-old/batchsvd_gpu_bench; export BATCHSVD_GIT_COMMIT=1916110; else B=gpu-carry/batchsvd_gpu_bench; export BATCHSVD_GIT_COMMIT=$(cat gpu-carry/COMMIT); fi
    echo "== $which, round $r"
    $B --no-peers --no-sweep-count --cases $C --csv $OUT/c17_${which}_$r.csv --label "$which" 2>/dev/null | tail -n +3 | grep -v '^plan'
  done
done
