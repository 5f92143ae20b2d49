"""batchsvd.gebrd and batchsvd.svdvals(method=...) from Python: Q B P^H reconstructs A with
the reflectors as LAPACK's ?gebrd stores them, values by each method against NumPy, bad
arguments (fresh random inputs each run: the seed is printed on failure; BATCHSVD_TEST_SEED
replays it)."""
import os

import numpy as np
import pytest

import batchsvd
from svd_measures import UNIT, gebrd_errors, random_matrices

SEED = int(os.environ.get("BATCHSVD_TEST_SEED", np.random.SeedSequence().entropy % (2**63)))
DTYPES = ["float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_gebrd_reconstructs(dtype):
    rng = np.random.default_rng(SEED)
    for m, n in ((9, 6), (6, 9), (7, 7), (1, 4), (4, 1)):
        a = random_matrices(rng, (2, 3, m, n), dtype)
        ao, d, e, tq, tp = batchsvd.gebrd(a)
        k = min(m, n)
        assert ao.shape == a.shape and d.shape == (2, 3, k) and e.shape == (2, 3, max(k - 1, 0))
        assert tq.shape == tp.shape == (2, 3, k) and d.dtype == np.dtype(dtype).type(0).real.dtype
        for b in np.ndindex(2, 3):
            err, orth = gebrd_errors(a[b], ao[b], d[b], e[b], tq[b], tp[b])
            assert err < 30 * max(m, n) * UNIT[dtype], "seed %d, %s: %g" % (SEED, b, err)
            assert orth < 30 * m * UNIT[dtype]


@pytest.mark.parametrize("dtype", DTYPES)
def test_svdvals_methods(dtype):
    rng = np.random.default_rng(SEED + 1)
    for m, n in ((70, 60), (50, 80), (20, 20)):
        a = random_matrices(rng, (5, m, n), dtype)
        ref = np.linalg.svd(a.astype(np.complex128), compute_uv=False)
        for method in ("automatic", "jacobi", "bidiagonal"):  # (bidiagonal: host arrays on the CPU backend)
            s = batchsvd.svdvals(a, method=method)
            e4 = np.sqrt(((s - ref) ** 2).sum(axis=-1)) / (min(m, n) * np.maximum(1, ref[:, 0]))
            assert (e4 < 30 * UNIT[dtype]).all(), "seed %d, %s %s: %s" % (SEED, method, (m, n), e4)
        s, info, sweeps = batchsvd.svdvals(a, method="bidiagonal", return_info="sweeps")
        assert (info == 0).all() and (sweeps == 0).all()


def test_bidiagonal_errors():
    a = np.random.default_rng(SEED + 2).standard_normal((3, 5, 4))
    a[1, 2, 2] = np.nan
    with pytest.raises(np.linalg.LinAlgError, match="NaN"):
        batchsvd.gebrd(a)
    ao, d, e, tq, tp, info = batchsvd.gebrd(a, return_info=True)
    assert info.tolist() == [0, -1, 0] and np.isnan(d[1]).all() and np.isfinite(d[[0, 2]]).all()
    with pytest.raises(ValueError, match="method"):
        batchsvd.svdvals(a[0], method="qr")
    # A list: each matrix as alone (here every one by the bidiagonal route).
    mats = [a[0], a[2][:3], a[2].T]
    vals = batchsvd.svdvals(mats, method="bidiagonal")
    for x, v in zip(mats, vals):
        assert np.array_equal(v, batchsvd.svdvals(x, method="bidiagonal"))
    with pytest.raises(ValueError, match="at least 2"):
        batchsvd.gebrd(np.ones(3))
    s, info = batchsvd.svdvals(a, method="bidiagonal", return_info=True)
    assert info.tolist() == [0, -1, 0] and np.isnan(s[1]).all()
    ao, d, e, tq, tp = batchsvd.gebrd(np.zeros((0, 3, 3)))
    assert ao.shape == (0, 3, 3) and d.shape == (0, 3)
