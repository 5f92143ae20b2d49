"""The hyperbolic SVD and the eigenvalues of indefinite Hermitian matrices (batchsvd.hsvd,
batchsvd.eigh_indefinite), on the CPU backend.

Inputs are anything ``numpy.asarray`` reads (NumPy arrays, CPU PyTorch tensors, ...); results
are NumPy arrays. CUDA arrays are refused with a TypeError: from Python these functions take
host arrays (the C++ API also runs them on the GPU, from device memory).
"""
from __future__ import annotations

import numpy as np

from . import _batchsvd

_DTYPES = ("float32", "float64", "complex64", "complex128")
_REAL = {"float32": "float32", "float64": "float64", "complex64": "float32", "complex128": "float64"}


def _host_array(x, name, fn):
    if hasattr(x, "is_cuda") and getattr(x, "is_cuda"):
        raise TypeError("batchsvd.%s: %s is a CUDA tensor; this function runs on the CPU backend: "
                        "pass a host array (x.cpu())" % (fn, name))
    if type(x).__module__.split(".")[0] == "cupy":
        raise TypeError("batchsvd.%s: %s is a CuPy array; this function runs on the CPU backend: "
                        "pass a host array (x.get())" % (fn, name))
    arr = np.asarray(x)
    if arr.dtype.name not in _DTYPES:
        raise TypeError("batchsvd.%s: unsupported dtype %s (float32, float64, complex64 and complex128 "
                        "are supported)" % (fn, arr.dtype))
    return arr


def _options(fn, tol, max_sweeps, threads):
    if tol is not None and not (tol > 0):
        raise ValueError("batchsvd.%s: tol must be positive" % fn)
    if max_sweeps is not None and max_sweeps < 1:
        raise ValueError("batchsvd.%s: max_sweeps must be >= 1" % fn)
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, (int, np.integer))
                                or threads < 1):
        raise ValueError("batchsvd.%s: threads must be None or an integer >= 1, got %r" % (fn, threads))
    return (30.0 if tol is None else float(tol), 100 if max_sweeps is None else int(max_sweeps),
            0 if threads is None else int(threads))


def _check(fn, info, mode):
    if mode:
        return
    messages = {-1: "hold NaN or Inf", -2: "are not of full column rank",
                -3: "have no hyperbolic SVD (a pair of columns of opposite signs admits no hyperbolic "
                    "rotation: G J G^H has a lower rank than G)"}
    for code, what in messages.items():
        bad = info == code
        if bad.any():
            raise np.linalg.LinAlgError(
                "batchsvd.%s: %d matrices %s (first at flat batch index %d); pass return_info=True to "
                "get their status instead" % (fn, int(bad.sum()), what, int(np.argmax(bad.ravel()))))
    if (info > 0).any():
        raise np.linalg.LinAlgError(
            "batchsvd.%s: %d matrices did not converge within max_sweeps; pass return_info=True to "
            "accept the best available results" % (fn, int((info > 0).sum())))


def _mode(fn, return_info):
    if isinstance(return_info, str):
        if return_info != "sweeps":
            raise ValueError('batchsvd.%s: return_info must be False, True or "sweeps", got %r'
                             % (fn, return_info))
        return 2
    return 1 if return_info else 0


def hsvd(g, j, *, compute_uv=True, tol=None, max_sweeps=None, return_info=False, threads=None):
    """Hyperbolic SVD of a stack of matrices: ``g @ V = U * S``, with ``U^H U = I``,
    ``V^H diag(j) V = diag(j_out)`` (V is J-unitary), so ``g = U @ diag(S) @ inv(V)`` and
    ``g @ diag(j) @ g^H = U @ diag(j_out * S**2) @ U^H``.

    g: array (..., m, n), m >= n, of full column rank; float32, float64, complex64 or complex128.
    j: the signature, +1 or -1 entries: shape (n,) for every matrix, or (..., n) one per matrix.
    compute_uv: when False, only ``S, j_out`` are returned.
    Returns ``U (..., m, n), S (..., n), V (..., n, n), j_out (..., n)`` (int32): j_out holds every
    +1 first, then every -1, and S is sorted in descending order within each sign. A
    signature of one sign gives the SVD (``batchsvd.svd``'s values, U and V = Vh^H).
    tol, max_sweeps, threads: as ``batchsvd.svd``'s (CPU backend).
    return_info: False (default): a bad status raises numpy.linalg.LinAlgError. True: the
       per-matrix ``info`` (int32, batch-shaped) is returned last: 0 converged, > 0 sweeps run
       without converging (best results returned), -1 NaN/Inf, -2 not of full column rank, -3
       no hyperbolic rotation exists (G J G^H has a lower rank than G); the outputs of a matrix
       with a negative status are NaN. "sweeps": ``info`` and the sweeps each matrix took.
    Runs on the CPU backend (host arrays; CUDA arrays raise TypeError); results are NumPy arrays.
    """
    mode = _mode("hsvd", return_info)
    tolf, sweeps_max, nthreads = _options("hsvd", tol, max_sweeps, threads)
    g = _host_array(g, "g", "hsvd")
    if g.ndim < 2:
        raise ValueError("batchsvd.hsvd: g must have at least 2 dimensions, got shape %s" % (g.shape,))
    m, n = g.shape[-2:]
    if m < n:
        raise ValueError("batchsvd.hsvd: g must have at least as many rows as columns, got %d x %d" % (m, n))
    bshape = g.shape[:-2]
    batch = int(np.prod(bshape, dtype=np.int64))
    jarr = np.asarray(j)
    if jarr.shape[-1:] != (n,) or not np.all((jarr == 1) | (jarr == -1)):
        raise ValueError("batchsvd.hsvd: j must hold n = %d entries of +1 or -1 (shape (n,) or (..., n)), "
                         "got shape %s" % (n, jarr.shape))
    if jarr.ndim == 1:
        jflat, jstride = np.ascontiguousarray(jarr, dtype=np.int32), 0
    else:
        jflat = np.array(np.broadcast_to(jarr, bshape + (n,)), dtype=np.int32).reshape(-1)
        jstride = n
    # Column-major matrices: the C-ordered transpose of each.
    gt = np.ascontiguousarray(np.swapaxes(g.reshape((batch, m, n)), -1, -2))
    rdt = _REAL[g.dtype.name]
    s = np.empty((batch, n), dtype=rdt)
    jout = np.empty((batch, n), dtype=np.int32)
    info = np.empty(batch, dtype=np.int32)
    sweeps = np.empty(batch, dtype=np.int32)
    ut = np.empty((batch, n, m), dtype=g.dtype) if compute_uv else None
    vt = np.empty((batch, n, n), dtype=g.dtype) if compute_uv else None
    _batchsvd.hsvd(gt, jflat, s, jout, ut, vt, info, sweeps, m, n, batch, jstride, tolf, sweeps_max, nthreads)
    info = info.reshape(bshape)
    _check("hsvd", info, mode)
    out = (s.reshape(bshape + (n,)), jout.reshape(bshape + (n,)))
    if compute_uv:
        u = np.swapaxes(ut, -1, -2).reshape(bshape + (m, n))
        v = np.swapaxes(vt, -1, -2).reshape(bshape + (n, n))
        out = (u, out[0], v, out[1])
    if mode >= 1:
        out = out + (info,)
    if mode == 2:
        out = out + (sweeps.reshape(bshape),)
    return out


def eigh_indefinite(a, *, eigvals_only=False, tol=None, max_sweeps=None, return_info=False, threads=None):
    """Eigenvalues (ascending) and eigenvectors of a stack of Hermitian matrices, to high
    relative accuracy for graded indefinite ones: ``a @ Z = Z * W`` like ``numpy.linalg.eigh``,
    by the J-factorisation ``a = G J G^H`` (complete Bunch-Parlett pivoting) and the hyperbolic
    SVD of G (``W = j_out * S**2``, ``Z = U``).

    a: array (..., n, n); its lower triangle is read.
    eigvals_only: when True only W is returned.
    Returns ``W (..., n), Z (..., n, n)`` (or W). A singular a gets zero eigenvalues with
    eigenvectors that complete the others to an orthonormal basis.
    tol, max_sweeps, return_info, threads: as ``hsvd``'s.
    Runs on the CPU backend (host arrays); results are NumPy arrays.
    """
    mode = _mode("eigh_indefinite", return_info)
    tolf, sweeps_max, nthreads = _options("eigh_indefinite", tol, max_sweeps, threads)
    a = _host_array(a, "a", "eigh_indefinite")
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError("batchsvd.eigh_indefinite: a must be a stack of square matrices, got shape %s"
                         % (a.shape,))
    n = a.shape[-1]
    bshape = a.shape[:-2]
    batch = int(np.prod(bshape, dtype=np.int64))
    at = np.ascontiguousarray(np.swapaxes(a.reshape((batch, n, n)), -1, -2))
    w = np.empty((batch, n), dtype=_REAL[a.dtype.name])
    info = np.empty(batch, dtype=np.int32)
    sweeps = np.empty(batch, dtype=np.int32)
    zt = None if eigvals_only else np.empty((batch, n, n), dtype=a.dtype)
    _batchsvd.eigh_indefinite(at, w, zt, info, sweeps, n, batch, tolf, sweeps_max, nthreads)
    info = info.reshape(bshape)
    _check("eigh_indefinite", info, mode)
    out = (w.reshape(bshape + (n,)),)
    if not eigvals_only:
        out = out + (np.swapaxes(zt, -1, -2).reshape(bshape + (n, n)),)
    if mode >= 1:
        out = out + (info,)
    if mode == 2:
        out = out + (sweeps.reshape(bshape),)
    return out[0] if len(out) == 1 else out
