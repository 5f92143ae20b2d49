#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Batches of matrices of different sizes on one GPU: one batchsvd.svd(list) call on the whole
list against what a user does without it, one call per exact shape on pre-stacked inputs
(batchsvd.svd and torch.linalg.svd), with the mixed call's accuracy.

    python3 bench/vbatched_bench.py [--cases mixed_small,mixed_shapes,heavy_tail]
        [--precisions float64,float32] [--reps 5] [--slow-reps 3] [--torch-reps 1]
        [--torch-cases mixed_small,mixed_shapes] [--scale 1] [--seed S] [--commit C]
        [--out FILE] [--append] [--no-errors] [--device cuda|cpu]

Cases (matrix entries uniform in [0, 1), fresh every run: the seed is taken from the clock
unless --seed, and printed; the shapes of a case do not depend on the precision):

    mixed_small    10000 square matrices, orders uniform in 2..64
    mixed_shapes    2000 matrices, m and n each uniform in 16..256, independently
    heavy_tail     20000 square matrices, orders round(exp(uniform(log 2, log 512)))

--scale multiplies these counts (0.01 for a smoke run). The matrices are a list of 2-D CUDA
tensors (torch.rand, one tensor each, in draw order); the per-shape stacks the baselines take
are built from them outside the timed regions. Columns, per case and precision:

    batchsvd_ms           one batchsvd.svd(list) call on the whole list (U, S, Vh computed)
    per_size_ms           one timed region around batchsvd.svd(stack) for every exact shape
    torch_grouped_ms      the same with torch.linalg.svd(stack, full_matrices=False); only in
                          the --torch-cases (empty elsewhere and with --device cpu), --torch-reps
                          runs after a warm-up on the smallest shape groups (one of orders up
                          to 32, one above: torch switches from gesvdjBatched to a loop of
                          gesvdj there); nan where torch failed
    per_size_ratio        per_size_ms / batchsvd_ms
    per_size_user_ms      what a user holding the list does without the list call: per exact
                          shape, stack the matrices, batchsvd.svd(stack), and put each result
                          back in the list's order (one timed region around all of it)
    per_size_user_ratio   per_size_user_ms / batchsvd_ms
    torch_ratio           torch_grouped_ms / batchsvd_ms
    largest_group_ms      batchsvd.svd on the stack of the shape with the most work
                          (count * m * n * min(m, n))
    largest_group_fraction  largest_group_ms / batchsvd_ms
    e1_u .. e4_u          the worst e1-e4 of the mixed call's results over every matrix, in
                          units of u (2^-53 float64, 2^-24 float32): e1 = |A - U S Vh|_1 /
                          (n |A|_1), e2 = |I - U^T U|_1 / m, e3 = |I - Vh Vh^T|_1 / n,
                          e4 = |S - S_ref|_F / (min(m, n) max(1, sigma_1)), computed in float64
                          per shape group on the device, S_ref by torch.linalg.svdvals on the
                          float64 copy (NumPy's svd with --device cpu), as
                          python/tests/svd_measures.py defines them; inf where an output is
                          NaN/Inf; empty with --no-errors
    max_info              the mixed call's status of largest magnitude (0: all converged;
                          > 0 sweeps run without converging; -1 NaN/Inf input), from an
                          untimed call with return_info=True whose results the errors measure

Timing: CUDA events on the current stream around the call (the region includes the host's
work, such as grouping and slicing the list, as the caller waits for it), after one untimed
warm-up; the median of --reps runs, --slow-reps (default 3) where the warm-up took over 1 s.
Where max_info is not 0 the timed calls pass return_info=True (else they would raise).

Output: the CSV (the columns above, in that order) written row by row to --out (default
bench/results/h100/DATE-vbatched/vbatched_COMMIT.csv; with --device cpu, results/cpu/),
flushed after each row so a run cut short keeps what it finished; progress lines with the
elapsed time after every measurement; a table at the end. The commit is --commit when given,
else `git rev-parse --short HEAD` (+dirty where tracked files differ), else
$BATCHSVD_GIT_COMMIT, else "unknown". --append adds rows to an existing CSV (same columns).

Run time on an H100 (estimated, not yet measured): the full default run about 6-8 minutes,
mostly heavy_tail (each list call some seconds; its e4 reference, torch's svdvals looping
gesvdj per matrix above order 32, about a minute per precision: --no-errors skips it) and
mixed_shapes (nearly every matrix a shape of its own: some 2000 calls per per-size run); torch
adds about 5 s (mixed_small) and 7 s (mixed_shapes) per run and precision.

--device cpu runs the same code on NumPy arrays through the CPU backend (wall-clock timing,
no torch baseline): a test of the script on a machine without a GPU or PyTorch.

Plot: python3 bench/plot_vbatched.py FILE.csv [MORE.csv ...]
"""
import argparse
import csv
import datetime
import gc
import math
import os
import statistics
import subprocess
import sys
import time
import traceback

import numpy as np

COLUMNS = ["gpu", "date", "commit", "mode", "case", "precision", "batch", "distinct_shapes",
           "batchsvd_ms", "per_size_ms", "torch_grouped_ms", "per_size_ratio", "torch_ratio",
           "largest_group_ms", "largest_group_fraction", "e1_u", "e2_u", "e3_u", "e4_u",
           "max_info", "per_size_user_ms", "per_size_user_ratio"]
CASES = {"mixed_small": 10000, "mixed_shapes": 2000, "heavy_tail": 20000}  # matrices
PRECISIONS = ("float64", "float32")
UNIT = {"float64": 2.0 ** -53, "float32": 2.0 ** -24}
SLOW_S = 1.0  # a warm-up over this many seconds: --slow-reps runs
TINY = float(np.finfo(np.float64).tiny)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

T0 = time.perf_counter()


def log(msg):
    print("[%8.1f s] %s" % (time.perf_counter() - T0, msg), flush=True)


# ---- cases -----------------------------------------------------------------------------------

def draw_shapes(case, count, rng):
    """count (m, n) pairs of Python ints, in draw order."""
    if case == "mixed_small":
        k = rng.integers(2, 65, size=count)
        return [(int(x), int(x)) for x in k]
    if case == "mixed_shapes":
        m = rng.integers(16, 257, size=count)
        n = rng.integers(16, 257, size=count)
        return [(int(a), int(b)) for a, b in zip(m, n)]
    if case == "heavy_tail":
        k = np.rint(np.exp(rng.uniform(math.log(2), math.log(512), size=count)))
        k = np.clip(k, 2, 512).astype(np.int64)
        return [(int(x), int(x)) for x in k]
    raise ValueError("unknown case %r" % case)


def group_by_shape(shapes):
    """{(m, n): [indices into the list]}, shapes in first-seen order."""
    groups = {}
    for i, sh in enumerate(shapes):
        groups.setdefault(sh, []).append(i)
    return groups


def work(shape, count):
    m, n = shape
    return count * m * n * min(m, n)


# ---- backends: everything that differs between CUDA tensors and host arrays ------------------

class HostBackend:
    """NumPy arrays through batchsvd's CPU backend, wall-clock timing, no torch."""
    name = "cpu"
    has_torch = False

    def device_name(self):
        return "none (CPU, %d cores)" % (os.cpu_count() or 1)

    def versions(self):
        return "numpy %s" % np.__version__

    def matrices(self, shapes, precision, seed):
        rng = np.random.default_rng(seed)
        dt = np.dtype(precision)
        return [rng.random((m, n), dtype=dt) for m, n in shapes]

    def stack(self, xs):
        return np.stack(xs)

    def to64(self, x):
        return np.asarray(x, dtype=np.float64)

    def svdvals64(self, a64):
        return np.linalg.svd(a64, compute_uv=False)

    def eye64(self, k):
        return np.eye(k)

    def amax(self, x, axis):
        return x.max(axis=axis)

    def clamp_min(self, x, v):
        return np.maximum(x, v)

    def zero_where(self, mask, x):  # the matrices of x where mask (per matrix) is set, zeroed
        return np.where(mask[:, None, None], 0.0, x)

    def info_array(self, info):
        if isinstance(info, (list, tuple)):
            return np.array([int(x) for x in info], dtype=np.int64)
        return np.asarray(info, dtype=np.int64).reshape(-1)

    def sync(self):
        pass

    def elapsed_ms(self, fn):
        t0 = time.perf_counter()
        fn()
        return 1000.0 * (time.perf_counter() - t0)

    def free(self):
        gc.collect()

    def torch_svd(self, a):
        raise RuntimeError("no torch baseline on the host")


class CudaBackend:
    """CUDA tensors (torch), CUDA events on the current stream, torch.linalg.svd as a peer."""
    name = "cuda"
    has_torch = True

    def __init__(self):
        import torch
        self.torch = torch
        if not torch.cuda.is_available():
            sys.exit("vbatched_bench: torch sees no CUDA device (use --device cpu to test on the host)")
        self.device = torch.device("cuda", torch.cuda.current_device())

    def device_name(self):
        return self.torch.cuda.get_device_name(self.device)

    def versions(self):
        return "torch %s (CUDA %s)" % (self.torch.__version__, self.torch.version.cuda)

    def matrices(self, shapes, precision, seed):
        torch = self.torch
        g = torch.Generator(device=self.device)
        g.manual_seed(seed)
        dt = getattr(torch, precision)
        return [torch.rand(m, n, dtype=dt, device=self.device, generator=g) for m, n in shapes]

    def stack(self, xs):
        return self.torch.stack(xs)

    def to64(self, x):
        return x.to(self.torch.float64)

    def svdvals64(self, a64):
        return self.torch.linalg.svdvals(a64)

    def eye64(self, k):
        return self.torch.eye(k, dtype=self.torch.float64, device=self.device)

    def amax(self, x, axis):
        return x.amax(dim=axis)

    def clamp_min(self, x, v):
        return x.clamp_min(v)

    def zero_where(self, mask, x):
        return x.masked_fill(mask[:, None, None], 0.0)

    def info_array(self, info):
        torch = self.torch
        if isinstance(info, (list, tuple)):
            if not info:
                return np.zeros(0, dtype=np.int64)
            if isinstance(info[0], torch.Tensor):
                return torch.stack([x.reshape(()) for x in info]).cpu().numpy().astype(np.int64)
            return np.array([int(x) for x in info], dtype=np.int64)
        if isinstance(info, torch.Tensor):
            return info.reshape(-1).cpu().numpy().astype(np.int64)
        return np.asarray(info, dtype=np.int64).reshape(-1)

    def sync(self):
        self.torch.cuda.synchronize()

    def elapsed_ms(self, fn):
        torch = self.torch
        torch.cuda.synchronize()
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop)

    def free(self):
        gc.collect()
        self.torch.cuda.synchronize()
        self.torch.cuda.empty_cache()

    def torch_svd(self, a):
        return self.torch.linalg.svd(a, full_matrices=False)


# ---- measurements ----------------------------------------------------------------------------

def measure(B, fn, reps, slow_reps, label):
    """Median ms of fn over reps runs after one untimed warm-up (slow_reps runs where the
    warm-up took over SLOW_S seconds)."""
    B.sync()
    t0 = time.perf_counter()
    fn()
    B.sync()
    warm = time.perf_counter() - t0
    n = reps if warm <= SLOW_S else min(reps, slow_reps)
    n = max(n, 1)
    t1 = time.perf_counter()
    times = [B.elapsed_ms(fn) for _ in range(n)]
    med = statistics.median(times)
    log("  %-16s %12.3f ms  (median of %d, %.3f-%.3f; warm-up %.2f s, runs %.2f s)"
        % (label, med, n, min(times), max(times), warm, time.perf_counter() - t1))
    return med


def measure_torch(B, stacks, reps):
    """torch.linalg.svd per exact shape, one timed region around the loop: warm-up on the
    smallest groups only (torch loops gesvdj per matrix above order 32), then reps runs."""
    by_work = sorted(stacks, key=lambda sh: work(sh, int(stacks[sh].shape[0])))
    warm = [by_work[0]]
    above = [sh for sh in by_work if max(sh) > 32]
    if above and above[0] != warm[0]:
        warm.append(above[0])
    t0 = time.perf_counter()
    try:
        for sh in warm:
            B.torch_svd(stacks[sh])
        B.sync()
    except RuntimeError as e:
        log("  torch failed in the warm-up: %s" % str(e).splitlines()[0])
        return float("nan")
    log("  torch warm-up on %s: %.2f s" % (", ".join("%d x %dx%d" % ((int(stacks[sh].shape[0]),) + sh)
                                                      for sh in warm), time.perf_counter() - t0))

    def loop():
        for st in stacks.values():
            B.torch_svd(st)
    times = []
    for r in range(max(reps, 1)):
        t1 = time.perf_counter()
        try:
            times.append(B.elapsed_ms(loop))
        except RuntimeError as e:
            log("  torch failed on a timed run: %s" % str(e).splitlines()[0])
            return float("nan")
        log("  torch_grouped    run %d: %.3f ms (%.2f s)" % (r + 1, times[-1], time.perf_counter() - t1))
    med = statistics.median(times)
    log("  %-16s %12.3f ms  (median of %d)" % ("torch_grouped", med, len(times)))
    return med


def group_errors(B, a, u, s, vh):
    """e1-e4 of each matrix of one shape group (count, m, n), in float64 (python/tests/
    svd_measures.py, e4 floor 1), and whether each matrix's U, S or Vh holds NaN/Inf. A
    matrix with NaN/Inf input gets the reference values of a zero matrix (torch's svdvals
    raises on it); its status is -1 and its outputs NaN, so its errors are inf anyway."""
    a, u, s, vh = B.to64(a), B.to64(u), B.to64(s), B.to64(vh)
    m, n = int(a.shape[-2]), int(a.shape[-1])
    k = min(m, n)
    inf = float("inf")

    def norm1(x):  # the largest column sum of |x|, per matrix
        return B.amax(abs(x).sum(-2), -1)

    def nonfinite(x):  # per matrix: any NaN or Inf entry
        bad = (x != x) | (abs(x) == inf)
        while bad.ndim > 1:
            bad = bad.sum(-1) > 0
        return bad
    eye = B.eye64(k)
    bad_in = nonfinite(a)
    ref = B.svdvals64(B.zero_where(bad_in, a) if bool(bad_in.any()) else a)
    e1 = norm1(a - u @ (s[..., :, None] * vh)) / (n * B.clamp_min(norm1(a), TINY))
    e2 = norm1(eye - u.swapaxes(-1, -2) @ u) / m
    e3 = norm1(eye - vh @ vh.swapaxes(-1, -2)) / n
    e4 = ((s - ref) ** 2).sum(-1) ** 0.5 / (k * B.clamp_min(ref[..., 0], 1.0))
    bad = nonfinite(u) | nonfinite(s) | nonfinite(vh)
    return (e1, e2, e3, e4), bad


def worst(x):
    """The largest entry as a float; inf where any entry is NaN."""
    v = float(x.max())
    return float("inf") if v != v else v


def mixed_errors(B, groups, stacks, us, ss, vhs, precision):
    """The worst e1-e4 (units of u) over every matrix of the mixed call, and the number of
    matrices with a NaN/Inf output."""
    out = [0.0, 0.0, 0.0, 0.0]
    bad_count = 0
    for sh, idx in groups.items():
        m, n = sh
        k = min(m, n)
        i0 = idx[0]
        got = (tuple(us[i0].shape), tuple(ss[i0].shape), tuple(vhs[i0].shape))
        if got != ((m, k), (k,), (k, n)):
            raise RuntimeError("matrix %d (%dx%d): result shapes %s, expected %s"
                               % (i0, m, n, got, ((m, k), (k,), (k, n))))
        es, bad = group_errors(B, stacks[sh], B.stack([us[i] for i in idx]),
                               B.stack([ss[i] for i in idx]), B.stack([vhs[i] for i in idx]))
        for j, e in enumerate(es):
            out[j] = max(out[j], worst(e))
        bad_count += int(bad.sum())
    return [e / UNIT[precision] for e in out], bad_count


def run_one(B, args, case, precision, meta):
    """Every measurement of one case and precision: the CSV row (a dict)."""
    import batchsvd

    count = max(1, int(round(CASES[case] * args.scale)))
    ci, pi = list(CASES).index(case), list(PRECISIONS).index(precision)
    shape_seed = np.random.SeedSequence([args.seed, ci])
    data_seed = int(np.random.SeedSequence([args.seed, ci, pi]).generate_state(1)[0])
    shapes = draw_shapes(case, count, np.random.default_rng(shape_seed))
    groups = group_by_shape(shapes)
    t0 = time.perf_counter()
    mats = B.matrices(shapes, precision, data_seed)
    stacks = {sh: B.stack([mats[i] for i in idx]) for sh, idx in groups.items()}
    B.sync()
    largest = max(groups, key=lambda sh: work(sh, len(groups[sh])))
    elems = sum(m * n for m, n in shapes)
    log("%s %s: %d matrices, %d shapes, %.3g elements (%.2f GB), largest work %d x %dx%d; "
        "generated and stacked in %.2f s" % (case, precision, count, len(groups), elems,
                                             elems * np.dtype(precision).itemsize / 1e9,
                                             len(groups[largest]), largest[0], largest[1],
                                             time.perf_counter() - t0))

    # The status (and the results the errors measure), untimed.
    t0 = time.perf_counter()
    us, ss, vhs, info = batchsvd.svd(mats, return_info=True)
    info = B.info_array(info)
    if len(info) != count:
        raise RuntimeError("return_info gave %d statuses for %d matrices" % (len(info), count))
    max_info = int(info[np.argmax(np.abs(info))]) if count else 0
    log("  status call      %.2f s: max_info %d (%d matrices not 0)"
        % (time.perf_counter() - t0, max_info, int((info != 0).sum())))
    kw = {}
    if max_info != 0:
        kw = {"return_info": True}
        log("  WARNING: a status is not 0: the timed calls pass return_info=True")
    if args.no_errors:
        us = ss = vhs = None
        B.free()

    row = {"gpu": meta["gpu"], "date": meta["date"], "commit": meta["commit"], "mode": "vbatched",
           "case": case, "precision": precision, "batch": count, "distinct_shapes": len(groups),
           "max_info": max_info}

    def mixed():
        batchsvd.svd(mats, **kw)

    def per_size():
        for st in stacks.values():
            batchsvd.svd(st, **kw)

    def largest_group():
        batchsvd.svd(stacks[largest], **kw)

    def per_size_user():
        out_u, out_s, out_vh = [None] * count, [None] * count, [None] * count
        for idx in groups.values():
            u, s, vh = batchsvd.svd(B.stack([mats[i] for i in idx]), **kw)[:3]
            for j, i in enumerate(idx):
                out_u[i], out_s[i], out_vh[i] = u[j], s[j], vh[j]

    row["batchsvd_ms"] = measure(B, mixed, args.reps, args.slow_reps, "batchsvd")
    row["per_size_ms"] = measure(B, per_size, args.reps, args.slow_reps, "per_size")
    row["largest_group_ms"] = measure(B, largest_group, args.reps, args.slow_reps,
                                      "largest %dx%dx%d" % ((len(groups[largest]),) + largest))
    row["per_size_user_ms"] = measure(B, per_size_user, args.reps, args.slow_reps, "per_size_user")
    row["per_size_ratio"] = row["per_size_ms"] / row["batchsvd_ms"]
    row["per_size_user_ratio"] = row["per_size_user_ms"] / row["batchsvd_ms"]
    row["largest_group_fraction"] = row["largest_group_ms"] / row["batchsvd_ms"]
    row["torch_grouped_ms"] = row["torch_ratio"] = None
    if B.has_torch and case in args.torch_cases:
        row["torch_grouped_ms"] = measure_torch(B, stacks, args.torch_reps)
        row["torch_ratio"] = row["torch_grouped_ms"] / row["batchsvd_ms"]

    if args.no_errors:
        for c in ("e1_u", "e2_u", "e3_u", "e4_u"):
            row[c] = None
    else:
        t0 = time.perf_counter()
        es, bad = mixed_errors(B, groups, stacks, us, ss, vhs, precision)
        for c, e in zip(("e1_u", "e2_u", "e3_u", "e4_u"), es):
            row[c] = e
        log("  errors           e1 %.3g u, e2 %.3g u, e3 %.3g u, e4 %.3g u; %d matrices with a "
            "NaN/Inf output (%.2f s)" % (tuple(es) + (bad, time.perf_counter() - t0)))
        if bad:
            log("  WARNING: %d matrices have NaN/Inf in U, S or Vh" % bad)
    return row


# ---- output ----------------------------------------------------------------------------------

def fmt(x, spec):
    if x is None:
        return ""
    if isinstance(x, float) and x != x:
        return "nan"
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return spec % x


FORMATS = {"batch": "%d", "distinct_shapes": "%d", "batchsvd_ms": "%.4f", "per_size_ms": "%.4f",
           "torch_grouped_ms": "%.4f", "per_size_ratio": "%.4f", "torch_ratio": "%.4f",
           "largest_group_ms": "%.4f", "largest_group_fraction": "%.4f", "e1_u": "%.4g",
           "e2_u": "%.4g", "e3_u": "%.4g", "e4_u": "%.4g", "max_info": "%d",
           "per_size_user_ms": "%.4f", "per_size_user_ratio": "%.4f"}


def csv_fields(row):
    return [fmt(row[c], FORMATS[c]) if c in FORMATS else str(row[c]) for c in COLUMNS]


def print_table(rows):
    head = ("%-13s %-8s %6s %6s %12s %12s %12s %8s %8s %11s %6s %7s %7s %7s %7s %5s"
            % ("case", "prec", "batch", "shapes", "batchsvd ms", "per_size ms", "torch ms",
               "per/bsv", "tor/bsv", "largest ms", "frac", "e1/u", "e2/u", "e3/u", "e4/u", "info"))
    print(head)
    print("-" * len(head))
    for r in rows:
        f = dict(zip(COLUMNS, csv_fields(r)))
        print("%-13s %-8s %6s %6s %12s %12s %12s %8s %8s %11s %6s %7s %7s %7s %7s %5s"
              % (r["case"], r["precision"], f["batch"], f["distinct_shapes"],
                 fmt(r["batchsvd_ms"], "%.3f"), fmt(r["per_size_ms"], "%.3f"),
                 fmt(r["torch_grouped_ms"], "%.3f") or "-", fmt(r["per_size_ratio"], "%.2f"),
                 fmt(r["torch_ratio"], "%.2f") or "-", fmt(r["largest_group_ms"], "%.3f"),
                 fmt(r["largest_group_fraction"], "%.3f"), fmt(r["e1_u"], "%.3g") or "-",
                 fmt(r["e2_u"], "%.3g") or "-", fmt(r["e3_u"], "%.3g") or "-",
                 fmt(r["e4_u"], "%.3g") or "-", f["max_info"]), flush=True)


def commit_of(explicit):
    if explicit:
        return explicit
    try:
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True, timeout=20).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True, timeout=60).stdout.strip()
        if head:
            return head + ("+dirty" if dirty else "")
    except Exception:
        pass
    return os.environ.get("BATCHSVD_GIT_COMMIT") or "unknown"


def names(text, allowed, what):
    out = [x.strip() for x in text.split(",") if x.strip() and x.strip() != "none"]
    aliases = {"f64": "float64", "f32": "float32"}
    out = [aliases.get(x, x) for x in out]
    for x in out:
        if x not in allowed:
            sys.exit("vbatched_bench: unknown %s %r (known: %s)" % (what, x, ", ".join(allowed)))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--precisions", default=",".join(PRECISIONS))
    p.add_argument("--reps", type=int, default=5, help="timed runs of batchsvd (median)")
    p.add_argument("--slow-reps", type=int, default=3,
                   help="timed runs where the warm-up took over %g s" % SLOW_S)
    p.add_argument("--torch-reps", type=int, default=1, help="timed runs of the torch loop")
    p.add_argument("--torch-cases", default="mixed_small,mixed_shapes",
                   help='cases where torch runs ("none": nowhere)')
    p.add_argument("--scale", type=float, default=1.0, help="multiplies the batch sizes")
    p.add_argument("--seed", type=int, default=None, help="default: from the clock")
    p.add_argument("--commit", default="", help="the commit column (default: git, see above)")
    p.add_argument("--out", default="", help="CSV path (default: see above)")
    p.add_argument("--append", action="store_true", help="add rows to an existing --out")
    p.add_argument("--no-errors", action="store_true", help="skip e1-e4 (empty columns)")
    p.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    args = p.parse_args()
    cases = names(args.cases, list(CASES), "case")
    precisions = names(args.precisions, list(PRECISIONS), "precision")
    args.torch_cases = names(args.torch_cases, list(CASES), "torch case")
    if args.scale <= 0 or args.reps < 1 or args.slow_reps < 1 or args.torch_reps < 1:
        sys.exit("vbatched_bench: --scale must be positive and --reps, --slow-reps, --torch-reps >= 1")
    if args.seed is None:
        args.seed = time.time_ns() % (2 ** 32)

    B = CudaBackend() if args.device == "cuda" else HostBackend()
    import batchsvd
    if args.device == "cuda" and not batchsvd.cuda_available():
        sys.exit("vbatched_bench: batchsvd %s (%s) has no usable CUDA backend"
                 % (batchsvd.__version__, batchsvd.__file__))

    now = datetime.datetime.now(datetime.timezone.utc)
    meta = {"gpu": B.device_name(), "date": now.strftime("%Y-%m-%d"), "commit": commit_of(args.commit)}
    out = args.out or os.path.join(ROOT, "bench", "results", "h100" if args.device == "cuda" else "cpu",
                                   "%s-vbatched" % meta["date"], "vbatched_%s.csv" % meta["commit"])
    print("%s | %s | batchsvd %s (%s) | commit %s | %s | seed %d | uniform [0, 1) entries | "
          "scale %g | reps %d (%d past %g s), torch reps %d on %s | %s"
          % (meta["gpu"], B.versions(), batchsvd.__version__, os.path.dirname(batchsvd.__file__),
             meta["commit"], now.strftime("%Y-%m-%dT%H:%M:%SZ"), args.seed, args.scale, args.reps,
             args.slow_reps, SLOW_S, args.torch_reps,
             ",".join(args.torch_cases) if B.has_torch and args.torch_cases else "no case", out),
          flush=True)

    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    appending = args.append and os.path.exists(out) and os.path.getsize(out) > 0
    if appending:
        with open(out, newline="") as f:
            header = next(csv.reader(f), [])
        if header != COLUMNS:
            sys.exit("vbatched_bench: %s has other columns; not appending" % out)
    rows, failed = [], []
    with open(out, "a" if appending else "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        if not appending:
            w.writerow(COLUMNS)
            f.flush()
        for case in cases:
            for precision in precisions:
                try:
                    row = run_one(B, args, case, precision, meta)
                except Exception:  # one failed case (out of memory, say) does not end the run
                    log("%s %s FAILED:\n%s" % (case, precision, traceback.format_exc()))
                    failed.append("%s %s" % (case, precision))
                    B.free()
                    continue
                w.writerow(csv_fields(row))
                f.flush()
                rows.append(row)
                log("%s %s done: batchsvd %.3f ms, per_size %.3f ms (%.2fx), torch %s; row written"
                    % (case, precision, row["batchsvd_ms"], row["per_size_ms"], row["per_size_ratio"],
                       fmt(row["torch_grouped_ms"], "%.3f ms") or "not run"))
                B.free()
    print()
    print_table(rows)
    print("\nCSV: %s" % out, flush=True)
    if failed:
        print("FAILED: %s" % "; ".join(failed), flush=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
