#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plot of bench/cpu_numpy_bench.py's CSV: NumPy's time over batchsvd's (numpy_ms /
batchsvd_ms) against the order min(m, n), one line per precision and shape (square, tall
4:1, wide 1:4), with the parity line; prints the worst case of each precision and shape.

    python3 bench/plot_cpu_numpy.py CSV --png PNG
"""
import argparse
import csv

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def shape_of(m, n):
    return "square" if m == n else ("tall 4:1" if m > n else "wide 1:4")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("csv")
    p.add_argument("--png", required=True)
    args = p.parse_args()
    rows = list(csv.DictReader(open(args.csv)))
    lines = {}
    for r in rows:
        m, n = int(r["m"]), int(r["n"])
        lines.setdefault((r["precision"], shape_of(m, n)), []).append((min(m, n), float(r["ratio"]), r))
    fig, ax = plt.subplots(figsize=(8, 4.5))
    styles = {"square": "-", "tall 4:1": "--", "wide 1:4": ":"}
    for (prec, shape), pts in sorted(lines.items()):
        pts.sort(key=lambda t: t[0])
        ax.plot([t[0] for t in pts], [t[1] for t in pts], styles[shape], marker="o", markersize=2.5,
                label="%s %s" % (prec, shape))
        worst = min(pts, key=lambda t: t[1])
        w = worst[2]
        print("%s %s: worst %sx%s batch %s ratio %s (batchsvd %s ms, numpy %s ms)" % (
            prec, shape, w["m"], w["n"], w["batch"], w["ratio"], w["batchsvd_ms"], w["numpy_ms"]))
    ax.axhline(1.0, color="k", linewidth=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("order min(m, n)")
    ax.set_ylabel("numpy.linalg.svd time / batchsvd time")
    r0 = rows[0]
    ax.set_title("batchsvd CPU backend against NumPy: %s, %s threads, %s, %s" % (
        r0["cpu"], r0["threads"], r0["commit"], r0["date"]), fontsize=9)
    ax.legend(fontsize=7, ncol=2)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.png, dpi=120)


if __name__ == "__main__":
    main()
