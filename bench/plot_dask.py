#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plots bench/dask_bench.py's CSVs as a PNG: time against chunk size, one line per worker
count and input (host or GPU memory), the direct call as a dashed line of the same colour;
one panel per batch and outputs. Also prints the rows as a Markdown table with the speedup of
the most workers over one and one worker's time over the direct call's.

    python3 bench/plot_dask.py out.png dask_a.csv [dask_b.csv ...]
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(dst, srcs):
    rows = []
    for src in srcs:
        with open(src, newline="") as f:
            rows += [r for r in csv.DictReader(f) if r.get("mode") == "dask"]
    if not rows:
        sys.exit("plot_dask: no dask rows in %s" % ", ".join(srcs))
    panels = sorted({(r["precision"], int(r["batch"]), r["m"], r["n"], r["outputs"]) for r in rows})
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4.5), squeeze=False)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    print("| input | outputs | batch | chunk | threads a worker | threads= | workers | ms | one worker / direct | speedup over one worker |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for ax, (prec, batch, m, n, outs) in zip(axes[0], panels):
        mine = [r for r in rows if (r["precision"], int(r["batch"]), r["m"], r["n"], r["outputs"])
                == (prec, batch, m, n, outs)]
        def key(r):
            return (r["input"], int(r["threads_per_worker"]), r.get("task_threads", "default"), int(r["workers"]))
        lines = sorted({key(r) for r in mine})
        for k, (inp, tpw, tt, w) in enumerate(lines):
            pts = sorted((int(r["chunk"]), float(r["batchsvd_ms"])) for r in mine if key(r) == (inp, tpw, tt, w))
            ax.plot([c for c, _ in pts], [t for _, t in pts], marker="o", color=colours[k % len(colours)],
                    label="%s input, %d worker%s, %d thread%s%s" % (
                        inp, w, "s" if w > 1 else "", tpw, "s" if tpw > 1 else "",
                        "" if tt == "default" else ", threads=%s" % tt))
        directs = sorted({(r["input"], r.get("task_threads", "default"), r["direct_ms"]) for r in mine
                          if r["direct_ms"] != "nan"})
        for k, (inp, tt, ms) in enumerate(directs):
            ax.axhline(float(ms), linestyle="--", color=["grey", "black", "brown", "purple"][k % 4],
                       label="direct call, %s input%s" % (inp, "" if tt == "default" else ", threads=%s" % tt))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("chunk (matrices)")
        ax.set_ylabel("ms (median)")
        ax.set_title("%s %d x %sx%s, %s" % (prec, batch, m, n, "U, S, Vh" if outs == "USV" else "S"))
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
        for r in sorted(mine, key=lambda r: (r["input"], int(r["threads_per_worker"]), r.get("task_threads", ""),
                                             int(r["chunk"]), int(r["workers"]))):
            one = float(r["one_worker_ms"])
            direct = float(r["direct_ms"])
            print("| %s | %s | %d | %s | %s | %s | %s | %.1f | %s | %s |" % (
                r["input"], outs, batch, r["chunk"], r["threads_per_worker"], r.get("task_threads", "default"),
                r["workers"],
                float(r["batchsvd_ms"]), "%.3f" % (one / direct) if direct == direct and r["workers"] == "1" else "",
                "%.2f" % (one / float(r["batchsvd_ms"])) if r["workers"] != "1" else ""))
    gpu = rows[0].get("gpu", "none")
    fig.suptitle("batchsvd.dask, %s, %s, commit %s" % (gpu if gpu != "none" else rows[0]["cpu"], rows[0]["date"],
                                                       rows[0]["commit"]))
    fig.tight_layout()
    fig.savefig(dst, dpi=120)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
