# SPDX-License-Identifier: BSD-3-Clause
"""Injected faults through Python (BATCHSVD_CUDA_FAULT, docs/reliability.md): in a fresh
interpreter armed to fail its N-th device allocation or N-th library call (a kernel launch,
cuBLAS, cuSOLVER), batchsvd.svd on a NumPy batch (solved on the GPU through host staging)
raises batchsvd.OutOfMemoryError (a MemoryError) or batchsvd.DeviceError (a RuntimeError)
naming what failed, and the next call in that interpreter gives bitwise the result of an
undisturbed interpreter. Needs a CUDA device (NumPy only; no PyTorch, CuPy or JAX); the cases
skip, with a message, elsewhere."""

import os
import subprocess
import sys
import textwrap

import pytest

import batchsvd

needs_cuda = pytest.mark.skipif(
    not batchsvd.cuda_available(),
    reason="no CUDA device (or batchsvd built without CUDA): the injected-fault cases run on a "
           "GPU machine")

# One solve: a float64 batch of 5 matrices 16 x 14 (the warp kernel, staged through device
# memory), then the same again; prints what the first call raised and a digest of the second.
SCRIPT = textwrap.dedent("""
    import hashlib
    import numpy as np
    import batchsvd

    a = np.random.default_rng(7).standard_normal((5, 16, 14))

    def solve():
        u, s, vh = batchsvd.svd(a)
        return hashlib.sha256(b"".join(x.tobytes() for x in (u, s, vh))).hexdigest()

    try:
        first = solve()
        print("none")
    except batchsvd.OutOfMemoryError as e:
        print("OutOfMemoryError", isinstance(e, MemoryError), e)
    except batchsvd.DeviceError as e:
        print("DeviceError", isinstance(e, RuntimeError), e)
    print(solve())
""")


def run(fault):
    env = dict(os.environ)
    env.pop("BATCHSVD_CUDA_FAULT", None)
    if fault is not None:
        env["BATCHSVD_CUDA_FAULT"] = fault
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    raised, digest = done.stdout.strip().split("\n")
    return raised, digest, done.stderr


@pytest.fixture(scope="module")
def reference():
    """The digest of an undisturbed interpreter's solve."""
    raised, digest, _ = run(None)
    assert raised == "none"
    return digest


def test_exception_classes():
    assert issubclass(batchsvd.OutOfMemoryError, MemoryError)
    assert issubclass(batchsvd.DeviceError, RuntimeError)
    assert batchsvd.OutOfMemoryError.__module__ == "batchsvd"
    assert batchsvd.DeviceError.__module__ == "batchsvd"
    assert {"OutOfMemoryError", "DeviceError"} <= set(batchsvd.__all__)


@needs_cuda
@pytest.mark.parametrize("fault,raised,names", [
    ("alloc:1", "OutOfMemoryError True", "device allocation of"),  # the staged input
    ("alloc:3", "OutOfMemoryError True", "device allocation of"),
    ("call:1", "DeviceError True", "launch of "),                   # the solve's one launch
])
def test_fault_raises_and_next_call_is_undisturbed(reference, fault, raised, names):
    got, digest, _ = run(fault)
    assert got.startswith(raised), got
    assert names in got and "(injected)" in got, got
    assert digest == reference


@needs_cuda
@pytest.mark.parametrize("fault", ["alloc:1000", "call:1000"])
def test_fault_past_the_last_point_changes_nothing(reference, fault):
    got, digest, _ = run(fault)
    assert got == "none"
    assert digest == reference


@needs_cuda
def test_malformed_switch_is_reported_and_ignored(reference):
    got, digest, stderr = run("alloc:zero")
    assert got == "none"
    assert "BATCHSVD_CUDA_FAULT=alloc:zero ignored" in stderr
    assert digest == reference
