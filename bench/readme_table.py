#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The README's performance table, generated from a batchsvd_gpu_bench CSV.

    python3 bench/readme_table.py CSV [--png PNG] [--update-readme README.md]

Prints a Markdown block: one line naming the GPU, CUDA version, commit and date (from the
CSV's own columns) and the CSV, then a table with, per case, the path that solved it,
batchsvd's time, each cuSOLVER peer's time where the CSV has it (gesvdjBatched,
gesvdaStridedBatched, gesvdj called in a loop), batchsvd's speedup over each, and batchsvd's
worst error over e1-e4 in units of the unit roundoff u.

--png PNG           also draw the plot (bench/plot_gpu.py) when matplotlib is importable;
                    otherwise say that the plot was skipped.
--update-readme F   replace the text between the lines `<!-- perf-table:begin -->` and
                    `<!-- perf-table:end -->` of F with the block, instead of printing it.

Only the standard library is needed for the table. The README's table is made by
    python3 bench/readme_table.py bench/results/h100/2026-11-26-layout-and-merges/quick.csv \\
        --update-readme README.md
"""
import argparse
import contextlib
import csv
import math
import os
import sys

BEGIN = "<!-- perf-table:begin -->"
END = "<!-- perf-table:end -->"

# Unit roundoff of each precision.
U = {"float32": 2.0 ** -24, "complex64": 2.0 ** -24,
     "float64": 2.0 ** -53, "complex128": 2.0 ** -53}

# (CSV column, table heading, name in the CSV's skipped_over_cap column)
PEERS = [("gesvdjBatched_ms", "gesvdjBatched", "gesvdjBatched"),
         ("gesvdaStridedBatched_ms", "gesvdaStridedBatched", "gesvda"),
         ("gesvdj_loop_ms", "gesvdj (looped)", "gesvdj_loop")]


def num(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return math.nan


def sig3(x):
    """x to three significant digits, trailing zeros kept (15.0, 0.0729, 144)."""
    return format(x, "#.3g").rstrip(".")


def fmt_time(ms):
    if math.isnan(ms):
        return "—"
    return sig3(ms / 1000) + " s" if ms >= 1000 else sig3(ms) + " ms"


def fmt_ratio(r):
    if math.isnan(r):
        return "—"
    if r >= 1000:  # 3,040× rather than 3.04e+03×
        return "{:,.0f}×".format(float(format(r, ".3g")))
    return sig3(r) + "×"


def path_name(plan):
    """The solving path from the CSV's plan column ("warp nc32 rpl1", "blocked nb32 pre", ...)."""
    words = (plan or "").split()
    if not words:
        return "?"
    name = words[0]
    if name == "blocked" and words[-1] == "pre":
        return "blocked, preconditioned"
    if name.startswith("G"):  # old CSVs name the fused kernel's plan "G.. team.."
        return "fused"
    return name


def peer_notes(row):
    """{peer name: reason} from the skipped_over_cap column ("gesvda(failed);gesvdj_loop;")."""
    notes = {}
    for token in (row.get("skipped_over_cap") or "").split(";"):
        token = token.strip()
        if not token or token == "none":
            continue
        name, _, reason = token.partition("(")
        notes[name.strip()] = reason.rstrip(")").strip() or "over cap"
    return notes


def worst_error_u(row):
    """batchsvd's worst of e1..e4 over the checked matrices, in units of u (NaN if absent)."""
    u = U.get(row.get("precision", ""))
    errs = [num(row.get(e)) for e in ("e1", "e2", "e3", "e4")]
    errs = [e for e in errs if not math.isnan(e)]
    if u is None or not errs:
        return math.nan
    return max(errs) / u


def distinct(rows, key, cut=None):
    seen = []
    for r in rows:
        v = (r.get(key) or "").strip()
        if cut:
            v = v[:cut]
        if v and v not in seen:
            seen.append(v)
    return ", ".join(seen) or "unknown"


def table(csv_path):
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit("readme_table: no rows in " + csv_path)
    missing = [c for c in ("precision", "m", "n", "batch", "batchsvd_ms") if c not in rows[0]]
    if missing:
        sys.exit("readme_table: %s is not a batchsvd_gpu_bench CSV (no column %s)"
                 % (csv_path, ", ".join(missing)))
    # A peer gets columns when the CSV has it for at least one case.
    peers = [p for p in PEERS if any(not math.isnan(num(r.get(p[0]))) for r in rows)]

    out = ["%s, CUDA %s, commit %s, %s (`%s`)" % (
        distinct(rows, "gpu"), distinct(rows, "cuda"), distinct(rows, "commit"),
        distinct(rows, "date", 10), csv_path), ""]
    head = ["case (batch × m×n)", "dtype", "path", "batchsvd"]
    head += [name for _, name, _ in peers]
    head += ["× " + name for _, name, _ in peers]
    head += ["worst error / u"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "|".join([" --- "] * 3 + [" ---: "] * (len(head) - 3)) + "|")
    for r in rows:
        ours = num(r["batchsvd_ms"])
        notes = peer_notes(r)
        cells = ["%s × %s×%s" % (r["batch"], r["m"], r["n"]), r["precision"],
                 path_name(r.get("fused_plan", r.get("plan"))), fmt_time(ours)]
        for key, _, tag in peers:
            t = num(r.get(key))
            cells.append(notes.get(tag, "—") if math.isnan(t) else fmt_time(t))
        for key, _, _ in peers:
            cells.append(fmt_ratio(num(r.get(key)) / ours))
        err = worst_error_u(r)
        cells.append("—" if math.isnan(err) else "%.1f" % err)
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def update_readme(readme, block):
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    if text.count(BEGIN) != 1 or text.count(END) != 1:
        sys.exit("readme_table: %s must hold exactly one %s and one %s line"
                 % (readme, BEGIN, END))
    start = text.index(BEGIN) + len(BEGIN)
    stop = text.index(END)
    if stop < start:
        sys.exit("readme_table: %s has %s before %s" % (readme, END, BEGIN))
    new = text[:start] + "\n" + block + text[stop:]
    if new == text:
        print("readme_table: %s already holds this table" % readme, file=sys.stderr)
        return
    with open(readme, "w", encoding="utf-8") as f:
        f.write(new)
    print("readme_table: updated the table in %s" % readme, file=sys.stderr)


def plot(csv_path, png):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    try:
        import plot_gpu  # bench/plot_gpu.py; imports matplotlib
    except ImportError as e:
        print("readme_table: skipped the plot (%s)" % e, file=sys.stderr)
        return
    with contextlib.redirect_stdout(sys.stderr):  # stdout carries the table only
        plot_gpu.main(csv_path, png)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", help="a batchsvd_gpu_bench CSV (scripts/gpu_check.sh writes one)")
    ap.add_argument("--png", help="also write the plot here (needs matplotlib)")
    ap.add_argument("--update-readme", metavar="README",
                    help="replace the text between the perf-table markers of this file")
    args = ap.parse_args()
    block = table(args.csv)
    if args.update_readme:
        update_readme(args.update_readme, block)
    else:
        sys.stdout.write(block)
    if args.png:
        plot(args.csv, args.png)


if __name__ == "__main__":
    main()
