"""The hyperbolic SVD and the eigenvalues of indefinite Hermitian matrices (batchsvd.hsvd,
batchsvd.eigh_indefinite).

CUDA arrays (PyTorch tensors on a CUDA device, CuPy arrays, JAX arrays on a GPU) run on their
GPU and give results of their framework on their device; anything else ``numpy.asarray``
reads (NumPy arrays, CPU PyTorch tensors, ...) runs on the CPU backend and gives NumPy arrays.
"""
from __future__ import annotations

import numpy as np

from . import _batchsvd

_DTYPES = ("float32", "float64", "complex64", "complex128")
_REAL = {"float32": "float32", "float64": "float64", "complex64": "float32", "complex128": "float64"}


def _arrays(x, name, fn):
    """The framework hooks (batchsvd's array layer) and the array to read: a CUDA array
    (a PyTorch tensor on a CUDA device, a CuPy array, a JAX array on a GPU) as it is, anything
    else as numpy.asarray reads it."""
    module = type(x).__module__.split(".")[0]
    if module in ("torch", "cupy", "jax", "jaxlib"):
        from . import _framework
        fw, arr, _ = _framework(x)
        if fw.name == "cupy" or fw.name == "jax" or (fw.name == "torch" and arr.is_cuda):
            if fw.dtype_name(arr) not in _DTYPES:
                raise TypeError("batchsvd.%s: unsupported dtype %s (float32, float64, complex64 and complex128 "
                                "are supported)" % (fn, fw.dtype_name(arr)))
            return fw, arr
    from . import _NumPy
    arr = np.asarray(x)
    if arr.dtype.name not in _DTYPES:
        raise TypeError("batchsvd.%s: unsupported dtype %s (float32, float64, complex64 and complex128 "
                        "are supported)" % (fn, arr.dtype))
    return _NumPy(arr), arr


def _to_numpy(x):
    """A signature, wherever it lives, as a NumPy array (it is checked on the host)."""
    module = type(x).__module__.split(".")[0]
    if module == "torch":
        return x.detach().cpu().numpy()
    if module == "cupy":
        import cupy
        return cupy.asnumpy(x)
    return np.asarray(x)


def _upload(fw, host, like):
    """A NumPy array as an array of like's framework on its device (NumPy: itself)."""
    if fw.name == "torch":
        return fw.torch.as_tensor(host, device=like.device)
    if fw.name == "cupy":
        with like.device:
            return fw.cupy.asarray(host)
    if fw.name == "jax":
        return fw.prepare(fw.jax.device_put(host, fw.dev))
    return host


def _column_major(fw, x, batch, rows, cols):
    """The (batch, cols, rows) C-ordered transpose of x (..., rows, cols): column-major
    matrices as the library reads them."""
    return fw.prepare(fw.contiguous(fw.transpose_last(x.reshape((batch, rows, cols)))))


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
    tol, max_sweeps, threads: as ``batchsvd.svd``'s (threads: the CPU backend's).
    return_info: False (default): a bad status raises numpy.linalg.LinAlgError. True: the
       per-matrix ``info`` (int32, batch-shaped) is returned last: 0 converged, > 0 sweeps run
       without converging (best results returned), -1 NaN/Inf, -2 not of full column rank, -3
       no hyperbolic rotation exists (G J G^H has a lower rank than G); the outputs of a matrix
       with a negative status are NaN. "sweeps": ``info`` and the sweeps each matrix took.
    Where it runs: CUDA arrays (PyTorch, CuPy, JAX on a GPU) on their GPU, on the framework's
    current stream, with results of the same framework on the same device (the call waits
    for the GPU: it checks the signature and the status on the host); anything else on the
    CPU backend, with NumPy results.
    """
    mode = _mode("hsvd", return_info)
    tolf, sweeps_max, nthreads = _options("hsvd", tol, max_sweeps, threads)
    fw, g = _arrays(g, "g", "hsvd")
    if g.ndim < 2:
        raise ValueError("batchsvd.hsvd: g must have at least 2 dimensions, got shape %s" % (tuple(g.shape),))
    m, n = g.shape[-2:]
    if m < n:
        raise ValueError("batchsvd.hsvd: g must have at least as many rows as columns, got %d x %d" % (m, n))
    bshape = tuple(g.shape[:-2])
    batch = int(np.prod(bshape, dtype=np.int64))
    jarr = _to_numpy(j)
    if jarr.shape[-1:] != (n,) or not np.all((jarr == 1) | (jarr == -1)):
        raise ValueError("batchsvd.hsvd: j must hold n = %d entries of +1 or -1 (shape (n,) or (..., n)), "
                         "got shape %s" % (n, jarr.shape))
    if jarr.ndim == 1:
        jflat, jstride = np.ascontiguousarray(jarr, dtype=np.int32), 0
    else:
        jflat = np.array(np.broadcast_to(jarr, bshape + (n,)), dtype=np.int32).reshape(-1)
        jstride = n
    dtype = fw.dtype_name(g)
    gt = _column_major(fw, g, batch, m, n)
    with fw.device_context(g):
        jdev = _upload(fw, jflat, g)
        s = fw.empty((batch, n), _REAL[dtype], g)
        jout = fw.empty((batch, n), "int32", g)
        info = fw.empty((max(batch, 1),), "int32", g)
        sweeps = fw.empty((max(batch, 1),), "int32", g)
        ut = fw.empty((batch, n, m), dtype, g) if compute_uv else None
        vt = fw.empty((batch, n, n), dtype, g) if compute_uv else None
        if batch * n > 0:
            _batchsvd.hsvd(gt, jdev, s, jout, ut, vt, info, sweeps, m, n, batch, jstride, tolf, sweeps_max,
                           nthreads, fw.stream(g))
        else:  # nothing to decompose: every matrix "converged"
            info, sweeps = fw.zero_info(info), fw.zero_info(sweeps)
        fw.after_solve()
    s, jout, info, sweeps = (fw.wrap(x) for x in (s, jout, info, sweeps))
    _check("hsvd", fw.to_host_int(info)[:batch].reshape(bshape), mode)
    out = (s.reshape(bshape + (n,)), jout.reshape(bshape + (n,)))
    if compute_uv:
        u = fw.transpose_last(fw.wrap(ut)).reshape(bshape + (m, n))
        v = fw.transpose_last(fw.wrap(vt)).reshape(bshape + (n, n))
        out = (u, out[0], v, out[1])
    if mode >= 1:
        out = out + (info[:batch].reshape(bshape),)
    if mode == 2:
        out = out + (sweeps[:batch].reshape(bshape),)
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
    tol, max_sweeps, return_info, threads: as ``hsvd``'s; where it runs also (CUDA arrays on
    their GPU, the rest on the CPU backend).
    """
    mode = _mode("eigh_indefinite", return_info)
    tolf, sweeps_max, nthreads = _options("eigh_indefinite", tol, max_sweeps, threads)
    fw, a = _arrays(a, "a", "eigh_indefinite")
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError("batchsvd.eigh_indefinite: a must be a stack of square matrices, got shape %s"
                         % (tuple(a.shape),))
    n = a.shape[-1]
    bshape = tuple(a.shape[:-2])
    batch = int(np.prod(bshape, dtype=np.int64))
    dtype = fw.dtype_name(a)
    at = _column_major(fw, a, batch, n, n)
    with fw.device_context(a):
        w = fw.empty((batch, n), _REAL[dtype], a)
        info = fw.empty((max(batch, 1),), "int32", a)
        sweeps = fw.empty((max(batch, 1),), "int32", a)
        zt = None if eigvals_only else fw.empty((batch, n, n), dtype, a)
        if batch * n > 0:
            _batchsvd.eigh_indefinite(at, w, zt, info, sweeps, n, batch, tolf, sweeps_max, nthreads, fw.stream(a))
        else:
            info, sweeps = fw.zero_info(info), fw.zero_info(sweeps)
        fw.after_solve()
    w, info, sweeps = (fw.wrap(x) for x in (w, info, sweeps))
    _check("eigh_indefinite", fw.to_host_int(info)[:batch].reshape(bshape), mode)
    out = (w.reshape(bshape + (n,)),)
    if not eigvals_only:
        out = out + (fw.transpose_last(fw.wrap(zt)).reshape(bshape + (n, n)),)
    if mode >= 1:
        out = out + (info[:batch].reshape(bshape),)
    if mode == 2:
        out = out + (sweeps[:batch].reshape(bshape),)
    return out[0] if len(out) == 1 else out
