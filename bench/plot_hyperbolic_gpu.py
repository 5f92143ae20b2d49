#!/usr/bin/env python3
"""Plot of batchsvd_hyperbolic_bench's CSV: hsvd's time over our SVD's on the same G by order
(left; dotted: over the SVD on the kernel hsvd runs, svd_unblocked_ms, where the CSV has it), eigh_indefinite's time against cuSOLVER's syevjBatched and looped syevd (middle), and
the relative errors of the eigenvalues (right: ours, the largest over all; cuSOLVER's, that of
the smallest |lambda|). Usage: python3 bench/plot_hyperbolic_gpu.py FILE.csv [FILE.csv ...] OUT.png"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def num(x):
    return float(x) if x not in ("", None) else float("nan")


def main():
    rows = []
    for path in sys.argv[1:-1]:
        rows += list(csv.DictReader(open(path)))
    fig, (ax1, ax2, ax3) = plt.subplots(1, 3, figsize=(16, 4.6))
    square = [r for r in rows if r["mode"] == "hsvd" and r["m"] == r["n"]]
    for prec, mark in (("f64", "o"), ("f32", "s")):
        for batch in sorted({r["batch"] for r in square if r["precision"] == prec}, key=int, reverse=True):
            h = sorted([r for r in square if r["precision"] == prec and r["batch"] == batch], key=lambda r: int(r["n"]))
            line = ax1.semilogy([int(r["n"]) for r in h], [num(r["svd_ratio"]) for r in h], mark + "-",
                                label="%s, batch %s: / our SVD" % (prec, batch))[0]
            unb = [(int(r["n"]), num(r["batchsvd_ms"]) / num(r["svd_unblocked_ms"])) for r in h
                   if r.get("svd_unblocked_ms")]
            if unb:
                ax1.semilogy([x for x, _ in unb], [y for _, y in unb], mark + ":", color=line.get_color(),
                             label="%s, batch %s: / the SVD on the same kernel" % (prec, batch))
    ax1.axhline(1.5, color="grey", ls="--", lw=0.8, label="1.5x")
    ax1.set_xscale("log", base=2)
    ax1.set_xlabel("order n (n x n, alternating signature)")
    ax1.set_ylabel("hsvd time / SVD time (same G, U and V)")
    ax1.set_title("hsvd against our SVD")
    ax1.legend(fontsize=6, loc="upper left")
    e = sorted([r for r in rows if r["mode"] == "eigh_indefinite" and r["precision"] == "f64"],
               key=lambda r: int(r["n"]))
    if e:
        n = [int(r["n"]) for r in e]
        per = [1.0 / int(r["batch"]) for r in e]
        ax2.semilogy(n, [num(r["batchsvd_ms"]) * p for r, p in zip(e, per)], "o-", label="eigh_indefinite")
        ax2.semilogy(n, [num(r["syevj_ms"]) * p for r, p in zip(e, per)], "s-", label="cuSOLVER syevjBatched")
        ax2.semilogy(n, [num(r["syevd_loop_ms"]) * p for r, p in zip(e, per)], "^-", label="cuSOLVER syevd, looped")
        ax2.set_xlabel("order n (float64)")
        ax2.set_ylabel("ms a matrix (median)")
        ax2.set_title("eigenvalues and eigenvectors, graded to 1e-%s" % e[0]["grading"])
        ax2.legend(fontsize=7)
        ax3.semilogy(n, [num(r["rel_err_max"]) for r in e], "o-", label="eigh_indefinite, every eigenvalue")
        ax3.semilogy(n, [num(r["syevj_rel_err_smallest"]) for r in e], "s-", label="syevjBatched, smallest |lambda|")
        ax3.semilogy(n, [num(r["syevd_rel_err_smallest"]) for r in e], "^-", label="syevd, smallest |lambda|")
        ax3.axhline(1e-12, color="grey", ls="--", lw=0.8, label="1e-12")
        ax3.set_xlabel("order n (float64)")
        ax3.set_ylabel("relative error (worst of the matrices checked)")
        ax3.set_title("accuracy against binary128")
        ax3.legend(fontsize=7)
    fig.suptitle("%s, %s, commit %s" % (rows[0]["gpu"], rows[0]["date"], rows[0]["commit"]), fontsize=9)
    fig.tight_layout()
    fig.savefig(sys.argv[-1], dpi=110)


if __name__ == "__main__":
    main()
