#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Summary and plots of the benchmark suite (bench/gpu_bench.cu --group NAME --csv).

For every case it finds the fastest *accurate* peer: among cuSOLVER gesvdjBatched, gesvda,
gesvdj and gesvd (looped) and LAPACK gesvd/gesvj on the host's cores, those whose worst error
e1..e4 on the same inputs as batchsvd (the CSV's acc_*_u and cpu_*_max_err_u columns) is below
30u (where no error could be measured, matrices too large for the host reference, the peers
accurate by construction: all but gesvda). It prints, per group, a Markdown table, batchsvd's worst and best speedup against that
peer, the cases where batchsvd is not the fastest accurate option, and the faster inaccurate
peers (gesvda), each library's worst error on the geo batches (geo_acc_*_u), and batchsvd's
time over its roofline (the larger of the arithmetic and memory floors). With --plots DIR it also writes one PNG per group: time against size per
precision (log scales) and batchsvd's speedup over each peer.

    python3 bench/suite_summary.py [--plots DIR] GROUP=FILE.csv[+TORCH.csv[+TORCH2.csv]] [...]

TORCH.csv, from bench/torch_compare.py --group GROUP, adds torch.linalg.svd and its drivers
as peers (joined by precision, m, n and batch). Every speedup is a same-run ratio: a torch
peer's time over batchsvd's time in torch_compare.py's run (batchsvd called from Python on
torch tensors), a cuSOLVER or LAPACK peer's over the C++ benchmark's batchsvd time.
"""
import csv
import math
import sys

U_LIMIT = 30.0
# (time column, accuracy column, name)
PEERS = [("gesvdjBatched_ms", "acc_gesvdjBatched_u", "gesvdjBatched"),
         ("gesvdaStridedBatched_ms", "acc_gesvda_u", "gesvda"),
         ("gesvdj_loop_ms", "acc_gesvdj_u", "gesvdj (looped)"),
         ("gesvd_loop_ms", "acc_gesvd_u", "gesvd (looped)"),
         ("cpu_gesvd_ms", "cpu_gesvd_max_err_u", "LAPACK gesvd (CPU)"),
         ("cpu_gesvj_ms", "cpu_gesvj_max_err_u", "LAPACK gesvj (CPU)"),
         # from bench/torch_compare.py --group (GROUP=FILE.csv+TORCH.csv)
         ("torch_ms", "acc_torch_u", "torch.linalg.svd"),
         ("torch_gesvd_ms", "acc_torch_gesvd_u", "torch gesvd"),
         ("torch_gesvdj_ms", "acc_torch_gesvdj_u", "torch gesvdj"),
         ("torch_gesvda_ms", "acc_torch_gesvda_u", "torch gesvda")]


TCOL = {name: tcol for tcol, _, name in PEERS}


def num(x):
    try:
        v = float(x)
    except (TypeError, ValueError):
        return math.nan
    return v


def ms(v):
    if math.isnan(v):
        return "—"
    return "%.3g ms" % v if v < 1000 else "%.3g s" % (v / 1000)


def case_name(r):
    return "%s × %s×%s %s" % (r["batch"], r["m"], r["n"], r["precision"])


def roofline(r):
    """batchsvd's time over the larger of the arithmetic floor (flops at the measured sweeps,
    FP64/FP32 vector peak) and the memory floor (inputs read, outputs written once); over the
    memory floor alone ("mem") where the sweeps were not counted."""
    ours, mem, ar = num(r["batchsvd_ms"]), num(r.get("memory_floor_ms")), num(r.get("arith_floor_ms"))
    if math.isnan(ar):
        return "—" if math.isnan(mem) else "%.3g (mem)" % (ours / mem)
    return "%.3g" % (ours / max(ar, mem if not math.isnan(mem) else 0.0))


def ours_for(r, tcol):
    """batchsvd's time in the run that timed the peer in tcol: torch's peers were timed by
    bench/torch_compare.py beside batchsvd called from Python (its own batchsvd_ms, joined as
    torch_batchsvd_ms), the others by the C++ benchmark."""
    if tcol.startswith("torch") and math.isfinite(num(r.get("torch_batchsvd_ms"))):
        return num(r["torch_batchsvd_ms"])
    return num(r["batchsvd_ms"])


def analyse(r):
    """(ours, fastest accurate (speedup, name, error, ms), faster inaccurate [(name, ms, err)]).
    Speedups are same-run ratios: the peer's time over batchsvd's in the run that timed it."""
    ours = num(r["batchsvd_ms"])
    accurate, inaccurate = [], []
    for tcol, ecol, name in PEERS:
        t, e = num(r.get(tcol)), num(r.get(ecol))
        if math.isnan(t) or math.isinf(t):
            continue
        if not math.isnan(e) and e < U_LIMIT:
            accurate.append((t / ours_for(r, tcol), name, e, t))
        elif not math.isnan(e):
            inaccurate.append((t / ours_for(r, tcol), name, e, t))
    best = min(accurate) if accurate else None
    if best is None:  # no errors measured (too large for the host reference): the peers that
        # are accurate by construction (not gesvda), marked as unmeasured (NaN error)
        known = [(num(r.get(t)) / ours_for(r, t), n, math.nan, num(r.get(t))) for t, _, n in PEERS
                 if "gesvda" not in n and math.isfinite(num(r.get(t)))]
        best = min(known) if known else None
    faster_bad = [(n, t, e) for sp, n, e, t in inaccurate if sp < 1]
    return ours, best, faster_bad


def summary(group, rows):
    print("### %s (%d cases)\n" % (group, len(rows)))
    if rows:
        h = rows[0]
        print("%s, CUDA %s, commit %s, %s\n" % (h["gpu"], h["cuda"], h["commit"], h["date"][:10]))
    print("| case | path | batchsvd | its error / u | fastest accurate peer | its time | speedup "
          "| × roofline |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    speedups, behind, bad, skipped_faster = [], [], [], []
    for r in rows:
        ours, best, faster_bad = analyse(r)
        err = num(r.get("acc_batchsvd_u"))
        if best:
            sp = best[0]
            speedups.append((sp, case_name(r), best[1]))
            if sp < 1:
                behind.append("%s: %s against %s's %s (same-run ratio %.3g)" % (
                    case_name(r), ms(ours_for(r, TCOL[best[1]])), best[1], ms(best[3]), sp))
            peer = ("%s (%.2gu)" % (best[1], best[2]) if not math.isnan(best[2])
                    else "%s (error not measured)" % best[1])
            print("| %s | %s | %s | %s | %s | %s | %.3g× | %s |" % (
                case_name(r), r.get("fused_plan", ""), ms(ours),
                "—" if math.isnan(err) else "%.1f" % err, peer, ms(best[3]), sp, roofline(r)))
        else:
            print("| %s | %s | %s | %s | none measured | — | — | %s |" % (
                case_name(r), r.get("fused_plan", ""), ms(ours),
                "—" if math.isnan(err) else "%.1f" % err, roofline(r)))
        for name, t, e in faster_bad:
            bad.append("%s: %s %s (error %.3gu) against batchsvd's %s" % (case_name(r), name, ms(t), e, ms(ours)))
        for tcol, _, name in PEERS:  # skipped over the cap, but projected faster than batchsvd
            proj = num(r.get(tcol.replace("_ms", "_projected_ms")))
            if math.isinf(num(r.get(tcol))) and proj < ours:
                skipped_faster.append("%s: %s projected at %s from a sub-batch (not run: over the "
                                      "cap; accuracy not measured) against batchsvd's %s" % (
                                          case_name(r), name, ms(proj), ms(ours)))
    print()
    if speedups:
        lo, hi = min(speedups), max(speedups)
        print("- Against the fastest accurate peer: worst %.3g× (%s, %s), best %.3g× (%s, %s)."
              % (lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]))
    print("- Not the fastest accurate option: " + ("none." if not behind else ""))
    for b in behind:
        print("  - " + b)
    if bad:
        print("- Faster but inaccurate (error over 30u on the same inputs):")
        for b in bad:
            print("  - " + b)
    if skipped_faster:
        print("- Skipped over the cap although projected faster than batchsvd:")
        for b in skipped_faster:
            print("  - " + b)
    geo = geo_line(rows)
    if geo:
        print(geo)
    print()


# Each library's geo column: batchsvd's, and every peer's with a geo counterpart of its
# accuracy column (the CPU baseline has none).
GEO = [("geo_acc_batchsvd_u", "batchsvd_ms", "batchsvd")] + [
    ("geo_" + ecol, tcol, name) for tcol, ecol, name in PEERS if ecol.startswith("acc_")]


def geo_line(rows):
    """Each library's worst error over the group's geo batches (CSV columns geo_acc_*_u). An
    infinite value is a NaN in the library's output; a library that ran in the timed runs
    but has no geo value failed there (an error status, or a workspace it could not size):
    both are counted, not dropped."""
    parts = []
    for col, tcol, name in GEO:
        vals = [num(r.get(col)) for r in rows]
        ran = [math.isfinite(num(r.get(tcol))) for r in rows]
        nan_out = sum(math.isinf(v) for v in vals)
        no_value = sum(math.isnan(v) and t for v, t in zip(vals, ran))
        finite = [v for v in vals if math.isfinite(v)]
        if not finite and not nan_out and not no_value:
            continue
        over = sum(v >= U_LIMIT for v in finite)
        notes = []
        if over:
            notes.append("over 30u in %d of %d" % (over, len(finite)))
        if nan_out:
            notes.append("NaN in its output in %d" % nan_out)
        if no_value:
            notes.append("failed or NaN in %d" % no_value)
        parts.append("%s %s%s" % (name, "%.3gu" % max(finite) if finite else "no accurate result",
                                   " (%s)" % ", ".join(notes) if notes else ""))
    if not parts:
        return ""
    return ("- On geo matrices (kappa 1e10 double, 1e5 single; %d of %d cases), each library's worst "
            "error: %s." % (max(sum(not math.isnan(num(r.get(c))) for r in rows) for c, _, _ in GEO),
                            len(rows), "; ".join(parts)))


def plot(group, rows, dst):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    precs = sorted({r["precision"] for r in rows})
    fig, axes = plt.subplots(2, len(precs), figsize=(4.2 * len(precs), 7.5), squeeze=False)
    for j, p in enumerate(precs):
        rs = [r for r in rows if r["precision"] == p]
        xs = [max(int(r["m"]), int(r["n"])) for r in rs]
        ax, bx = axes[0][j], axes[1][j]
        ax.plot(xs, [num(r["batchsvd_ms"]) for r in rs], "o-", color="black", label="batchsvd")
        for tcol, _, name in PEERS:
            ys = [num(r.get(tcol)) for r in rs]
            if all(math.isnan(y) or math.isinf(y) for y in ys):
                continue
            ax.plot(xs, ys, ".--", label=name)
            bx.plot(xs, [y / ours_for(r, tcol) for y, r in zip(ys, rs)], ".--", label="vs " + name)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        bx.set_xscale("log", base=2)
        bx.set_yscale("log")
        bx.axhline(1, color="black", linewidth=0.8)
        ax.set_title("%s: %s (batch %s)" % (group, p, rs[0]["batch"]), fontsize=9)
        ax.set_ylabel("time, ms")
        bx.set_ylabel("batchsvd speedup (x, same run)")
        bx.set_xlabel("order max(m, n)")
        ax.grid(which="both", alpha=0.3)
        bx.grid(which="both", alpha=0.3)
        ax.legend(fontsize=6)
        bx.legend(fontsize=6)
    h = rows[0]
    fig.suptitle("%s, CUDA %s, commit %s, %s" % (h["gpu"], h["cuda"], h["commit"], h["date"][:10]),
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(dst, dpi=100)
    plt.close(fig)


def main(argv):
    plots = None
    if len(argv) > 1 and argv[0] == "--plots":
        plots, argv = argv[1], argv[2:]
    if not argv:
        sys.exit(__doc__)
    for item in argv:
        group, paths = item.split("=", 1)
        path, *torch_paths = paths.split("+")
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        for torch_path in torch_paths:  # torch's columns joined by case, its own batchsvd time
            # as torch_batchsvd_ms
            with open(torch_path, newline="") as f:
                extra = {(r["precision"], r["m"], r["n"], r["batch"]): r for r in csv.DictReader(f)}
            for r in rows:
                if (r["precision"], r["m"], r["n"], r["batch"]) not in extra:
                    continue
                t = extra.get((r["precision"], r["m"], r["n"], r["batch"]), {})
                r.update({k: v for k, v in t.items() if k.startswith(("torch_", "acc_torch", "geo_acc_torch"))})
                if "batchsvd_ms" in t:
                    r["torch_batchsvd_ms"] = t["batchsvd_ms"]
        summary(group, rows)
        if plots and rows:
            plot(group, rows, "%s/%s.png" % (plots, group))


if __name__ == "__main__":
    main(sys.argv[1:])
