"""batchsvd.hsvd and batchsvd.eigh_indefinite from Python: the HSVD's relations, one-sign
signatures equal to the SVD, the status codes, bad arguments, and eigenvalues of graded
indefinite matrices against numpy.linalg.eigh (fresh random inputs each run: the seed is
printed on failure; BATCHSVD_TEST_SEED replays it)."""
import os

import numpy as np
import pytest

import batchsvd
from svd_measures import UNIT, random_matrices

SEED = int(os.environ.get("BATCHSVD_TEST_SEED", np.random.SeedSequence().entropy % (2**63)))
DTYPES = ["float32", "float64", "complex64", "complex128"]


def _signature(rng, n):
    j = np.where(rng.random(n) < 0.5, 1, -1).astype(np.int32)
    j[0], j[-1] = 1, -1
    return j


@pytest.mark.parametrize("dtype", DTYPES)
def test_hsvd_relations(dtype):
    rng = np.random.default_rng(SEED)
    u_ = UNIT[dtype]
    for m, n in ((9, 9), (20, 7), (6, 2)):
        g = random_matrices(rng, (2, 3, m, n), dtype)
        j = np.stack([_signature(rng, n) for _ in range(6)]).reshape(2, 3, n)
        u, s, v, jo, info, sweeps = batchsvd.hsvd(g, j, return_info="sweeps")
        assert u.shape == (2, 3, m, n) and s.shape == (2, 3, n) and v.shape == (2, 3, n, n)
        assert jo.shape == (2, 3, n) and jo.dtype == np.int32 and (info == 0).all() and (sweeps >= 1).all()
        gd, ud, vd = (x.astype(np.complex256 if dtype.startswith("complex") else np.longdouble)
                      for x in (g, u, v))
        for b in np.ndindex(2, 3):
            npos = int((j[b] == 1).sum())
            assert (jo[b] == np.r_[np.ones(npos), -np.ones(n - npos)]).all(), "seed %d" % SEED
            res = np.abs(gd[b] @ vd[b] - ud[b] * s[b]).max() / (np.abs(gd[b]).max() * np.abs(vd[b]).max())
            assert res < 30 * n * u_, "seed %d, %s: residual %g" % (SEED, b, res)
            assert np.abs(ud[b].conj().T @ ud[b] - np.eye(n)).max() < 30 * m * u_, "seed %d" % SEED
            vjv = vd[b].conj().T @ (j[b][:, None] * vd[b])
            norms = np.sqrt((np.abs(vd[b]) ** 2).sum(axis=0))
            assert (np.abs(vjv - np.diag(jo[b])) / np.outer(norms, norms)).max() < 30 * n * u_, "seed %d" % SEED
            # The eigenvalues of G J G^H are j_out s^2.
            a = g[b].astype(np.complex128) @ np.diag(j[b]) @ g[b].astype(np.complex128).conj().T
            ev = np.sort(np.linalg.eigvalsh(a))
            lam = np.sort(np.r_[jo[b] * s[b].astype(np.float64) ** 2, np.zeros(m - n)])
            assert np.abs(ev - lam).max() < 1e3 * u_ * np.abs(ev).max(), "seed %d" % SEED
        # One signature shared by the batch, and values only: the same values.
        s2, jo2 = batchsvd.hsvd(g, j[0, 0], compute_uv=False)
        s1 = batchsvd.hsvd(g[0, :1], j[0, 0], compute_uv=False)[0]
        assert np.array_equal(s2[0, 0], s1[0]) and (jo2 == jo2[0, 0]).all()


@pytest.mark.parametrize("dtype", DTYPES)
def test_hsvd_one_sign_is_the_svd(dtype):
    rng = np.random.default_rng(SEED + 1)
    g = random_matrices(rng, (4, 12, 8), dtype)
    u, s, vh = batchsvd.svd(g) if not batchsvd.cuda_available() else (None, None, None)
    for sign in (1, -1):
        uh, sh, vv, jo = batchsvd.hsvd(g, np.full(8, sign))
        assert (jo == sign).all()
        if u is not None:  # the CPU backend's SVD, bit for bit
            assert np.array_equal(sh, s) and np.array_equal(uh, u) and np.array_equal(vv, np.swapaxes(vh, -1, -2).conj())
        else:
            single = dtype in ("float32", "complex64")
            assert np.allclose(sh, np.linalg.svd(g.astype(np.complex128), compute_uv=False),
                               rtol=1e-4 if single else 1e-12)


def test_hsvd_status_and_errors():
    rng = np.random.default_rng(SEED + 2)
    g = rng.standard_normal((4, 6, 4))
    g[1, 2, 0] = np.nan
    g[2, :, 2] = 0
    g[3, :, 1] = g[3, :, 3] = g[3, :, 0]  # j = +1, -1 on the first pair met: no hyperbolic rotation
    j = np.array([1, -1, -1, -1])
    u, s, v, jo, info = batchsvd.hsvd(g, j, return_info=True)
    assert info.tolist() == [0, -1, -2, -3], info
    assert np.isnan(s[1:]).all() and np.isnan(u[1:]).all() and np.isnan(v[1:]).all()
    for bad, what in ((1, "NaN or Inf"), (2, "full column rank"), (3, "no hyperbolic SVD")):
        with pytest.raises(np.linalg.LinAlgError, match=what):
            batchsvd.hsvd(g[bad], j)
    with pytest.raises(np.linalg.LinAlgError, match="did not converge"):
        batchsvd.hsvd(rng.standard_normal((30, 30)), np.tile([1, -1], 15), max_sweeps=1)
    with pytest.raises(ValueError, match="at least as many rows"):
        batchsvd.hsvd(np.ones((2, 3)), [1, -1, 1])
    with pytest.raises(ValueError, match=r"\+1 or -1"):
        batchsvd.hsvd(np.eye(3), [1, 0, -1])
    with pytest.raises(ValueError, match=r"\+1 or -1"):
        batchsvd.hsvd(np.eye(3), [1, -1])
    with pytest.raises(TypeError, match="dtype"):
        batchsvd.hsvd(np.eye(3, dtype=np.int64), [1, -1, 1])
    with pytest.raises(ValueError, match="square"):
        batchsvd.eigh_indefinite(np.ones((3, 4)))
    with pytest.raises(ValueError, match="max_sweeps"):
        batchsvd.eigh_indefinite(np.eye(3), max_sweeps=0)


def _graded(rng, n, dtype):
    q, _ = np.linalg.qr(random_matrices(rng, (n, n), "complex128" if dtype.startswith("complex") else "float64"))
    lam = rng.uniform(1, 2, n) * np.where(np.arange(n) % 2, -1, 1)
    b = (q * lam) @ q.conj().T
    d = 10.0 ** (-5 * rng.permutation(n) / (n - 1))
    a = d[:, None] * b * d[None, :]
    return ((a + a.conj().T) / 2).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_eigh_indefinite(dtype):
    rng = np.random.default_rng(SEED + 3)
    u_ = UNIT[dtype]
    a = np.stack([_graded(rng, 12, dtype) for _ in range(5)])
    w, z, info = batchsvd.eigh_indefinite(a, return_info=True)
    assert (info == 0).all() and w.shape == (5, 12) and z.shape == (5, 12, 12)
    assert (np.diff(w, axis=-1) >= 0).all()
    ad = a.astype(np.complex256 if dtype.startswith("complex") else np.longdouble)
    zd = z.astype(ad.dtype)
    for b in range(5):
        assert np.abs(ad[b] @ zd[b] - zd[b] * w[b]).max() < 30 * 12 * u_ * np.abs(a[b]).max(), "seed %d" % SEED
        assert np.abs(zd[b].conj().T @ zd[b] - np.eye(12)).max() < 30 * 12 * u_, "seed %d" % SEED
    # Against NumPy in double precision: every eigenvalue to its own size (NumPy's small ones
    # are only accurate to u ||A||, which is what this bound allows for them).
    ref = np.linalg.eigvalsh(a.astype(np.complex128))
    assert (np.abs(w - ref) <= 1e3 * u_ * np.abs(ref) + 1e3 * 2.0**-53 * np.abs(ref).max(axis=-1, keepdims=True)).all(), \
        "seed %d" % SEED
    assert np.array_equal(batchsvd.eigh_indefinite(a, eigvals_only=True), w)
    # Only the lower triangle is read: garbage above it changes nothing.
    junk = a.copy()
    iu = np.triu_indices(12, 1)
    junk[:, iu[0], iu[1]] = np.nan
    wj, zj = batchsvd.eigh_indefinite(junk)
    assert np.array_equal(wj, w) and np.array_equal(zj, z)
    # A single matrix, a singular one and the zero matrix.
    w1, z1 = batchsvd.eigh_indefinite(a[0])
    assert np.array_equal(w1, w[0])
    g = random_matrices(rng, (6, 3), dtype)
    sing = g @ np.diag([1, -1, 1]).astype(dtype) @ g.conj().T
    ws, zs = batchsvd.eigh_indefinite(sing)
    assert (np.abs(ws) < 1e3 * u_ * np.abs(ws).max()).sum() == 3 and (ws < 0).sum() >= 1
    assert np.abs(zs.conj().T @ zs - np.eye(6)).max() < 30 * 6 * u_
    w0, z0 = batchsvd.eigh_indefinite(np.zeros((4, 4), dtype))
    assert (w0 == 0).all() and np.allclose(z0.conj().T @ z0, np.eye(4))


def test_torch_cpu_tensors_are_read():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(SEED + 4)
    g = rng.standard_normal((3, 5, 4))
    u, s, v, jo = batchsvd.hsvd(torch.from_numpy(g), torch.tensor([1, -1, 1, -1]))
    u2, s2, v2, jo2 = batchsvd.hsvd(g, [1, -1, 1, -1])
    assert np.array_equal(s, s2) and np.array_equal(u, u2)
    assert isinstance(s, np.ndarray)  # (CUDA tensors: test_hyperbolic_gpu.py)
