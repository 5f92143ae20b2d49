# SPDX-License-Identifier: BSD-3-Clause
"""batchsvd.hsvd and batchsvd.eigh_indefinite on CUDA arrays (PyTorch, CuPy, JAX on a GPU):
results of the input's framework on its device, the HSVD's relations and the eigenpairs'
residuals to the same bounds as on the host, the host call's signatures and status, and the
status codes. Each framework is a case of its own, skipped with the reason where it is not
importable, has no CUDA device, or batchsvd has no CUDA backend. Fresh random inputs on every
run (the seed is printed on failure; BATCHSVD_TEST_SEED replays it)."""
import os

import numpy as np
import pytest

import batchsvd
from cuda_frameworks import FRAMEWORKS, cuda_framework
from svd_measures import UNIT, random_matrices

SEED = int(os.environ.get("BATCHSVD_TEST_SEED", np.random.SeedSequence().entropy % (2**63)))
DTYPES = ["float32", "float64", "complex64", "complex128"]




def _signature(rng, shape):
    j = np.where(rng.random(shape) < 0.5, 1, -1).astype(np.int32)
    j[..., 0], j[..., -1] = 1, -1
    return j


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(FRAMEWORKS))
def test_hsvd_on_cuda_arrays(name, dtype):
    fw = cuda_framework(name)
    rng = np.random.default_rng(SEED)
    u_ = UNIT[dtype]
    # The warp kernel, the fused kernel in shared memory, and past it (float64, complex).
    for m, n in ((9, 9), (40, 36), (130, 125)):
        g = random_matrices(rng, (2, 2, m, n), dtype)
        j = _signature(rng, (2, 2, n))
        out = batchsvd.hsvd(fw.to_device(g), fw.to_device(j), return_info="sweeps")
        u, s, v, jo, info, sweeps = (fw.to_numpy(x) for x in out)
        assert u.dtype == g.dtype and s.dtype == np.dtype(dtype).type(0).real.dtype and jo.dtype == np.int32
        assert u.shape == (2, 2, m, n) and v.shape == (2, 2, n, n) and info.shape == (2, 2)
        assert (info == 0).all() and (sweeps >= 1).all(), "seed %d: %s" % (SEED, info)
        host = batchsvd.hsvd(g, j)
        assert np.array_equal(jo, host[3])
        wide = np.complex256 if dtype.startswith("complex") else np.longdouble
        gd, ud, vd = (x.astype(wide) for x in (g, u, v))
        for b in np.ndindex(2, 2):
            res = np.abs(gd[b] @ vd[b] - ud[b] * s[b]).max() / (np.abs(gd[b]).max() * np.abs(vd[b]).max())
            assert res < 30 * n * u_, "seed %d, %s: residual %g" % (SEED, b, res)
            assert np.abs(ud[b].conj().T @ ud[b] - np.eye(n)).max() < 30 * m * u_, "seed %d" % SEED
            vjv = vd[b].conj().T @ (j[b][:, None] * vd[b])
            norms = np.sqrt((np.abs(vd[b]) ** 2).sum(axis=0))
            assert (np.abs(vjv - np.diag(jo[b])) / np.outer(norms, norms)).max() < 30 * n * u_, "seed %d" % SEED
        # One signature for the batch (a host list), values only.
        s1, jo1 = batchsvd.hsvd(fw.to_device(g), [int(x) for x in j[0, 0]], compute_uv=False)
        assert fw.to_numpy(s1).shape == (2, 2, n) and (fw.to_numpy(jo1) == jo[0, 0]).all()


@pytest.mark.parametrize("name", sorted(FRAMEWORKS))
def test_hsvd_status_on_cuda_arrays(name):
    fw = cuda_framework(name)
    rng = np.random.default_rng(SEED + 1)
    g = rng.standard_normal((4, 6, 4))
    g[1, 2, 0] = np.nan
    g[2, :, 2] = 0
    j = np.array([1, -1, -1, -1], dtype=np.int32)
    u, s, v, jo, info = (fw.to_numpy(x) for x in batchsvd.hsvd(fw.to_device(g), j, return_info=True))
    assert info.tolist()[:3] == [0, -1, -2], info
    assert np.isnan(s[1:3]).all() and np.isnan(u[1:3]).all() and np.isnan(v[1:3]).all()
    with pytest.raises(np.linalg.LinAlgError, match="NaN or Inf"):
        batchsvd.hsvd(fw.to_device(g[1]), j)
    pair = np.repeat(g[0][:, :1], 2, axis=1)  # two equal columns of opposite signs
    assert fw.to_numpy(batchsvd.hsvd(fw.to_device(pair), [1, -1], return_info=True)[-1]).tolist() == -3
    with pytest.raises(ValueError, match=r"\+1 or -1"):
        batchsvd.hsvd(fw.to_device(g), fw.to_device(np.array([1, 0, -1, 1], dtype=np.int32)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(FRAMEWORKS))
def test_eigh_indefinite_on_cuda_arrays(name, dtype):
    fw = cuda_framework(name)
    rng = np.random.default_rng(SEED + 2)
    u_ = UNIT[dtype]
    for n in (12, 40, 70):  # warp, fused, and past the GPU's orders (the CPU through host copies)
        # Q diag(+-(1..2)) Q^H: indefinite, well conditioned
        q, _ = np.linalg.qr(random_matrices(rng, (3, n, n), "complex128" if dtype.startswith("complex") else "float64"))
        lam = rng.uniform(1, 2, (3, 1, n)) * np.where(np.arange(n) % 3, 1, -1)
        a = (q * lam) @ q.conj().transpose(0, 2, 1)
        a = ((a + a.conj().transpose(0, 2, 1)) / 2).astype(dtype)
        w, z, info = (fw.to_numpy(x) for x in batchsvd.eigh_indefinite(fw.to_device(a), return_info=True))
        assert w.shape == (3, n) and z.shape == (3, n, n) and z.dtype == a.dtype and (info == 0).all()
        assert (np.diff(w, axis=-1) >= 0).all()
        wide = np.complex256 if dtype.startswith("complex") else np.longdouble
        ad, zd = a.astype(wide), z.astype(wide)
        for b in range(3):
            scale = np.abs(a[b]).max()
            assert np.abs(ad[b] @ zd[b] - zd[b] * w[b]).max() < 30 * n * u_ * scale, "seed %d" % SEED
            assert np.abs(zd[b].conj().T @ zd[b] - np.eye(n)).max() < 30 * n * u_, "seed %d" % SEED
        wh = batchsvd.eigh_indefinite(a, eigvals_only=True)
        assert np.abs(w - wh).max() <= 1e3 * n * u_ * np.abs(wh).max(), "seed %d" % SEED
        assert np.array_equal(fw.to_numpy(batchsvd.eigh_indefinite(fw.to_device(a), eigvals_only=True)), w)
