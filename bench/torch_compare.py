#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""batchsvd.svd against torch.linalg.svd on CUDA tensors, same run, same GPU: CUDA events
around each call after a warm-up, median of --reps runs, fresh uniform random inputs for
every run (3 runs where one call takes over 0.5 s), U and V computed; writes CSV (GPU, torch version, commit, date) and prints a
table last.

    python3 bench/torch_compare.py [--cases f64:10000:32:32,...] [--reps 10] [--csv FILE]
                                   [--host-cpu] [--drivers] [--cap SECONDS]

--host-cpu also times torch.linalg.svd on a CPU tensor with all the host's cores (wall
clock, same repetition rule), the CPU baseline. --drivers also times
torch.linalg.svd with driver="gesvd", "gesvdj" and "gesvda" (cuSOLVER's; gesvda is
approximate). A torch call whose warm-up takes over --cap seconds (default 60) is not
repeated: its column says "skipped" (named, not dropped).

Suite mode (torch in every group of the C++ benchmark):

    python3 bench/torch_compare.py --group NAME --bench gpu-carry/batchsvd_gpu_bench
                                   [--cap SECONDS] [--csv FILE] [--precisions f64,c128]

takes the group's case list from `batchsvd_gpu_bench --print-cases --group NAME` (one list,
kept in the C++ benchmark), times torch.linalg.svd and its three drivers, each first on a
sub-batch whose time, scaled to the batch, decides whether it runs on the whole batch
(projected over --cap: "skipped", its projection in the CSV; the sub-batch starts at 16
matrices and grows x8 up to batch // 50 while the projection stays over the cap, stopping
early once a sub-batch itself takes over cap / 20: time_projected), and measures e1-e4 of every
torch variant's output on one shared uniform random input and on a geo input (kappa 1e10
double, 1e5 single), as the C++ benchmark does for cuSOLVER: in float64 / complex128 on the
GPU, the reference singular values from torch's gesvd driver in float64.
"""
import argparse
import datetime
import os
import statistics
import subprocess
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


# ---- suite mode ------------------------------------------------------------------------------
UNIT = {"f32": 2.0 ** -24, "f64": 2.0 ** -53, "c64": 2.0 ** -24, "c128": 2.0 ** -53}
NAME = {"f32": "float32", "f64": "float64", "c64": "complex64", "c128": "complex128"}
WIDE = {"f32": torch.float64, "f64": torch.float64, "c64": torch.complex128, "c128": torch.complex128}
VARIANTS = (("torch", None), ("torch_gesvd", "gesvd"), ("torch_gesvdj", "gesvdj"), ("torch_gesvda", "gesvda"))


def norm1(x):
    """The largest column sum of |x| over the last two dimensions, per matrix."""
    return x.abs().sum(dim=-2).amax(dim=-1)


def errors_u(dt, a, u, s, vh, s_ref):
    """Worst e1-e4 over the batch, in units of u (NaN in the output: infinite)."""
    w = WIDE[dt]
    a, u, vh = a.to(w), u.to(w), vh.to(w)
    s = s.to(torch.float64)
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    eye = torch.eye(k, dtype=w, device=a.device)
    e1 = norm1(a - (u * s[..., None, :].to(w)) @ vh) / (n * norm1(a).clamp_min(1e-300))
    e2 = norm1(eye - u.mH @ u) / m
    e3 = norm1(eye - vh @ vh.mH) / n
    scale = s_ref[..., :1].clamp_min(1.0)
    e4 = torch.linalg.vector_norm(s - s_ref, dim=-1) / (k * scale[..., 0])
    worst = torch.stack([e1, e2, e3, e4]).amax().item()
    return float("inf") if worst != worst else worst / UNIT[dt]


def geo_batch(dt, count, m, n):
    """count m x n matrices with singular values kappa^(-i/(k-1)) and random singular vectors."""
    w = WIDE[dt]
    k = min(m, n)
    kappa = 1e5 if dt in ("f32", "c64") else 1e10
    x = torch.linalg.qr(torch.randn(count, m, k, dtype=w, device="cuda")).Q
    y = torch.linalg.qr(torch.randn(count, n, k, dtype=w, device="cuda")).Q
    sig = kappa ** (-torch.arange(k, dtype=torch.float64, device="cuda") / max(k - 1, 1))
    return ((x * sig.to(w)) @ y.mH).to(DT[dt])


def time_projected(fn, dt, batch, m, n, reps):
    """Median ms of fn on the whole batch (time_ms), or inf when its time projected from a
    sub-batch passes the cap; the second value is the last projection in ms (nan, nan where
    fn fails on a sub-batch).

    The sub-batch escalates: 16 matrices first (fewer in a smaller batch), then x8 at a time
    up to batch // 50 (at least 1), each timed by the synchronised wall clock and scaled by
    batch / sub. A projection under the cap runs the whole batch. A tiny sub-batch overstates
    a batched driver (its launch overhead, spread over few matrices), so one over the cap
    escalates; it stops (inf) once the sub-batch is batch // 50 or took over cap / 20 itself
    (a looped driver: its time grows with the sub-batch, and at a batch of 1e6 a sub-batch of
    20000 matrices would take seconds only to be skipped)."""
    largest = max(1, batch // 50)
    sub = min(batch, 16)
    while True:
        t0 = time.perf_counter()
        try:
            fn(torch.rand(sub, m, n, dtype=DT[dt], device="cuda"))
            torch.cuda.synchronize()
        except RuntimeError as e:
            print("  failed on a sub-batch of %d: %s" % (sub, str(e).splitlines()[0]))
            return float("nan"), float("nan")
        took = time.perf_counter() - t0
        projected = took * 1000.0 * batch / sub
        if projected <= CAP * 1000.0:
            break
        if sub >= largest or took > CAP / 20:
            return float("inf"), projected
        sub = min(sub * 8, largest)
    return time_ms(fn, lambda: torch.rand(batch, m, n, dtype=DT[dt], device="cuda"), reps), projected


def suite(args):
    cases = subprocess.run([args.bench, "--print-cases", "--group", args.group], check=True,
                           capture_output=True, text=True).stdout.strip()
    gpu = torch.cuda.get_device_name()
    commit = os.environ.get("BATCHSVD_GIT_COMMIT", "unknown")
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    cols = ["gpu", "torch", "commit", "date", "precision", "m", "n", "batch", "batchsvd_ms"]
    for v, _ in VARIANTS:
        cols += [v + "_ms", v + "_projected_ms", "acc_%s_u" % v, "geo_acc_%s_u" % v]
    rows = []
    print("%s | torch %s | commit %s | %s | group %s" % (gpu, torch.__version__, commit, date, args.group))
    print("%-10s %16s %11s" % ("precision", "batch x m x n", "batchsvd") +
          "".join(" %13s %9s" % (v, "err/u") for v, _ in VARIANTS), flush=True)
    for case in cases.split(","):
        dt, batch, m, n = case.split(":")[:4]
        if args.precisions and dt not in args.precisions.split(","):
            continue
        batch, m, n = int(batch), int(m), int(n)
        row = {"gpu": '"%s"' % gpu, "torch": torch.__version__, "commit": commit, "date": date,
               "precision": NAME[dt], "m": m, "n": n, "batch": batch}
        row["batchsvd_ms"] = time_ms(lambda a: batchsvd.svd(a), lambda: torch.rand(batch, m, n, dtype=DT[dt],
                                                                                   device="cuda"), args.reps)
        count = min(batch, 20 if max(m, n) <= 128 else 3)
        torch.manual_seed(4242)
        a_rand = torch.rand(count, m, n, dtype=DT[dt], device="cuda")
        a_geo = geo_batch(dt, count, m, n)
        refs = {}  # reference values, computed once a variant has output to measure (at 8192^2
        # each takes torch's gesvd some 10 s)

        def ref(i, x):
            if i not in refs:
                refs[i] = torch.linalg.svdvals(x.to(WIDE[dt]), driver="gesvd")
            return refs[i]
        for v, drv in VARIANTS:
            fn = (lambda a, d=drv: torch.linalg.svd(a, full_matrices=False, driver=d))
            t, proj = time_projected(fn, dt, batch, m, n, args.reps)
            row[v + "_ms"], row[v + "_projected_ms"] = t, proj
            for i, (key, x) in enumerate((("acc_%s_u" % v, a_rand), ("geo_acc_%s_u" % v, a_geo))):
                err = float("nan")
                if t == t and t != float("inf"):  # ran on the batch: measure its output
                    try:
                        u, s, vh = fn(x.clone())
                        err = errors_u(dt, x, u, s, vh, ref(i, x))
                    except RuntimeError as e:
                        print("  %s failed on the accuracy input: %s" % (v, str(e).splitlines()[0]))
                        err = float("inf")
                row[key] = err
        rows.append(row)
        print("%-10s %16s %11.3f" % (NAME[dt], "%dx%dx%d" % (batch, m, n), row["batchsvd_ms"]) +
              "".join(" %13.4g %9.3g" % (row[v + "_ms"], row["acc_%s_u" % v]) for v, _ in VARIANTS), flush=True)
        if args.csv:  # rewritten after every case
            with open(args.csv, "w") as f:
                f.write(",".join(cols) + "\n")
                for r in rows:
                    f.write(",".join(str(r[c]) for c in cols) + "\n")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cases", default="f64:10000:32:32,f32:10000:32:32,f64:10000:16:16,"
                   "f64:10000:8:8,f32:1000000:3:3,f64:1000000:3:3,c128:10000:32:32")
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--csv", default="")
    p.add_argument("--host-cpu", action="store_true")
    p.add_argument("--drivers", action="store_true")
    p.add_argument("--cap", type=float, default=60.0)
    p.add_argument("--group", default="", help="suite mode: a group of batchsvd_gpu_bench")
    p.add_argument("--bench", default="gpu-carry/batchsvd_gpu_bench", help="suite mode: its path")
    p.add_argument("--precisions", default="", help="suite mode: only these (f32,f64,c64,c128)")
    args = p.parse_args()
    global CAP
    CAP = args.cap
    if args.group:
        return suite(args)
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
