# SPDX-License-Identifier: BSD-3-Clause
"""batchsvd.svd against numpy.linalg.svd: the six families of the paper's Table 1 in the four
dtypes and several batch shapes, with the paper's measures e1-e4 below 30u; layouts that are
read in place or copied; errors; and, where a CUDA device and PyTorch, CuPy or JAX exist, the
same on GPU arrays, with stream ordering and checks that inputs are read in place. Fresh random inputs on every run (the seed is printed
on failure)."""

import os

import numpy as np
import pytest

import batchsvd
from cuda_frameworks import jax_gpu
from svd_measures import UNIT, error_measures

SEED = int(os.environ.get("BATCHSVD_TEST_SEED", np.random.SeedSequence().entropy % (2**63)))
FAMILIES = ("random", "arith", "cluster0", "cluster1", "logrand", "geo")
DTYPES = ("float32", "float64", "complex64", "complex128")
KAPPA = {"float32": 1e5, "complex64": 1e5, "float64": 1e10, "complex128": 1e10}


def rng(*salt):
    return np.random.default_rng([SEED, *[hash(s) % (2**32) for s in salt]])


def unitary(g, n, complex_):
    z = g.standard_normal((n, n))
    if complex_:
        z = z + 1j * g.standard_normal((n, n))
    q, r = np.linalg.qr(z)
    return q * (np.diag(r) / np.abs(np.diag(r)))


def family(g, name, m, n, dtype, batch_shape):
    """A batch of m x n matrices of one family (condition KAPPA[dtype])."""
    complex_ = dtype.startswith("complex")
    count = int(np.prod(batch_shape, dtype=np.int64))
    out = np.empty((count, m, n), dtype=np.complex128 if complex_ else np.float64)
    k = min(m, n)
    inv = 1.0 / KAPPA[dtype]
    x = np.arange(k) / max(k - 1, 1)
    for b in range(count):
        if name == "random" or k <= 1:
            a = g.uniform(-1, 1, (m, n))
            if complex_:
                a = a + 1j * g.uniform(-1, 1, (m, n))
            out[b] = a
            continue
        s = {"arith": 1.0 - x * (1.0 - inv),
             "cluster0": np.where(np.arange(k) == 0, 1.0, inv),
             "cluster1": np.where(np.arange(k) == k - 1, inv, 1.0),
             "geo": KAPPA[dtype] ** (-x),
             "logrand": np.sort(np.exp(g.uniform(np.log(inv), 0, k)))[::-1]}[name]
        u = unitary(g, m, complex_)[:, :k]
        v = unitary(g, n, complex_)[:, :k]
        out[b] = (u * s) @ v.conj().T
    return out.reshape(batch_shape + (m, n)).astype(dtype)


def errors(a, u, s, vh):
    """The paper's e1-e4 (e4 scaled by max(1, sigma_1)), worst over the batch, computed in
    double precision against NumPy's LAPACK."""
    hi = np.complex128 if np.iscomplexobj(a) else np.float64
    a, u, s, vh = (np.asarray(x).astype(hi if x is not s else np.float64) for x in (a, u, s, vh))
    assert (np.diff(s, axis=-1) <= 0).all(), "S is not sorted descending"
    return max(float(np.max(e)) for e in error_measures(a, u, s, vh, e4_floor=1.0).values())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", FAMILIES)
@pytest.mark.parametrize("batch_shape", [(), (7,), (2, 3)])
@pytest.mark.parametrize("m,n", [(12, 12), (20, 7), (7, 20), (3, 3), (40, 33)])
def test_families_against_numpy(dtype, name, batch_shape, m, n):
    a = family(rng(dtype, name, batch_shape, m, n), name, m, n, dtype, batch_shape)
    u, s, vh = batchsvd.svd(a)
    assert u.shape == batch_shape + (m, min(m, n)) and u.dtype == a.dtype
    assert s.shape == batch_shape + (min(m, n),) and s.dtype == np.finfo(a.dtype).dtype
    assert vh.shape == batch_shape + (min(m, n), n) and vh.dtype == a.dtype
    err = errors(a, u, s, vh)
    assert err < 30 * UNIT[dtype], "seed %d: worst error %.3g u" % (SEED, err / UNIT[dtype])


def test_issue_example():
    a = np.random.rand(100, 20, 10)
    u, s, vh = batchsvd.svd(a)
    assert abs(u @ (s[..., None] * vh) - a).max() < 1e-13


@pytest.mark.parametrize("dtype", DTYPES)
def test_svdvals_and_compute_uv(dtype):
    a = family(rng("vals", dtype), "geo", 9, 6, dtype, (4,))
    s = batchsvd.svdvals(a)
    s2 = batchsvd.svd(a, compute_uv=False)
    ref = np.linalg.svd(a.astype(np.complex128), compute_uv=False)
    assert np.array_equal(s, s2)
    assert np.abs(s - ref).max() < 30 * UNIT[dtype] * 6


def test_layouts_read_in_place_or_copied():
    g = rng("layout")
    base = g.standard_normal((6, 9, 5))
    # Row-major, column-major (per matrix), batch strides that collapse: read in place.
    assert batchsvd._layout(base.shape, tuple(x // 8 for x in base.strides))[0] == "C"
    f = np.asfortranarray(base[0])
    assert batchsvd._layout(f.shape, tuple(x // 8 for x in f.strides))[0] == "F"
    sliced = base[::2]  # batch stride 2 * 45: still one stride
    assert batchsvd._layout(sliced.shape, tuple(x // 8 for x in sliced.strides)) is not None
    # Every other column: not unit stride inside the matrix, so copied.
    cols = base[:, :, ::2]
    assert batchsvd._layout(cols.shape, tuple(x // 8 for x in cols.strides)) is None
    for a in (base, f, sliced, cols, base[:, ::-1, :], np.swapaxes(base, -1, -2)):
        u, s, vh = batchsvd.svd(a)
        assert abs(u @ (s[..., None] * vh) - a).max() < 1e-13
        assert np.allclose(s, np.linalg.svd(a, compute_uv=False), rtol=0, atol=1e-13)


def test_read_only_input_is_not_modified():
    a = rng("ro").standard_normal((3, 5, 4))
    keep = a.copy()
    a.flags.writeable = False
    batchsvd.svd(a)
    assert np.array_equal(a, keep)


def test_empty_shapes():
    u, s, vh = batchsvd.svd(np.zeros((0, 4, 3)))
    assert u.shape == (0, 4, 3) and s.shape == (0, 3) and vh.shape == (0, 3, 3)
    u, s, vh = batchsvd.svd(np.ones((2, 0, 3)))
    assert u.shape == (2, 0, 0) and s.shape == (2, 0) and vh.shape == (2, 0, 3)


def test_errors_are_clear():
    with pytest.raises(TypeError, match="unsupported dtype int64"):
        batchsvd.svd(np.ones((3, 3), dtype=np.int64))
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        batchsvd.svd(np.ones(5))
    with pytest.raises(TypeError, match="expected a NumPy"):
        batchsvd.svd([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(NotImplementedError, match="full_matrices"):
        batchsvd.svd(np.ones((3, 3)), full_matrices=True)
    with pytest.raises(ValueError, match="tol"):
        batchsvd.svd(np.ones((3, 3)), tol=-1)
    with pytest.raises(ValueError, match="max_sweeps"):
        batchsvd.svd(np.ones((3, 3)), max_sweeps=0)
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="threads"):
            batchsvd.svd(np.ones((3, 3)), threads=bad)
        with pytest.raises(ValueError, match="threads"):
            batchsvd.svdvals([np.ones((3, 3))], threads=bad)


def test_threads_give_the_same_results():
    """threads= sets the CPU backend's threads for the call; the results do not depend on it
    (a matrix a thread at 20^2, one matrix's pairs shared at 100^2 x 2 and 300^2; a GPU solve
    ignores it), for an array and for a list."""
    for shape in ((9, 20, 20), (2, 100, 100), (1, 300, 300)):
        a = rng("threads", shape).standard_normal(shape)
        one = batchsvd.svd(a, threads=1)
        for t in (2, 3):
            for x, y in zip(one, batchsvd.svd(a, threads=t)):
                assert np.array_equal(x, y)
    mats = [rng("threads list", k).standard_normal((k + 3, k)) for k in (5, 40, 70)]
    one = batchsvd.svdvals(mats, threads=1)
    for x, y in zip(one, batchsvd.svdvals(mats, threads=2)):
        assert np.array_equal(x, y)


def test_nonfinite_raises_or_reports():
    a = rng("nan").standard_normal((5, 6, 4))
    a[2, 1, 1] = np.nan
    a[3, 0, 0] = np.inf
    with pytest.raises(np.linalg.LinAlgError, match="2 matrices hold NaN or Inf"):
        batchsvd.svd(a)
    u, s, vh, info = batchsvd.svd(a, return_info=True)
    assert info.tolist() == [0, 0, -1, -1, 0]
    assert np.isnan(s[2]).all() and np.isnan(u[3]).all() and np.isnan(vh[2]).all()
    for b in (0, 1, 4):
        assert abs(u[b] @ (s[b, :, None] * vh[b]) - a[b]).max() < 1e-13


def test_sweep_limit_reports_or_raises():
    a = rng("sweeps").standard_normal((4, 30, 30))
    with pytest.raises(np.linalg.LinAlgError, match="did not converge"):
        batchsvd.svd(a, max_sweeps=1)
    s, info = batchsvd.svdvals(a, max_sweeps=1, return_info=True, method="jacobi")
    assert (info == 1).all() and np.isfinite(s).all()


@pytest.mark.parametrize("dtype", DTYPES)
def test_return_info_sweeps(dtype):
    """return_info="sweeps": info, then the sweeps each matrix took (int32, batch-shaped):
    >= 1 for a finite non-empty matrix, 0 for a NaN one; each matrix's count is the one it
    gets alone (bitwise results on the CPU backend); return_info=True is unchanged."""
    a = family(rng("sweeps", dtype), "random", 20, 12, dtype, (3, 4))
    a[1, 2, 0, 0] = np.nan
    u, s, vh, info, sweeps = batchsvd.svd(a, return_info="sweeps")
    assert info.shape == sweeps.shape == (3, 4)
    assert info.dtype == sweeps.dtype == np.int32
    assert info[1, 2] == -1 and sweeps[1, 2] == 0
    finite = np.ones((3, 4), bool)
    finite[1, 2] = False
    assert (info[finite] == 0).all() and (sweeps[finite] >= 1).all()
    assert (sweeps[finite] <= 100).all()
    u2, s2, vh2, info2 = batchsvd.svd(a, return_info=True)
    assert np.array_equal(info2, info) and np.array_equal(s2, s, equal_nan=True)
    s3, info3, sweeps3 = batchsvd.svdvals(a, return_info="sweeps", method="jacobi")
    assert sweeps3.shape == (3, 4) and np.array_equal(info3, info)
    if not batchsvd.cuda_available():  # the CPU backend: a matrix's count does not depend on the batch
        assert np.array_equal(sweeps3, sweeps)
        for b in ((0, 0), (2, 3)):
            one = batchsvd.svd(a[b], return_info="sweeps")
            assert one[4].shape == () and int(one[4]) == sweeps[b]
        # Read as A (column-major) or A^T (row-major): each alone, bitwise what the batch gives.
        f = np.asfortranarray(a[0, 1])
        assert int(batchsvd.svd(f, return_info="sweeps")[4]) >= 1
    # A sweep limit: the one sweep run is counted.
    s4, info4, sweeps4 = batchsvd.svdvals(rng("limit").standard_normal((4, 30, 30)), max_sweeps=1,
                                          return_info="sweeps", method="jacobi")
    assert (info4 == 1).all() and (sweeps4 == 1).all()


def test_return_info_sweeps_empty_and_bad():
    u, s, vh, info, sweeps = batchsvd.svd(np.zeros((0, 4, 3)), return_info="sweeps")
    assert info.shape == sweeps.shape == (0,) and sweeps.dtype == np.int32
    s, info, sweeps = batchsvd.svdvals(np.ones((2, 0, 3)), return_info="sweeps")
    assert sweeps.tolist() == [0, 0] and info.tolist() == [0, 0] and sweeps.dtype == np.int32
    s, info, sweeps = batchsvd.svdvals(np.eye(3), return_info="sweeps")
    assert info.shape == sweeps.shape == () and int(sweeps) >= 1
    for bad in ("info", "Sweeps", ""):
        with pytest.raises(ValueError, match="return_info"):
            batchsvd.svd(np.eye(3), return_info=bad)
    with pytest.raises(np.linalg.LinAlgError):  # False still checks the status
        batchsvd.svdvals(np.full((2, 2), np.nan), return_info=False)


# ---- GPU arrays (skipped without a CUDA device and PyTorch / CuPy / JAX) -------------------

def _torch_cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device for PyTorch")
    if not batchsvd.cuda_available():
        pytest.skip("batchsvd was built without the CUDA backend")
    return torch


@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_cuda_against_torch(dtype):
    torch = _torch_cuda()
    a_np = family(rng("torch", dtype), "geo", 24, 16, dtype, (50,))
    a = torch.from_numpy(a_np).cuda()
    u, s, vh = batchsvd.svd(a)
    assert u.device == a.device and isinstance(u, torch.Tensor)
    err = errors(a_np, u.cpu().numpy(), s.cpu().numpy(), vh.cpu().numpy())
    assert err < 30 * UNIT[dtype]
    ref = torch.linalg.svdvals(a.to(torch.complex128 if "complex" in dtype else torch.float64))
    assert (s.double() - ref).abs().max().item() < 30 * UNIT[dtype] * 16


def test_torch_cuda_sweeps():
    torch = _torch_cuda()
    a = torch.randn(50, 24, 16, device="cuda", dtype=torch.float64)
    a[7, 0, 0] = float("nan")
    u, s, vh, info, sweeps = batchsvd.svd(a, return_info="sweeps")
    assert sweeps.device == a.device and sweeps.dtype == torch.int32 and sweeps.shape == (50,)
    assert info[7].item() == -1 and sweeps[7].item() == 0
    keep = torch.arange(50, device="cuda") != 7
    assert (sweeps[keep] >= 1).all().item() and (info[keep] == 0).all().item()
    s2, info2, sweeps2 = batchsvd.svdvals(a[:, :0], return_info="sweeps")  # k = 0
    assert sweeps2.device == a.device and (sweeps2 == 0).all().item()


def test_torch_cuda_stream_ordering():
    torch = _torch_cuda()
    side = torch.cuda.Stream()
    a = torch.randn(2000, 32, 32, device="cuda", dtype=torch.float64)
    with torch.cuda.stream(side):
        b = a * 3.0  # enqueued on `side`; batchsvd must run after it on the same stream
        for _ in range(20):
            b = b * 1.0
        u, s, vh = batchsvd.svd(b, return_info=True)[:3]
    torch.cuda.synchronize()
    ref = torch.linalg.svdvals(a) * 3.0
    assert (s - ref).abs().max().item() < 1e-12 * ref.max().item()


def _cupy_cuda():
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("no CUDA device for CuPy")
    except cupy.cuda.runtime.CUDARuntimeError:
        pytest.skip("no CUDA device for CuPy")
    if not batchsvd.cuda_available():
        pytest.skip("batchsvd was built without the CUDA backend")
    return cupy


def test_cupy_cuda():
    cupy = _cupy_cuda()
    a_np = family(rng("cupy"), "logrand", 10, 10, "float32", (30,))
    u, s, vh = batchsvd.svd(cupy.asarray(a_np))
    assert isinstance(s, cupy.ndarray)
    assert errors(a_np, cupy.asnumpy(u), cupy.asnumpy(s), cupy.asnumpy(vh)) < 30 * UNIT["float32"]


def test_cupy_stream_ordering():
    cupy = _cupy_cuda()
    a = cupy.random.standard_normal((2000, 32, 32), dtype=cupy.float64)
    side = cupy.cuda.Stream(non_blocking=True)
    with side:
        b = a * 3.0  # enqueued on `side`; batchsvd must run after it on the same stream
        for _ in range(20):
            b = b * 1.0
        s = batchsvd.svd(b, return_info=True)[1]
    side.synchronize()
    ref = cupy.linalg.svd(a, compute_uv=False) * 3.0
    assert float(cupy.abs(s - ref).max()) < 1e-12 * float(ref.max())


@pytest.mark.parametrize("dtype", DTYPES)
def test_jax_gpu_round_trip(dtype):
    jax, gpu = jax_gpu()
    a_np = family(rng("jax", dtype), "logrand", 20, 12, dtype, (2, 9))
    a = jax.device_put(a_np, gpu)
    u, s, vh = batchsvd.svd(a)
    for x in (u, s, vh):
        assert isinstance(x, jax.Array) and x.devices() == {gpu}
    assert u.shape == (2, 9, 20, 12) and s.shape == (2, 9, 12) and vh.shape == (2, 9, 12, 12)
    assert errors(a_np, np.asarray(u), np.asarray(s), np.asarray(vh)) < 30 * UNIT[dtype]
    # Wide input, values only.
    s2 = batchsvd.svdvals(jax.device_put(np.swapaxes(a_np, -1, -2).copy(), gpu))
    assert np.abs(np.asarray(s2) - np.asarray(s)).max() < 30 * UNIT[dtype] * 20


def test_jax_gpu_waits_for_its_producer():
    jax, gpu = jax_gpu()
    import jax.numpy as jnp
    a = jax.device_put(np.random.default_rng(1).standard_normal((3000, 32, 32)), gpu)

    @jax.jit
    def slow(x):
        for _ in range(30):
            x = jnp.sin(x) * 0.0 + x  # keeps x, but takes a while on the device
        return x * 3.0
    b = slow(a)  # dispatched asynchronously: batchsvd must not read b before it is computed
    s = batchsvd.svdvals(b)
    ref = np.linalg.svd(np.asarray(a), compute_uv=False) * 3.0
    assert np.abs(np.asarray(s) - ref).max() < 1e-12 * ref.max()


def test_inputs_are_read_in_place():
    """The data pointer the library was given is the framework's own: no copy of the input."""
    a = rng("ptr").standard_normal((4, 9, 7))
    batchsvd.svd(a)
    assert batchsvd._batchsvd._last_input_pointer() == a.ctypes.data
    f = np.asfortranarray(a[0])
    batchsvd.svd(f)
    assert batchsvd._batchsvd._last_input_pointer() == f.ctypes.data
    try:
        torch = _torch_cuda()
    except pytest.skip.Exception:
        torch = None
    if torch is not None:
        t = torch.randn(5, 24, 16, device="cuda", dtype=torch.float64)
        batchsvd.svd(t)
        assert batchsvd._batchsvd._last_input_pointer() == t.data_ptr()
    try:
        cupy = _cupy_cuda()
    except pytest.skip.Exception:
        cupy = None
    if cupy is not None:
        c = cupy.random.standard_normal((5, 16, 24), dtype=cupy.float32)
        batchsvd.svd(c)
        assert batchsvd._batchsvd._last_input_pointer() == c.data.ptr
    try:
        jax, gpu = jax_gpu()
    except pytest.skip.Exception:
        jax = None
    if jax is not None:
        j = jax.device_put(np.ones((3, 8, 8)) + np.eye(8), gpu)
        batchsvd.svd(j)
        assert batchsvd._batchsvd._last_input_pointer() == j.unsafe_buffer_pointer()


def test_cached_memory_is_kept_and_released():
    """The CUDA backend keeps its workspace between calls and gives it back on request; without
    a CUDA device both functions are harmless and nothing is held."""
    assert batchsvd.cached_memory_bytes(-1) == 0
    if not batchsvd.cuda_available():
        batchsvd.release_cached_memory()
        assert batchsvd.cached_memory_bytes(0) == 0
        pytest.skip("no CUDA device: the kept workspace is checked on a GPU machine "
                    "(the no-device behaviour was checked)")
    a = rng("cache").standard_normal((64, 128, 128))  # (host arrays go to the GPU, device 0)
    u, s, vh = batchsvd.svd(a)
    assert batchsvd.cached_memory_bytes(0) >= a.nbytes  # at least A's staging, kept
    batchsvd.release_cached_memory()
    assert batchsvd.cached_memory_bytes(0) == 0
    u2, s2, vh2 = batchsvd.svd(a)  # fresh memory, the same result
    np.testing.assert_array_equal(s, s2)
    np.testing.assert_array_equal(u, u2)
