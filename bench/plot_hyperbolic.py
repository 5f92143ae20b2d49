#!/usr/bin/env python3
"""Plot of bench/hyperbolic_bench.py's CSV: time of each case against its peer (left) and the
smallest eigenvalue's relative error of eigh_indefinite against numpy.linalg.eigh (right).
Usage: python3 bench/plot_hyperbolic.py FILE.csv OUT.png"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    labels, ours, peers, peer_names = [], [], [], []
    for r in rows:
        shape = "%sx%s" % (r["m"], r["n"]) if r["m"] != r["n"] else "%s²" % r["n"]
        labels.append("%s\n%s %s x %s" % (r["mode"], r["precision"], r["batch"], shape))
        ours.append(float(r["batchsvd_ms"]))
        peer = r["svd_ms"] or r["numpy_eigh_ms"]
        peers.append(float(peer))
        peer_names.append("our SVD" if r["svd_ms"] else "numpy.linalg.eigh")
    x = range(len(rows))
    ax1.bar([i - 0.2 for i in x], ours, 0.4, label="batchsvd (hsvd / eigh_indefinite)")
    ax1.bar([i + 0.2 for i in x], peers, 0.4, label="peer: our SVD (hsvd), numpy.linalg.eigh (eigh)")
    ax1.set_xticks(list(x))
    ax1.set_xticklabels(labels, fontsize=6, rotation=30, ha="right")
    ax1.set_ylabel("ms (median)")
    ax1.legend(fontsize=7)
    ax1.set_title("time, %s threads, %s" % (rows[0]["threads"], rows[0]["gpu"] if rows[0]["gpu"] != "none" else "CPU"))
    eig = [r for r in rows if r["rel_err_batchsvd"]]
    xe = range(len(eig))
    ax2.bar([i - 0.2 for i in xe], [float(r["rel_err_batchsvd"]) for r in eig], 0.4, label="eigh_indefinite")
    ax2.bar([i + 0.2 for i in xe], [float(r["rel_err_numpy"]) for r in eig], 0.4, label="numpy.linalg.eigh")
    ax2.set_yscale("log")
    ax2.set_xticks(list(xe))
    ax2.set_xticklabels(["%s %s²" % (r["precision"], r["n"]) for r in eig], fontsize=7)
    ax2.set_ylabel("relative error of the smallest |eigenvalue|")
    ax2.set_title("graded indefinite matrices (entries 1e-10 to 1)")
    ax2.legend(fontsize=7)
    fig.suptitle("commit %s, %s" % (rows[0]["commit"], rows[0]["date"]), fontsize=8)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)


if __name__ == "__main__":
    main()
