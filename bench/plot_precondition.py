#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plots the blocked path with and without its preconditioning (Options::precondition) from
benchmark CSVs (bench/gpu_bench.cu --csv) that hold both runs of each case (the case suffixes
`pre` / `nopre`, or automatic against `nopre`): time of each, and the mean sweeps of each, per
case. A row is preconditioned when its plan column ends in " pre".

    python3 bench/plot_precondition.py OUT.png IN.csv [IN.csv ...]
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(dst, sources):
    cases = {}  # (precision, batch, m, n) -> {True/False: (ms, sweeps)}
    for src in sources:
        with open(src, newline="") as f:
            for r in csv.DictReader(f):
                key = (r["precision"], int(r["batch"]), int(r["m"]), int(r["n"]))
                pre = r["fused_plan"].endswith(" pre")
                cases.setdefault(key, {})[pre] = (float(r["batchsvd_ms"]), float(r["mean_sweeps"]))
    keys = sorted((k for k, v in cases.items() if len(v) == 2), key=lambda k: (k[0], k[2] * k[3], k[1]))
    labels = ["%s\n%dx%d^2" % (p, b, m) if m == n else "%s\n%dx%dx%d" % (p, b, m, n) for p, b, m, n in keys]
    x = range(len(keys))
    fig, (ax, bx) = plt.subplots(2, 1, figsize=(max(8, 1.1 * len(keys)), 8), sharex=True)
    w = 0.4
    for off, pre, name in ((-w / 2, False, "plain"), (w / 2, True, "preconditioned")):
        ax.bar([i + off for i in x], [cases[k][pre][0] for k in keys], w, label=name)
        bx.bar([i + off for i in x], [cases[k][pre][1] for k in keys], w, label=name)
    for i, k in enumerate(keys):
        ax.annotate("%.2fx" % (cases[k][False][0] / cases[k][True][0]), (i, max(cases[k][False][0], cases[k][True][0])),
                    ha="center", va="bottom", fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("ms (U and V, median)")
    ax.set_title("batchsvd blocked path, preconditioning off and on (speedup above the bars)")
    ax.legend()
    bx.set_ylabel("mean sweeps")
    bx.set_xticks(list(x))
    bx.set_xticklabels(labels, fontsize=8)
    fig.tight_layout()
    fig.savefig(dst, dpi=110)
    print("plot_precondition: wrote", dst)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
