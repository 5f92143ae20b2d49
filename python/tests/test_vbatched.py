# SPDX-License-Identifier: BSD-3-Clause
"""batchsvd.svd and svdvals on lists of matrices of different shapes: the results are lists in
the input order, each entry the result of the matrix alone (bitwise on the CPU backend, where
results do not depend on the batch); a NaN matrix's status with return_info; an empty list;
mixed dtypes or frameworks are a TypeError. Fresh random inputs on every run (the seed is
printed on failure; BATCHSVD_TEST_SEED replays it)."""

import os

import numpy as np
import pytest

import batchsvd

SEED = int(os.environ.get("BATCHSVD_TEST_SEED", np.random.SeedSequence().entropy % (2**63)))


def _mix(dtype, count, seed):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        m, n = int(rng.integers(1, 40)), int(rng.integers(1, 40))
        a = rng.standard_normal((m, n))
        if dtype.startswith("complex"):
            a = a + 1j * rng.standard_normal((m, n))
        out.append(a.astype(dtype))
    out.append(np.zeros((0, 3), dtype))  # an empty one
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_list_matches_each_matrix_alone(dtype):
    mats = _mix(dtype, 25, SEED)
    us, ss, vhs = batchsvd.svd(mats)
    assert len(us) == len(ss) == len(vhs) == len(mats)
    vals = batchsvd.svdvals(mats)
    for i, a in enumerate(mats):
        u, s, vh = batchsvd.svd(a)
        assert us[i].shape == u.shape and ss[i].shape == s.shape and vhs[i].shape == vh.shape
        if batchsvd._batchsvd.cuda_available():  # several backends: to rounding
            eps = np.finfo(s.dtype).eps
            assert np.allclose(ss[i], s, rtol=0, atol=60 * eps * max(1.0, float(s.max(initial=0)))), "seed %d" % SEED
        else:
            assert ss[i].tobytes() == s.tobytes() and us[i].tobytes() == u.tobytes(), "seed %d, matrix %d" % (SEED, i)
            assert vals[i].tobytes() == s.tobytes()


def test_status_empty_and_mixed():
    mats = _mix("float64", 6, SEED + 1)
    mats[2] = mats[2].copy()
    mats[2][0, 0] = np.nan
    u, s, vh, info = batchsvd.svd(mats, return_info=True)
    assert [int(x) for x in info] == [0, 0, -1, 0, 0, 0, 0]
    with pytest.raises(np.linalg.LinAlgError):
        batchsvd.svd(mats)
    assert batchsvd.svd([]) == ([], [], [])
    assert batchsvd.svdvals([]) == []
    with pytest.raises(TypeError):
        batchsvd.svd([np.eye(3), np.eye(3, dtype=np.float32)])
    with pytest.raises(ValueError):
        batchsvd.svd([np.eye(3), np.ones(3)])
