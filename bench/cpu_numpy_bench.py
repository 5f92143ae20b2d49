#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The CPU backend against numpy.linalg.svd, in one process on the same cores and inputs.

    python3 bench/cpu_numpy_bench.py [--threads T] [--precisions float64,float32]
        [--group scan|sample|quick] [--seconds 0.3] [--reps 3] [--commit C] [--out FILE]
        [--lapack gesdd,gesvj] [--lapack-loop LIB] [--shapes MxN,...]

--threads sets OMP_NUM_THREADS (batchsvd) and OPENBLAS_NUM_THREADS (NumPy's OpenBLAS) before
either is loaded (default: every core). Groups:

    scan    square orders 2-64 (every order), then 80-512 every 16; tall m = 4n and wide
            n = 4m for n in 4, 8, 16, 32, 64, 128
    sample  square orders 2, 3, 4, 6, 8, 9, 12, 16, 24, 32, 33, 48, 64, 96, 128, 192, 256,
            384, 512; tall and wide 4:1 for n = 16 and 64
    quick   10000 x 32^2, 2000 x 64^2, 200 x 128^2, 20 x 256^2 (fixed batches)

--shapes (e.g. 32x8,8x32) runs those shapes instead of a group, batches sized as the scan's.

The LAPACK loops come from the benchmarks' build (libbatchsvd_lapack_loop_c.so: --lapack-loop,
else the first build*/bench/ of this checkout that has it; `cmake -S . -B build && cmake --build
build --target batchsvd_lapack_loop_c`); without it their columns stay empty. --lapack ""
skips them.

Before each library's runs the benchmark rests --settle seconds: NumPy's OpenBLAS threads spin
about 0.1 s after a call before they sleep, and on 16 cores they took the cores of the run after.

In the scan each case's batch is sized to about --seconds of NumPy's time (from a timed
probe of 8 matrices). Inputs: standard normal entries, fresh each run (the seed is printed).
Columns:

    mode=cpu, cpu (the model name), date, commit, threads, precision, m, n, batch
    batchsvd_ms   batchsvd.svd(a) (U, S, Vh), median of --reps after a warm-up
    numpy_ms      numpy.linalg.svd(a, full_matrices=False), the same way
    ratio         numpy_ms / batchsvd_ms
    gesdd_loop_ms, gesvj_loop_ms
                  LAPACK ?gesdd (U, S, V^H economy) and ?gesvj (one-sided Jacobi) in an OpenMP
                  loop over the batch on the same threads (bench/lapack_loop.cpp, the BLAS on
                  one thread inside it), the same way; empty where not run
    batchsvd_loop_ms
                  batchsvd's CPU backend in that harness (one gesvd call on the same
                  column-major input, outputs allocated once outside the timing, as the
                  loops' are): the library without Python's allocation of its results
    gesdd_ratio, gesvj_ratio
                  those loops' times over batchsvd_loop_ms (the same harness; over
                  batchsvd_ms where the loops are not run)
    e1_u .. e4_u  the worst e1-e4 of batchsvd's results over the first 16 matrices, in units
                  of u (python/tests/svd_measures.py; S_ref NumPy's)
"""
import argparse
import ctypes
import datetime
import glob
import os
import platform
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--precisions", default="float64,float32")
    p.add_argument("--group", choices=["scan", "sample", "quick"], default="scan")
    p.add_argument("--shapes", default="", help="MxN,... instead of a group")
    p.add_argument("--seconds", type=float, default=0.3)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--commit", default="")
    p.add_argument("--out", default="")
    p.add_argument("--settle", type=float, default=0.2,
                   help="seconds of rest before each timed library (BLAS threads of the one before stop spinning)")
    p.add_argument("--lapack", default="gesdd,gesvj", help="LAPACK loops to time (comma-separated; empty: none)")
    p.add_argument("--lapack-loop", default="", help="path of libbatchsvd_lapack_loop_c.so")
    return p.parse_args()


ARGS = parse()
os.environ["OMP_NUM_THREADS"] = str(ARGS.threads)
os.environ["OPENBLAS_NUM_THREADS"] = str(ARGS.threads)
import numpy as np  # noqa: E402  (after the thread counts are set)

import batchsvd  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "python", "tests"))
from svd_measures import error_measures  # noqa: E402


def commit_of(explicit):
    if explicit:
        return explicit
    try:
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True, timeout=20).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True, timeout=60).stdout.strip()
        return head + ("+dirty" if dirty else "")
    except Exception:
        return "unknown"


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def lapack_loop_library(explicit):
    """The LAPACK loops' C library, or None (with a note on stderr)."""
    paths = [explicit] if explicit else sorted(glob.glob(os.path.join(ROOT, "build*", "bench",
                                                                       "libbatchsvd_lapack_loop_c.so")))
    for path in paths:
        try:
            lib = ctypes.CDLL(os.path.abspath(path))
        except OSError as e:
            print("# cannot load %s: %s" % (path, e), file=sys.stderr)
            continue
        f = lib.batchsvd_bench_lapack_loop
        f.restype = ctypes.c_double
        f.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_long, ctypes.c_long, ctypes.c_long, ctypes.c_void_p,
                      ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_double)]
        print("# LAPACK loops from %s" % path, flush=True)
        return f
    print("# no libbatchsvd_lapack_loop_c.so (build target batchsvd_lapack_loop_c): LAPACK columns empty",
          file=sys.stderr)
    return None


def lapack_loop_ms(loop, routine, a, reps):
    """Median ms of the LAPACK loop over a (batch, m, n), handed over column-major."""
    colmajor = np.ascontiguousarray(np.swapaxes(a, 1, 2))  # each matrix's columns contiguous
    errors = (ctypes.c_double * 4)()
    time.sleep(ARGS.settle)
    ms = loop(routine.encode(), str(a.dtype).encode(), a.shape[1], a.shape[2], a.shape[0],
              colmajor.ctypes.data, ARGS.threads, reps, errors)
    return ms


def median_ms(f, reps):
    time.sleep(ARGS.settle)  # OpenBLAS's idle threads spin about 0.1 s after a call before they sleep
    f()  # warm-up
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2] * 1e3


def cases(group):
    if ARGS.shapes:
        return [tuple(int(v) for v in x.split("x")) + (None,) for x in ARGS.shapes.split(",") if x]
    if group == "quick":
        return [(32, 32, 10000), (64, 64, 2000), (128, 128, 200), (256, 256, 20)]
    if group == "sample":
        out = [(n, n, None) for n in (2, 3, 4, 6, 8, 9, 12, 16, 24, 32, 33, 48, 64, 96, 128, 192, 256, 384, 512)]
        return out + [(4 * n, n, None) for n in (16, 64)] + [(n, 4 * n, None) for n in (16, 64)]
    out = [(n, n, None) for n in range(2, 65)] + [(n, n, None) for n in range(80, 513, 16)]
    for n in (4, 8, 16, 32, 64, 128):
        out += [(4 * n, n, None), (n, 4 * n, None)]
    return out


def main():
    rng = np.random.default_rng()
    seed = int(rng.integers(1 << 62))
    rng = np.random.default_rng(seed)
    meta = {"mode": "cpu", "cpu": cpu_name(), "date": datetime.date.today().isoformat(),
            "commit": commit_of(ARGS.commit), "threads": ARGS.threads}
    cols = ["mode", "cpu", "date", "commit", "threads", "precision", "m", "n", "batch", "batchsvd_ms", "numpy_ms",
            "ratio", "gesdd_loop_ms", "gesvj_loop_ms", "gesdd_ratio", "gesvj_ratio", "e1_u", "e2_u", "e3_u", "e4_u",
            "batchsvd_loop_ms"]
    routines = [r.strip() for r in ARGS.lapack.split(",") if r.strip()]
    loop = lapack_loop_library(ARGS.lapack_loop) if routines else None
    print("# %s | %d threads | commit %s | seed %d" % (meta["cpu"], ARGS.threads, meta["commit"], seed), flush=True)
    out = open(ARGS.out, "w") if ARGS.out else None
    if out:
        out.write(",".join(cols) + "\n")
    print(",".join(cols), flush=True)
    for prec in [p.strip() for p in ARGS.precisions.split(",") if p.strip()]:
        dtype = np.dtype(prec)
        u = np.finfo(dtype).eps / 2
        for m, n, batch in cases(ARGS.group):
            if batch is None:  # about --seconds of NumPy's time
                probe = rng.standard_normal((8, m, n)).astype(dtype)
                per = median_ms(lambda: np.linalg.svd(probe, full_matrices=False), 1) / 8
                batch = int(min(200000, max(2, ARGS.seconds * 1e3 / max(per, 1e-6))))
            a = rng.standard_normal((batch, m, n)).astype(dtype)
            ours = median_ms(lambda: batchsvd.svd(a), ARGS.reps)
            theirs = median_ms(lambda: np.linalg.svd(a, full_matrices=False), ARGS.reps)
            lapack = {}
            own = lapack_loop_ms(loop, "batchsvd", a, ARGS.reps) if loop and routines else float("nan")
            lapack["batchsvd_loop_ms"] = "" if own != own else "%.3f" % own
            base = ours if own != own else own
            for r in ("gesdd", "gesvj"):
                ms = lapack_loop_ms(loop, r, a, ARGS.reps) if loop and r in routines else float("nan")
                lapack[r + "_loop_ms"] = "" if ms != ms else "%.3f" % ms
                lapack[r + "_ratio"] = "" if ms != ms else "%.3f" % (ms / base)
            uu, s, vh = batchsvd.svd(a[:16])
            e = error_measures(a[:16].astype(np.float64), uu.astype(np.float64), s.astype(np.float64),
                               vh.astype(np.float64), 1.0)
            row = dict(meta, precision=prec, m=m, n=n, batch=batch, batchsvd_ms="%.3f" % ours,
                       numpy_ms="%.3f" % theirs, ratio="%.3f" % (theirs / ours), **lapack,
                       **{"e%d_u" % i: "%.2f" % (float(np.max(e["e%d" % i])) / u) for i in range(1, 5)})
            line = ",".join(str(row[c]) for c in cols)
            print(line, flush=True)
            if out:
                out.write(line + "\n")
                out.flush()


if __name__ == "__main__":
    main()
