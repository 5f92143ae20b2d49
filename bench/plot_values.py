#!/usr/bin/env python3
"""Plot of bench/values_bench.py's CSVs: the speed of the bidiagonal route to singular values
over the Jacobi route and over NumPy, by order, one line per precision.
Usage: python3 bench/plot_values.py OUT.png FILE.csv [FILE.csv ...]"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    out, files = sys.argv[1], sys.argv[2:]
    rows = [r for f in files for r in csv.DictReader(open(f)) if r["mode"] == "svdvals"]
    by = defaultdict(list)
    for r in rows:
        by[r["precision"]].append(r)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    for prec, rs in sorted(by.items()):
        rs.sort(key=lambda r: int(r["n"]))
        n = [int(r["n"]) for r in rs]
        ax1.plot(n, [float(r["jacobi_values_ms"]) / float(r["batchsvd_ms"]) for r in rs], "o-", label=prec)
        ax2.plot(n, [float(r["numpy_ms"]) / float(r["batchsvd_ms"]) for r in rs], "o-", label=prec)
    for ax, title in ((ax1, "Jacobi values-only time / bidiagonal route time"),
                      (ax2, "numpy.linalg.svd(compute_uv=False) time / bidiagonal route time")):
        ax.axhline(1, color="gray", lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("order n (square, batch sized to ~0.3 s)")
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=7)
    ax1.set_ylabel("speed-up")
    r0 = rows[0]
    fig.suptitle("CPU backend, %s threads, commit %s, %s" % (r0["threads"], r0["commit"], r0["date"]), fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


if __name__ == "__main__":
    main()
