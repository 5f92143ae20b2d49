# SPDX-License-Identifier: BSD-3-Clause
"""batchsvd.torch: custom operators with autograd and fake implementations.
torch.autograd.gradcheck (float64, complex128; tall, wide, square) of losses of U, S and Vh;
gradients equal to torch.linalg.svd's on well-separated spectra; finite, analytic gradients of
S at repeated and zero singular values; torch.compile(fullgraph=True) through the operators;
the status without a graph break. On the CPU, and on CUDA tensors where a GPU is present.
Skipped, with the reason, without PyTorch (CI has none; the GPU machine's image has it).
Fresh random inputs on every run (the seed is printed on failure; BATCHSVD_TEST_SEED replays it)."""

import os

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed: batchsvd.torch is not tested")
import batchsvd.torch as bt  # noqa: E402

SEED = int(os.environ.get("BATCHSVD_TEST_SEED", np.random.SeedSequence().entropy % (2**63)))
SHAPES = [(2, 5, 3), (2, 3, 5), (2, 4, 4)]  # tall, wide, square
DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def _rand(shape, dtype, device, seed):
    g = torch.Generator().manual_seed(seed % (2**63))
    return torch.randn(shape, dtype=dtype, generator=g).to(device)


def _loss(svd):
    """A loss of U, S and Vh that does not depend on the phases of singular vector pairs."""
    def f(a):
        u, s, vh = svd(a)
        w = torch.arange(1, s.shape[-1] + 1, dtype=s.dtype, device=s.device)
        p = u @ (w[:, None].to(u.dtype) * vh)
        return (p.abs() ** 2).sum() + torch.sin(s).sum() + ((u @ u.mH).abs() ** 3).sum()
    return f


def _torch_svd(a):
    return torch.linalg.svd(a, full_matrices=False)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float64, torch.complex128], ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "%dx%dx%d" % s)
def test_gradcheck(device, dtype, shape):
    a = _rand(shape, dtype, device, SEED).requires_grad_()
    assert torch.autograd.gradcheck(_loss(bt.svd), (a,), eps=1e-6, atol=1e-5, rtol=1e-4), "seed %d" % SEED
    assert torch.autograd.gradcheck(lambda x: bt.svdvals(x), (a,), eps=1e-6, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float64, torch.complex128], ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "%dx%dx%d" % s)
def test_gradients_match_torch(device, dtype, shape):
    a = _rand(shape, dtype, device, SEED + 1)
    x = a.clone().requires_grad_()
    y = a.clone().requires_grad_()
    _loss(bt.svd)(x).backward()
    _loss(_torch_svd)(y).backward()
    scale = max(1.0, float(y.grad.abs().max()))
    assert float((x.grad - y.grad).abs().max()) <= 1e-10 * scale, "seed %d" % SEED


@pytest.mark.parametrize("dtype", [torch.float64, torch.complex128], ids=str)
def test_degenerate_spectra_give_finite_exact_gradients(dtype):
    g = torch.Generator().manual_seed(SEED % (2**63))
    q, _ = torch.linalg.qr(torch.randn(6, 6, dtype=dtype, generator=g))
    p, _ = torch.linalg.qr(torch.randn(4, 4, dtype=dtype, generator=g))
    for sv in ([2.0, 1.0, 1.0, 1.0], [3.0, 1.0, 0.0, 0.0]):  # repeated; zero
        s_true = torch.tensor(sv, dtype=torch.float64).to(dtype)
        a = ((q[:, :4] * s_true) @ p.mH).requires_grad_()
        (bt.svdvals(a) ** 3).sum().backward()
        u, s, vh = bt.svd(a.detach())
        expect = u @ ((3 * s[:, None] ** 2).to(dtype) * vh)
        assert torch.isfinite(a.grad).all()
        assert float((a.grad - expect).abs().max()) <= 1e-12 * 27
        b = a.detach().clone().requires_grad_()
        _loss(bt.svd)(b).backward()  # whole subspaces: finite
        assert torch.isfinite(b.grad).all()


@pytest.mark.parametrize("device", DEVICES)
def test_compile_fullgraph(device):
    def f(a):
        u, s, vh, info = bt.svd(a, return_info=True)
        return (u @ torch.diag_embed(s).to(u.dtype) @ vh - a).abs().sum() + s.sum(), info

    a = _rand((3, 6, 4), torch.float64, device, SEED + 2).requires_grad_()
    compiled = torch.compile(f, fullgraph=True, backend="aot_eager")
    out, info = compiled(a)
    out.backward()
    ref = a.detach().clone().requires_grad_()
    f(ref)[0].backward()
    assert torch.equal(info, torch.zeros(3, dtype=torch.int32, device=device))
    assert float((a.grad - ref.grad).abs().max()) <= 1e-12 * max(1.0, float(ref.grad.abs().max()))


@pytest.mark.parametrize("device", DEVICES)
def test_status_and_shapes(device):
    bad = torch.ones(3, 4, 4, dtype=torch.float64, device=device)
    bad[1, 2, 2] = float("nan")
    u, s, vh, info = bt.svd(bad, return_info=True)
    assert info.tolist() == [0, -1, 0] and info.device == bad.device
    s2, info2 = bt.svdvals(bad, return_info=True)
    assert info2.tolist() == [0, -1, 0]
    a = _rand((2, 5, 3), torch.complex64, device, SEED + 3)
    u, s, vh = bt.svd(a)
    assert u.shape == (2, 5, 3) and s.shape == (2, 3) and vh.shape == (2, 3, 3)
    assert s.dtype == torch.float32 and u.dtype == torch.complex64
    with pytest.raises(ValueError):
        bt.svd(torch.ones(3))
    with pytest.raises(TypeError):
        bt.svd(torch.ones(2, 2, dtype=torch.int32))
