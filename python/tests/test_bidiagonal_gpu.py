# SPDX-License-Identifier: BSD-3-Clause
"""batchsvd.gebrd on CUDA arrays (PyTorch, CuPy, JAX on a GPU): results of the input's
framework on its device, Q B P^H reconstructing A to the host call's bounds (shapes in a
block's shared memory, past it, tall, wide, one row or column), the input left as it was, the
NaN status, and empty batches. Each framework is a case of its own, skipped with the reason
where it is not importable, has no CUDA device, or batchsvd has no CUDA backend. Fresh random
inputs on every run (the seed is printed on failure; BATCHSVD_TEST_SEED replays it)."""
import os

import numpy as np
import pytest

import batchsvd
from cuda_frameworks import FRAMEWORKS, cuda_framework
from svd_measures import UNIT, gebrd_errors, random_matrices

SEED = int(os.environ.get("BATCHSVD_TEST_SEED", np.random.SeedSequence().entropy % (2**63)))
DTYPES = ["float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("name", sorted(FRAMEWORKS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_gebrd_on_device(name, dtype):
    fw = cuda_framework(name)
    rng = np.random.default_rng(SEED)
    for m, n in ((9, 6), (6, 9), (24, 20), (40, 33), (1, 4), (4, 1), (200, 170)):
        a = random_matrices(rng, (2, 2, m, n), dtype)
        da = fw.to_device(a)
        ao, d, e, tq, tp = (fw.to_numpy(x) for x in batchsvd.gebrd(da))
        k = min(m, n)
        assert ao.shape == a.shape and d.shape == (2, 2, k) and e.shape == (2, 2, max(k - 1, 0))
        assert tq.shape == tp.shape == (2, 2, k) and d.dtype == np.dtype(dtype).type(0).real.dtype
        assert tq.dtype == np.dtype(dtype)
        assert np.array_equal(fw.to_numpy(da), a), "the input was changed"
        for b in np.ndindex(2, 2):
            err, orth = gebrd_errors(a[b], ao[b], d[b], e[b], tq[b], tp[b])
            assert err < 30 * max(m, n) * UNIT[dtype], "seed %d, %s %s %s: %g" % (SEED, name, (m, n), b, err)
            assert orth < 30 * m * UNIT[dtype], "seed %d, %s %s %s: %g" % (SEED, name, (m, n), b, orth)
        # The bidiagonal's values are A's (e4 as the SVD tests take it).
        ref = np.linalg.svd(a.astype(np.complex128), compute_uv=False)
        for b in np.ndindex(2, 2):
            bd = np.diag(d[b].astype(np.float64)) + (np.diag(e[b].astype(np.float64), 1) if k > 1 else 0)
            s = np.linalg.svd(bd, compute_uv=False)
            e4 = np.linalg.norm(s - ref[b]) / (k * max(1.0, ref[b][0]))
            assert e4 < 30 * UNIT[dtype], "seed %d, %s %s %s: e4 %g" % (SEED, name, (m, n), b, e4)


@pytest.mark.parametrize("name", sorted(FRAMEWORKS))
def test_gebrd_on_device_status_and_empty(name):
    fw = cuda_framework(name)
    a = np.random.default_rng(SEED + 1).standard_normal((3, 5, 4))
    a[1, 2, 2] = np.nan
    with pytest.raises(np.linalg.LinAlgError, match="NaN"):
        batchsvd.gebrd(fw.to_device(a))
    ao, d, e, tq, tp, info = batchsvd.gebrd(fw.to_device(a), return_info=True)
    assert fw.to_numpy(info).tolist() == [0, -1, 0]
    d = fw.to_numpy(d)
    assert np.isnan(d[1]).all() and np.isfinite(d[[0, 2]]).all()
    ao, d, e, tq, tp = batchsvd.gebrd(fw.to_device(np.zeros((0, 3, 3))))
    assert tuple(ao.shape) == (0, 3, 3) and tuple(d.shape) == (0, 3)
    ao, d, e, tq, tp, info = batchsvd.gebrd(fw.to_device(np.zeros((2, 3, 0))), return_info=True)
    assert tuple(ao.shape) == (2, 3, 0) and tuple(d.shape) == (2, 0) and fw.to_numpy(info).tolist() == [0, 0]
