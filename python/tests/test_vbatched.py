# SPDX-License-Identifier: BSD-3-Clause
"""batchsvd.svd and svdvals on lists of matrices of different shapes, solved by one
gesvd_vbatched call: the results are lists in the input order, each entry the result of the
matrix alone (bitwise on the CPU backend, where results do not depend on the batch, sweep
counts included); inputs read in place where their strides allow (row-major, column-major,
row-strided views), other layouts copied; S, U and Vh each one allocation with the results
as views of it; a NaN matrix's status with return_info, and LinAlgError without; empty lists
and zero-sized matrices; return_info="sweeps"; mixed dtypes or frameworks are a TypeError,
mixed devices a ValueError. The same on PyTorch, CuPy and JAX GPU arrays where a CUDA device
and the framework exist (skipped with a message otherwise). Fresh random inputs on every run
(the seed is printed on failure; BATCHSVD_TEST_SEED replays it)."""

import os

import numpy as np
import pytest

import batchsvd
from cuda_frameworks import jax_gpu
from svd_measures import random_matrices

SEED = int(os.environ.get("BATCHSVD_TEST_SEED", np.random.SeedSequence().entropy % (2**63)))
DTYPES = ("float32", "float64", "complex64", "complex128")
# Host arrays run on the CPU backend only without a usable GPU; there results are bitwise
# each matrix's alone.
CPU_ONLY = not batchsvd.cuda_available()


def _mix(dtype, count, seed):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        m, n = int(rng.integers(1, 40)), int(rng.integers(1, 40))
        out.append(random_matrices(rng, (m, n), dtype))
    out.append(np.zeros((0, 3), dtype))  # an empty one
    return out


def _layouts(dtype, seed):
    """Matrices in every layout: row-major, column-major, a row-strided view and a
    column-strided view of a larger array (the first read in place, the second copied), a
    reversed view (negative stride: copied), square, tall, wide, one row, one column."""
    rng = np.random.default_rng(seed)
    big = random_matrices(rng, (30, 26), dtype)
    return [
        random_matrices(rng, (9, 5), dtype),
        np.asfortranarray(random_matrices(rng, (6, 11), dtype)),
        big[::2, 3:20],            # rows 2 * 26 apart, unit column stride: in place
        big[1:25, ::3],            # column stride 3: copied
        np.asfortranarray(big)[4:20, 2:9],  # a column-major block: in place, ld 30
        big[::-1, :7],             # negative row stride: copied
        random_matrices(rng, (1, 7), dtype),
        random_matrices(rng, (8, 1), dtype),
        np.asfortranarray(random_matrices(rng, (12, 12), dtype)),
        random_matrices(rng, (40, 33), dtype),
    ]


def _bitwise(x, y):
    x, y = np.asarray(x), np.asarray(y)
    return x.shape == y.shape and x.dtype == y.dtype and x.tobytes() == y.tobytes()


def _close_to(s, ref):
    eps = np.finfo(np.asarray(s).dtype).eps
    return np.allclose(s, ref, rtol=0, atol=60 * eps * max(1.0, float(np.max(ref, initial=0))))


def _reconstructs(a, u, s, vh):
    a, u, s, vh = (np.asarray(x) for x in (a, u, s, vh))
    if a.size == 0:
        return True
    eps = np.finfo(s.dtype).eps
    return np.abs(u @ (s[:, None] * vh) - a).max() <= 100 * eps * max(a.shape) * max(1.0, float(s.max()))


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_list_matches_each_matrix_alone(dtype, order):
    mats = [np.asarray(a, order=order) for a in _mix(dtype, 25, SEED)]
    us, ss, vhs, info, sweeps = batchsvd.svd(mats, return_info="sweeps")
    assert len(us) == len(ss) == len(vhs) == len(info) == len(sweeps) == len(mats)
    vals, vinfo, vsweeps = batchsvd.svdvals(mats, return_info="sweeps")
    for i, a in enumerate(mats):
        u, s, vh, inf, sw = batchsvd.svd(a, return_info="sweeps")
        assert us[i].shape == u.shape and ss[i].shape == s.shape and vhs[i].shape == vh.shape
        assert us[i].dtype == u.dtype and ss[i].dtype == s.dtype and vhs[i].dtype == vh.dtype
        assert int(info[i]) == int(inf) == 0
        if not CPU_ONLY:  # several backends: to rounding
            assert _close_to(ss[i], s), "seed %d, matrix %d" % (SEED, i)
            assert _reconstructs(a, us[i], ss[i], vhs[i]), "seed %d, matrix %d" % (SEED, i)
        else:
            what = "seed %d, matrix %d" % (SEED, i)
            assert _bitwise(ss[i], s) and _bitwise(us[i], u) and _bitwise(vhs[i], vh), what
            # values alone: what the matrix gets alone (the method its size takes)
            alone_s, _, alone_sw = batchsvd.svdvals(a, return_info="sweeps")
            assert _bitwise(vals[i], alone_s) and _close_to(vals[i], s), what
            assert int(sweeps[i]) == int(sw) and int(vsweeps[i]) == int(alone_sw), what


@pytest.mark.parametrize("dtype", DTYPES)
def test_layouts_in_place_copied_and_correct(dtype):
    mats = _layouts(dtype, SEED + 7)
    us, ss, vhs = batchsvd.svd(mats)
    pointers = batchsvd._batchsvd._last_input_pointers()
    assert len(pointers) == len(mats)
    # Read in place: C- and F-ordered matrices and the row-strided and column-major blocks.
    for i in (0, 1, 2, 4, 6, 7, 8, 9):
        assert pointers[i] == mats[i].ctypes.data, "matrix %d was copied" % i
    for i in (3, 5):  # no unit stride, or a negative one: copied alone
        assert pointers[i] != mats[i].ctypes.data
    for i, a in enumerate(mats):
        assert us[i].shape == (a.shape[0], min(a.shape)) and vhs[i].shape == (min(a.shape), a.shape[1])
        assert _reconstructs(a, us[i], ss[i], vhs[i]), "seed %d, matrix %d" % (SEED, i)
        ref = np.linalg.svd(a.astype(np.complex128), compute_uv=False)
        assert _close_to(ss[i], ref), "seed %d, matrix %d" % (SEED, i)
        if CPU_ONLY:  # the layout the uniform call takes for the same array: bitwise
            u, s, vh = batchsvd.svd(a)
            assert _bitwise(ss[i], s) and _bitwise(us[i], u) and _bitwise(vhs[i], vh), i


def _root(x):
    while isinstance(x.base, np.ndarray):
        x = x.base
    return x


def test_results_are_views_of_one_allocation():
    mats = _layouts("complex128", SEED + 8)  # row- and column-major: both conjugation cases
    us, ss, vhs = batchsvd.svd(mats)
    for out in (us, ss, vhs):
        roots = {id(_root(x)) for x in out}
        assert len(roots) == 1, "results are not views of one buffer"
        assert all(x.base is not None for x in out)
    # Packed without gaps or overlaps (in the order of their shapes, not the list's).
    step = np.dtype("complex128").itemsize
    for out, size in ((us, lambda m, n: m * min(m, n) * step), (vhs, lambda m, n: min(m, n) * n * step),
                      (ss, lambda m, n: min(m, n) * step // 2)):
        blocks = sorted((x.ctypes.data, size(*a.shape)) for x, a in zip(out, mats))
        for (p, s), (q, _) in zip(blocks, blocks[1:]):
            assert q == p + s
    for i in range(len(mats) - 1):
        assert not np.shares_memory(us[i], us[i + 1])
    # A tuple works as a list does.
    u2, s2, vh2 = batchsvd.svd(tuple(mats))
    assert all(_bitwise(x, y) for x, y in zip(s2, ss))


def test_nan_mid_list():
    mats = _mix("float64", 6, SEED + 1)
    mats[2] = mats[2].copy()
    mats[2][0, 0] = np.nan
    u, s, vh, info = batchsvd.svd(mats, return_info=True)
    assert [int(x) for x in info] == [0, 0, -1, 0, 0, 0, 0]
    assert np.isnan(s[2]).all() and np.isnan(u[2]).all() and np.isnan(vh[2]).all()
    u, s, vh, info, sweeps = batchsvd.svd(mats, return_info="sweeps")
    assert int(info[2]) == -1 and int(sweeps[2]) == 0
    for i, a in enumerate(mats):
        if i == 2:
            continue
        assert _reconstructs(a, u[i], s[i], vh[i]), "seed %d, matrix %d" % (SEED, i)
        assert int(sweeps[i]) >= (1 if a.size else 0)
        if CPU_ONLY:  # its neighbour's NaN changes nothing
            alone = batchsvd.svd(a)
            assert _bitwise(u[i], alone[0]) and _bitwise(s[i], alone[1]), i
    with pytest.raises(np.linalg.LinAlgError, match="1 matrices hold NaN or Inf.*list index 2"):
        batchsvd.svd(mats)
    with pytest.raises(np.linalg.LinAlgError, match="NaN or Inf"):
        batchsvd.svdvals(mats)
    s, info = batchsvd.svdvals(mats, return_info=True)
    assert [int(x) for x in info] == [0, 0, -1, 0, 0, 0, 0]


def test_garbage_collector_state_is_kept():
    """The list call pauses Python's garbage collector while it makes its results: it leaves
    the collector as it found it, enabled or disabled, after results and after an error."""
    import gc
    mats = _mix("float64", 6, SEED + 2)
    was = gc.isenabled()
    try:
        for enabled in (True, False):
            gc.enable() if enabled else gc.disable()
            u, s, vh = batchsvd.svd(mats)
            assert len(u) == len(mats) and gc.isenabled() == enabled
            s = batchsvd.svdvals(mats)
            assert len(s) == len(mats) and gc.isenabled() == enabled
            bad = [m.copy() for m in mats]
            bad[1][0, 0] = np.inf
            with pytest.raises(np.linalg.LinAlgError):
                batchsvd.svd(bad)
            assert gc.isenabled() == enabled
    finally:
        gc.enable() if was else gc.disable()


def test_sweep_limit_in_a_list():
    rng = np.random.default_rng(SEED + 2)
    mats = [rng.standard_normal((30, 30)), rng.standard_normal((25, 31))]
    with pytest.raises(np.linalg.LinAlgError, match="did not converge"):
        batchsvd.svd(mats, max_sweeps=1)
    # Values only, a preconditioned matrix may converge in its first sweep (about one
    # 25x31 Gaussian in twelve does): each matrix must report what its unlimited run says.
    _, _, needed = batchsvd.svdvals(mats, return_info="sweeps", method="jacobi")
    s, info, sweeps = batchsvd.svdvals(mats, max_sweeps=1, return_info="sweeps", method="jacobi")
    assert [int(x) for x in sweeps] == [1, 1], "seed %d" % SEED
    assert [int(x) for x in info] == [int(int(x) > 1) for x in needed], "seed %d" % SEED
    assert int(info[0]) == 1, "seed %d" % SEED  # a 30x30 Gaussian needs several sweeps
    assert all(np.isfinite(x).all() for x in s)


def test_empty_list_and_zero_sized():
    assert batchsvd.svd([]) == ([], [], [])
    assert batchsvd.svdvals([]) == []
    assert batchsvd.svd([], return_info=True) == ([], [], [], [])
    assert batchsvd.svd([], return_info="sweeps") == ([], [], [], [], [])
    assert batchsvd.svdvals([], return_info=True) == ([], [])
    assert batchsvd.svdvals([], return_info="sweeps") == ([], [], [])
    empties = [np.zeros((0, 3)), np.ones((4, 0)), np.zeros((0, 0))]
    for mats in (empties, empties[:1], [np.eye(3)] + empties + [np.ones((2, 5))]):
        u, s, vh, info, sweeps = batchsvd.svd(mats, return_info="sweeps")
        for a, x, y, z in zip(mats, u, s, vh):
            m, n = a.shape
            k = min(m, n)
            assert x.shape == (m, k) and y.shape == (k,) and z.shape == (k, n)
            assert x.dtype == y.dtype == z.dtype == np.float64
            assert _reconstructs(a, x, y, z)
        assert [int(i) for i in info] == [0] * len(mats)
        assert [int(w) for w in sweeps] == [0 if a.size == 0 else int(w) for a, w in zip(mats, sweeps)]
        assert all(int(w) >= 1 for a, w in zip(mats, sweeps) if a.size)
        assert len(batchsvd.svdvals(mats)) == len(mats)


@pytest.mark.parametrize("dtype", DTYPES)
def test_return_info_sweeps_shapes(dtype):
    mats = _layouts(dtype, SEED + 3) + [np.zeros((0, 5), dtype)]
    out = batchsvd.svd(mats, return_info="sweeps")
    assert len(out) == 5
    info, sweeps = out[3], out[4]
    assert isinstance(info, list) and isinstance(sweeps, list)
    for a, i, w in zip(mats, info, sweeps):
        assert np.asarray(i).dtype == np.int32 and np.asarray(w).dtype == np.int32
        assert np.asarray(w).shape == ()
        assert int(i) == 0
        assert (int(w) >= 1) if a.size else (int(w) == 0)
    # return_info=True is unchanged: four results, no sweeps.
    assert len(batchsvd.svd(mats, return_info=True)) == 4
    assert len(batchsvd.svdvals(mats, return_info=True)) == 2
    assert len(batchsvd.svdvals(mats, return_info="sweeps")) == 3
    with pytest.raises(ValueError, match="return_info"):
        batchsvd.svd(mats, return_info="sweep")


def test_mixed_inputs_are_errors():
    with pytest.raises(TypeError, match="one dtype"):
        batchsvd.svd([np.eye(3), np.eye(3, dtype=np.float32)])
    with pytest.raises(TypeError, match="one dtype"):
        batchsvd.svdvals([np.eye(3), np.eye(2), np.eye(3, dtype=np.complex128)])
    with pytest.raises(TypeError, match="unsupported dtype int64"):
        batchsvd.svd([np.eye(3, dtype=np.int64)])
    with pytest.raises(ValueError, match="2-D"):
        batchsvd.svd([np.eye(3), np.ones(3)])
    with pytest.raises(TypeError, match="expected a NumPy"):
        batchsvd.svd([np.eye(3), [[1.0]]])
    with pytest.raises(ValueError, match="devices"):
        batchsvd.svd([np.eye(3)], devices=[0])
    with pytest.raises(ValueError, match="max_sweeps"):
        batchsvd.svd([np.eye(3)], max_sweeps=0)


def test_mixed_frameworks_are_type_errors():
    jnp = pytest.importorskip("jax.numpy", reason="JAX is not installed")
    with pytest.raises(TypeError, match="one framework"):
        batchsvd.svd([np.eye(3), jnp.eye(4)])


def test_jax_cpu_list():
    jax = pytest.importorskip("jax", reason="JAX is not installed")
    import jax.numpy as jnp
    mats_np = _mix("complex64", 5, SEED + 10)
    mats = [jnp.asarray(a) for a in mats_np]
    us, ss, vhs, info, sweeps = batchsvd.svd(mats, return_info="sweeps")
    for x in us + ss + vhs + info + sweeps:
        assert isinstance(x, jax.Array)
    for i, a in enumerate(mats_np):
        assert _reconstructs(a, us[i], ss[i], vhs[i]) and int(info[i]) == 0
        assert np.asarray(sweeps[i]).dtype == np.int32


def test_binding_checks_its_operands():
    """The extension's own checks: list lengths, dtypes of the inputs, room in the outputs."""
    ext = batchsvd._batchsvd
    a = [np.eye(3), np.ones((3, 2))]
    s, info = np.empty(5), np.empty(2, np.int32)
    args = dict(rows=[3, 3], cols=[3, 2], lda=[3, 3], s=s, s_offset=[0, 3], u=None, u_offset=[0, 0],
                v=None, v_offset=[0, 0], swap=[0, 0], info=info, sweeps=None, tol=30.0,
                max_sweeps=100, stream=0)
    ext.gesvd_vbatched(a, **args)
    assert np.allclose(s, [1, 1, 1, np.sqrt(6), 0])
    with pytest.raises(TypeError, match="one dtype"):
        ext.gesvd_vbatched([np.eye(3), np.ones((3, 2), np.float32)], **args)
    with pytest.raises(ValueError, match="one entry a matrix"):
        ext.gesvd_vbatched(a, **dict(args, rows=[3]))
    with pytest.raises(ValueError, match="S is too small"):
        ext.gesvd_vbatched(a, **dict(args, s_offset=[0, 4]))
    with pytest.raises(ValueError, match="matrix 1: A is too small"):
        ext.gesvd_vbatched(a, **dict(args, lda=[3, 4]))
    with pytest.raises(ValueError, match="sweeps must be int32"):
        ext.gesvd_vbatched(a, **dict(args, sweeps=np.empty(2)))
    with pytest.raises(ValueError, match="sweeps is too small"):
        ext.gesvd_vbatched(a, **dict(args, sweeps=np.empty(1, np.int32)))
    with pytest.raises(ValueError, match="both or neither"):
        ext.gesvd_vbatched(a, **dict(args, u=np.empty(20)))


# ---- GPU arrays (skipped without a CUDA device and PyTorch / CuPy / JAX) -------------------

def _torch_cuda():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device for PyTorch")
    if not batchsvd.cuda_available():
        pytest.skip("batchsvd was built without the CUDA backend")
    return torch


def _cupy_cuda():
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("no CUDA device for CuPy")
    except cupy.cuda.runtime.CUDARuntimeError:
        pytest.skip("no CUDA device for CuPy")
    if not batchsvd.cuda_available():
        pytest.skip("batchsvd was built without the CUDA backend")
    return cupy


def _check_gpu_list(mats_np, us, ss, vhs, info, sweeps, to_np):
    for i, a in enumerate(mats_np):
        ref = np.linalg.svd(a.astype(np.complex128), compute_uv=False)
        s = to_np(ss[i])
        assert _close_to(s, ref), "seed %d, matrix %d" % (SEED, i)
        assert _reconstructs(a, to_np(us[i]), s, to_np(vhs[i])), "seed %d, matrix %d" % (SEED, i)
        assert int(to_np(info[i])) == 0
        assert (int(to_np(sweeps[i])) >= 1) if a.size else (int(to_np(sweeps[i])) == 0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_cuda_list(dtype):
    torch = _torch_cuda()
    mats_np = _layouts(dtype, SEED + 4) + [np.zeros((0, 4), dtype)]
    rng = np.random.default_rng(SEED + 5)
    dense = torch.from_numpy(random_matrices(rng, (30, 20), dtype)).cuda()
    mats = [torch.from_numpy(np.ascontiguousarray(a)).cuda() for a in mats_np]
    mats[1] = mats[1].T.contiguous().T  # column-major on the device
    mats += [dense[::2], dense[:, ::2], dense.T]  # row-strided, column-strided, transposed views
    mats_np += [x.cpu().numpy() for x in mats[-3:]]
    us, ss, vhs, info, sweeps = batchsvd.svd(mats, return_info="sweeps")
    for x in us + ss + vhs + info + sweeps:
        assert isinstance(x, torch.Tensor) and x.device == dense.device
    assert all(x.dtype == torch.int32 for x in info + sweeps)
    pointers = batchsvd._batchsvd._last_input_pointers()
    for i in (0, 1, len(mats) - 3, len(mats) - 1):  # C, F, row-strided and transposed: in place
        assert pointers[i] == mats[i].data_ptr()
    assert pointers[len(mats) - 2] != mats[-2].data_ptr()  # column stride 2: copied
    assert len({x.untyped_storage().data_ptr() for x in us}) == 1  # one allocation
    _check_gpu_list(mats_np, us, ss, vhs, info, sweeps, lambda x: x.cpu().numpy())
    vals = batchsvd.svdvals(mats)
    assert all(_close_to(x.cpu().numpy(), y.cpu().numpy()) for x, y in zip(vals, ss))


def test_torch_cuda_list_nan_and_stream():
    torch = _torch_cuda()
    side = torch.cuda.Stream()
    a = torch.randn(300, 40, device="cuda", dtype=torch.float64)
    with torch.cuda.stream(side):
        b = a * 3.0  # enqueued on `side`; batchsvd must run after it on the same stream
        for _ in range(20):
            b = b * 1.0
        mats = [b[:40], b[40:100, :30], b[100:130].clone(), b[130:300]]
        mats[2][3, 3] = float("nan")
        u, s, vh, info, sweeps = batchsvd.svd(mats, return_info="sweeps")
    torch.cuda.synchronize()
    assert [int(x) for x in info] == [0, 0, -1, 0] and int(sweeps[2]) == 0
    for i in (0, 1, 3):
        ref = torch.linalg.svdvals(mats[i])
        assert (s[i] - ref).abs().max().item() < 1e-12 * ref.max().item()
    with pytest.raises(np.linalg.LinAlgError, match="list index 2"):
        batchsvd.svd(mats)


def test_mixed_devices_are_value_errors():
    torch = _torch_cuda()
    with pytest.raises(ValueError, match="one device"):
        batchsvd.svd([torch.eye(3, dtype=torch.float64), torch.eye(3, dtype=torch.float64, device="cuda")])
    with pytest.raises(ValueError, match="one device"):
        batchsvd.svdvals([torch.eye(3, device="cuda"), torch.eye(4)])
    with pytest.raises(TypeError, match="one dtype"):  # the dtype is checked first
        batchsvd.svdvals([torch.eye(3, device="cuda"), torch.eye(4, dtype=torch.float64)])


def test_cupy_list():
    cupy = _cupy_cuda()
    mats_np = _layouts("complex64", SEED + 6)
    mats = [cupy.asarray(a) for a in mats_np]  # cupy.asarray keeps C or F order
    us, ss, vhs, info, sweeps = batchsvd.svd(mats, return_info="sweeps")
    for x in us + ss + vhs:
        assert isinstance(x, cupy.ndarray)
    pointers = batchsvd._batchsvd._last_input_pointers()
    assert pointers[0] == mats[0].data.ptr and pointers[1] == mats[1].data.ptr
    _check_gpu_list(mats_np, us, ss, vhs, info, sweeps, cupy.asnumpy)


def test_jax_gpu_list():
    jax, gpu = jax_gpu()
    mats_np = [np.ascontiguousarray(a) for a in _layouts("float64", SEED + 9)] + [np.zeros((3, 0))]
    mats = [jax.device_put(a, gpu) for a in mats_np]
    us, ss, vhs, info, sweeps = batchsvd.svd(mats, return_info="sweeps")
    for x in us + ss + vhs + info + sweeps:
        assert isinstance(x, jax.Array) and x.devices() == {gpu}
    _check_gpu_list(mats_np, us, ss, vhs, info, sweeps, np.asarray)


# ---- PyTorch CPU tensors (skipped without PyTorch) ------------------------------------------

def test_torch_cpu_list_layouts_and_lazy_views():
    """Tensors read in place through their data pointers, copies where the strides (or a lazy
    conjugate or negative view) do not allow it; results match each tensor alone."""
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    rng = np.random.default_rng(SEED + 11)
    for dtype in DTYPES:
        mats_np = _layouts(dtype, SEED + 12)
        mats = [torch.from_numpy(a) if all(s >= 0 for s in a.strides) else torch.from_numpy(a.copy())
                for a in mats_np]
        dense = torch.from_numpy(random_matrices(rng, (9, 7), dtype))
        mats += [dense.T, dense[:, ::2], dense.conj(), dense._neg_view(),
                 torch.zeros(0, 3, dtype=dense.dtype), dense.t().conj()]
        expect = [x.resolve_conj().resolve_neg().numpy() for x in mats]
        us, ss, vhs, info, sweeps = batchsvd.svd(mats, return_info="sweeps")
        pointers = batchsvd._batchsvd._last_input_pointers()
        for i, x in enumerate(mats):
            what = "%s, seed %d, matrix %d" % (dtype, SEED, i)
            assert isinstance(us[i], torch.Tensor) and us[i].shape == (x.shape[0], min(x.shape))
            assert _reconstructs(expect[i], us[i].numpy(), ss[i].numpy(), vhs[i].numpy()), what
            assert int(info[i]) == 0, what
            if CPU_ONLY:
                u, s, vh = batchsvd.svd(x)
                assert _bitwise(ss[i], s) and _bitwise(us[i], u) and _bitwise(vhs[i], vh), what
        lazy = (len(mats) - 4, len(mats) - 3, len(mats) - 1)
        if not dense.is_complex():
            lazy = (len(mats) - 3,)  # conj() of a real tensor is the tensor itself
        for i in lazy:
            assert pointers[i] != mats[i].data_ptr(), "lazy view %d read in place" % i
        for i in (0, 1, 2, 4, len(mats) - 6):  # C, F, row-strided, column-major block, dense.T
            assert pointers[i] == mats[i].data_ptr(), "matrix %d was copied" % i
        assert pointers[len(mats) - 5] != mats[-5].data_ptr()  # column stride 2: copied
        assert len({x.untyped_storage().data_ptr() for x in us}) == 1  # one allocation


def test_torch_cpu_list_errors_and_uniform_runs():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    e = torch.eye(3, dtype=torch.float64)
    with pytest.raises(TypeError, match="one dtype; array 2"):
        batchsvd.svd([e, e, e.float()])
    with pytest.raises(TypeError, match="one framework; array 1"):
        batchsvd.svd([e, np.eye(3)])
    with pytest.raises(ValueError, match="2-D.*array 1"):
        batchsvd.svd([e, torch.ones(3, dtype=torch.float64)])
    with pytest.raises(TypeError, match="unsupported dtype"):
        batchsvd.svd([torch.eye(3, dtype=torch.int64)])
    # Runs of one shape, mixed with others, both orders, complex: each as alone.
    rng = np.random.default_rng(SEED + 13)
    shapes = [(2, 2)] * 5 + [(3, 2), (2, 3)] + [(4, 4)] * 3 + [(1, 5)] * 2 + [(2, 2)]
    for dtype in ("float64", "complex128"):
        mats = [torch.from_numpy(random_matrices(rng, sh, dtype)) for sh in shapes]
        mats[6] = mats[6].T.contiguous().T  # column-major amid row-major ones
        mats[8] = mats[8].T.contiguous().T
        us, ss, vhs, info = batchsvd.svd(mats, return_info=True)
        vals = batchsvd.svdvals(mats)
        for i, x in enumerate(mats):
            assert _reconstructs(x.numpy(), us[i].numpy(), ss[i].numpy(), vhs[i].numpy()), i
            if CPU_ONLY:
                u, s, vh = batchsvd.svd(x)
                assert _bitwise(ss[i], s) and _bitwise(us[i], u) and _bitwise(vhs[i], vh), i
                assert _bitwise(vals[i], batchsvd.svdvals(x)), i
            assert us[i].stride() == batchsvd.svd(x)[0].stride() or x.shape[1] == 1, i


def test_numpy_list_irregular_arrays():
    """Byte-swapped, misaligned and read-only arrays in a list: copied (or read in place when
    read-only), correct results."""
    rng = np.random.default_rng(SEED + 14)
    a = random_matrices(rng, (5, 4), "float64")
    swapped = a.astype(a.dtype.newbyteorder(">"))
    raw = np.zeros(a.size * 8 + 1, np.uint8)[1:].view(np.float64).reshape(5, 4)
    raw[...] = a
    ro = a.copy()
    ro.flags.writeable = False
    for mats in ([a, raw, ro], [swapped, swapped[1:]]):
        us, ss, vhs = batchsvd.svd(mats)
        for i, x in enumerate(mats):
            assert _reconstructs(np.asarray(x, np.float64), us[i], ss[i], vhs[i]), i
    batchsvd.svd([a, ro])
    assert batchsvd._batchsvd._last_input_pointers()[1] == ro.ctypes.data
