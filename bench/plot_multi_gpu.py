#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plots the multi-GPU benchmark's CSV (bench/multi_gpu_bench.cpp) as a PNG: speedup over one
GPU against the GPU count, one line per case, device and host input side by side, with the
ideal line (and, where one matrix was spread over 4 GPUs or more, the hierarchically blocked
Jacobi paper's 2.7x on 4). Also prints the CSV as a Markdown table.

    python3 bench/plot_multi_gpu.py multigpu.csv multigpu.png
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(src, dst):
    with open(src, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("mode") == "multigpu"]
    if not rows:
        sys.exit("plot_multi_gpu: no multigpu rows in %s" % src)
    inputs = sorted({r["input"] for r in rows})
    top = max(int(r["gpus"]) for r in rows)
    fig, axes = plt.subplots(1, len(inputs), figsize=(6 * len(inputs), 4.5), squeeze=False)
    for ax, inp in zip(axes[0], inputs):
        cases = {}
        for r in rows:
            if r["input"] != inp:
                continue
            key = "%s %s x %sx%s" % (r["precision"], r["batch"], r["m"], r["n"])
            cases.setdefault(key, []).append((int(r["gpus"]), float(r["speedup"])))
        for key, pts in cases.items():
            pts.sort()
            ax.plot([g for g, _ in pts], [s for _, s in pts], marker="o", label=key)
        ax.plot([1, top], [1, top], color="grey", linestyle="--", label="ideal")
        if any(r["batch"] == "1" and r["input"] == inp for r in rows) and top >= 4:
            # Novakovic's one-matrix multi-GPU Jacobi, 4 GPUs against one (its section 5).
            ax.plot([4], [2.7], marker="*", markersize=12, color="black", linestyle="none",
                    label="paper: one matrix, 4 GPUs (2.7x)")
        ax.set_xlabel("GPUs")
        ax.set_ylabel("speedup over one GPU")
        ax.set_xticks(sorted({int(r["gpus"]) for r in rows}))
        ax.set_title("%s input (%s)" % (inp, rows[0]["gpu"]))
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    commits = sorted({r["commit"] for r in rows}, key=[r["commit"] for r in rows].index)
    fig.suptitle("batchsvd over several GPUs (commit%s %s, %s)" % ("s" if len(commits) > 1 else "",
                                                                 ", ".join(commits), rows[0]["date"]))
    fig.tight_layout()
    fig.savefig(dst, dpi=110)
    print("| precision | batch x m x n | input | GPUs | ms | one GPU ms | speedup | bitwise | error (u) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print("| %s | %s x %sx%s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["precision"], r["batch"], r["m"], r["n"], r["input"], r["gpus"], r["batchsvd_ms"],
            r["one_gpu_ms"], r["speedup"], "yes" if r["bitwise_one_gpu"] == "1" else "no", r["err_u"]))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
