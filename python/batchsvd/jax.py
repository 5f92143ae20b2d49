# SPDX-License-Identifier: BSD-3-Clause
"""batchsvd as a JAX operation: an XLA FFI custom call, so ``jax.jit`` compiles it with no host
round trip and no copy, ``jax.vmap`` folds into the batch, and ``jax.grad`` differentiates it.

    import batchsvd.jax as bj
    U, S, Vh = bj.svd(a)                 # a: (..., m, n) JAX array, CPU or one CUDA GPU
    S = bj.svdvals(a)
    U, S, Vh, info = bj.svd(a, return_info=True)

The handlers (``python/jax_ffi.cpp``) run the library on XLA's buffers: on the host for the
CPU platform, on XLA's stream for CUDA. Nothing synchronises with the host, so a NaN/Inf
matrix or one that did not converge raises nothing: its status is in ``info``
(``return_info=True``; 0 converged, > 0 sweeps run without converging, -1 NaN/Inf input).
float64 and complex128 need ``jax_enable_x64``.

Gradients are those of the reduced SVD with the guards that ``batchsvd.torch`` documents:
``1 / (s_j^2 - s_i^2)`` taken as 0 where ``|s_j^2 - s_i^2| <= k * eps * s_max^2`` and
``1 / s_i`` as 0 where ``s_i <= k * eps * s_max`` (k = min(m, n)): finite everywhere, and
correct for losses that do not depend on the basis of a repeated singular subspace or on the
singular vectors of zero singular values (a loss of S alone is always exact:
``U @ diag(gS) @ Vh``).
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from . import _batchsvd

__all__ = ["svd", "svdvals"]

if not hasattr(_batchsvd, "jax_ffi_handlers"):
    raise ImportError("batchsvd.jax: this batchsvd was built without JAX's XLA FFI headers; "
                      "reinstall with jax present at build time (pip install \".[jax]\")")


def _register():
    handlers = _batchsvd.jax_ffi_handlers()
    for name in ("svd", "svdvals"):
        jax.ffi.register_ffi_target("batchsvd_" + name, handlers[name + "_cpu"], platform="cpu")
        if name + "_cuda" in handlers:
            try:
                jax.ffi.register_ffi_target("batchsvd_" + name, handlers[name + "_cuda"], platform="CUDA")
            except Exception:  # a JAX without its CUDA plugin: the CPU target serves
                pass


_register()

_DTYPES = ("float32", "float64", "complex64", "complex128")


def _check(a):
    a = jnp.asarray(a)
    if a.ndim < 2:
        raise ValueError("batchsvd.jax: expected an array of at least 2 dimensions (..., m, n), "
                         "got shape %s" % (a.shape,))
    if jnp.dtype(a.dtype).name not in _DTYPES:
        raise TypeError("batchsvd.jax: unsupported dtype %s; use float32, float64, complex64 or "
                        "complex128" % a.dtype)
    return a


def _real(dtype):
    return jnp.finfo(dtype).dtype


def _solve(a, vectors):
    """The FFI call: (U, S, Vh, info), or (S, info) without vectors."""
    *batch, m, n = a.shape
    batch = tuple(batch)
    k = min(m, n)
    s_t = jax.ShapeDtypeStruct(batch + (k,), _real(a.dtype))
    info_t = jax.ShapeDtypeStruct(batch, jnp.int32)
    if math.prod(batch) == 0 or k == 0:  # nothing to decompose: every matrix "converged"
        s, info = jnp.zeros(s_t.shape, s_t.dtype), jnp.zeros(batch, jnp.int32)
        if not vectors:
            return s, info
        return jnp.zeros(batch + (m, k), a.dtype), s, jnp.zeros(batch + (k, n), a.dtype), info
    if not vectors:
        return jax.ffi.ffi_call("batchsvd_svdvals", (s_t, info_t), vmap_method="broadcast_all")(a)
    left_t = jax.ShapeDtypeStruct(batch + (k, n), a.dtype)   # U'^T = Vh (the module's layout note)
    right_t = jax.ShapeDtypeStruct(batch + (k, m), a.dtype)  # V'^T: U = conj(V'^T)^T
    s, left, right, info = jax.ffi.ffi_call("batchsvd_svd", (s_t, left_t, right_t, info_t),
                                            vmap_method="broadcast_all")(a)
    u = jnp.swapaxes(jnp.conj(right) if jnp.iscomplexobj(right) else right, -1, -2)
    return u, s, left, info


def _backward(u, s, vh, gu, gs, gvh):
    """dL/dA of A = U diag(S) Vh (reduced), with the guards of the module's docstring."""
    m, k, n = u.shape[-2], s.shape[-1], vh.shape[-1]
    dt = u.dtype
    eps = jnp.finfo(s.dtype).eps
    smax = jnp.maximum(jnp.max(s, axis=-1, keepdims=True), jnp.finfo(s.dtype).tiny)
    s2 = s * s
    diff = s2[..., None, :] - s2[..., :, None]  # [i, j] = s_j^2 - s_i^2
    keep = jnp.abs(diff) > (k * eps) * (smax * smax)[..., None]
    inv_diff = jnp.where(keep, 1 / jnp.where(keep, diff, 1), 0).astype(dt)
    s_ok = s > (k * eps) * smax
    inv_s = jnp.where(s_ok, 1 / jnp.where(s_ok, s, 1), 0)
    v = jnp.conj(jnp.swapaxes(vh, -1, -2))
    gv = jnp.conj(jnp.swapaxes(gvh, -1, -2))

    def mh(x):
        return jnp.conj(jnp.swapaxes(x, -1, -2))

    uhgu = mh(u) @ gu
    vhgv = mh(v) @ gv
    sc = s.astype(dt)
    inner = ((uhgu - mh(uhgu)) * inv_diff) * sc[..., None, :] + sc[..., :, None] * ((vhgv - mh(vhgv)) * inv_diff)
    eye = jnp.eye(k, dtype=dt)
    inner = inner + eye * gs.astype(dt)[..., None, :]
    if jnp.iscomplexobj(u):
        im = jnp.imag(jnp.diagonal(uhgu, axis1=-2, axis2=-1)) * (inv_s / 2)
        inner = inner + eye * (1j * im.astype(dt))[..., None, :]
    ga = u @ inner @ vh
    if m > k:
        gu_sinv = gu * inv_s[..., None, :].astype(dt)
        ga = ga + (gu_sinv - u @ (mh(u) @ gu_sinv)) @ vh
    elif n > k:
        sinv_gvh = mh(gv) * inv_s[..., :, None].astype(dt)
        ga = ga + u @ (sinv_gvh - (sinv_gvh @ v) @ vh)
    return ga


@jax.custom_vjp
def _svd(a):
    return _solve(a, True)


def _svd_fwd(a):
    out = _solve(a, True)
    return out, out[:3]


def _svd_bwd(res, g):
    # JAX's cotangents of complex values are the conjugates of the gradients _backward works
    # in (dL = Re<G, dA>, PyTorch's convention): conjugate in and out.
    u, s, vh = res
    gu, gs, gvh, _ = g
    return (jnp.conj(_backward(u, s, vh, jnp.conj(gu), gs, jnp.conj(gvh))),)


_svd.defvjp(_svd_fwd, _svd_bwd)


@jax.custom_vjp
def _svdvals(a):
    return _solve(a, False)


def _svdvals_fwd(a):
    u, s, vh, info = _solve(a, True)  # (the backward needs U and V)
    return (s, info), (u, vh)


def _svdvals_bwd(res, g):
    u, vh = res
    gs, _ = g
    return (jnp.conj((u * gs[..., None, :].astype(u.dtype)) @ vh),)


_svdvals.defvjp(_svdvals_fwd, _svdvals_bwd)


def svd(a, *, return_info=False):
    """Reduced SVD ``a = U @ (S[..., None] * Vh)`` of a (..., m, n) array, differentiable in U,
    S and Vh; with ``return_info=True`` the per-matrix status (int32, batch-shaped) comes last."""
    u, s, vh, info = _svd(_check(a))
    return (u, s, vh, info) if return_info else (u, s, vh)


def svdvals(a, *, return_info=False):
    """Singular values of a (..., m, n) array, descending, differentiable."""
    s, info = _svdvals(_check(a))
    return (s, info) if return_info else s
