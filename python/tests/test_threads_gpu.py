# SPDX-License-Identifier: BSD-3-Clause
"""batchsvd.svd from several Python threads at once on CUDA arrays (PyTorch or CuPy), each
thread on a stream of its own: every path's results (U, S, Vh, info) bitwise those of a serial
run on the default stream, and the GIL released while the library solves, so that the threads'
solves overlap. Skipped, with the reason, without a CUDA device, without the CUDA backend, or
without the framework (each of PyTorch and CuPy is a case of its own). Fresh random inputs on
every run (the seed is printed on failure; BATCHSVD_TEST_SEED replays it)."""

import os
import threading
import time

import numpy as np
import pytest

import batchsvd

SEED = int(os.environ.get("BATCHSVD_TEST_SEED", np.random.SeedSequence().entropy % (2**63)))
THREADS = 8
REPEATS = 3

# (name, dtype, batch, m, n): sizes the automatic rule sends to each path (docs/architecture.md,
# the dispatch table; C-ordered arrays reach the library as their transposes, which take the
# same path).
CASES = [
    ("tiny", "float32", 2000, 3, 3),
    ("warp", "float64", 500, 24, 24),
    ("rows", "float64", 50, 40, 40),                     # 33-48 columns, up to 96 rows of [W; V]
    ("fused", "float64", 50, 60, 45),                    # under 48 columns, batch under 100, more rows
    ("blocked", "float64", 4, 300, 300),                 # not preconditioned: orders 257-1023, batch 2-19
    ("qr", "float64", 200, 300, 20),
    ("preconditioned", "float64", 20, 256, 256),
    ("warp complex64", "complex64", 300, 16, 16),
    ("qr complex64 (wide)", "complex64", 100, 24, 150),
    ("fused complex128", "complex128", 60, 40, 40),
    ("rows complex64", "complex64", 60, 48, 24),          # past what complex64 warp teams hold
    ("preconditioned complex128", "complex128", 100, 64, 64),  # from order 40, batches of 100
]


class _Torch:
    def __init__(self):
        try:
            import torch
        except ImportError:
            pytest.skip("PyTorch is not importable: its multithreaded GPU case not run (the CuPy case may run)")
        if not torch.cuda.is_available():
            pytest.skip("no CUDA device for PyTorch: multithreaded GPU case not run")
        self.torch = torch

    def to_device(self, x):
        return self.torch.from_numpy(x).cuda()

    def new_stream(self):
        return self.torch.cuda.Stream()

    def default_stream(self):
        return self.torch.cuda.default_stream()

    def on(self, stream):
        return self.torch.cuda.stream(stream)

    def copy(self, x):
        return x.clone()

    def host_bytes(self, x):
        return x.cpu().numpy().tobytes()

    def synchronize(self):
        self.torch.cuda.synchronize()


class _CuPy:
    def __init__(self):
        try:
            import cupy
        except ImportError:
            pytest.skip("CuPy is not importable: its multithreaded GPU case not run (the PyTorch case may run)")
        try:
            if cupy.cuda.runtime.getDeviceCount() == 0:
                pytest.skip("no CUDA device for CuPy: multithreaded GPU case not run")
        except cupy.cuda.runtime.CUDARuntimeError:
            pytest.skip("no CUDA device for CuPy: multithreaded GPU case not run")
        self.cupy = cupy

    def to_device(self, x):
        return self.cupy.asarray(x)

    def new_stream(self):
        return self.cupy.cuda.Stream(non_blocking=True)

    def default_stream(self):
        return self.cupy.cuda.Stream.null

    def on(self, stream):
        return stream  # a CuPy stream is a context manager that makes itself current

    def copy(self, x):
        return x.copy()

    def host_bytes(self, x):
        return self.cupy.asnumpy(x).tobytes()

    def synchronize(self):
        self.cupy.cuda.Device().synchronize()


def _framework(name):
    if not batchsvd.cuda_available():
        pytest.skip("no CUDA device, or batchsvd was built without the CUDA backend: multithreaded GPU "
                    "cases not run (they run on a GPU machine)")
    return _Torch() if name == "torch" else _CuPy()


def _inputs(fw):
    g = np.random.default_rng(SEED)
    out = []
    for _, dtype, batch, m, n in CASES:
        a = g.uniform(-1, 1, (batch, m, n))
        if dtype.startswith("complex"):
            a = a + 1j * g.uniform(-1, 1, (batch, m, n))
        out.append(fw.to_device(a.astype(dtype)))
    fw.synchronize()
    return out


def _solve(fw, a, stream):
    """U, S, Vh, info of one call, as host bytes (the stream synchronised first)."""
    results = batchsvd.svd(a, return_info=True)
    stream.synchronize()
    return tuple(fw.host_bytes(x) for x in results)


@pytest.mark.parametrize("name", ["torch", "cupy"])
def test_threads_on_own_streams_match_serial_bitwise(name):
    fw = _framework(name)
    inputs = _inputs(fw)
    default = fw.default_stream()  # the serial run: one thread, the default stream
    with fw.on(default):
        reference = [_solve(fw, a, default) for a in inputs]
    for (case, *_), ref in zip(CASES, reference):
        info = np.frombuffer(ref[3], dtype=np.int32)
        assert (info == 0).all(), "seed %d: %s did not converge in the serial run" % (SEED, case)

    barrier = threading.Barrier(THREADS)
    failures = []
    lock = threading.Lock()

    def worker(t):
        try:
            stream = fw.new_stream()
            with fw.on(stream):
                local = [fw.copy(a) for a in inputs]  # buffers of the thread's own, on its stream
                stream.synchronize()
                barrier.wait()
                for r in range(REPEATS):
                    for j in range(len(CASES)):
                        i = (j + t) % len(CASES)  # rotated: different paths overlap
                        got = _solve(fw, local[i], stream)
                        for label, x, y in zip(("U", "S", "Vh", "info"), got, reference[i]):
                            if x != y:
                                with lock:
                                    failures.append("thread %d, %s, repeat %d: %s differs from the serial run"
                                                    % (t, CASES[i][0], r, label))
        except threading.BrokenBarrierError:
            pass  # another thread failed before the start; its exception is reported
        except BaseException as e:  # noqa: BLE001 (reported below, the thread must not die silently)
            barrier.abort()
            with lock:
                failures.append("thread %d: %s: %s" % (t, type(e).__name__, e))

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not failures, "seed %d (%s):\n%s" % (SEED, name, "\n".join(failures[:40]))


@pytest.mark.parametrize("name", ["torch", "cupy"])
def test_gil_released_during_the_solve(name, monkeypatch):
    """While one thread is inside the extension's solve (the blocked path waits on the host
    for its sweep counts: tens of milliseconds), another Python thread keeps running."""
    fw = _framework(name)
    a = fw.to_device(np.random.default_rng(SEED).uniform(-1, 1, (2, 1000, 1000)))
    fw.synchronize()
    raw = batchsvd._batchsvd.gesvd
    spans = []

    def timed(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return raw(*args, **kwargs)
        finally:
            spans.append((t0, time.perf_counter()))

    monkeypatch.setattr(batchsvd._batchsvd, "gesvd", timed)
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.0005)

    th = threading.Thread(target=ticker)
    th.start()
    try:
        for _ in range(3):
            batchsvd.svd(a)
    finally:
        stop.set()
        th.join()
    t0, t1 = max(spans, key=lambda s: s[1] - s[0])
    length = t1 - t0
    assert length > 0.01, "the solve took %.1f ms: too short to tell whether the GIL was released" % (1e3 * length)
    inside = [x for x in ticks if t0 + 0.2 * length < x < t1 - 0.2 * length]
    assert len(inside) >= 2, ("%d ticks of another thread during the middle of a %.1f ms solve: the extension "
                              "holds the GIL while it solves" % (len(inside), 1e3 * length))
