# SPDX-License-Identifier: BSD-3-Clause
"""What the Python tests share: the paper's error measures e1-e4 for a batch of SVDs, per
matrix, in double precision against NumPy's LAPACK; the unit roundoff by dtype; random inputs;
how far gebrd's reflectors and bidiagonal are from reconstructing A."""
import numpy as np

UNIT = {"float32": 2.0**-24, "complex64": 2.0**-24, "float64": 2.0**-53, "complex128": 2.0**-53}


def random_matrices(rng, shape, dtype):
    """Standard normal entries of `shape` (real and imaginary parts for complex dtypes)."""
    a = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def error_measures(a, u, s, vh, e4_floor):
    """e1-e4 of each matrix of a (batch, m, n), already in double precision (float64 or
    complex128) like u (batch, m, k), s (batch, k) and vh (batch, k, n); u and vh may be None
    (then e4 alone). e4 = ||S - S_ref|| / (k max(e4_floor, sigma_1))."""
    m, n = a.shape[-2:]
    k = min(m, n)
    tiny = np.finfo(np.float64).tiny
    ref = np.linalg.svd(a, compute_uv=False)
    out = {"e4": np.linalg.norm(s - ref, axis=-1) / (k * np.maximum(e4_floor, ref[..., 0]))}
    if u is not None:
        one = lambda x: np.abs(x).sum(axis=-2).max(axis=-1)  # matrix 1-norm
        out["e1"] = one(a - u @ (s[..., None] * vh)) / (n * np.maximum(one(a), tiny))
        out["e2"] = one(np.eye(k) - np.swapaxes(u.conj(), -1, -2) @ u) / m
        out["e3"] = one(np.eye(k) - vh @ np.swapaxes(vh.conj(), -1, -2)) / n
    return out


def _reflectors(size, k, vecs, taus, off):
    """Product H(0) ... H(k-1) of reflectors I - tau v v^H, v[i + off] = 1, v below from vecs[i]."""
    q = np.eye(size, dtype=np.complex128)
    for i in range(k - 1, -1, -1):
        h = i + off
        if h >= size:
            continue
        v = np.zeros(size, dtype=np.complex128)
        v[h] = 1
        v[h + 1:] = vecs[i][h + 1:]
        q = q - taus[i] * np.outer(v, v.conj() @ q)
    return q


def gebrd_errors(a, ao, d, e, tq, tp):
    """For one m x n matrix a and gebrd's outputs for it (as LAPACK's ?gebrd stores them):
    max |Q B P^H - A| / max |A| and max |Q^H Q - I|, Q and P formed from the reflectors."""
    m, n = a.shape
    k = min(m, n)
    x = np.asarray(ao).astype(np.complex128)
    upper = m >= n
    q = _reflectors(m, k, [x[:, i] for i in range(k)], tq, 0 if upper else 1)
    p = _reflectors(n, k, [x[i, :].conj() for i in range(k)], tp, 1 if upper else 0)
    bd = np.zeros((m, n))
    bd[np.arange(k), np.arange(k)] = d
    if k > 1:
        if upper:
            bd[np.arange(k - 1), np.arange(1, k)] = e
        else:
            bd[np.arange(1, k), np.arange(k - 1)] = e
    err = np.abs(q @ bd @ p.conj().T - a).max() / np.abs(a).max()
    return err, np.abs(q.conj().T @ q - np.eye(m)).max()
