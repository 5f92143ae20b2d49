#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plots bench/vbatched_bench.py's CSV as one PNG: per case and precision, bars of
batchsvd_ms (one batchsvd.svd(list) call), per_size_ms (batchsvd.svd per exact shape) and
torch_grouped_ms (torch.linalg.svd per exact shape), on a log scale, each baseline annotated
with its time over batchsvd's; a tick on the batchsvd bar marks the largest shape group alone.
Also prints the rows as a Markdown table.

    python3 bench/plot_vbatched.py FILE.csv [MORE.csv ...] [--out PNG]

The PNG goes next to the first CSV (same stem, .png) unless --out. Rows of several CSVs are
labelled with their commit where the commits differ.
"""
import argparse
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

BARS = (("batchsvd_ms", "batchsvd.svd(list), one call", "C0"),
        ("per_size_ms", "batchsvd.svd per exact shape", "C1"),
        ("torch_grouped_ms", "torch.linalg.svd per exact shape", "C2"))
RATIO = {"per_size_ms": "per_size_ratio", "torch_grouped_ms": "torch_ratio"}


def number(text):
    """A float from a CSV field; None where empty (not run)."""
    text = (text or "").strip()
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        return float("nan")


def good(x):
    return x is not None and math.isfinite(x) and x > 0


def read(paths):
    rows = []
    for p in paths:
        with open(p, newline="") as f:
            rows += [r for r in csv.DictReader(f) if r.get("mode") == "vbatched"]
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--out", default="", help="PNG path (default: the first CSV's, .png)")
    args = ap.parse_args()
    rows = read(args.csv)
    if not rows:
        sys.exit("plot_vbatched: no vbatched rows in %s" % ", ".join(args.csv))
    out = args.out or os.path.splitext(args.csv[0])[0] + ".png"
    commits = sorted({r["commit"] for r in rows})
    gpus = sorted({r["gpu"] for r in rows})

    labels = []
    for r in rows:
        lab = "%s\n%s\n%s matrices, %s shapes" % (r["case"], r["precision"], r["batch"], r["distinct_shapes"])
        if len(commits) > 1:
            lab += "\n" + r["commit"]
        if len(gpus) > 1:
            lab += "\n" + r["gpu"]
        labels.append(lab)

    width = 0.27
    fig, ax = plt.subplots(figsize=(max(7.0, 1.9 * len(rows) + 1.5), 5.8))
    values = [number(r[key]) for r in rows for key, _, _ in BARS]
    positive = [v for v in values if good(v)]
    top = max(positive) if positive else 1.0
    bottom = min(positive) if positive else 1.0
    for j, (key, name, color) in enumerate(BARS):
        xs, hs = [], []
        for i, r in enumerate(rows):
            v = number(r[key])
            x = i + (j - 1) * width
            if good(v):
                xs.append(x)
                hs.append(v)
                text = ("%.0f ms" if v >= 1000 else "%.3g ms") % v
                if key in RATIO:
                    ratio = number(r[RATIO[key]])
                    if ratio is not None and math.isfinite(ratio):
                        text = "%.2fx\n%s" % (ratio, text)
                ax.text(x, v * 1.08, text, ha="center", va="bottom", fontsize=7)
            else:
                ax.text(x, bottom, "not run" if v is None else "failed", ha="center", va="bottom",
                        fontsize=7, rotation=90, color="grey")
        if xs:  # no legend entry for a column that is empty everywhere
            ax.bar(xs, hs, width, color=color, label=name)
    lx, ly = [], []
    for i, r in enumerate(rows):
        v = number(r["largest_group_ms"])
        if good(v):
            lx.append(i - width)
            ly.append(v)
    if lx:
        ax.scatter(lx, ly, marker="_", s=500, color="black", zorder=3,
                   label="largest shape group alone (batchsvd)")
    ax.set_yscale("log")
    ax.set_ylim(bottom / 2, top * 6)
    ax.set_xticks(range(len(rows)), labels, fontsize=8)
    ax.set_ylabel("ms (median; the ratios are over batchsvd.svd(list))")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title("Variable-size batches: one batchsvd.svd(list) call against one call per exact shape\n"
                 "%s, commit %s, %s" % (" / ".join(gpus), " / ".join(commits),
                                        " / ".join(sorted({r["date"] for r in rows}))), fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print("| case | precision | matrices | shapes | batchsvd ms | per-size ms | torch ms "
          "| per-size / batchsvd | torch / batchsvd | largest group ms (fraction) | e1-e4 (u) "
          "| max info | commit |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        errs = " / ".join(r[c] for c in ("e1_u", "e2_u", "e3_u", "e4_u")) if r["e1_u"] else "-"
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s (%s) | %s | %s | %s |" % (
            r["case"], r["precision"], r["batch"], r["distinct_shapes"], r["batchsvd_ms"],
            r["per_size_ms"], r["torch_grouped_ms"] or "-", r["per_size_ratio"], r["torch_ratio"] or "-",
            r["largest_group_ms"], r["largest_group_fraction"], errs, r["max_info"], r["commit"]))
    print("PNG: %s" % out)


if __name__ == "__main__":
    main()
