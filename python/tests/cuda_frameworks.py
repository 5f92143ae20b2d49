# SPDX-License-Identifier: BSD-3-Clause
"""The CUDA array frameworks of the GPU tests of hsvd, eigh_indefinite and gebrd (and jax_gpu,
for the JAX cases of the others): each turns a NumPy array into a CUDA array of its framework
and back (checking that a result is one), and skips the calling case with the reason where
the framework is not importable, has no CUDA device, or batchsvd has no CUDA backend."""
import numpy as np
import pytest

import batchsvd


class _Torch:
    def __init__(self):
        torch = pytest.importorskip("torch", reason="PyTorch is not importable: its GPU case not run")
        if not torch.cuda.is_available():
            pytest.skip("no CUDA device for PyTorch: its GPU case not run")
        self.torch = torch

    def to_device(self, x):
        return self.torch.from_numpy(np.ascontiguousarray(x)).cuda()

    def to_numpy(self, x):
        assert isinstance(x, self.torch.Tensor) and x.is_cuda, type(x)
        return x.cpu().numpy()


class _CuPy:
    def __init__(self):
        cupy = pytest.importorskip("cupy", reason="CuPy is not importable: its GPU case not run")
        try:
            if cupy.cuda.runtime.getDeviceCount() < 1:
                pytest.skip("no CUDA device for CuPy: its GPU case not run")
        except cupy.cuda.runtime.CUDARuntimeError:
            pytest.skip("no CUDA device for CuPy: its GPU case not run")
        self.cupy = cupy

    def to_device(self, x):
        return self.cupy.asarray(x)

    def to_numpy(self, x):
        assert isinstance(x, self.cupy.ndarray), type(x)
        return self.cupy.asnumpy(x)


def jax_gpu():
    """(jax, its first GPU) with 64-bit types enabled, or the calling case skipped with the
    reason: JAX not importable, no GPU for JAX, or batchsvd without a usable CUDA backend."""
    jax = pytest.importorskip("jax", reason="JAX is not importable: its GPU case not run")
    jax.config.update("jax_enable_x64", True)  # float64 and complex128 stay what they are
    try:
        gpus = jax.devices("gpu")
    except RuntimeError:
        gpus = []
    if not gpus:
        pytest.skip("no GPU for JAX: its GPU case not run")
    if not batchsvd.cuda_available():
        pytest.skip("batchsvd has no usable CUDA backend here: the GPU cases are not run")
    return jax, gpus[0]


class _Jax:
    def __init__(self):
        self.jax, self.gpu = jax_gpu()

    def to_device(self, x):
        return self.jax.device_put(x, self.gpu)

    def to_numpy(self, x):
        assert isinstance(x, self.jax.Array) and x.devices() == {self.gpu}, type(x)
        return np.asarray(x)


FRAMEWORKS = {"torch": _Torch, "cupy": _CuPy, "jax": _Jax}


def cuda_framework(name):
    """The framework of that name, or the calling case skipped with the reason."""
    if not batchsvd.cuda_available():
        pytest.skip("batchsvd has no usable CUDA backend here: the GPU cases are not run")
    return FRAMEWORKS[name]()
