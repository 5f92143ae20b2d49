#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plots a GPU benchmark CSV (bench/gpu_bench.cu's --csv) as a PNG: time of each library per
case (log scale), and batchsvd's speedup over each peer.

    python3 bench/plot_gpu.py bench/results/h100/2026-11-26-quick/quick.csv quick.png
"""
import csv
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PEERS = [("batchsvd_ms", "batchsvd"), ("gesvdjBatched_ms", "cuSOLVER gesvdjBatched"),
         ("gesvdaStridedBatched_ms", "cuSOLVER gesvdaStridedBatched (approximate)"),
         ("gesvdj_loop_ms", "cuSOLVER gesvdj, looped")]


def num(x):
    try:
        v = float(x)
    except ValueError:
        return math.nan
    return v


def main(src, dst):
    with open(src, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit("plot_gpu: no rows in " + src)
    labels = ["%s\n%s x %sx%s" % (r["precision"], r["batch"], r["m"], r["n"]) for r in rows]
    fig, (ax, bx) = plt.subplots(2, 1, figsize=(max(10, 0.9 * len(rows)), 9), sharex=True)
    width = 0.8 / len(PEERS)
    for i, (key, name) in enumerate(PEERS):
        xs = [j + (i - 1.5) * width for j in range(len(rows))]
        ax.bar(xs, [num(r[key]) for r in rows], width, label=name)
    ax.set_yscale("log")
    ax.set_ylabel("time, ms (CUDA events, median)")
    ax.legend(fontsize=8)
    ax.grid(axis="y", which="both", alpha=0.3)
    head = rows[0]
    ax.set_title("%s, CUDA %s, commit %s, %s" % (head["gpu"], head["cuda"], head["commit"],
                                                head["date"][:10]))
    for i, (key, name) in enumerate(PEERS[1:]):
        xs = [j + (i - 1) * width * 1.3 for j in range(len(rows))]
        bx.bar(xs, [num(r[key]) / num(r["batchsvd_ms"]) for r in rows], width * 1.3,
               label="vs " + name)
    bx.axhline(1, color="black", linewidth=0.8)
    bx.set_yscale("log")
    bx.set_ylabel("batchsvd speedup (x)")
    bx.legend(fontsize=8)
    bx.grid(axis="y", which="both", alpha=0.3)
    bx.set_xticks(range(len(rows)))
    bx.set_xticklabels(labels, rotation=60, fontsize=7)
    fig.tight_layout()
    fig.savefig(dst, dpi=110)
    print("plot_gpu: wrote " + dst)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
