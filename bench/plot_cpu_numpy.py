#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plot of bench/cpu_numpy_bench.py's CSV: NumPy's time over batchsvd's (numpy_ms /
batchsvd_ms) against the order min(m, n), one line per precision and shape (square, tall
4:1, wide 1:4), with the parity line; below it, where the CSV has them, looped LAPACK
?gesvj's time over batchsvd's with the 3x line. Prints the worst case of each precision and
shape.

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
    panels = [("ratio", "numpy.linalg.svd time / batchsvd time", 1.0)]
    if any(r.get("gesvj_ratio") for r in rows):
        panels.append(("gesvj_ratio", "looped ?gesvj time / batchsvd time", 3.0))
    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 4.5 * len(panels)), squeeze=False)
    styles = {"square": "-", "tall 4:1": "--", "wide 1:4": ":"}
    for ax, (column, label, bar) in zip(axes[:, 0], panels):
        lines = {}
        for r in rows:
            if not r.get(column):
                continue
            m, n = int(r["m"]), int(r["n"])
            lines.setdefault((r["precision"], shape_of(m, n)), []).append((min(m, n), float(r[column]), r))
        for (prec, shape), pts in sorted(lines.items()):
            pts.sort(key=lambda t: t[0])
            ax.plot([t[0] for t in pts], [t[1] for t in pts], styles[shape], marker="o", markersize=2.5,
                    label="%s %s" % (prec, shape))
            worst = min(pts, key=lambda t: t[1])
            w = worst[2]
            print("%s %s %s: worst %sx%s batch %s ratio %s (batchsvd %s ms)" % (
                column, prec, shape, w["m"], w["n"], w["batch"], w[column], w["batchsvd_ms"]))
        ax.axhline(bar, color="k", linewidth=0.8)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("order min(m, n)")
        ax.set_ylabel(label)
        ax.legend(fontsize=7, ncol=2)
        ax.grid(True, which="both", alpha=0.3)
    r0 = rows[0]
    axes[0, 0].set_title("batchsvd CPU backend: %s, %s threads, %s, %s" % (
        r0["cpu"], r0["threads"], r0["commit"], r0["date"]), fontsize=9)
    fig.tight_layout()
    fig.savefig(args.png, dpi=120)


if __name__ == "__main__":
    main()
