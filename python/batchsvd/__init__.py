# SPDX-License-Identifier: BSD-3-Clause
"""batchsvd: batched singular value decompositions (one-sided Jacobi) on GPUs and CPUs.

    U, S, Vh = batchsvd.svd(a)        # a: (..., m, n) NumPy, PyTorch, CuPy or JAX array
    S = batchsvd.svdvals(a)
    U, S, Vh, info, sweeps = batchsvd.svd(a, return_info="sweeps")
    Us, Ss, Vhs = batchsvd.svd([a0, a1, a2])   # 2-D arrays of different shapes: lists, one call

Results follow ``numpy.linalg.svd(a, full_matrices=False)`` / ``torch.linalg.svd``:
``a[..., :, :] = U @ (S[..., None] * Vh)`` with S descending. They are arrays of the
input's type on the input's device. The input is read in place, without a copy, when each
matrix is stored row-major or column-major with unit stride and the batch dimensions
collapse to one stride (no negative stride, no overlapping matrices, native byte order,
aligned); otherwise a contiguous copy is made first.

Errors: ``ValueError`` for bad arguments, ``TypeError`` for unsupported array types and
dtypes (and lists mixing frameworks or dtypes), ``numpy.linalg.LinAlgError`` for NaN/Inf input
or a sweep limit reached (unless ``return_info`` is True or "sweeps"), ``OutOfMemoryError`` (a
``MemoryError``) when device memory for the workspace or the staged operands cannot be
allocated, ``DeviceError`` (a ``RuntimeError``) when a CUDA kernel launch, runtime, cuBLAS or
cuSOLVER call fails, and ``RuntimeError`` when a CUDA array is given to a build or machine
without a usable CUDA backend. After an
``OutOfMemoryError`` the library holds no memory of the failed call and the stream stays
usable: the call can be repeated (after freeing memory, or with a smaller batch). So it can
after a ``DeviceError``, unless the CUDA error was one that spoils the process's CUDA context
(an illegal address, say), which the message names.
"""

from __future__ import annotations

import gc
import os

import numpy as np


def _point_at_pip_nccl() -> None:
    """One matrix spread over several GPUs (``devices=`` with a single large matrix) needs NCCL,
    which the library loads when first needed. Where PyPI's ``nvidia-nccl-cu13`` is installed
    (the ``nccl`` extra) and no NCCL is named, name its library (BATCHSVD_NCCL_LIBRARY)."""
    if os.environ.get("BATCHSVD_NCCL_LIBRARY"):
        return
    try:
        import nvidia.nccl  # noqa: PLC0415 (optional)
    except ImportError:
        return
    for folder in getattr(nvidia.nccl, "__path__", []):
        lib = os.path.join(folder, "lib", "libnccl.so.2")
        if os.path.exists(lib):
            os.environ["BATCHSVD_NCCL_LIBRARY"] = lib
            return


_point_at_pip_nccl()

from . import _batchsvd  # noqa: E402

from .hyperbolic import eigh_indefinite, hsvd  # noqa: E402

__all__ = ["svd", "svdvals", "gebrd", "hsvd", "eigh_indefinite", "cuda_available", "cuda_devices",
           "release_cached_memory", "cached_memory_bytes", "OutOfMemoryError", "DeviceError", "__version__"]
__version__ = _batchsvd.version()

#: Device memory could not be allocated (a subclass of MemoryError).
OutOfMemoryError = _batchsvd.OutOfMemoryError
#: A CUDA kernel launch, runtime, cuBLAS or cuSOLVER call failed (a subclass of RuntimeError).
DeviceError = _batchsvd.DeviceError

_DTYPES = ("float32", "float64", "complex64", "complex128")


def cuda_available() -> bool:
    """True when batchsvd was built with CUDA and a CUDA device is usable."""
    return _batchsvd.cuda_available()


def cuda_devices() -> list:
    """Every visible CUDA device's index, ``[0, 1, ...]``; empty without a usable CUDA backend."""
    return list(_batchsvd.cuda_devices())


def release_cached_memory() -> None:
    """Give back to the driver the device memory batchsvd keeps between calls.

    The CUDA backend keeps the memory its calls freed (workspaces, staging of host arrays) in
    a pool of its own on each device, at most the largest call's, so that the next call does not
    map it again. Call this when another library (PyTorch, CuPy, JAX) needs that memory; the
    environment variable ``BATCHSVD_CUDA_KEEP_WORKSPACE=0`` keeps none. Waits for every device
    batchsvd used. Without CUDA it does nothing.
    """
    _batchsvd.release_cached_memory()


def cached_memory_bytes(device: int = 0) -> int:
    """Bytes of device memory batchsvd's pool holds on CUDA device ``device`` (in use by a call
    or kept for the next); 0 where batchsvd has not allocated there, or without CUDA."""
    return int(_batchsvd.cached_memory_bytes(int(device)))


def _device_list(devices):
    """``devices=`` as the library takes it: None -> [] (the array's device, or the current
    one), "all" -> every visible device, else a sequence of device indices."""
    if devices is None:
        return []
    if isinstance(devices, str):
        if devices != "all":
            raise ValueError('batchsvd.svd: devices must be None, "all" or a sequence of CUDA '
                             'device indices, got %r' % devices)
        found = cuda_devices()
        if not found:
            raise RuntimeError('batchsvd.svd: devices="all", but no CUDA device is usable')
        return found
    try:
        out = [int(d) for d in devices]
    except TypeError:
        raise ValueError("batchsvd.svd: devices must be None, \"all\" or a sequence of CUDA device "
                         "indices, got %r" % (devices,)) from None
    if not out:
        raise ValueError("batchsvd.svd: devices is empty")
    return out


# ---- array frameworks -----------------------------------------------------------------------

class _Hooks:
    """What a framework does around the solve, by default nothing: prepare the input, finish
    the solve, turn the outputs into the framework's arrays, zero the status of an empty
    problem, and the last step of each returned array."""

    def prepare(self, a):
        return a

    def after_solve(self):
        pass

    def wrap(self, x):
        return x

    def zero_info(self, info):
        info[...] = 0
        return info

    def finish(self, x):
        return x

    def readable(self, a):
        """Whether the extension can take the array's memory as it is (else it is copied)."""
        return True

    def device_key(self, a):
        """Where the array lives, comparable between arrays of one framework."""
        return "cpu"

    def unstack(self, buf, offset, count, shape, transpose):
        """`count` arrays of `shape` (C order) packed one after the other in the flat `buf`
        from `offset` on, each transposed in its last two axes when `transpose`: views of
        `buf` where the framework has views."""
        size = 1
        for x in shape:
            size *= x
        x = buf[offset:offset + count * size].reshape((count,) + shape)
        return list(self.transpose_last(x) if transpose else x)


class _NumPy(_Hooks):
    name = "numpy"

    def __init__(self, a):
        self.xp = np

    def dtype_name(self, a):
        return np.dtype(a.dtype).name

    def strides(self, a):  # in elements
        return tuple(s // a.itemsize for s in a.strides)

    def readable(self, a):
        # Native byte order, aligned, strides of whole elements.
        return (a.dtype.isnative and getattr(a.flags, "aligned", True)
                and all(s % a.itemsize == 0 for s in a.strides))

    def contiguous(self, a):
        # A new array: ascontiguousarray returns a C-contiguous array as it is, negative strides
        # on axes of length 1 included.
        return np.array(a, dtype=a.dtype.newbyteorder("="), order="C")

    def empty(self, shape, dtype_name, like):
        return np.empty(shape, dtype=dtype_name)

    def conj(self, x):
        return np.conjugate(x, out=x)

    def transpose_last(self, x):
        return np.swapaxes(x, -1, -2)

    def stream(self, a):
        return 0

    def device_context(self, a):
        return _NoContext()

    def to_host_int(self, x):
        return np.asarray(x)


class _Torch(_Hooks):
    name = "torch"

    def __init__(self, a):
        import torch
        self.torch = torch

    def dtype_name(self, a):
        return str(a.dtype).replace("torch.", "")

    def strides(self, a):
        return tuple(a.stride())

    def readable(self, a):
        # A lazily conjugated or negated view (conj(), a complex view's .imag) holds other
        # values than its memory: it is resolved by a copy.
        return not (a.is_conj() or a.is_neg())

    def contiguous(self, a):
        return a.resolve_conj().resolve_neg().contiguous()

    def empty(self, shape, dtype_name, like):
        return self.torch.empty(shape, dtype=getattr(self.torch, dtype_name), device=like.device)

    def conj(self, x):
        return x.conj_physical_()

    def transpose_last(self, x):
        return x.transpose(-1, -2)

    def stream(self, a):
        if a.device.type == "cuda":
            return self.torch.cuda.current_stream(a.device).cuda_stream
        return 0

    def device_context(self, a):
        if a.device.type == "cuda":
            return self.torch.cuda.device(a.device)
        return _NoContext()

    def to_host_int(self, x):
        return x.cpu().numpy()

    def zero_info(self, info):
        info.zero_()
        return info

    def device_key(self, a):
        return str(a.device)

    def unstack(self, buf, offset, count, shape, transpose):
        if count == 1:  # one view in one step
            offset += buf.storage_offset()
            if len(shape) == 2:
                k, m = shape
                if transpose:
                    return [buf.as_strided((m, k), (1, m), offset)]
                return [buf.as_strided(shape, (m, 1), offset)]
            return [buf.as_strided(shape, (1,) * len(shape), offset)]
        size = 1
        for x in shape:
            size *= x
        x = buf[offset:offset + count * size].view((count,) + shape)
        return list((x.transpose(-1, -2) if transpose else x).unbind(0))


class _CuPy(_NumPy):
    """CuPy arrays: NumPy's dtype and stride conventions, CuPy's allocation and stream."""
    name = "cupy"

    def __init__(self, a):
        import cupy
        self.cupy = cupy

    def contiguous(self, a):
        return self.cupy.array(a, order="C")

    def empty(self, shape, dtype_name, like):
        with like.device:
            return self.cupy.empty(shape, dtype=dtype_name)

    def conj(self, x):
        return self.cupy.conjugate(x, out=x)

    def transpose_last(self, x):
        return self.cupy.swapaxes(x, -1, -2)

    def stream(self, a):
        return self.cupy.cuda.get_current_stream().ptr

    def device_context(self, a):
        return a.device

    def to_host_int(self, x):
        return self.cupy.asnumpy(x)

    def device_key(self, a):
        return "cuda:%d" % a.device.id


class _Jax(_Hooks):
    """JAX arrays on a GPU. JAX arrays are immutable and JAX exposes no stream, so: the input
    is read in place through DLPack once `block_until_ready()` says it is computed; the
    results go to device memory the extension allocates (`cuda_empty`) on the array's device,
    the solve runs on the legacy default stream, which is synchronised before the results
    become JAX arrays through `jax.dlpack.from_dlpack`. Nothing passes through the host."""
    name = "jax"

    def __init__(self, a):
        import jax
        import jax.numpy as jnp
        self.jax, self.jnp = jax, jnp
        (self.dev,) = a.devices()
        self.device = int(getattr(self.dev, "local_hardware_id", self.dev.id))

    def dtype_name(self, a):
        return np.dtype(a.dtype).name

    def strides(self, a):  # JAX arrays are dense and row-major
        out, acc = [], 1
        for size in reversed(a.shape):
            out.append(acc)
            acc *= max(size, 1)
        return tuple(reversed(out))

    def contiguous(self, a):
        return a

    def empty(self, shape, dtype_name, like):
        if int(np.prod(shape, dtype=np.int64)) == 0:  # nothing to write: a JAX array already
            return self._zeros(tuple(shape), dtype_name)
        return _batchsvd.cuda_empty(list(shape), dtype_name, self.device)

    def conj(self, x):
        return self.jnp.conj(x)

    def transpose_last(self, x):
        return self.jnp.swapaxes(x, -1, -2)

    def stream(self, a):
        return 0  # the legacy default stream, synchronised in after_solve

    def device_context(self, a):
        return _CudaDevice(self.device)

    def prepare(self, a):
        a.block_until_ready()
        return a

    def after_solve(self):
        _batchsvd.cuda_synchronize(0)

    def wrap(self, x):
        return x if isinstance(x, self.jax.Array) else self.jax.dlpack.from_dlpack(x)

    def _zeros(self, shape, dtype):
        return self.jax.device_put(self.jnp.zeros(shape, dtype=np.dtype(dtype)), self.dev)

    def zero_info(self, info):
        # (info may be the extension's device buffer, which has no shape: wrapped first)
        return self._zeros(tuple(self.wrap(info).shape), np.int32)

    def to_host_int(self, x):
        return np.asarray(x)

    def device_key(self, a):
        (dev,) = a.devices()
        return "cuda:%d" % int(getattr(dev, "local_hardware_id", dev.id))


class _CudaDevice:
    """Makes a CUDA device current for the extension's calls, and restores the previous one."""

    def __init__(self, device):
        self.device = device

    def __enter__(self):
        self.previous = _batchsvd.cuda_set_device(self.device)
        return self

    def __exit__(self, *exc):
        _batchsvd.cuda_set_device(self.previous)
        return False


class _gc_paused:
    """Python's cyclic garbage collector paused while a list call makes its results, restored
    as it was on exit. The results are views without reference cycles, one a matrix and
    output: made with the collector running, tens of thousands of them set off dozens of
    young-generation collections that move them, still alive, towards the oldest generation,
    whose full collections (tens of ms with PyTorch loaded) then follow every call or two.
    Paused, they are examined once, after the call, and go before they are promoted where the
    caller drops them."""

    def __enter__(self):
        self._was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc):
        if self._was:
            gc.enable()
        return False


class _NoContext:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _framework(a):
    module = type(a).__module__.split(".")[0]
    if isinstance(a, np.ndarray):
        return _NumPy(a), a, None
    if module == "torch":
        return _Torch(a), a, None
    if module == "cupy":
        return _CuPy(a), a, None
    if module in ("jax", "jaxlib"):
        platforms = {d.platform for d in a.devices()}
        if platforms == {"cpu"}:
            import jax.numpy as jnp
            return _NumPy(a), np.asarray(a), jnp.asarray
        if platforms == {"gpu"} or platforms == {"cuda"}:
            if len(a.devices()) != 1:
                raise NotImplementedError("batchsvd.svd: JAX arrays sharded over several devices "
                                          "are not supported; pass one device's array")
            if not hasattr(_batchsvd, "cuda_empty"):
                raise ValueError("batchsvd.svd: this batchsvd was built without the CUDA backend, "
                                 "so it cannot take JAX arrays on a GPU")
            return _Jax(a), a, None
        raise ValueError("batchsvd.svd: JAX arrays on %s are not supported (CPU and CUDA GPUs are)"
                         % ", ".join(sorted(platforms)))
    raise TypeError("batchsvd.svd: expected a NumPy, PyTorch, CuPy or JAX array, got %s"
                    % type(a).__name__)


# ---- layout ------------------------------------------------------------------------------

def _batch_stride(shape, strides):
    """One stride for all batch dimensions (elements), or None when they do not collapse."""
    if len(shape) == 0:
        return 0
    step = None
    expected = None
    for size, stride in zip(reversed(shape), reversed(strides)):
        if size == 1:
            continue
        if step is None:
            step, expected = stride, stride * size
        elif stride != expected:
            return None
        else:
            expected = stride * size
    return step if step is not None else 0


def _layout(shape, strides):
    """('C' or 'F', leading dimension, batch stride) when the input can be read in place: no
    negative stride (on any axis: the extension checks axes of length 1 too) and matrices of
    the batch that do not overlap (a broadcast batch axis has stride 0)."""
    m, n = shape[-2], shape[-1]
    sm, sn = strides[-2], strides[-1]
    bstride = _batch_stride(shape[:-2], strides[:-2])
    if bstride is None or any(s < 0 for s in strides):
        return None
    if (sn == 1 or n == 1) and sm >= n:  # row-major: column-major A^T, ld = row stride
        order, ld, rows, cols = "C", max(sm, 1, n), n, m
    elif (sm == 1 or m == 1) and sn >= m:  # column-major A, ld = column stride
        order, ld, rows, cols = "F", max(sn, 1, m), m, n
    else:
        return None
    if int(np.prod(shape[:-2], dtype=np.int64)) > 1 and bstride < ld * (cols - 1) + rows:
        return None
    return order, ld, bstride


def _info_mode(return_info):
    """return_info as a count of status outputs: 0 (raise on a bad status), 1 (info), 2 (info
    and sweeps)."""
    if isinstance(return_info, str):
        if return_info != "sweeps":
            raise ValueError('batchsvd.svd: return_info must be False, True or "sweeps", got %r'
                             % return_info)
        return 2
    return 1 if return_info else 0


def _check_options(tol, max_sweeps, threads=None):
    if tol is not None and not (tol > 0):
        raise ValueError("batchsvd.svd: tol must be positive")
    if max_sweeps is not None and max_sweeps < 1:
        raise ValueError("batchsvd.svd: max_sweeps must be >= 1")
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, (int, np.integer))
                                or threads < 1):
        raise ValueError("batchsvd.svd: threads must be None or an integer >= 1, got %r" % (threads,))


def _check_status(status, where):
    """Raises LinAlgError for a bad per-matrix status (host int array); `where` names the
    index ("flat batch index", "list index")."""
    if (status < 0).any():
        raise np.linalg.LinAlgError(
            "batchsvd.svd: %d matrices hold NaN or Inf (first at %s %d); "
            "pass return_info=True to get their status instead"
            % (int((status < 0).sum()), where, int(np.argmax(status < 0))))
    if (status > 0).any():
        raise np.linalg.LinAlgError(
            "batchsvd.svd: %d matrices did not converge within max_sweeps; pass "
            "return_info=True to accept the best available results"
            % int((status > 0).sum()))


_REAL = {"float32": "float32", "float64": "float64", "complex64": "float32",
         "complex128": "float64"}


_METHODS = {"automatic": 0, "jacobi": 1, "bidiagonal": 2}


def _method_code(method, compute_uv):
    if method not in _METHODS:
        raise ValueError('batchsvd.svdvals: method must be "automatic", "jacobi" or "bidiagonal", got %r'
                         % (method,))
    if compute_uv and method == "bidiagonal":
        raise ValueError('batchsvd.svd: method "bidiagonal" computes singular values only')
    return _METHODS[method]


def _svd(a, compute_uv, tol, max_sweeps, return_info, devices, threads=None, method="automatic"):
    mode = _info_mode(return_info)
    method_code = _method_code(method, compute_uv)
    devices = _device_list(devices)
    fw, arr, back = _framework(a)
    if getattr(arr, "ndim", 0) < 2:
        raise ValueError("batchsvd.svd: expected an array of at least 2 dimensions (..., m, n), "
                         "got shape %s" % (tuple(arr.shape),))
    dtype = fw.dtype_name(arr)
    if dtype not in _DTYPES:
        raise TypeError("batchsvd.svd: unsupported dtype %s; use float32, float64, complex64 or "
                        "complex128" % dtype)
    real = _REAL[dtype]
    complex_ = dtype.startswith("complex")
    shape = tuple(arr.shape)
    batch_shape, m, n = shape[:-2], shape[-2], shape[-1]
    batch = int(np.prod(batch_shape, dtype=np.int64))
    k = min(m, n)
    _check_options(tol, max_sweeps, threads)

    if batch * m * n == 0:
        layout = ("C", max(n, 1), m * n)
    else:
        layout = _layout(shape, fw.strides(arr)) if fw.readable(arr) else None
    if layout is None:
        arr = fw.contiguous(arr)
        layout = _layout(shape, fw.strides(arr))
    order, ld, bstride = layout
    if batch <= 1:
        bstride = max(bstride, m * n)

    arr = fw.prepare(arr)
    with fw.device_context(arr):
        s = fw.empty(batch_shape + (k,), real, arr)
        info = fw.empty((max(batch, 1),), "int32", arr)
        sweeps = fw.empty((max(batch, 1),), "int32", arr) if mode == 2 else None
        # The library sees column-major matrices: A itself (F) or A^T (C). Its U and V are
        # written as (k, rows) row-major buffers, i.e. column-major rows x k.
        rows, cols = (m, n) if order == "F" else (n, m)
        left = fw.empty(batch_shape + (k, rows), dtype, arr) if compute_uv else None
        right = fw.empty(batch_shape + (k, cols), dtype, arr) if compute_uv else None
        if batch * k > 0:
            _batchsvd.gesvd(arr, s, left, right, info, rows, cols, batch, ld, bstride,
                            rows, rows * k, cols, cols * k, k,
                            30.0 if tol is None else float(tol),
                            100 if max_sweeps is None else int(max_sweeps), fw.stream(arr),
                            devices, sweeps, 0 if threads is None else int(threads), method_code)
        else:  # nothing to decompose (k == 0 or an empty batch): every matrix "converged"
            info = fw.zero_info(info)
            sweeps = fw.zero_info(sweeps) if sweeps is not None else None
        fw.after_solve()
    s, info = fw.wrap(s), fw.wrap(info)
    sweeps = fw.wrap(sweeps) if sweeps is not None else None
    left = fw.wrap(left) if left is not None else None
    right = fw.wrap(right) if right is not None else None

    if not mode:
        _check_status(fw.to_host_int(info)[:batch], "flat batch index")

    def per_matrix(x):
        return x[:batch].reshape(batch_shape) if batch > 0 else x[:0].reshape(batch_shape)

    back = back or fw.finish
    status = (back(per_matrix(info)),) if mode else ()
    if mode == 2:
        status += (back(per_matrix(sweeps)),)
    if not compute_uv:
        return (back(s),) + status if mode else back(s)
    if order == "F":
        # A = U' S V'^H: U = U' (left holds U'^T), Vh = conj(V'^T) (right holds V'^T).
        u = fw.transpose_last(left)
        vh = fw.conj(right) if complex_ else right
    else:
        # A^T = U' S V'^H: A = conj(V') S U'^T, so U = conj(V') (right holds V'^T) and
        # Vh = U'^T (left holds U'^T).
        u = fw.transpose_last(fw.conj(right) if complex_ else right)
        vh = left
    return (back(u), back(s), back(vh)) + status


def _list_framework(arrays):
    """The framework of a list's arrays and each array as the extension reads it (2-D, one
    framework, one dtype, one device; else TypeError or ValueError)."""
    first = None
    out = []
    for i, x in enumerate(arrays):
        fw, arr, back = _framework(x)
        if getattr(arr, "ndim", 0) != 2:
            raise ValueError("batchsvd.svd: a list must hold 2-D arrays (m, n); array %d has "
                             "shape %s" % (i, tuple(arr.shape)))
        kind = "jax" if back is not None else fw.name
        dtype = fw.dtype_name(arr)
        device = fw.device_key(arr)
        if first is None:
            if dtype not in _DTYPES:
                raise TypeError("batchsvd.svd: unsupported dtype %s; use float32, float64, "
                                "complex64 or complex128" % dtype)
            first = (fw, back, kind, dtype, device)
        elif kind != first[2]:
            raise TypeError("batchsvd.svd: the arrays of a list must share one framework; array "
                            "%d is a %s array, array 0 a %s array" % (i, kind, first[2]))
        elif dtype != first[3]:
            raise TypeError("batchsvd.svd: the arrays of a list must share one dtype; array %d "
                            "is %s, array 0 %s" % (i, dtype, first[3]))
        elif device != first[4]:
            raise ValueError("batchsvd.svd: the arrays of a list must be on one device; array %d "
                             "is on %s, array 0 on %s" % (i, device, first[4]))
        out.append(arr)
    return first[0], first[1], first[3], out


def _scan_torch(mats, fw):
    """The layout of a list of PyTorch tensors of one type, dtype and device (CPU or CUDA),
    read without DLPack: (pointers, m, n, lda, swap) lists, one entry a matrix, with the
    tensors that must be copied replaced in `mats` by their copies. None when the list is not
    that regular (the general path then reports what differs)."""
    x0 = mats[0]
    kind, dt, dev = type(x0), x0.dtype, x0.device
    if dev.type not in ("cpu", "cuda") or fw.dtype_name(x0) not in _DTYPES:
        return None
    on_cuda, index = dev.type == "cuda", x0.get_device()  # (cheaper than comparing x.device)
    complex_ = dt.is_complex
    ptrs, ms, ns, lds, swap = [], [], [], [], []
    add_p, add_m, add_n, add_ld, add_swap = (ptrs.append, ms.append, ns.append, lds.append,
                                             swap.append)
    try:
        for i, x in enumerate(mats):
            if type(x) is not kind or x.dtype is not dt or (
                    (not x.is_cuda or x.get_device() != index) if on_cuda else not x.is_cpu):
                return None
            shape = x.shape
            if len(shape) != 2:
                return None
            m, n = shape
            sm, sn = x.stride()
            if m == 0 or n == 0:
                add_ld(n if n > 0 else 1)
                add_swap(1)
            elif sm < 0 or sn < 0 or x.is_neg() or (complex_ and x.is_conj()):
                x = mats[i] = fw.contiguous(x)
                add_ld(n)
                add_swap(1)
            elif (sn == 1 or n == 1) and sm >= n:  # row-major: A^T column-major, ld = row stride
                add_ld(sm if sm > 1 else 1)
                add_swap(1)
            elif (sm == 1 or m == 1) and sn >= m:  # column-major A
                add_ld(sn if sn > 1 else 1)
                add_swap(0)
            else:
                x = mats[i] = fw.contiguous(x)
                add_ld(n)
                add_swap(1)
            add_p(x.data_ptr())
            add_m(m)
            add_n(n)
    except Exception:  # sparse tensors and the like: the general path says what is wrong
        return None
    return ptrs, ms, ns, lds, swap


def _scan_strided(mats, fw, cupy):
    """_scan_torch for NumPy arrays (pointers None: the extension reads them through the
    buffer protocol) and CuPy arrays (pointers from their memory)."""
    x0 = mats[0]
    kind, dt = type(x0), x0.dtype
    if fw.dtype_name(x0) not in _DTYPES:
        return None
    native = dt.isnative
    size = dt.itemsize
    dev = x0.data.device_id if cupy else None
    ptrs, ms, ns, lds, swap = [], [], [], [], []
    add_p, add_m, add_n, add_ld, add_swap = (ptrs.append, ms.append, ns.append, lds.append,
                                             swap.append)
    for i, x in enumerate(mats):
        if type(x) is not kind or x.dtype is not dt:
            return None
        if cupy and x.data.device_id != dev:
            return None
        shape = x.shape
        if len(shape) != 2:
            return None
        m, n = shape
        bm, bn = x.strides
        sm, sn = bm // size, bn // size
        if m == 0 or n == 0:
            add_ld(n if n > 0 else 1)
            add_swap(1)
        elif (sm < 0 or sn < 0 or not native or sm * size != bm or sn * size != bn
              or not (cupy or x.flags.aligned)):
            x = mats[i] = fw.contiguous(x)
            add_ld(n)
            add_swap(1)
        elif (sn == 1 or n == 1) and sm >= n:  # row-major: A^T column-major, ld = row stride
            add_ld(sm if sm > 1 else 1)
            add_swap(1)
        elif (sm == 1 or m == 1) and sn >= m:  # column-major A
            add_ld(sn if sn > 1 else 1)
            add_swap(0)
        else:
            x = mats[i] = fw.contiguous(x)
            add_ld(n)
            add_swap(1)
        if cupy:
            add_p(x.data.ptr)
        add_m(m)
        add_n(n)
    return (ptrs if cupy else None), ms, ns, lds, swap


def _scan(mats):
    """The framework of a list and its fast scan (see _scan_torch), or None."""
    x0 = mats[0]
    module = type(x0).__module__.split(".")[0]
    if isinstance(x0, np.ndarray):
        fw = _NumPy(x0)
        found = _scan_strided(mats, fw, False)
    elif module == "torch":
        fw = _Torch(x0)
        found = _scan_torch(mats, fw)
    elif module == "cupy":
        fw = _CuPy(x0)
        found = _scan_strided(mats, fw, True)
    else:
        return None
    return None if found is None else (fw,) + found


def _runs(ms, ns, swap, by_swap):
    """Runs of consecutive matrices of one shape (and one swap when by_swap): (first, end)
    index pairs."""
    if len(ms) == 1:
        return [(0, 1)]
    step = (ms[1:] != ms[:-1]) | (ns[1:] != ns[:-1])
    if by_swap:
        step |= swap[1:] != swap[:-1]
    cuts = (np.flatnonzero(step) + 1).tolist()
    return list(zip([0] + cuts, cuts + [len(ms)]))


def _svd_list(arrays, compute_uv, tol, max_sweeps, return_info, devices, threads=None, method="automatic"):
    """A list of 2-D arrays of different shapes, solved by one gesvd_vbatched call: each array
    read in place where its strides allow (a row-major one as its transpose, as _svd does),
    else copied alone; S, U and Vh each one allocation, returned as views of it per matrix
    (JAX: arrays sliced from it), in the input order. PyTorch, NumPy and CuPy lists of one
    type, dtype and device go to the extension as data pointers; others (JAX, and lists that
    differ somewhere, which the general path reports) as arrays."""
    mode = _info_mode(return_info)
    method_code = _method_code(method, compute_uv)
    arrays = list(arrays)
    _check_options(tol, max_sweeps, threads)
    if devices is not None:
        raise ValueError("batchsvd.svd: devices is not supported for a list of arrays (the list "
                         "is solved on its arrays' device)")
    if not arrays:
        count = (3 if compute_uv else 1) + mode
        return tuple([] for _ in range(count)) if count > 1 else []
    mats = list(arrays)
    scanned = _scan(mats)
    if scanned is not None:
        fw, pointers, ms, ns, lds, swap = scanned
        back = None
        dtype = fw.dtype_name(mats[0])
    else:
        fw, back, dtype, mats = _list_framework(arrays)
        pointers = None
        ms, ns, lds, swap = [], [], [], []
        for i, arr in enumerate(mats):
            m, n = (int(x) for x in arr.shape)
            if m * n == 0:
                layout = ("C", max(n, 1), 0)
            else:
                layout = _layout((m, n), fw.strides(arr)) if fw.readable(arr) else None
                if layout is None:
                    arr = fw.contiguous(arr)
                    layout = _layout((m, n), fw.strides(arr))
            mats[i] = fw.prepare(arr)
            order, ld, _ = layout
            ms.append(m)
            ns.append(n)
            lds.append(ld)
            swap.append(1 if order == "C" else 0)
    complex_ = dtype.startswith("complex")
    batch = len(mats)
    # The library gets A (F) or A^T (C, with its U and V traded: swap).
    ms, ns = np.array(ms, dtype=np.int64), np.array(ns, dtype=np.int64)
    swap, lds = np.array(swap, dtype=np.int64), np.array(lds, dtype=np.int64)
    ks = np.minimum(ms, ns)
    rows = np.where(swap != 0, ns, ms)
    cols = np.where(swap != 0, ms, ns)

    # The outputs are laid out by shape (and swap), so that the matrices of one shape are one
    # run of each buffer, viewed and split in one step; `perm` is that order, `rank` its
    # inverse (the list's order again).
    perm = np.lexsort((swap, ns, ms))
    rank = np.empty(batch, dtype=np.int64)
    rank[perm] = np.arange(batch, dtype=np.int64)

    def offsets(sizes):  # by matrix, each output's start in the shape order
        out = np.zeros(batch + 1, dtype=np.int64)
        np.cumsum(sizes[perm], out=out[1:])
        by_matrix = np.empty(batch, dtype=np.int64)
        by_matrix[perm] = out[:-1]
        return by_matrix, int(out[-1])

    (s_off, ns_), (u_off, nu), (v_off, nv) = offsets(ks), offsets(ms * ks), offsets(ks * ns)

    arr0 = mats[0]
    real = _REAL[dtype]
    tol_ = 30.0 if tol is None else float(tol)
    sweeps_ = 100 if max_sweeps is None else int(max_sweeps)
    with fw.device_context(arr0):
        s = fw.empty((ns_,), real, arr0)
        info = fw.empty((batch,), "int32", arr0)
        sweeps = fw.empty((batch,), "int32", arr0) if mode == 2 else None
        # U: matrix i's U^T (k x m, row-major) at u_off[i]; Vh: its Vh (k x n) at v_off[i]. The
        # library writes them as column-major m x k and n x k: for a matrix given as A, its U
        # and conj(Vh); given as A^T, conj(U) and Vh.
        left = fw.empty((nu,), dtype, arr0) if compute_uv else None
        right = fw.empty((nv,), dtype, arr0) if compute_uv else None
        if ns_ > 0:
            if scanned is not None:
                device = fw.device_key(arr0)
                cuda = device.startswith("cuda")
                _batchsvd.gesvd_vbatched_pointers(
                    mats, None if pointers is None else np.array(pointers, dtype=np.uint64),
                    dtype, cuda, int(device.split(":")[1]) if cuda else 0, rows, cols, lds, s,
                    s_off, left, u_off, right, v_off, swap, info, sweeps, tol_, sweeps_,
                    fw.stream(arr0), 0 if threads is None else int(threads), method_code)
            else:
                _batchsvd.gesvd_vbatched(mats, rows.tolist(), cols.tolist(), lds.tolist(), s,
                                         s_off.tolist(), left, u_off.tolist(), right,
                                         v_off.tolist(), swap.tolist(), info, sweeps, tol_,
                                         sweeps_, fw.stream(arr0), 0 if threads is None else int(threads),
                                         method_code)
        else:  # only empty matrices: every one "converged" in 0 sweeps
            info = fw.zero_info(info)
            sweeps = fw.zero_info(sweeps) if sweeps is not None else None
        fw.after_solve()
        s, info = fw.wrap(s), fw.wrap(info)
        sweeps = fw.wrap(sweeps) if sweeps is not None else None
        left = fw.wrap(left) if left is not None else None
        right = fw.wrap(right) if right is not None else None

        if not mode:
            _check_status(fw.to_host_int(info), "list index")

        with _gc_paused():  # (30000 result views for 10000 matrices: see _gc_paused)
            finish = back or fw.finish
            identity = back is None and type(fw).finish is _Hooks.finish

            def done(xs):
                return list(xs) if identity else [finish(x) for x in xs]

            # Conjugation: one pass over a whole buffer when every matrix needs it there, else
            # one pass a run of matrices (in place on views, except for JAX).
            by_swap = False
            if complex_ and compute_uv:
                if swap.all():
                    left = fw.conj(left)
                elif not swap.any():
                    right = fw.conj(right)
                else:
                    by_swap = True
            # Runs in the shape order (b, e index perm); each output list back in the list's order.
            runs = [(perm[b], e - b) for b, e in _runs(ms[perm], ns[perm], swap[perm], by_swap)]
            order = rank.tolist()

            def in_list_order(xs):
                return done([xs[j] for j in order])

            out_s = []
            for b, count in runs:
                out_s += fw.unstack(s, int(s_off[b]), count, (int(ks[b]),), False)
            out_s = in_list_order(out_s)
            status = ()
            if mode:
                status = (done(fw.unstack(info, 0, batch, (), False)),)
            if mode == 2:
                status += (done(fw.unstack(sweeps, 0, batch, (), False)),)
            if not compute_uv:
                return (out_s,) + status if mode else out_s
            out_u, out_vh = [], []
            for b, count in runs:
                m, n, k = int(ms[b]), int(ns[b]), int(ks[b])
                ub, vb, uo, vo = left, right, int(u_off[b]), int(v_off[b])
                if by_swap:  # matrices given as A^T: conj(U); given as A: conj(Vh)
                    if swap[b]:
                        ub, uo = fw.conj(left[uo:uo + count * m * k]), 0
                    else:
                        vb, vo = fw.conj(right[vo:vo + count * k * n]), 0
                out_u += fw.unstack(ub, uo, count, (k, m), True)
                out_vh += fw.unstack(vb, vo, count, (k, n), False)
            return (in_list_order(out_u), out_s, in_list_order(out_vh)) + status


def svd(a, full_matrices=False, compute_uv=True, *, tol=None, max_sweeps=None,
        return_info=False, devices=None, threads=None):
    """Reduced SVD of a stack of matrices: ``a = U @ (S[..., None] * Vh)``.

    a: array of shape (..., m, n) (float32, float64, complex64 or complex128) from NumPy,
       PyTorch (CPU or CUDA), CuPy, or JAX (on the CPU, or on one CUDA GPU when batchsvd was
       built with CUDA).
    full_matrices: only False is supported (the reduced SVD, U (..., m, k), Vh (..., k, n),
       k = min(m, n)); True raises NotImplementedError.
    compute_uv: when False, only S is returned.
    tol: convergence factor k in |a_i^H a_j| <= k u ||a_i|| ||a_j|| (default 30).
    max_sweeps: sweep limit per matrix (default 100).
    return_info: False (default): a bad status raises LinAlgError (below). True: the
       per-matrix status ``info`` (int32, batch-shaped; 0 converged, > 0 sweeps run without
       converging, -1 NaN/Inf input) is returned last instead. "sweeps": ``info`` and then
       ``sweeps`` are returned last, ``sweeps`` the Jacobi sweeps each matrix took (int32,
       batch-shaped, same array type and device as ``info``): every sweep run, the last one
       (which found nothing to rotate) included, so >= 1 for a non-empty finite matrix; after
       QR pre-processing or preconditioning, those of the iteration that follows; 0 for an
       empty matrix or one with NaN or Inf.
    a may also be a list (or tuple) of 2-D arrays of different shapes, of one framework
       (else TypeError), one dtype (else TypeError) and one device (else ValueError): all are
       solved in one call (``gesvd_vbatched``) and the results are lists (U, S, Vh[, info[,
       sweeps]]) in the same order, each entry what the matrix gives alone. Each array is
       read in place where its strides allow (as for a single array), else copied alone; the
       U's, S's and Vh's are views into one allocation each (for JAX, arrays sliced from
       it). A NaN/Inf matrix does not affect the others. devices must be None.
    devices: CUDA devices that share the batch: a sequence of device indices, or "all"
       (``cuda_devices()``); None (default) uses the array's device (host arrays: the current
       one). The batch is cut into one share per device; each matrix's result is bitwise the
       one device's (on the preconditioned path, to rounding). A CUDA array's other shares are copied to their devices and back, and the
       call returns when they are (the array's own device's share stays on the stream).
    threads: the CPU backend's threads for this call (an integer >= 1); None (default) takes
       OpenMP's default (OMP_NUM_THREADS, else every core). Results do not depend on it. A
       GPU solve of host arrays uses it for the threads that copy them to and from the GPU
       through pinned buffers (None: OpenMP's default, at most 16); else it is ignored.

    CUDA arrays are processed on the array's device: PyTorch and CuPy arrays on the
    framework's current stream, JAX arrays on the default stream, which is synchronised before
    the results are returned. Without return_info, the status is checked on the host, which
    synchronises with that stream. Host arrays are solved on a GPU when one is usable (copied
    to device memory and back), else on the CPU.

    Raises ValueError or TypeError for bad arguments, numpy.linalg.LinAlgError for a bad
    status (above), batchsvd.OutOfMemoryError (a MemoryError) when device memory runs out,
    batchsvd.DeviceError (a RuntimeError) when a CUDA call fails.
    """
    if full_matrices:
        raise NotImplementedError("batchsvd.svd: full_matrices=True is not supported; the "
                                  "reduced SVD (full_matrices=False) is computed")
    if isinstance(a, (list, tuple)):
        return _svd_list(a, compute_uv, tol, max_sweeps, return_info, devices, threads)
    return _svd(a, compute_uv, tol, max_sweeps, return_info, devices, threads)


def svdvals(a, *, tol=None, max_sweeps=None, return_info=False, devices=None, threads=None,
            method="automatic"):
    """Singular values of a stack of matrices, descending: ``svd(a, compute_uv=False)``; of a
    list of matrices of different shapes, a list. return_info: as svd's (True: ``S, info``;
    "sweeps": ``S, info, sweeps``).

    method: "jacobi" runs the Jacobi iteration without vectors (relative accuracy for matrices
       with graded columns); "bidiagonal" bidiagonalises (``gebrd``) and takes the
       bidiagonal's values (errors about u ||A||, as LAPACK's ?gesdd values; ``sweeps`` is 0;
       NumPy arrays and lists on the CPU backend, device arrays on the GPU); "automatic"
       (default) takes "bidiagonal" where it measured faster (CPU: real min(m, n) from 24 in
       double, 32 in single, to 512, complex to 256; GPU: real min(m, n) from 33, near-square,
       while a matrix fits in shared memory; docs/bidiagonal.md), else "jacobi"; in a list
       each matrix takes the method its size gives."""
    if isinstance(a, (list, tuple)):
        return _svd_list(a, False, tol, max_sweeps, return_info, devices, threads, method)
    return _svd(a, False, tol, max_sweeps, return_info, devices, threads, method)


def gebrd(a, *, return_info=False, threads=None):
    """Bidiagonalisation of a stack of matrices with LAPACK's ?gebrd semantics (as SciPy's
    ``scipy.linalg.lapack.dgebrd`` returns them, batched): returns ``(a_out, d, e, tauq, taup)``,
    a_out (..., m, n) holding the bidiagonal and the reflectors as ?gebrd stores them, d
    (..., k), e (..., k - 1), tauq and taup (..., k), k = min(m, n); upper bidiagonal for
    m >= n, lower for m < n; d and e real for complex input. return_info=True appends the
    per-matrix ``info`` (0, or -1 for NaN/Inf: that matrix's outputs are NaN); else NaN/Inf
    raises numpy.linalg.LinAlgError. threads: the CPU backend's.
    Where it runs: CUDA arrays (PyTorch, CuPy, JAX on a GPU) on their GPU, on the framework's
    current stream, with results of the same framework on the same device (the call waits for
    the GPU: it reads the status on the host); anything else on the CPU backend, with NumPy
    results."""
    from .hyperbolic import _arrays, _column_major
    fw, a = _arrays(a, "a", "gebrd")
    if a.ndim < 2:
        raise ValueError("batchsvd.gebrd: a must have at least 2 dimensions, got shape %s" % (tuple(a.shape),))
    _check_options(None, None, threads)
    nthreads = 0 if threads is None else int(threads)
    m, n = a.shape[-2:]
    k = min(m, n)
    bshape = tuple(a.shape[:-2])
    batch = int(np.prod(bshape, dtype=np.int64))
    st = max(k, 1)
    dtype = fw.dtype_name(a)
    real = _REAL[dtype]
    if fw.name == "numpy":
        work = np.ascontiguousarray(np.swapaxes(a.reshape((batch, m, n)), -1, -2)).copy()  # column-major, owned
        d = np.empty((batch, st), dtype=real)
        e = np.empty((batch, st), dtype=real)
        tauq = np.empty((batch, st), dtype=dtype)
        taup = np.empty((batch, st), dtype=dtype)
        info = np.zeros(batch, dtype=np.int32)
        if batch > 0:
            _batchsvd.gebrd(work, d, e, tauq, taup, info, m, n, batch, nthreads)
    else:
        at = _column_major(fw, a, batch, m, n)  # (batch, n, m): column-major matrices
        with fw.device_context(a):
            work = fw.empty((batch, n, m), dtype, a)
            d, e = fw.empty((batch, st), real, a), fw.empty((batch, st), real, a)
            tauq, taup = fw.empty((batch, st), dtype, a), fw.empty((batch, st), dtype, a)
            info = fw.empty((max(batch, 1),), "int32", a)
            if batch * m * n > 0:
                _batchsvd.gebrd(work, d, e, tauq, taup, info, m, n, batch, nthreads, a_in=at, stream=fw.stream(a))
            else:  # nothing to reduce
                info = fw.zero_info(info)
            fw.after_solve()
        work, d, e, tauq, taup, info = (fw.wrap(x) for x in (work, d, e, tauq, taup, info))
        info = info[:batch]
    host_info = fw.to_host_int(info).reshape(bshape)
    info = info.reshape(bshape)
    if not return_info and (host_info < 0).any():
        raise np.linalg.LinAlgError(
            "batchsvd.gebrd: %d matrices hold NaN or Inf (first at flat batch index %d); pass "
            "return_info=True to get their status instead" % (int((host_info < 0).sum()),
                                                              int(np.argmax(host_info.ravel() < 0))))
    out = (fw.transpose_last(work).reshape(bshape + (m, n)), d[:, :k].reshape(bshape + (k,)),
           e[:, :max(k - 1, 0)].reshape(bshape + (max(k - 1, 0),)), tauq[:, :k].reshape(bshape + (k,)),
           taup[:, :k].reshape(bshape + (k,)))
    return out + (info,) if return_info else out
