# SPDX-License-Identifier: BSD-3-Clause
"""``devices=``: a batch shared by several CUDA devices. With two or more devices: NumPy
(host) and PyTorch/CuPy (device) batches give the one-device result (bitwise; to rounding on
the preconditioned path), with the array's own device first or not, and "all"; bad device
lists raise ValueError. Without a
CUDA device, a device list raises RuntimeError. Cases that need two devices or a framework
skip, with a message, where those are absent. Fresh random inputs on every run (the seed is
printed on failure; BATCHSVD_TEST_SEED replays it)."""

import os

import numpy as np
import pytest

import batchsvd

SEED = int(os.environ.get("BATCHSVD_TEST_SEED", np.random.SeedSequence().entropy % (2**63)))
N_DEVICES = len(batchsvd.cuda_devices())
needs_two = pytest.mark.skipif(
    N_DEVICES < 2, reason="fewer than two CUDA devices (%d): the batch over several devices runs "
                          "on a two-GPU machine" % N_DEVICES)

# (dtype, batch, m, n, exact): a warp, a preconditioned blocked and a QR batch. The
# preconditioned path's products are cuBLAS's, which may choose its kernels by the number of
# matrices: a share then agrees with the one-device result to rounding, not bitwise.
CASES = [("float64", 301, 24, 24, True), ("float64", 120, 64, 64, False),
         ("complex64", 101, 150, 24, True)]


def _batch(dtype, batch, m, n, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((batch, m, n))
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal((batch, m, n))
    return a.astype(dtype)


def _same(x, y):
    return x.shape == y.shape and x.dtype == y.dtype and x.tobytes() == y.tobytes()


def _agree(one, several, exact, what):
    """Bitwise, or (exact=False) the same info, S within 30u of the largest value, and U, Vh
    reconstructing the same matrices (U S Vh within 30u of each other)."""
    for x, y, name in zip(one, several, ("U", "S", "Vh", "info")):
        if exact:
            assert _same(x, y), "%s: %s differs" % (what, name)
    if exact:
        return
    u1, s1, v1, i1 = one
    u2, s2, v2, i2 = several
    assert (i1 == i2).all(), what
    eps = np.finfo(s1.dtype).eps / 2
    assert np.abs(s1 - s2).max() <= 30 * eps * max(1.0, float(s1.max())), what
    a1 = u1 @ (s1[..., None] * v1)
    a2 = u2 @ (s2[..., None] * v2)
    assert np.abs(a1 - a2).max() <= 30 * eps * max(1.0, float(s1.max())), what


def test_device_list_values_are_checked():
    a = np.eye(3)
    for bad in ("some", [], 3.5):
        with pytest.raises(ValueError):
            batchsvd.svd(a, devices=bad)


@pytest.mark.skipif(batchsvd.cuda_available(), reason="a CUDA device is present: the no-device "
                                                       "case runs where none is")
def test_devices_without_a_device_raise():
    with pytest.raises(RuntimeError):
        batchsvd.svd(np.eye(3), devices=[0])
    assert batchsvd.cuda_devices() == []


@pytest.mark.skipif(not batchsvd.cuda_available(), reason="no CUDA device: the device list "
                                                           "checks run on a GPU machine")
def test_bad_device_lists_are_value_errors():
    a = np.eye(4)
    for bad in ([N_DEVICES], [-1], [0, 0]):
        with pytest.raises(ValueError):
            batchsvd.svd(a, devices=bad)


@needs_two
@pytest.mark.parametrize("case", CASES, ids=lambda c: "%s-%dx%dx%d" % c[:4])
def test_numpy_batch_as_one_device(case):
    a = _batch(*case[:4], SEED)
    one = batchsvd.svd(a, return_info=True)
    for devices in ([0, 1], [1, 0], "all"):
        several = batchsvd.svd(a, return_info=True, devices=devices)
        _agree(one, several, case[4], "seed %d, devices %s" % (SEED, devices))
    if case[4]:
        assert _same(batchsvd.svdvals(a), batchsvd.svdvals(a, devices="all")), "seed %d: values" % SEED


@needs_two
@pytest.mark.parametrize("framework", ["torch", "cupy"])
def test_device_batch_as_one_device(framework):
    mod = pytest.importorskip(framework)
    dtype, batch, m, n, exact = CASES[1]
    host = _batch(dtype, batch, m, n, SEED)
    for home in (0, 1):
        if framework == "torch":
            a = mod.from_numpy(host).to("cuda:%d" % home)
            to_host = lambda x: x.cpu().numpy()  # noqa: E731
        else:
            with mod.cuda.Device(home):
                a = mod.asarray(host)
            to_host = mod.asnumpy
        one = [to_host(x) for x in batchsvd.svd(a, return_info=True)]
        several = [to_host(x) for x in batchsvd.svd(a, return_info=True, devices=[0, 1])]
        _agree(one, several, exact, "seed %d, %s on device %d" % (SEED, framework, home))


@needs_two
@pytest.mark.parametrize("dtype", ["float64", "complex64"])
def test_one_matrix_spread_over_devices(dtype, monkeypatch):
    """A single matrix with devices= is spread over the GPUs (from order 1 here, by
    BATCHSVD_CUDA_SPREAD_MIN_ORDER; 2048 by default): S against NumPy's within 30u of the largest
    value, U and V orthonormal, U S Vh back to A. Where NCCL is not found the call runs on one
    GPU and the test checks that instead (the same assertions)."""
    monkeypatch.setenv("BATCHSVD_CUDA_SPREAD_MIN_ORDER", "1")
    a = _batch(dtype, 1, 300, 260, SEED + 7)[0]
    u, s, vh = batchsvd.svd(a, devices="all")
    eps = np.finfo(s.dtype).eps / 2
    tol = 30 * eps * max(1.0, float(s.max())) * np.sqrt(a.shape[1])
    ref = np.linalg.svd(a.astype(np.complex128 if dtype.startswith("complex") else np.float64), compute_uv=False)
    assert np.abs(s - ref).max() <= tol, "seed %d" % SEED
    k = s.shape[0]
    assert np.abs(u.conj().T @ u - np.eye(k)).max() <= 30 * eps * np.sqrt(k)
    assert np.abs(vh @ vh.conj().T - np.eye(k)).max() <= 30 * eps * np.sqrt(k)
    assert np.abs(u @ (s[:, None] * vh) - a).max() <= tol
