#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""batchsvd.dask on a local Dask cluster against a direct batchsvd call, in one run.

Workers are CPU processes (``distributed.LocalCluster``) or, with --cuda, one process a GPU
(``dask_cuda.LocalCUDACluster``; --workers then counts GPUs). For each worker count and chunk
size the batch is made on the workers first (one task a chunk, placed round robin, not timed),
then U, S, Vh (S alone with --values) are persisted (computed and kept on the workers, not
gathered) and timed, the median of --reps after a warm-up. "direct" is one batchsvd call on
the whole batch in this process, made from the same chunks (CPU: with as many threads as the
workers have in all; --cuda: on GPU 0); "one worker" is the same chunking on one worker.

    python3 bench/dask_bench.py [--batch 200000] [--m 16] [--n 16] [--dtype float64]
        [--workers 1,2] [--threads-per-worker 1] [--chunks 2000,10000,50000] [--reps 3]
        [--cuda [--input host|cupy] [--task-threads N]] [--values] [--no-direct]
        [--scheduler ADDRESS] [--csv out.csv]

--input (with --cuda): host, NumPy chunks in the workers' memory (each task copies its chunk
to the GPU and the results back; made on the GPU with CuPy, then copied to host memory), or
cupy, CuPy chunks in the GPUs' memory (results stay there). With --scheduler the run uses that
cluster (its workers as they are) instead of local ones.
--task-threads N (with --cuda) passes threads=N to every task and to the direct call: the host
threads that copy NumPy chunks (Dask's workers set OMP_NUM_THREADS=1, which the default
follows). CSV: mode=dask, cpu, gpu, date, commit, workers, threads_per_worker, task_threads,
input, outputs, precision, m, n, batch, chunk, batchsvd_ms, one_worker_ms, direct_ms.
"""
import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import time
import warnings

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


def _gpu():
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    except Exception:  # noqa: BLE001 (no CuPy or no GPU: a CPU run)
        return "none"


def _commit():
    if os.environ.get("BATCHSVD_GIT_COMMIT"):  # (a copy of the tree whose git metadata is not its own)
        return os.environ["BATCHSVD_GIT_COMMIT"]
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


def make_chunk(index, shape, dtype, seed, where):
    """Chunk `index` of the batch: Gaussian entries from a generator seeded by (seed, index), so
    that every process makes the same chunk. where: "numpy" (made on the CPU), "host" (made on
    the GPU with CuPy, returned in host memory) or "cupy" (kept on the GPU)."""
    dtype = np.dtype(dtype)
    if where == "numpy":
        rng = np.random.default_rng([seed, index])
        a = rng.standard_normal(shape)
        if dtype.kind == "c":
            a = a + 1j * rng.standard_normal(shape)
        return a.astype(dtype)
    import cupy
    rs = cupy.random.RandomState(seed * 1000003 + index)
    real = np.float32 if dtype in (np.float32, np.complex64) else np.float64
    a = rs.standard_normal(shape, dtype=real)
    if dtype.kind == "c":
        a = a + 1j * rs.standard_normal(shape, dtype=real)
    a = a.astype(dtype, copy=False)
    if where == "cupy":
        return a
    host = cupy.asnumpy(a)
    del a
    cupy.get_default_memory_pool().free_all_blocks()
    return host


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
    p.add_argument("--cuda", action="store_true", help="dask_cuda.LocalCUDACluster: one worker a GPU")
    p.add_argument("--input", default="host", choices=["host", "cupy"])
    p.add_argument("--values", action="store_true", help="svdvals instead of svd")
    p.add_argument("--no-direct", action="store_true", help="skip the direct call (direct_ms nan)")
    p.add_argument("--task-threads", type=int, default=None,
                   help="--cuda: threads= of each task (the host threads that copy a NumPy chunk)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--scheduler", default=None)
    p.add_argument("--csv", default=None)
    a = p.parse_args()
    if a.input == "cupy" and not a.cuda:
        p.error("--input cupy needs --cuda")

    warnings.filterwarnings("ignore", message="Sending large graph")
    import dask.array as da
    from distributed import Client, LocalCluster, wait

    import batchsvd
    import batchsvd.dask as bd

    where = ("cupy" if a.input == "cupy" else "host") if a.cuda else "numpy"
    header = ("mode,cpu,gpu,date,commit,workers,threads_per_worker,task_threads,input,outputs,precision,m,n,batch,chunk,"
              "batchsvd_ms,one_worker_ms,direct_ms")
    out = open(a.csv, "w") if a.csv else sys.stdout
    print(header, file=out, flush=True)
    worker_counts = [int(w) for w in a.workers.split(",")]
    chunks = [int(c) for c in a.chunks.split(",")]
    all_threads = max(worker_counts) * a.threads_per_worker
    solve = batchsvd.svdvals if a.values else batchsvd.svd
    outputs = "S" if a.values else "USV"

    def counts(chunk):
        return [min(chunk, a.batch - i) for i in range(0, a.batch, chunk)]

    # The direct call: the same chunks (the first chunking's), made here, as one batch.
    direct = float("nan")
    if not a.no_direct:
        parts = [make_chunk(i, (c, a.m, a.n), a.dtype, a.seed, where) for i, c in enumerate(counts(chunks[0]))]
        if where == "cupy":
            import cupy
            whole = cupy.concatenate(parts)
        else:
            whole = np.concatenate(parts)
        del parts
        kw = {"threads": a.task_threads} if a.cuda else {"threads": all_threads}

        def call():
            r = solve(whole, **kw)
            if where == "cupy":
                cupy.cuda.get_current_stream().synchronize()
            return r

        call()
        direct = _time(call, a.reps)
        del whole
        if where == "cupy":
            cupy.get_default_memory_pool().free_all_blocks()

    one_worker = {}
    for workers in (worker_counts if not a.scheduler else [0]):
        if a.scheduler:
            client = Client(a.scheduler)
            workers = len(client.scheduler_info()["workers"])
        elif a.cuda:
            from dask_cuda import LocalCUDACluster
            # memory_limit 0: no spilling to disk of the host chunks (the run sizes them to fit).
            cluster = LocalCUDACluster(n_workers=workers, CUDA_VISIBLE_DEVICES=list(range(workers)),
                                       threads_per_worker=a.threads_per_worker, memory_limit=0,
                                       dashboard_address=None)
            client = Client(cluster)
        else:
            cluster = LocalCluster(n_workers=workers, threads_per_worker=a.threads_per_worker, processes=True,
                                   dashboard_address=None)
            client = Client(cluster)
        addresses = sorted(client.scheduler_info()["workers"])
        for chunk in chunks:
            sizes = counts(chunk)
            futures = [client.submit(make_chunk, i, (c, a.m, a.n), a.dtype, a.seed, where, pure=False,
                                     workers=[addresses[i % len(addresses)]], allow_other_workers=False)
                       for i, c in enumerate(sizes)]
            wait(futures)
            meta = None
            if where == "cupy":
                import cupy
                meta = cupy.empty((0, 0, 0), np.dtype(a.dtype))
            blocks = [da.from_delayed(f, shape=(c, a.m, a.n), dtype=a.dtype, meta=meta)
                      for f, c in zip(futures, sizes)]
            x = da.concatenate(blocks)
            calls = iter(range(1, 10**9))

            def run():
                # A tolerance that differs in the 12th digit a call, so that Dask does not find
                # the results of an earlier call (the tasks are pure) still held.
                tol = 30 * (1 + 1e-12 * next(calls))
                kw = {"threads": a.task_threads} if a.cuda else {"threads": a.threads_per_worker}
                r = bd.svdvals(x, tol=tol, **kw) if a.values else bd.svd(x, tol=tol, **kw)
                r = client.persist(list(r) if isinstance(r, tuple) else [r])
                wait(r)
                client.cancel(r)

            run()  # (warm-up: each worker's first call)
            ms = _time(run, a.reps)
            if workers == 1:
                one_worker[chunk] = ms
            row = ("dask,%s,%s,%s,%s,%d,%d,%s,%s,%s,%s,%d,%d,%d,%d,%.3f,%s,%.3f" % (
                _cpu(), _gpu() if a.cuda else "none", datetime.date.today().isoformat(), _commit(), workers,
                a.threads_per_worker, a.task_threads if a.cuda and a.task_threads else "default", where, outputs, a.dtype, a.m, a.n, a.batch, chunk, ms,
                ("%.3f" % one_worker[chunk]) if chunk in one_worker else "nan", direct))
            print(row, file=out, flush=True)
            del x, blocks
            client.cancel(futures)
            del futures
        client.close()
        if not a.scheduler:
            cluster.close()


if __name__ == "__main__":
    main()
