#!/usr/bin/env python3
"""Plots of batchsvd_bidiagonal_bench CSVs: singular values alone (the bidiagonal route, the
Jacobi iteration without vectors, cuSOLVER gesvda without vectors) and gebrd (batchsvd,
looped cusolverDn?gebrd, the roofline bound), time a matrix against the order, one panel a
precision and mode. Square cases only; each batch size is drawn on its own line.
Usage: python3 bench/plot_bidiagonal.py OUT.png FILE.csv [FILE.csv ...]
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    out, files = sys.argv[1], sys.argv[2:]
    rows = [r for f in files for r in csv.DictReader(open(f)) if r["m"] == r["n"]]
    series = {"svdvals": [("batchsvd_ms", "batchsvd bidiagonal"), ("jacobi_values_ms", "batchsvd jacobi"),
                          ("gesvda_ms", "cuSOLVER gesvda (no vectors)")],
              "gebrd": [("batchsvd_ms", "batchsvd gebrd"), ("gebrd_loop_ms", "looped cusolverDn?gebrd"),
                        ("roofline_ms", "roofline bound")]}
    fig, axes = plt.subplots(2, 2, figsize=(12, 9))
    for i, mode in enumerate(("svdvals", "gebrd")):
        for j, prec in enumerate(("f64", "f32")):
            ax = axes[i][j]
            for col, label in series[mode]:
                pts = defaultdict(dict)
                for r in rows:
                    if r["mode"] == mode and r["precision"] == prec and r.get(col):
                        pts[int(r["batch"])][int(r["n"])] = 1e3 * float(r[col]) / int(r["batch"])
                for batch, p in sorted(pts.items()):
                    xs = sorted(p)
                    ax.plot(xs, [p[x] for x in xs], marker="o", ms=3,
                            label="%s (batch %d)" % (label, batch))
            ax.set_yscale("log")
            ax.set_xscale("log", base=2)
            ax.set_xlabel("order n (n x n)")
            ax.set_ylabel("microseconds a matrix")
            ax.set_title("%s %s" % ("values alone" if mode == "svdvals" else "gebrd", prec))
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
    gpu = rows[0]["gpu"] if rows else ""
    fig.suptitle("batchsvd_bidiagonal_bench, %s" % gpu)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
