# SPDX-License-Identifier: BSD-3-Clause
"""batchsvd.jax: the XLA FFI custom call under jax.jit (no host callback in the compiled
program), jax.vmap, and gradients against jnp.linalg.svd's, in four precisions, tall, wide and
square; degenerate spectra give finite gradients equal to the analytic ones. Runs on JAX's CPU
platform (and on a GPU where JAX has one); skipped, with the reason, without JAX or without the
FFI handlers in this build. Fresh random inputs on every run (the seed is printed on failure;
BATCHSVD_TEST_SEED replays it)."""

import os

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="JAX is not installed: batchsvd.jax is not tested")
jax.config.update("jax_enable_x64", True)  # float64 and complex128 stay what they are
import jax.numpy as jnp  # noqa: E402

try:
    import batchsvd.jax as bj  # noqa: E402
except ImportError as e:  # pragma: no cover - depends on the build
    pytest.skip("batchsvd.jax unavailable: %s" % e, allow_module_level=True)

SEED = int(os.environ.get("BATCHSVD_TEST_SEED", np.random.SeedSequence().entropy % (2**63)))
SHAPES = [(3, 6, 4), (2, 4, 7), (4, 5, 5)]  # (batch, m, n): tall, wide, square
DTYPES = ["float32", "float64", "complex64", "complex128"]


def _u(dtype):
    return np.finfo(np.dtype(dtype)).eps / 2


def _rand(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    return jnp.asarray(a.astype(dtype))


def _mh(x):
    return jnp.conj(jnp.swapaxes(x, -1, -2))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "%dx%dx%d" % s)
def test_jit_decomposes(dtype, shape):
    a = _rand(shape, dtype, SEED)
    u, s, vh, info = jax.jit(lambda x: bj.svd(x, return_info=True))(a)
    k = min(shape[-2:])
    assert u.shape == shape[:-1] + (k,) and s.shape == shape[:-2] + (k,) and vh.shape == (shape[0], k, shape[2])
    assert s.dtype == jnp.finfo(a.dtype).dtype and u.dtype == a.dtype and info.dtype == jnp.int32
    # (checked in NumPy, in double precision: JAX's own products on a GPU may round through TF32)
    tol = 30 * _u(dtype) * max(shape[-2:])
    a64, u64, s64, vh64 = (np.asarray(x).astype(np.complex128) for x in (a, u, s, vh))
    scale = float(np.max(np.abs(s64)))
    assert np.max(np.abs(u64 @ (s64[..., None] * vh64) - a64)) <= tol * scale, "seed %d" % SEED
    assert np.max(np.abs(np.conj(np.swapaxes(u64, -1, -2)) @ u64 - np.eye(k))) <= tol
    assert np.max(np.abs(vh64 @ np.conj(np.swapaxes(vh64, -1, -2)) - np.eye(k))) <= tol
    assert bool(jnp.all(s[..., :-1] >= s[..., 1:])) and not bool(jnp.any(info))
    ref = np.linalg.svd(np.asarray(a), compute_uv=False)
    assert np.max(np.abs(np.asarray(bj.svdvals(a)) - ref)) <= tol * scale


def test_compiled_program_is_one_custom_call():
    a = _rand((4, 8, 6), "float64", SEED)
    text = jax.jit(jax.grad(lambda x: jnp.sum(bj.svdvals(x)) + jnp.sum(bj.svd(x)[0]))).lower(a).as_text()
    assert "batchsvd_svd" in text
    assert "callback" not in text.lower(), "a host callback in the lowered program"


def _gauge_invariant_loss(svd):
    """A loss of U S Vh that does not depend on the phases of singular vector pairs."""
    def f(a):
        u, s, vh = svd(a)
        w = jnp.arange(1, s.shape[-1] + 1, dtype=s.dtype)
        p = u @ (w[..., :, None].astype(u.dtype) * vh)  # sum_i w_i u_i v_i^H
        return jnp.sum(jnp.abs(p) ** 2) + jnp.sum(jnp.sin(s)) + jnp.sum(jnp.abs(u @ _mh(u)) ** 3)
    return f


def _jnp_svd(a):
    return jnp.linalg.svd(a, full_matrices=False)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "%dx%dx%d" % s)
def test_gradients_match_jax(dtype, shape):
    a = _rand(shape, dtype, SEED + 1)
    ours = jax.jit(jax.grad(_gauge_invariant_loss(bj.svd)))(a)
    theirs = jax.jit(jax.grad(_gauge_invariant_loss(_jnp_svd)))(a)
    assert float(jnp.max(jnp.abs(ours - theirs))) <= 1e-10 * max(1.0, float(jnp.max(jnp.abs(theirs)))), \
        "seed %d" % SEED
    v = jax.vmap(jax.grad(_gauge_invariant_loss(bj.svd)))(a[:, None])  # vmap over the batch
    assert float(jnp.max(jnp.abs(v[:, 0] - ours))) <= 1e-12 * max(1.0, float(jnp.max(jnp.abs(ours))))
    gs = jax.grad(lambda x: jnp.sum(bj.svdvals(x) ** 2))(a)
    # d||A||_F^2 = 2A; JAX's gradient of a real function of complex values is the conjugate
    assert float(jnp.max(jnp.abs(gs - 2 * jnp.conj(a)))) <= 1e-12 * float(jnp.max(jnp.abs(a)))


def test_vmap_folds_into_the_batch():
    a = _rand((3, 2, 5, 4), "float64", SEED + 2)
    u, s, vh = jax.vmap(bj.svd)(a)
    u2, s2, vh2 = bj.svd(a)
    assert np.array_equal(np.asarray(s), np.asarray(s2))
    assert np.array_equal(np.asarray(u), np.asarray(u2)) and np.array_equal(np.asarray(vh), np.asarray(vh2))


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_degenerate_spectra_give_finite_exact_gradients(dtype):
    rng = np.random.default_rng(SEED + 3)
    q, _ = np.linalg.qr(rng.standard_normal((6, 6)) + (1j * rng.standard_normal((6, 6)) if dtype == "complex128" else 0))
    p, _ = np.linalg.qr(rng.standard_normal((4, 4)) + (1j * rng.standard_normal((4, 4)) if dtype == "complex128" else 0))
    for sv in ([2.0, 1.0, 1.0, 1.0], [3.0, 1.0, 0.0, 0.0]):  # repeated; zero
        a = jnp.asarray((q[:, :4] * np.array(sv)) @ p.conj().T)
        g = jax.grad(lambda x: jnp.sum(bj.svdvals(x) ** 3))(a)
        u, s, vh = bj.svd(a)
        expect = jnp.conj(u @ (3 * s[:, None] ** 2 * vh))  # U diag(3 s^2) Vh, in JAX's convention
        assert bool(jnp.all(jnp.isfinite(g)))
        assert float(jnp.max(jnp.abs(g - expect))) <= 1e-12 * 27
        # A loss of whole subspaces (U diag(f(S)) Vh does not depend on the basis inside a
        # repeated subspace): a finite gradient.
        h = jax.grad(lambda x: jnp.sum(jnp.abs(_gauge_invariant_loss(bj.svd)(x))))(a)
        assert bool(jnp.all(jnp.isfinite(h)))


def test_empty_and_status():
    e = jnp.zeros((0, 3, 2))
    u, s, vh, info = bj.svd(e, return_info=True)
    assert u.shape == (0, 3, 2) and s.shape == (0, 2) and vh.shape == (0, 2, 2) and info.shape == (0,)
    z = jnp.zeros((2, 0, 3))
    assert bj.svdvals(z).shape == (2, 0)
    bad = np.ones((3, 4, 4))
    bad[1, 2, 2] = np.nan
    _, _, _, info = jax.jit(lambda x: bj.svd(x, return_info=True))(jnp.asarray(bad))
    assert np.asarray(info).tolist() == [0, -1, 0]
    with pytest.raises(ValueError):
        bj.svd(jnp.ones(3))
    with pytest.raises(TypeError):
        bj.svd(jnp.ones((2, 2), dtype=jnp.int32))
