#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Forward + backward of the SVD on a GPU: batchsvd.torch against torch.linalg.svd, and
batchsvd.jax against jnp.linalg.svd (each jit-compiled), in the same run, on one loss of U, S
and Vh (gauge-invariant). PyTorch is timed with CUDA events around forward and backward on the
current stream; JAX, which exposes no events, by the wall clock around a jit-compiled
value-and-grad and block_until_ready. Median of --reps after a warm-up.

    python3 bench/autograd_bench.py [--reps 5] [--cases float64:10000x32x32,...] > autograd.csv
    python3 bench/autograd_bench.py --plot autograd.csv autograd.png    (speedup bars)

CSV: mode=autograd, gpu, date, commit, framework, precision, m, n, batch, batchsvd_ms, peer_ms,
speedup, max_grad_diff (the largest |batchsvd's gradient - the peer's|, relative to the
largest entry of the peer's).
"""
import argparse
import datetime
import os
import statistics
import sys
import time

import numpy as np

CASES = "float64:10000x32x32,float32:10000x32x32,float64:1000x256x256,float32:1000x256x256"


def parse(cases):
    out = []
    for c in cases.split(","):
        prec, dims = c.split(":")
        b, m, n = (int(x) for x in dims.split("x"))
        out.append((prec, b, m, n))
    return out


def torch_rows(cases, reps, meta):
    try:
        import torch

        import batchsvd.torch as bt
    except ImportError as e:
        print("autograd_bench: PyTorch skipped: %s" % e, file=sys.stderr)
        return
    if not torch.cuda.is_available():
        print("autograd_bench: PyTorch has no CUDA device: skipped", file=sys.stderr)
        return

    def loss(svd, a):
        u, s, vh = svd(a)
        w = torch.arange(1, s.shape[-1] + 1, dtype=s.dtype, device=s.device)
        return (u @ (w[:, None].to(u.dtype) * vh)).square().sum() + s.sum()

    def run(svd, a):
        x = a.clone().requires_grad_()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        loss(svd, x).backward()
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop), x.grad

    for prec, b, m, n in cases:
        a = torch.randn(b, m, n, dtype=getattr(torch, prec), device="cuda")
        times = {}
        grads = {}
        for name, svd in (("batchsvd", lambda x: bt.svd(x)),
                          ("peer", lambda x: torch.linalg.svd(x, full_matrices=False))):
            run(svd, a)
            t = []
            for _ in range(reps):
                ms, g = run(svd, a)
                t.append(ms)
            times[name], grads[name] = statistics.median(t), g
        diff = float((grads["batchsvd"] - grads["peer"]).abs().max() / grads["peer"].abs().max())
        print("autograd,%s,%s,%s,torch,%s,%d,%d,%d,%.3f,%.3f,%.2f,%.2e" % (
            meta["gpu"], meta["date"], meta["commit"], prec, m, n, b, times["batchsvd"], times["peer"],
            times["peer"] / times["batchsvd"], diff), flush=True)


def jax_rows(cases, reps, meta):
    try:
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp

        import batchsvd.jax as bj
    except ImportError as e:
        print("autograd_bench: JAX skipped: %s" % e, file=sys.stderr)
        return
    if not any(d.platform == "gpu" for d in jax.devices()):
        print("autograd_bench: JAX has no GPU: skipped", file=sys.stderr)
        return

    def make(svd):
        def loss(a):
            u, s, vh = svd(a)
            w = jnp.arange(1, s.shape[-1] + 1, dtype=s.dtype)
            return jnp.sum((u @ (w[:, None].astype(u.dtype) * vh)) ** 2) + jnp.sum(s)
        return jax.jit(jax.value_and_grad(loss))

    for prec, b, m, n in cases:
        a = jax.device_put(np.random.default_rng(0).standard_normal((b, m, n)).astype(prec), jax.devices("gpu")[0])
        times, grads = {}, {}
        for name, svd in (("batchsvd", bj.svd), ("peer", lambda x: jnp.linalg.svd(x, full_matrices=False))):
            f = make(svd)
            jax.block_until_ready(f(a))
            t = []
            for _ in range(reps):
                t0 = time.perf_counter()
                out = jax.block_until_ready(f(a))
                t.append(1e3 * (time.perf_counter() - t0))
            times[name], grads[name] = statistics.median(t), out[1]
        diff = float(jnp.max(jnp.abs(grads["batchsvd"] - grads["peer"])) / jnp.max(jnp.abs(grads["peer"])))
        print("autograd,%s,%s,%s,jax,%s,%d,%d,%d,%.3f,%.3f,%.2f,%.2e" % (
            meta["gpu"], meta["date"], meta["commit"], prec, m, n, b, times["batchsvd"], times["peer"],
            times["peer"] / times["batchsvd"], diff), flush=True)


def plot(src, dst):
    import csv

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with open(src, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("mode") == "autograd"]
    labels = ["%s %s\n%s x %sx%s" % (r["framework"], r["precision"], r["batch"], r["m"], r["n"]) for r in rows]
    speed = [float(r["speedup"]) for r in rows]
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(rows)), 4.5))
    ax.bar(range(len(rows)), speed, color=["C0" if r["framework"] == "torch" else "C1" for r in rows])
    ax.set_yscale("log")
    ax.set_xticks(range(len(rows)), labels, fontsize=7)
    ax.set_ylabel("peer time / batchsvd time (forward + backward)")
    for i, v in enumerate(speed):
        ax.text(i, v, "%.1fx" % v, ha="center", va="bottom", fontsize=8)
    ax.set_title("batchsvd.torch / batchsvd.jax against torch.linalg.svd / jnp.linalg.svd (%s, %s)"
                 % (rows[0]["gpu"], rows[0]["commit"]), fontsize=9)
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--plot":
        plot(sys.argv[2], sys.argv[3])
        return
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--cases", default=CASES)
    p.add_argument("--framework", choices=["torch", "jax", "both"], default="both")
    args = p.parse_args()
    cases = parse(args.cases)
    gpu = "unknown"
    try:
        import subprocess
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader", "-i", "0"],
                             capture_output=True, text=True, check=True).stdout.strip()
    except Exception:
        pass
    meta = {"gpu": gpu, "date": datetime.date.today().isoformat(),
            "commit": os.environ.get("BATCHSVD_GIT_COMMIT", "unknown")}
    print("mode,gpu,date,commit,framework,precision,m,n,batch,batchsvd_ms,peer_ms,speedup,max_grad_diff")
    if args.framework in ("torch", "both"):
        torch_rows(cases, args.reps, meta)
    if args.framework in ("jax", "both"):
        jax_rows(cases, args.reps, meta)


if __name__ == "__main__":
    main()
