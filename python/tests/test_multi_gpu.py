# SPDX-License-Identifier: BSD-3-Clause
"""``devices=``: a batch shared by several CUDA devices. With two or more devices: NumPy
(host) and PyTorch/CuPy (device) batches give bitwise the one-device result, with the
array's own device first or not, and "all"; bad device lists raise ValueError. Without a
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

# (dtype, batch, m, n): a warp, a preconditioned blocked and a QR batch.
CASES = [("float64", 301, 24, 24), ("float64", 120, 64, 64), ("complex64", 101, 150, 24)]


def _batch(dtype, batch, m, n, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((batch, m, n))
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal((batch, m, n))
    return a.astype(dtype)


def _same(x, y):
    return x.shape == y.shape and x.dtype == y.dtype and x.tobytes() == y.tobytes()


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
@pytest.mark.parametrize("case", CASES, ids=lambda c: "%s-%dx%dx%d" % c)
def test_numpy_batch_bitwise_as_one_device(case):
    a = _batch(*case, SEED)
    one = batchsvd.svd(a, return_info=True)
    for devices in ([0, 1], [1, 0], "all"):
        several = batchsvd.svd(a, return_info=True, devices=devices)
        for x, y, name in zip(one, several, ("U", "S", "Vh", "info")):
            assert _same(x, y), "seed %d, devices %s: %s differs" % (SEED, devices, name)
    assert _same(batchsvd.svdvals(a), batchsvd.svdvals(a, devices="all")), "seed %d: values" % SEED


@needs_two
@pytest.mark.parametrize("framework", ["torch", "cupy"])
def test_device_batch_bitwise_as_one_device(framework):
    mod = pytest.importorskip(framework)
    dtype, batch, m, n = CASES[1]
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
        for x, y, name in zip(one, several, ("U", "S", "Vh", "info")):
            assert _same(x, y), "seed %d, %s on device %d: %s differs" % (SEED, framework, home, name)
