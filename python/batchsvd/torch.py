# SPDX-License-Identifier: BSD-3-Clause
"""batchsvd as PyTorch operators: differentiable, and traceable by ``torch.compile``.

    import batchsvd.torch as bt
    U, S, Vh = bt.svd(a)               # a: (..., m, n) tensor, CPU or CUDA; reduced SVD
    S = bt.svdvals(a)
    U, S, Vh, info = bt.svd(a, return_info=True)

``batchsvd::svd`` and ``batchsvd::svdvals`` are registered with ``torch.library`` as custom
operators with fake (meta) implementations, so ``torch.compile(fullgraph=True)`` traces
through them without a graph break, and with autograd formulas, so U, S and Vh are all
differentiable (real and complex). CUDA tensors run on the current stream; neither the forward
nor the backward synchronises with the host. Because of that, a NaN/Inf matrix or one that did
not converge raises nothing here: its status is in ``info`` (``return_info=True``; 0 converged,
> 0 sweeps run without converging, -1 NaN/Inf input), a tensor on the input's device.

Gradients (the reduced-SVD backward, as ``torch.linalg.svd``'s, with two guards):

* Terms ``1 / (s_j^2 - s_i^2)`` are taken as 0 where ``|s_j^2 - s_i^2| <= k * eps * s_max^2``
  (k = min(m, n), eps of the dtype): repeated or nearly repeated singular values. The gradient
  is then finite, and correct for every loss that does not depend on the choice of basis
  inside a repeated singular subspace (losses of S alone, of ``U @ diag(f(S)) @ Vh``, of
  projectors onto whole subspaces); for a loss that does depend on it, no gradient exists, and
  the one returned drops the ill-defined part instead of returning Inf or NaN as
  ``torch.linalg.svd`` does.
* Terms ``1 / s_i`` (the parts of U outside the range when m > n, of V when n > m, and the
  imaginary part of ``diag(U^H gU)`` for complex inputs) are taken as 0 where
  ``s_i <= k * eps * s_max``: correct for losses that do not depend on the singular vectors of
  zero singular values.

A loss of S alone needs no guard: its gradient is ``U @ diag(gS) @ Vh``, finite at repeated
and zero singular values alike.
"""

import torch

from . import svd as _svd_any
from . import svdvals as _svdvals_any

__all__ = ["svd", "svdvals"]

_REAL = {torch.float32: torch.float32, torch.float64: torch.float64,
         torch.complex64: torch.float32, torch.complex128: torch.float64}


def _check(a):
    if not isinstance(a, torch.Tensor):
        raise TypeError("batchsvd.torch: expected a torch.Tensor, got %s" % type(a).__name__)
    if a.dim() < 2:
        raise ValueError("batchsvd.torch: expected a tensor of at least 2 dimensions (..., m, n), "
                         "got shape %s" % (tuple(a.shape),))
    if a.dtype not in _REAL:
        raise TypeError("batchsvd.torch: unsupported dtype %s; use float32, float64, complex64 "
                        "or complex128" % a.dtype)


@torch.library.custom_op("batchsvd::svd", mutates_args=())
def _svd_op(a: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    u, s, vh, info = _svd_any(a.detach(), return_info=True)  # (DLPack exports no autograd leaves)
    # (outputs must be fresh tensors that own their memory, in the op's declared layout)
    return u.contiguous(), s.contiguous(), vh.contiguous(), info.contiguous()


@_svd_op.register_fake
def _svd_fake(a):
    *batch, m, n = a.shape
    k = min(m, n)
    u = a.new_empty((*batch, m, k))
    s = a.new_empty((*batch, k), dtype=_REAL[a.dtype])
    vh = a.new_empty((*batch, k, n))
    info = a.new_empty(tuple(batch), dtype=torch.int32)
    return u, s, vh, info


@torch.library.custom_op("batchsvd::svdvals", mutates_args=())
def _svdvals_op(a: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    s, info = _svdvals_any(a.detach(), return_info=True)
    return s.contiguous(), info.contiguous()


@_svdvals_op.register_fake
def _svdvals_fake(a):
    *batch, m, n = a.shape
    return (a.new_empty((*batch, min(m, n)), dtype=_REAL[a.dtype]),
            a.new_empty(tuple(batch), dtype=torch.int32))


def _svd_backward(u, s, vh, gu, gs, gvh):
    """dL/dA of the reduced SVD A = U diag(S) Vh, with the guards of the module's docstring."""
    if gu is None and gvh is None:
        if gs is None:
            return None
        return (u * gs.unsqueeze(-2).to(u.dtype)) @ vh
    m, k, n = u.shape[-2], s.shape[-1], vh.shape[-1]
    eps = torch.finfo(s.dtype).eps
    smax = s.amax(dim=-1, keepdim=True).clamp_min(torch.finfo(s.dtype).tiny)
    s2 = s * s
    diff = s2.unsqueeze(-2) - s2.unsqueeze(-1)  # [i, j] = s_j^2 - s_i^2
    keep = diff.abs() > (k * eps) * (smax * smax).unsqueeze(-1)
    inv_diff = torch.where(keep, 1 / torch.where(keep, diff, torch.ones_like(diff)), torch.zeros_like(diff))
    s_ok = s > (k * eps) * smax
    inv_s = torch.where(s_ok, 1 / torch.where(s_ok, s, torch.ones_like(s)), torch.zeros_like(s))
    v = vh.mH
    gv = gvh.mH if gvh is not None else None

    def skew(x):
        return x - x.mH

    inner = torch.zeros(u.shape[:-2] + (k, k), dtype=u.dtype, device=u.device)
    if gu is not None:
        uhgu = u.mH @ gu
        inner = inner + (skew(uhgu) * inv_diff.to(u.dtype)) * s.unsqueeze(-2).to(u.dtype)
    if gv is not None:
        vhgv = v.mH @ gv
        inner = inner + s.unsqueeze(-1).to(u.dtype) * (skew(vhgv) * inv_diff.to(u.dtype))
    if gs is not None:
        inner = inner + torch.diag_embed(gs.to(u.dtype))
    if u.is_complex() and gu is not None:
        im = torch.diagonal(uhgu, dim1=-2, dim2=-1).imag * (inv_s / 2)
        inner = inner + torch.diag_embed(im.to(u.dtype) * 1j)
    if m > k and gu is not None:
        gu_sinv = gu * inv_s.unsqueeze(-2).to(u.dtype)
        return (u @ inner + gu_sinv - u @ (u.mH @ gu_sinv)) @ vh
    if n > k and gv is not None:
        sinv_gvh = gv.mH * inv_s.unsqueeze(-1).to(u.dtype)
        return u @ (inner @ vh + sinv_gvh - (sinv_gvh @ v) @ vh)
    return u @ inner @ vh


def _svd_setup(ctx, inputs, output):
    u, s, vh, _ = output
    ctx.save_for_backward(u, s, vh)


def _svd_grad(ctx, gu, gs, gvh, ginfo):
    u, s, vh = ctx.saved_tensors
    return _svd_backward(u, s, vh, gu, gs, gvh)


_svd_op.register_autograd(_svd_grad, setup_context=_svd_setup)


def svd(a: torch.Tensor, *, return_info: bool = False):
    """Reduced SVD ``a = U @ (S[..., None] * Vh)`` of a (..., m, n) tensor, differentiable in
    U, S and Vh; with ``return_info=True`` the per-matrix status comes last (see the module)."""
    _check(a)
    u, s, vh, info = _svd_op(a)
    return (u, s, vh, info) if return_info else (u, s, vh)


def svdvals(a: torch.Tensor, *, return_info: bool = False):
    """Singular values of a (..., m, n) tensor, descending, differentiable (the backward needs
    U and V, so when a gradient is wanted the forward computes them too)."""
    _check(a)
    if torch.is_grad_enabled() and a.requires_grad:
        _, s, _, info = _svd_op(a)
    else:
        s, info = _svdvals_op(a)
    return (s, info) if return_info else s
