#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Where the time of a batchsvd.svd(list) call goes: for lists shaped as vbatched_bench.py's
mixed_small (10000 square, orders 2..64) and mixed_shapes (2000, m and n 16..256), float64
tensors, --reps calls each after a warm-up, one line a call:

    before   from the call to the extension's gesvd_vbatched (reading the list, planning)
    library  the extension's call (synchronised: the solve on the device)
    after    from its return to the call's (the status check, the result views)
    free     dropping the results (30000 tensors for mixed_small)
    gc       the time in Python's garbage collector over the four (gc.callbacks), and
             the collections of the oldest generation among them

    python3 bench/list_call_profile.py [--device cuda|cpu] [--reps 5]
        [--streams 1,8] [--cases mixed_small,mixed_shapes] [--trace N]

--streams runs the calls again for each count in BATCHSVD_VBATCHED_STREAMS (the streams the
CUDA backend queues a list's small groups on; empty: the default only). --trace N then
records one more list call, and one call a shape on the same matrices stacked, under
torch.profiler (CUDA runtime calls and kernels, ours included) and prints the N rows of
most host time and of most device time of each. Needs PyTorch (with CUDA for --device cuda).
"""
import argparse
import gc
import os
import time

import numpy as np
import torch

import batchsvd
import batchsvd._batchsvd as ext

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
p.add_argument("--reps", type=int, default=5)
p.add_argument("--streams", default="")
p.add_argument("--cases", default="mixed_small,mixed_shapes")
p.add_argument("--trace", type=int, default=0)
args = p.parse_args()

sync = torch.cuda.synchronize if args.device == "cuda" else (lambda: None)
gc_time = [0.0, 0, 0.0]  # seconds, oldest-generation collections, start of the running one


def on_gc(phase, info):
    if phase == "start":
        gc_time[2] = time.perf_counter()
    else:
        gc_time[0] += time.perf_counter() - gc_time[2]
        gc_time[1] += info["generation"] == 2


gc.callbacks.append(on_gc)
name = "gesvd_vbatched_pointers" if hasattr(ext, "gesvd_vbatched_pointers") else "gesvd_vbatched"
orig = getattr(ext, name)
inner = []


def timed(*a, **k):
    sync()
    t = time.perf_counter()
    r = orig(*a, **k)
    sync()
    inner.append((t, time.perf_counter()))
    return r


setattr(ext, name, timed)
rng = np.random.default_rng()
cases = {"mixed_small": lambda: [(int(o), int(o)) for o in rng.integers(2, 65, 10000)],
         "mixed_shapes": lambda: [(int(m), int(n)) for m, n in rng.integers(16, 257, (2000, 2))]}
streams = [None] + [s for s in args.streams.split(",") if s]
for case in args.cases.split(","):
    mats = [torch.rand(m, n, dtype=torch.float64, device=args.device) for m, n in cases[case]()]
    for st in streams:
        if st is not None:
            os.environ["BATCHSVD_VBATCHED_STREAMS"] = st
        batchsvd.svd(mats)
        sync()
        for _ in range(args.reps):
            gc_time[:2] = [0.0, 0]
            sync()
            t0 = time.perf_counter()
            r = batchsvd.svd(mats)
            sync()
            t1 = time.perf_counter()
            del r
            t2 = time.perf_counter()
            a, b = inner[-1]
            print("%s streams %s: whole %.1f ms = before %.1f + library %.1f + after %.1f; free %.1f; "
                  "gc %.1f ms (%d full)" % (case, st or "default", (t1 - t0) * 1e3, (a - t0) * 1e3,
                                            (b - a) * 1e3, (t1 - b) * 1e3, (t2 - t1) * 1e3,
                                            gc_time[0] * 1e3, gc_time[1]), flush=True)
    os.environ.pop("BATCHSVD_VBATCHED_STREAMS", None)
    if args.trace:
        from torch.profiler import ProfilerActivity, profile
        groups = {}
        for x in mats:
            groups.setdefault(tuple(x.shape), []).append(x)
        stacks = [torch.stack(g) for g in groups.values()]
        activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if args.device == "cuda" else [])
        for label, fn in (("list call", lambda: batchsvd.svd(mats)),
                          ("one call a shape", lambda: [batchsvd.svd(st) for st in stacks])):
            fn()
            sync()
            with profile(activities=activities) as prof:
                fn()
                sync()
            table = prof.key_averages()
            print("%s, %s: most host time" % (case, label))
            print(table.table(sort_by="self_cpu_time_total", row_limit=args.trace))
            if args.device == "cuda":
                print("%s, %s: most device time" % (case, label))
                print(table.table(sort_by="self_cuda_time_total", row_limit=args.trace))
