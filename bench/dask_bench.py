#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""batchsvd.dask on a distributed.LocalCluster against a direct batchsvd.svd call, in one run.

For each worker count and chunk size: the batch is made and persisted on the workers first
(not timed), then U, S, Vh are persisted (computed and kept on the workers, not gathered) and
timed, the median of --reps. "direct" is batchsvd.svd on the whole batch in this process
(with as many threads as the workers have in all); "one worker" is the same chunking on one
worker process.

    python3 bench/dask_bench.py [--batch 200000] [--m 16] [--n 16] [--dtype float64]
        [--workers 1,2] [--threads-per-worker 1] [--chunks 2000,10000,50000] [--reps 3]
        [--scheduler ADDRESS] [--csv out.csv]

With --scheduler the run uses that cluster (its workers as they are) instead of local ones.
CSV: mode=dask, cpu, date, commit, workers, threads_per_worker, precision, m, n, batch, chunk,
batchsvd_ms, one_worker_ms, direct_ms.
"""
import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np


def _cpu():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=os.path.dirname(os.path.abspath(__file__)), check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _time(fn, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--batch", type=int, default=200000)
    p.add_argument("--m", type=int, default=16)
    p.add_argument("--n", type=int, default=16)
    p.add_argument("--dtype", default="float64", choices=["float32", "float64", "complex64", "complex128"])
    p.add_argument("--workers", default="1,2")
    p.add_argument("--threads-per-worker", type=int, default=1)
    p.add_argument("--chunks", default="2000,10000,50000")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--scheduler", default=None)
    p.add_argument("--csv", default=None)
    a = p.parse_args()

    import warnings

    warnings.filterwarnings("ignore", message="Sending large graph")  # (the batch, sent once)
    import dask.array as da
    from distributed import Client, LocalCluster, wait

    import batchsvd
    import batchsvd.dask as bd

    rows = []
    header = ("mode,cpu,date,commit,workers,threads_per_worker,precision,m,n,batch,chunk,batchsvd_ms,"
              "one_worker_ms,direct_ms")
    out = open(a.csv, "w") if a.csv else sys.stdout
    print(header, file=out, flush=True)
    rng = np.random.default_rng(1)
    whole = rng.standard_normal((a.batch, a.m, a.n))
    if a.dtype.startswith("complex"):
        whole = whole + 1j * rng.standard_normal((a.batch, a.m, a.n))
    whole = whole.astype(a.dtype)
    worker_counts = [int(w) for w in a.workers.split(",")]
    all_threads = max(worker_counts) * a.threads_per_worker
    batchsvd.svd(whole[:100], threads=all_threads)
    direct = _time(lambda: batchsvd.svd(whole, threads=all_threads), a.reps)
    one_worker = {}
    for workers in (worker_counts if not a.scheduler else [0]):
        if a.scheduler:
            client = Client(a.scheduler)
            workers = len(client.scheduler_info()["workers"])
        else:
            cluster = LocalCluster(n_workers=workers, threads_per_worker=a.threads_per_worker, processes=True,
                                   dashboard_address=None)
            client = Client(cluster)
        for chunk in [int(c) for c in a.chunks.split(",")]:
            x = da.from_array(whole, chunks=(chunk, a.m, a.n))
            x = client.persist(x)
            wait(x)

            calls = iter(range(1, 10**9))

            def run():
                # A tolerance that differs in the 12th digit a call, so that Dask does not find
                # the results of an earlier call (the tasks are pure) still held.
                tol = 30 * (1 + 1e-12 * next(calls))
                r = client.persist(list(bd.svd(x, tol=tol, threads=a.threads_per_worker)))
                wait(r)
                client.cancel(r)

            run()  # (warm-up: each worker's first call)
            ms = _time(run, a.reps)
            if workers == 1:
                one_worker[chunk] = ms
            row = ("dask,%s,%s,%s,%d,%d,%s,%d,%d,%d,%d,%.3f,%s,%.3f" % (
                _cpu(), datetime.date.today().isoformat(), _commit(), workers, a.threads_per_worker, a.dtype,
                a.m, a.n, a.batch, chunk, ms, ("%.3f" % one_worker[chunk]) if chunk in one_worker else "nan",
                direct))
            print(row, file=out, flush=True)
            rows.append(row)
            del x
        client.close()
        if not a.scheduler:
            cluster.close()


if __name__ == "__main__":
    main()
