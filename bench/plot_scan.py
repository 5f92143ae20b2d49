#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plots the GPU benchmark's scan (`batchsvd_gpu_bench --group scan --no-peers`): time per
matrix against order, log scales, one line per precision, one panel per shape class (square,
tall m = 2n, tall m = 4n, wide n = 2m). A second CSV (--before) is drawn dashed, for a
comparison in the same run. Prints the checks the scan is held to, per class and precision:

- monotone: no order slower than a larger order of its class by more than 10%;
- smooth: between consecutive measured orders n1 < n2, t(n2) / t(n1) <= 1.25 (n2 / n1)^3;

both within one batch size (the scan's squares run at batch 10000 to order 64 and at 1000
from 64: the per-matrix time of a smaller batch is no step of the kernels);
- accuracy: e1-e4 (in units of u) below 30;

and the worst step and the worst non-monotone pair of each. Exit status 0 whatever they say.

    python3 bench/plot_scan.py SCAN.csv [--before OTHER.csv] [--out PNG]
"""
import argparse
import csv
import math
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

UNIT = {"float32": 2.0 ** -24, "float64": 2.0 ** -53, "complex64": 2.0 ** -24, "complex128": 2.0 ** -53}
CLASSES = ("square", "tall 2:1", "tall 4:1", "wide 1:2")


def shape_class(m, n):
    if m == n:
        return "square", n
    if m == 2 * n:
        return "tall 2:1", n
    if m == 4 * n:
        return "tall 4:1", n
    if n == 2 * m:
        return "wide 1:2", m
    return None, None


def read(path):
    """{(class, precision): [(order, ms per matrix, worst error in u, path, batch)]}, by batch
    (largest first), then order."""
    out = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            m, n, batch = int(r["m"]), int(r["n"]), int(r["batch"])
            cls, order = shape_class(m, n)
            try:
                ms = float(r["batchsvd_ms"])
            except ValueError:
                continue
            if cls is None or not (ms > 0 and math.isfinite(ms)):
                continue
            u = UNIT.get(r["precision"], float("nan"))
            errs = []
            for k in ("e1", "e2", "e3", "e4"):
                try:
                    errs.append(float(r[k]) / u)
                except (KeyError, ValueError):
                    errs.append(float("nan"))
            out.setdefault((cls, r["precision"]), []).append(
                (order, ms / batch, max(errs), r.get("fused_plan", ""), batch))
    for v in out.values():
        v.sort(key=lambda x: (-x[4], x[0]))
    return out


def checks(series):
    """Worst smoothness ratio (t2/t1 over 1.25 (n2/n1)^3), worst non-monotone pair (t1/t2 for
    n1 < n2), counts of failures, worst error; pairs within one batch size only."""
    worst_step, worst_mono = (0.0, None), (0.0, None)
    steps_bad = mono_bad = 0
    for batch in sorted({x[4] for x in series}, reverse=True):
        part = [x for x in series if x[4] == batch]
        for (n1, t1, _, p1, _), (n2, t2, _, p2, _) in zip(part, part[1:]):
            r = (t2 / t1) / (1.25 * (n2 / n1) ** 3)
            if r > 1:
                steps_bad += 1
            if r > worst_step[0]:
                worst_step = (r, (n1, n2, t1, t2, p1, p2))
        for i, (n1, t1, _, p1, _) in enumerate(part):
            for n2, t2, _, p2, _ in part[i + 1:]:
                r = t1 / t2
                if r > 1.10:
                    mono_bad += 1
                if r > worst_mono[0]:
                    worst_mono = (r, (n1, n2, t1, t2, p1, p2))
    worst_err = max((x[2] for x in series if math.isfinite(x[2])), default=float("nan"))
    return worst_step, steps_bad, worst_mono, mono_bad, worst_err


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--before", default="", help="a scan of other code, drawn dashed")
    ap.add_argument("--before-label", default="before")
    ap.add_argument("--label", default="")
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    data = read(args.csv)
    before = read(args.before) if args.before else {}
    fig, axes = plt.subplots(2, 2, figsize=(13, 10))
    colors = {"float64": "C0", "float32": "C1", "complex64": "C2", "complex128": "C3"}
    print("| class | precision | orders | worst step (x allowed) | steps over | worst non-monotone pair | pairs over 10% | worst error (u) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for ax, cls in zip(axes.flat, CLASSES):
        for prec in ("float64", "float32", "complex64", "complex128"):
            s = data.get((cls, prec))
            if s:
                ax.plot([x[0] for x in s], [x[1] * 1e3 for x in s], "-o", ms=2.5, lw=1.2,
                        color=colors[prec], label=prec + (" " + args.label if args.label else ""))
                (ws, wsp), nsb, (wm, wmp), nmb, we = checks(s)
                step = "%.2f (%d→%d: %.3g→%.3g µs)" % (ws, wsp[0], wsp[1], wsp[2] * 1e3, wsp[3] * 1e3) if wsp else "-"
                mono = "%.2f (%d: %.3g µs, %d: %.3g µs)" % (wm, wmp[0], wmp[2] * 1e3, wmp[1], wmp[3] * 1e3) if wmp else "-"
                print("| %s | %s | %d-%d (%d) | %s | %d | %s | %d | %.1f |" % (
                    cls, prec, min(x[0] for x in s), max(x[0] for x in s), len(s), step, nsb, mono, nmb, we))
            b = before.get((cls, prec))
            if b:
                ax.plot([x[0] for x in b], [x[1] * 1e3 for x in b], "--", lw=0.9, color=colors[prec],
                        alpha=0.6, label=prec + " " + args.before_label)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(cls + (" (order = n)" if cls != "wide 1:2" else " (order = m)"))
        ax.set_xlabel("order")
        ax.set_ylabel("µs per matrix")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    out = args.out or os.path.splitext(args.csv)[0] + ".png"
    fig.savefig(out, dpi=110)
    print("wrote", out)


if __name__ == "__main__":
    main()
