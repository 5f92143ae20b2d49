# SPDX-License-Identifier: BSD-3-Clause
"""batchsvd on Dask arrays: a batch chunked along its batch dimensions, each chunk solved by
``batchsvd.svd`` where Dask runs it (a worker of a ``distributed`` cluster, or the local
scheduler).

    import dask.array as da, batchsvd.dask
    x = da.random.random((1_000_000, 16, 16), chunks=(100_000, 16, 16))
    U, S, Vh = batchsvd.dask.svd(x)          # lazy; U.compute(), or client.compute(...)

U, S and Vh are Dask arrays with x's batch chunks; nothing is computed until asked. Each task
solves one chunk with ``batchsvd.svd``: a NumPy chunk on the worker's GPU when it has one (else
its CPUs), a CuPy chunk (``dask-cuda``) on its GPU. Every matrix's result is what
``batchsvd.svd`` gives it in one process (the chunks do not change it). Needs
``pip install "batchsvd[dask]"`` (``dask[array]`` and ``distributed``).

Chunks must hold whole matrices: an array chunked along its last two dimensions is rechunked
(each matrix gathered into one chunk; a ``dask.array.PerformanceWarning`` says so), which
moves those chunks between workers once.

Errors: ``TypeError`` for an array that is not a Dask array or has an unsupported dtype, and
``ValueError`` for fewer than two dimensions, at the call; a NaN/Inf matrix or a sweep limit
raises ``numpy.linalg.LinAlgError`` when the result is computed (unless ``return_info``, whose
``info`` is then a lazy int32 array of the batch's shape and chunks).
"""

from __future__ import annotations

import operator
import os
import warnings

import numpy as np

try:
    import dask.array as da
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph
except ImportError as e:  # pragma: no cover (the extra is missing)
    raise ImportError('batchsvd.dask needs Dask: pip install "batchsvd[dask]"') from e

__all__ = ["svd", "svdvals"]

# (task names of the outputs, by compute_uv: the status outputs follow)
_OUT_NAMES = {True: ["u", "s", "vh", "info", "sweeps"], False: ["s", "info", "sweeps"]}

_DTYPES = {np.dtype(np.float32): np.float32, np.dtype(np.float64): np.float64,
           np.dtype(np.complex64): np.float32, np.dtype(np.complex128): np.float64}


def _copy_threads(a, threads):
    """threads= for a chunk: as given, else for a NumPy chunk solved on the worker's GPU the
    worker's cores over the node's GPUs (at most 16), the host threads that copy it to and
    from the GPU. (Dask's workers set OMP_NUM_THREADS=1, which would leave one.)"""
    import batchsvd

    if threads is not None or not isinstance(a, np.ndarray) or not batchsvd.cuda_available():
        return threads
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(16, cores // max(1, len(batchsvd.cuda_devices()))))


def _solve_chunk(a, compute_uv, tol, max_sweeps, return_info, threads):
    """One chunk on the worker: the outputs of batchsvd.svd / svdvals, always a tuple."""
    import batchsvd  # (imported on the worker)

    threads = _copy_threads(a, threads)

    if compute_uv:
        out = batchsvd.svd(a, tol=tol, max_sweeps=max_sweeps, return_info=return_info, threads=threads)
    else:
        out = batchsvd.svdvals(a, tol=tol, max_sweeps=max_sweeps, return_info=return_info, threads=threads)
    return out if isinstance(out, tuple) else (out,)


def _meta_like(x, ndim, dtype):
    """An empty array of x's chunk type (NumPy or CuPy) for Dask's metadata."""
    meta = getattr(x, "_meta", None)
    if meta is not None and type(meta).__module__.split(".")[0] == "cupy":
        import cupy  # noqa: PLC0415 (only for CuPy-backed arrays)

        return cupy.empty((0,) * ndim, dtype=dtype)
    return np.empty((0,) * ndim, dtype=dtype)


def _solve(x, compute_uv, tol, max_sweeps, return_info, threads):
    if not isinstance(x, da.Array):
        raise TypeError("batchsvd.dask: x must be a dask.array.Array, not %s" % type(x).__name__)
    if x.ndim < 2:
        raise ValueError("batchsvd.dask: x must have at least 2 dimensions (..., m, n)")
    if x.dtype not in _DTYPES:
        raise TypeError("batchsvd.dask: unsupported dtype %s: float32, float64, complex64 and "
                        "complex128 are supported" % x.dtype)
    if return_info not in (False, True, "sweeps"):
        raise ValueError('batchsvd.dask: return_info must be False, True or "sweeps"')
    nd = x.ndim
    if len(x.chunks[-2]) > 1 or len(x.chunks[-1]) > 1:
        warnings.warn("batchsvd.dask: x is chunked along its matrix dimensions; rechunking so that "
                      "each chunk holds whole matrices (moves those chunks once)",
                      da.PerformanceWarning, stacklevel=3)
        x = x.rechunk({nd - 2: -1, nd - 1: -1})
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    real = _DTYPES[x.dtype]
    grid = x.numblocks[:-2]
    # Outputs: each one's shape after the batch dimensions, and its dtype.
    outs = []
    if compute_uv:
        outs += [((m, k), x.dtype), ((k,), real), ((k, n), x.dtype)]
    else:
        outs += [((k,), real)]
    if return_info:
        outs += [((), np.int32)]
    if return_info == "sweeps":
        outs += [((), np.int32)]
    # The graph by hand, as dask.array's own factorizations build theirs: one task a chunk that
    # solves it, and each output's block a getitem of that task's tuple (no per-block arrays
    # joined by dask.array.block, whose extra layers cost a persist of 10^6 matrices in 8
    # chunks about 100 ms on the scheduler).
    token = tokenize(x, compute_uv, tol, max_sweeps, return_info, threads)
    solve_name = "batchsvd-solve-" + token
    blocks = list(np.ndindex(*grid))
    solve_layer = {(solve_name,) + b: (_solve_chunk, (x.name,) + b + (0, 0), compute_uv, tol, max_sweeps,
                                       return_info, threads) for b in blocks}
    solved = HighLevelGraph.from_collections(solve_name, solve_layer, dependencies=[x])
    results = []
    for o, (tail, dt) in enumerate(outs):
        name = "batchsvd-%s-%s" % (_OUT_NAMES[compute_uv][o], token)
        layer = {(name,) + b + (0,) * len(tail): (operator.getitem, (solve_name,) + b, o) for b in blocks}
        graph = HighLevelGraph({**solved.layers, name: layer}, {**solved.dependencies, name: {solve_name}})
        chunks = x.chunks[:-2] + tuple((d,) for d in tail)
        results.append(da.Array(graph, name, chunks, meta=_meta_like(x, len(chunks), dt)))
    return results[0] if len(results) == 1 else tuple(results)


def svd(x, full_matrices=False, compute_uv=True, *, tol=None, max_sweeps=None, return_info=False,
        threads=None):
    """batchsvd.svd for a Dask array of shape (..., m, n): lazy U, S, Vh (Vh = V^H) with x's
    batch chunks; compute_uv=False gives S alone; return_info as batchsvd.svd's (lazy int32
    arrays of the batch's shape). tol, max_sweeps and threads as batchsvd.svd's: each task's
    CPU threads, or on a GPU worker the threads that copy a NumPy chunk to and from the GPU
    (None: the node's cores over its GPUs, at most 16; Dask's workers set OMP_NUM_THREADS=1,
    which would leave one). full_matrices=True is not supported (NotImplementedError)."""
    if full_matrices:
        raise NotImplementedError("batchsvd.dask.svd computes the reduced SVD only (full_matrices=False)")
    return _solve(x, compute_uv, tol, max_sweeps, return_info, threads)


def svdvals(x, *, tol=None, max_sweeps=None, return_info=False, threads=None):
    """The singular values of a Dask array of shape (..., m, n), lazily (see svd)."""
    return _solve(x, False, tol, max_sweeps, return_info, threads)
