#!/usr/bin/env python3
"""batchsvd.svd against torch.linalg.svd on CUDA tensors, same run, same GPU: CUDA events
around each call after a warm-up, median of --reps runs, fresh uniform random inputs for
every run (3 runs where one call takes over 0.5 s), U and V computed; writes CSV (GPU, torch version, commit, date) and prints a
table last.

    python3 bench/torch_compare.py [--cases f64:10000:32:32,...] [--reps 10] [--csv FILE]
                                   [--host-cpu] [--drivers] [--cap SECONDS]

--host-cpu also times torch.linalg.svd on a CPU tensor with all the host's cores (wall
clock, same repetition rule), the CPU baseline issue 9 asks for. --drivers also times
torch.linalg.svd with driver="gesvd", "gesvdj" and "gesvda" (cuSOLVER's; gesvda is
approximate). A torch call whose warm-up takes over --cap seconds (default 60) is not
repeated: its column says "skipped" (named, not dropped).
"""
import argparse
import datetime
import os
import statistics
import time

import torch

import batchsvd

DT = {"f32": torch.float32, "f64": torch.float64, "c64": torch.complex64, "c128": torch.complex128}


CAP = 60.0


def time_ms(fn, make, reps):
    a = make()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    try:
        fn(a)
        torch.cuda.synchronize()
    except RuntimeError as e:  # e.g. gesvda's CUSOLVER_STATUS_INTERNAL_ERROR at a batch of 1e6
        print("  failed: %s" % str(e).splitlines()[0])
        return float("nan")
    warm = time.perf_counter() - t0
    if warm > CAP:
        print("  skipped: warm-up took %.1f s (over the %.0f s cap)" % (warm, CAP))
        return float("inf")
    if warm > 0.5:  # seconds per call (torch on large matrices): 3 runs, 1 past 5 s
        reps = min(reps, 3 if warm <= 5 else 1)
    out = []
    for _ in range(reps):
        a = make()
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        try:  # a fresh input can fail where the warm-up's did not (torch's gesvdj on float32)
            fn(a)
            e1.record()
            e1.synchronize()
        except RuntimeError as e:
            print("  failed on a timed run: %s" % str(e).splitlines()[0])
            return float("nan")
        out.append(e0.elapsed_time(e1))
    return statistics.median(out)


def wall_ms(fn, make, reps):
    """Median wall-clock time of fn on host tensors, after a warm-up (3 runs past 0.5 s)."""
    a = make()
    t0 = time.perf_counter()
    fn(a)
    if time.perf_counter() - t0 > 0.5:
        reps = min(reps, 3)
    out = []
    for _ in range(reps):
        a = make()
        t0 = time.perf_counter()
        fn(a)
        out.append(1000 * (time.perf_counter() - t0))
    return statistics.median(out)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cases", default="f64:10000:32:32,f32:10000:32:32,f64:10000:16:16,"
                   "f64:10000:8:8,f32:1000000:3:3,f64:1000000:3:3,c128:10000:32:32")
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--csv", default="")
    p.add_argument("--host-cpu", action="store_true")
    p.add_argument("--drivers", action="store_true")
    p.add_argument("--cap", type=float, default=60.0)
    args = p.parse_args()
    global CAP
    CAP = args.cap
    drivers = ("gesvd", "gesvdj", "gesvda") if args.drivers else ()
    if args.host_cpu:
        torch.set_num_threads(os.cpu_count() or 1)
    gpu = torch.cuda.get_device_name()
    commit = os.environ.get("BATCHSVD_GIT_COMMIT", "unknown")
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    rows = []
    head = ("gpu,torch,commit,date,dtype,batch,m,n,batchsvd_ms,torch_svd_ms,speedup,"
            "max_abs_reconstruction,info_nonzero,torch_host_cpu_ms,speedup_vs_host_cpu,host_threads"
            + "".join(",torch_%s_ms" % d for d in drivers))

    def line(r):
        return '"%s",%s,%s,%s,%s,%d,%d,%d,%.4f,%.4f,%.3f,%.2e,%d,%.4f,%.3f,%d' % (
            (gpu, torch.__version__, commit, date) + r[:12]) + "".join(",%.4f" % x for x in r[12:])

    def show(r):
        print("%-6s %16s %12.3f %14.3f %8.1fx %10.1e %14.3f" % (r[0], "%dx%dx%d" % r[1:4], r[4], r[5],
                                                              r[6], r[7], r[9])
              + "".join(" %12.3f" % x for x in r[12:]), flush=True)

    print("%s | torch %s | commit %s | %s" % (gpu, torch.__version__, commit, date))
    print("%-6s %16s %12s %14s %9s %10s %14s" % ("dtype", "batch x m x n", "batchsvd ms",
                                                "torch.svd ms", "speedup", "max|A-USVh|",
                                                "torch CPU ms") + "".join(" %12s" % d for d in drivers),
          flush=True)
    for case in args.cases.split(","):
        dt, batch, m, n = case.split(":")
        batch, m, n = int(batch), int(m), int(n)

        def make():
            return torch.rand(batch, m, n, dtype=DT[dt], device="cuda")

        ours = time_ms(lambda a: batchsvd.svd(a, return_info=True), make, args.reps)
        theirs = time_ms(lambda a: torch.linalg.svd(a, full_matrices=False), make, args.reps)
        by_driver = [time_ms(lambda a, d=d: torch.linalg.svd(a, full_matrices=False, driver=d), make,
                             args.reps) for d in drivers]
        host = float("nan")
        if args.host_cpu:
            host = wall_ms(lambda a: torch.linalg.svd(a, full_matrices=False),
                           lambda: torch.rand(batch, m, n, dtype=DT[dt]), args.reps)
        a = make()
        u, s, vh, info = batchsvd.svd(a, return_info=True)
        rec = (u @ (s[..., None].to(u.dtype) * vh) - a).abs().max().item()
        rows.append((dt, batch, m, n, ours, theirs, theirs / ours, rec, int((info != 0).sum()),
                     host, host / ours, os.cpu_count() or 1) + tuple(by_driver))
        show(rows[-1])
        if args.csv:  # rewritten after every case: a run cut short keeps what it measured
            with open(args.csv, "w") as f:
                f.write("\n".join([head] + [line(r) for r in rows]) + "\n")


if __name__ == "__main__":
    main()
