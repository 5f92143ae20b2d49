#!/usr/bin/env python3
"""Singular values alone on the CPU backend: the bidiagonal route against the Jacobi route
and NumPy, and gebrd's time, in the same run.

mode=svdvals: batchsvd.svdvals(method="bidiagonal") (batchsvd_ms) against
  batchsvd.svdvals(method="jacobi") (jacobi_values_ms) and numpy.linalg.svd(compute_uv=False)
  (numpy_ms, LAPACK ?gesdd values through NumPy, which computes float32 in double precision),
  with e4 of each against NumPy in double precision (in units of u).
mode=gebrd: batchsvd.gebrd (batchsvd_ms).
Square orders --orders (default 8..64 every 8, then 80..512 every 16 ... sparse past 256),
float64 and float32 (--dtypes: complex too), batch sized to about --seconds of NumPy work. Times: median of --reps
after a warm-up. CSV columns: mode, gpu, date, commit, threads, precision, m, n, batch,
batchsvd_ms, jacobi_values_ms, numpy_ms, e4_batchsvd_u, e4_jacobi_u, e4_numpy_u.
Usage: python3 bench/values_bench.py [--threads T] [--reps R] [--seconds S] [--csv FILE]
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

EPS = {"float32": 2.0**-24, "float64": 2.0**-53, "complex64": 2.0**-24, "complex128": 2.0**-53}
ORDERS = list(range(8, 65, 8)) + [80, 96, 128, 160, 192, 256, 384, 512]


def median_ms(f, reps):
    f()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def e4_u(s, ref, dtype):
    k = ref.shape[-1]
    e = np.sqrt(((s.astype(np.float64) - ref) ** 2).sum(axis=-1)) / (k * np.maximum(1, ref[:, 0]))
    return float(e.max()) / EPS[dtype]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--seconds", type=float, default=0.3)
    p.add_argument("--orders", default=",".join(map(str, ORDERS)))
    p.add_argument("--dtypes", default="float64,float32")
    p.add_argument("--csv", default="-")
    args = p.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip() or "unknown"
    out = sys.stdout if args.csv == "-" else open(args.csv, "w", newline="")
    w = csv.writer(out)
    cols = ["mode", "gpu", "date", "commit", "threads", "precision", "m", "n", "batch", "batchsvd_ms",
            "jacobi_values_ms", "numpy_ms", "e4_batchsvd_u", "e4_jacobi_u", "e4_numpy_u"]
    w.writerow(cols)
    rng = np.random.default_rng()
    date = datetime.date.today().isoformat()
    for dtype in args.dtypes.split(","):
        for n in map(int, args.orders.split(",")):
            probe = rng.standard_normal((4, n, n)).astype(dtype)
            t = median_ms(lambda: np.linalg.svd(probe, compute_uv=False), 1) / 4
            batch = int(max(4, min(20000, args.seconds * 1e3 / max(t, 1e-3))))
            a = rng.standard_normal((batch, n, n))
            if dtype.startswith("complex"):
                a = a + 1j * rng.standard_normal((batch, n, n))
            a = a.astype(dtype)
            ref = np.linalg.svd(a.astype(np.complex128 if dtype.startswith("complex") else np.float64),
                                compute_uv=False)
            base = dict(gpu="none", date=date, commit=commit, threads=args.threads, precision=dtype, m=n, n=n,
                        batch=batch)
            ours = batchsvd.svdvals(a, method="bidiagonal", threads=args.threads)
            jac = batchsvd.svdvals(a, method="jacobi", threads=args.threads)
            nps = np.linalg.svd(a, compute_uv=False)
            row = dict(base, mode="svdvals",
                       batchsvd_ms="%.3f" % median_ms(lambda: batchsvd.svdvals(a, method="bidiagonal",
                                                                              threads=args.threads), args.reps),
                       jacobi_values_ms="%.3f" % median_ms(lambda: batchsvd.svdvals(a, method="jacobi",
                                                                                   threads=args.threads), args.reps),
                       numpy_ms="%.3f" % median_ms(lambda: np.linalg.svd(a, compute_uv=False), args.reps),
                       e4_batchsvd_u="%.2f" % e4_u(ours, ref, dtype), e4_jacobi_u="%.2f" % e4_u(jac, ref, dtype),
                       e4_numpy_u="%.2f" % e4_u(nps, ref, dtype))
            w.writerow([row.get(c, "") for c in cols])
            row = dict(base, mode="gebrd",
                       batchsvd_ms="%.3f" % median_ms(lambda: batchsvd.gebrd(a, threads=args.threads), args.reps))
            w.writerow([row.get(c, "") for c in cols])
            out.flush()


if __name__ == "__main__":
    main()
