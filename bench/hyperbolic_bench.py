#!/usr/bin/env python3
"""The hyperbolic SVD and eigh_indefinite on the CPU backend, against their peers in the same run.

mode=hsvd: batchsvd.hsvd on G with a mixed signature against batchsvd.svd on the same G
  (svd_ms).
mode=eigh_indefinite: batchsvd.eigh_indefinite on graded indefinite Hermitian matrices
  A = D B D (B = Q diag(+-(1..2)) Q^H, D = diag(10^(-5 x)), x spread over [0, 1] in a random
  order: entries from 1e-10 to 1) against numpy.linalg.eigh (LAPACK ?syevd / ?heevd,
  numpy_eigh_ms), with the worst relative error of the smallest |lambda| of each, measured on
  `--check` matrices against mpmath at 50 digits (rel_err_batchsvd, rel_err_numpy).

Times: median of --reps runs after one warm-up, wall clock (time.perf_counter). CSV columns:
  mode, gpu, date, commit, threads, precision, m, n, batch, batchsvd_ms, svd_ms, numpy_eigh_ms,
  rel_err_batchsvd, rel_err_numpy
Usage: python3 bench/hyperbolic_bench.py [--threads T] [--reps R] [--check K] [--csv FILE]
"""
import argparse
import csv
import datetime
import os
import statistics
import subprocess
import sys
import time

import numpy as np

import batchsvd

CASES = [  # mode, precision, m, n, batch
    ("hsvd", "float64", 32, 32, 10000),
    ("hsvd", "float32", 32, 32, 10000),
    ("hsvd", "float64", 64, 64, 1000),
    ("hsvd", "float64", 128, 32, 2000),
    ("eigh_indefinite", "float64", 16, 16, 10000),
    ("eigh_indefinite", "float64", 64, 64, 1000),
    ("eigh_indefinite", "float32", 16, 16, 10000),
    ("eigh_indefinite", "complex128", 32, 32, 1000),
]


def median_ms(f, reps):
    f()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def graded(rng, n, batch, dtype):
    cplx = dtype.startswith("complex")
    out = np.empty((batch, n, n), dtype=dtype)
    for b in range(batch):
        z = rng.standard_normal((n, n)) + (1j * rng.standard_normal((n, n)) if cplx else 0)
        q, _ = np.linalg.qr(z)
        lam = rng.uniform(1, 2, n) * np.where(np.arange(n) % 2, -1, 1)
        m = (q * lam) @ q.conj().T
        d = 10.0 ** (-5 * rng.permutation(n) / (n - 1))
        a = d[:, None] * m * d[None, :]
        out[b] = ((a + a.conj().T) / 2).astype(dtype)
    return out


def smallest_rel_errors(a, w_ours, w_numpy, count):
    """Worst relative error of the smallest |lambda| over `count` matrices, against mpmath."""
    import mpmath
    mpmath.mp.dps = 50
    worst_ours = worst_np = 0.0
    for b in range(min(count, a.shape[0])):
        ab = a[b].astype(np.complex128 if np.iscomplexobj(a) else np.float64)
        mat = mpmath.matrix(ab.tolist())
        ev = mpmath.eighe(mat, eigvals_only=True) if np.iscomplexobj(a) else mpmath.eigsy(mat, eigvals_only=True)
        ref = np.array(sorted(float(x) for x in ev))
        k = int(np.argmin(np.abs(ref)))
        worst_ours = max(worst_ours, abs(float(w_ours[b][k]) - ref[k]) / abs(ref[k]))
        worst_np = max(worst_np, abs(float(w_numpy[b][k]) - ref[k]) / abs(ref[k]))
    return worst_ours, worst_np


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--check", type=int, default=8, help="matrices checked against mpmath per case")
    p.add_argument("--csv", default="-")
    p.add_argument("--cases", default="", help="comma-separated indices into the case list")
    args = p.parse_args()
    try:
        from threadpoolctl import threadpool_limits
        threadpool_limits(args.threads)
    except ImportError:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", str(args.threads))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip() or "unknown"
    out = sys.stdout if args.csv == "-" else open(args.csv, "w", newline="")
    w = csv.writer(out)
    w.writerow(["mode", "gpu", "date", "commit", "threads", "precision", "m", "n", "batch", "batchsvd_ms", "svd_ms",
                "numpy_eigh_ms", "rel_err_batchsvd", "rel_err_numpy"])
    rng = np.random.default_rng()
    picked = [CASES[int(i)] for i in args.cases.split(",")] if args.cases else CASES
    for mode, prec, m, n, batch in picked:
        row = dict(mode=mode, gpu="none", date=datetime.date.today().isoformat(), commit=commit,
                   threads=args.threads, precision=prec, m=m, n=n, batch=batch, batchsvd_ms="", svd_ms="",
                   numpy_eigh_ms="", rel_err_batchsvd="", rel_err_numpy="")
        if mode == "hsvd":
            g = rng.standard_normal((batch, m, n))
            if prec.startswith("complex"):
                g = g + 1j * rng.standard_normal((batch, m, n))
            g = g.astype(prec)
            j = np.where(np.arange(n) % 2, -1, 1)
            row["batchsvd_ms"] = "%.3f" % median_ms(lambda: batchsvd.hsvd(g, j, threads=args.threads), args.reps)
            row["svd_ms"] = "%.3f" % median_ms(lambda: batchsvd.svd(g, threads=args.threads), args.reps)
        else:
            a = graded(rng, n, batch, prec)
            row["batchsvd_ms"] = "%.3f" % median_ms(lambda: batchsvd.eigh_indefinite(a, threads=args.threads),
                                                    args.reps)
            row["numpy_eigh_ms"] = "%.3f" % median_ms(lambda: np.linalg.eigh(a), args.reps)
            ours = batchsvd.eigh_indefinite(a[:args.check], eigvals_only=True)
            theirs = np.linalg.eigvalsh(a[:args.check])
            e1, e2 = smallest_rel_errors(a, ours, theirs, args.check)
            row["rel_err_batchsvd"] = "%.2e" % e1
            row["rel_err_numpy"] = "%.2e" % e2
        w.writerow([row[k] for k in ["mode", "gpu", "date", "commit", "threads", "precision", "m", "n", "batch",
                                     "batchsvd_ms", "svd_ms", "numpy_eigh_ms", "rel_err_batchsvd", "rel_err_numpy"]])
        out.flush()


if __name__ == "__main__":
    main()
