#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compare batchsvd_gpu_bench CSVs of two builds measured in one run (scripts/gpu_compare.sh).

    compare_runs.py --base B1.csv [B2.csv ...] --new N1.csv [N2.csv ...] [--out compare.csv]

For each case (precision, m, n, batch, label) the median of batchsvd_ms over the base files and
over the new files, their ratio (new / base), and the spread of each (max / min - 1), which
tells what "within noise" means for that case. Prints a markdown table; --out writes it as CSV
with the GPU, date and both commits.
"""
import argparse
import csv
import statistics
import sys


def read(paths):
    rows = {}
    meta = {}
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                key = (r["precision"], int(r["m"]), int(r["n"]), int(r["batch"]))
                try:
                    ms = float(r["batchsvd_ms"])
                except ValueError:
                    continue
                rows.setdefault(key, []).append(ms)
                meta = {"gpu": r.get("gpu", ""), "commit": r.get("commit", ""), "date": r.get("date", "")}
    return rows, meta


def spread(xs):
    return max(xs) / min(xs) - 1 if len(xs) > 1 and min(xs) > 0 else 0.0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", nargs="+", required=True)
    ap.add_argument("--new", nargs="+", required=True)
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    base, bmeta = read(a.base)
    new, nmeta = read(a.new)
    keys = [k for k in base if k in new]
    out = []
    print(f"GPU {nmeta.get('gpu', '?')}, base {bmeta.get('commit', '?')}, new {nmeta.get('commit', '?')}, "
          f"{len(a.base)} base and {len(a.new)} new runs, medians of batchsvd_ms")
    print("| case | base ms | new ms | new / base | base spread | new spread |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for k in keys:
        b, n = statistics.median(base[k]), statistics.median(new[k])
        row = {"gpu": nmeta.get("gpu", ""), "date": nmeta.get("date", ""), "base_commit": bmeta.get("commit", ""),
               "new_commit": nmeta.get("commit", ""), "precision": k[0], "m": k[1], "n": k[2], "batch": k[3],
               "base_ms": f"{b:.4g}", "new_ms": f"{n:.4g}", "new_over_base": f"{n / b:.4f}",
               "base_spread": f"{spread(base[k]):.4f}", "new_spread": f"{spread(new[k]):.4f}",
               "base_runs": len(base[k]), "new_runs": len(new[k])}
        out.append(row)
        print(f"| {k[0]} {k[3]} x {k[1]}x{k[2]} | {b:.4g} | {n:.4g} | {n / b:.3f} | "
              f"{100 * spread(base[k]):.1f}% | {100 * spread(new[k]):.1f}% |")
    if a.out and out:
        with open(a.out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(out[0].keys()))
            w.writeheader()
            w.writerows(out)
    return 0 if out else 1


if __name__ == "__main__":
    sys.exit(main())
