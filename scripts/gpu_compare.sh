#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs on the GPU machine: the same benchmark cases with two builds of batchsvd_gpu_bench, in
# alternating rounds (base, new, base, new, ...) so that both see the same GPU and clocks, then
# bench/compare_runs.py's table of medians (new / base). Every CSV is packed into
# $OUT/compare.tar.gz (the device tool returns few files); compare.csv and compare.txt beside it.
#   scripts/gpu_compare.sh BASE_BENCH NEW_BENCH [--rounds N] [--tag NAME] -- BENCH_ARGS...
# BENCH_ARGS are batchsvd_gpu_bench's (--cases ..., --group ..., --no-peers, ...).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out"
[ $# -ge 2 ] || { echo "usage: gpu_compare.sh BASE_BENCH NEW_BENCH [--rounds N] [--tag NAME] -- BENCH_ARGS..." >&2; exit 2; }
base=$1 new=$2
shift 2
rounds=3 tag=compare
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case $1 in
    --rounds) rounds=$2; shift ;;
    --tag) tag=$2; shift ;;
    *) echo "gpu_compare: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[ "${1:-}" = "--" ] && shift
for b in "$base" "$new"; do [ -x "$b" ] || { echo "gpu_compare: $b is not an executable" >&2; exit 2; }; done
dir=$(mktemp -d)
status=0
for r in $(seq 1 "$rounds"); do
  for which in base new; do
    bin=$base; [ $which = new ] && bin=$new
    echo "== round $r: $which"
    # (a COMMIT file beside a binary names its commit in the CSV: scripts/gpu_build.sh writes one)
    commit=$(cat "$(dirname "$bin")/COMMIT" 2>/dev/null || echo "${BATCHSVD_GIT_COMMIT:-unknown}")
    BATCHSVD_GIT_COMMIT=$commit "$bin" "$@" --csv "$dir/${tag}_${which}_$r.csv" --label "$tag $which round $r" >"$dir/${tag}_${which}_$r.txt" 2>&1 || status=1
  done
done
python3 bench/compare_runs.py --base "$dir/${tag}_base_"*.csv --new "$dir/${tag}_new_"*.csv \
  --out "$out/$tag.csv" | tee "$out/$tag.txt"
tar -czf "$out/$tag.tar.gz" -C "$dir" .
exit $status
