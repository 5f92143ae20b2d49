#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Prints a Markdown table from bench/torch_compare.py's CSV: batchsvd.svd against
torch.linalg.svd on CUDA tensors (and on the host's cores, and torch's explicit drivers, where
the CSV has them). The README's torch tables are this script's output.

    python3 bench/summarize_torch.py FILE.csv
"""
import csv
import math
import sys


def num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def ms(v):
    if math.isnan(v):
        return "—"
    if math.isinf(v):
        return "skipped (cap)"
    return "%.3g ms" % v if v < 1000 else "%.3g s" % (v / 1000)


def main(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    h = rows[0]
    drivers = [c[6:-3] for c in h if c.startswith("torch_") and c.endswith("_ms") and c not in
               ("torch_svd_ms", "torch_host_cpu_ms")]
    host = any(not math.isnan(num(r["torch_host_cpu_ms"])) for r in rows)
    print("%s, torch %s, commit %s, %s (`%s`)\n" % (h["gpu"], h["torch"], h["commit"], h["date"][:10], path))
    cols = ["case", "dtype", "batchsvd.svd", "torch.linalg.svd", "speedup"]
    cols += ["torch on %s host cores" % h["host_threads"], "speedup"] if host else []
    cols += ["torch driver=%s" % d for d in drivers]
    print("| " + " | ".join(cols) + " |")
    print("|" + " --- |" * len(cols))
    for r in rows:
        ours = num(r["batchsvd_ms"])
        cells = ["%s × %s×%s" % (r["batch"], r["m"], r["n"]), r["dtype"], ms(ours),
                 ms(num(r["torch_svd_ms"])), "%.3g×" % (num(r["torch_svd_ms"]) / ours)]
        if host:
            cells += [ms(num(r["torch_host_cpu_ms"])), "%.3g×" % (num(r["torch_host_cpu_ms"]) / ours)]
        cells += [ms(num(r["torch_%s_ms" % d])) for d in drivers]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
