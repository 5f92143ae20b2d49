#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Prints a Markdown table from a GPU benchmark CSV (bench/gpu_bench.cu's --csv): each case's
batchsvd time, the cuSOLVER peers' times and the speedups, batchsvd's worst error over the
four measures in units of u (of those the CSV holds), the time over the memory floor, and the
path that solved it (tiny kernel, warp kernel with its team, fused kernel, blocked path with
its block width, or QR). The
README's GPU tables are this script's output.

    python3 bench/summarize_gpu.py bench/results/h100/2026-11-26-quick/quick.csv
"""
import csv
import math
import sys

U = {"float32": 2.0 ** -24, "complex64": 2.0 ** -24, "float64": 2.0 ** -53, "complex128": 2.0 ** -53}


def num(x):
    try:
        return float(x)
    except ValueError:
        return math.nan


def ms(x):
    v = num(x)
    if math.isnan(v):
        return "—"
    return "%.3g ms" % v if v < 1000 else "%.3g s" % (v / 1000)


def ratio(a, b):
    a, b = num(a), num(b)
    return "—" if math.isnan(a) or math.isnan(b) else "%.3g×" % (a / b)


def main(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    head = rows[0]
    print("%s, CUDA %s, commit %s, %s (`%s`)\n" % (head["gpu"], head["cuda"], head["commit"],
                                                  head["date"][:10], path))
    print("| case (batch × m×n) | dtype | path | batchsvd | gesvdjBatched | gesvda (approx.) "
          "| gesvdj loop | × gesvdjBatched | × gesvda | × gesvdj loop | max error / u "
          "| × memory floor |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        errs = [num(r[e]) for e in ("e1", "e2", "e3", "e4", "max_e2") if e in r]
        err = max(errs) / U[r["precision"]]
        plan = r.get("fused_plan", r.get("plan", ""))
        # old CSVs name the fused kernel's plan "G.. team..", new ones "fused G.. team.. blk/SM .."
        path = ("fused" if plan.startswith(("G", "fused")) else "tiny" if plan.startswith("tiny")
                else plan or "?")
        print("| %s × %s×%s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.1f | %s |" % (
            r["batch"], r["m"], r["n"], r["precision"], path, ms(r["batchsvd_ms"]),
            ms(r.get("gesvdjBatched_ms", "nan")), ms(r["gesvdaStridedBatched_ms"]),
            ms(r["gesvdj_loop_ms"]), ratio(r.get("gesvdjBatched_ms", "nan"), r["batchsvd_ms"]),
            ratio(r["gesvdaStridedBatched_ms"], r["batchsvd_ms"]),
            ratio(r["gesvdj_loop_ms"], r["batchsvd_ms"]), err,
            "—" if math.isnan(num(r.get("batchsvd_over_floor", "nan")))
            else "%.3g" % num(r["batchsvd_over_floor"])))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
