# SPDX-License-Identifier: BSD-3-Clause
"""Property-based tests (Hypothesis) of batchsvd.svd and batchsvd.svdvals on NumPy arrays.

Hypothesis draws shapes with 0 to 4 batch dimensions (sizes 0 to 4) and m, n in 0..40, the
four dtypes, matrix contents (Gaussian, small integers, zero, low-rank, graded, one entry,
repeated columns) at scales from near underflow to near overflow, and layouts: any order of the
axes in memory (C, Fortran, column-major matrices, permuted batch axes), steps, reversed axes,
an offset start, broadcast (zero-stride) axes, read-only arrays, non-native byte order, data
that is not aligned and strides that are not whole elements. Every call must either return a
correct result or raise the exception the README's Python section documents:

- shapes and dtypes as documented; S finite, non-negative, sorted descending; the paper's
  e1-e3 (reconstruction, orthogonality of U and of V) below 30u per matrix, and S against
  LAPACK within 30u * min(m, n) * sigma_1; info int32, batch-shaped, all zero;
- svdvals(a) equals svd(a, compute_uv=False); the input (the whole buffer under a view) is
  unchanged, and no result shares memory with it;
- NaN/Inf: LinAlgError naming how many matrices hold them, or with return_info info = -1 for
  exactly those, their S, U and V NaN, and the others bit for bit as without them;
- a sweep limit: info = 0 or the sweeps run, S finite; LinAlgError exactly when info > 0;
- 0-d and 1-d arrays: ValueError; unsupported dtypes: TypeError; objects that are not arrays:
  TypeError; full_matrices=True: NotImplementedError; tol <= 0 (or NaN, Inf) and
  max_sweeps < 1: ValueError.

Fresh inputs on every run. A failure prints Hypothesis's falsifying example and
BATCHSVD_TEST_SEED=<seed>, which replays the run (as in test_svd.py). BATCHSVD_PROPERTY_SCALE=10
runs ten times as many examples (the default run takes about 10-30 s on two cores)."""

import os
import tempfile

import numpy as np
import pytest

# On a failure Hypothesis writes a patch under its storage directory, by default .hypothesis/ in
# the working directory: outside the tree unless asked otherwise.
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY",
                      os.path.join(tempfile.gettempdir(), "batchsvd-hypothesis"))
hypothesis = pytest.importorskip(
    "hypothesis", reason="the property tests need Hypothesis: scripts/install-deps.sh installs it "
                         "(python3-hypothesis, or pip install hypothesis)")
from hypothesis import HealthCheck, event, given, note, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import batchsvd  # noqa: E402
from svd_measures import UNIT, error_measures  # noqa: E402

SEED = int(os.environ.get("BATCHSVD_TEST_SEED", np.random.SeedSequence().entropy % (2**63)))
DTYPES = ("float32", "float64", "complex64", "complex128")
TOL = 30.0  # the project's bound: every measure below 30u
# Largest |exponent| of the scale 2^e applied to a matrix: its entries and singular values stay
# normal numbers (at least 2^24 resp. 2^53 times the smallest one) and sigma_1 finite.
MAX_EXP = {"float32": 96, "complex64": 96, "float64": 940, "complex128": 940}
# The library scales a matrix whose largest entry leaves [2^-T, 2^T] (docs/reliability.md):
# scales around these are drawn more often.
SCALING_EXP = {"float32": 40, "complex64": 40, "float64": 300, "complex128": 300}
MAX_BATCH = 24  # matrices in one example, to keep the file within about a minute
KINDS = ("normal", "uniform", "integers", "zeros", "low_rank", "graded", "single", "repeated")
INVALID_DTYPES = tuple(d for d in ("bool", "int8", "int32", "int64", "uint8", "uint64", "float16",
                                   "longdouble", "clongdouble", "object", "U1", "datetime64[s]")
                       if np.dtype(d).name not in DTYPES)  # longdouble is float64 on some hosts


def run_settings(examples):
    examples = max(1, int(examples * float(os.environ.get("BATCHSVD_PROPERTY_SCALE", "1"))))
    return settings(max_examples=examples, deadline=None, database=None, print_blob=True,
                    suppress_health_check=[HealthCheck.too_slow])


def seeded(test):
    """Fresh examples every run, replayable with BATCHSVD_TEST_SEED."""
    return hypothesis.seed(SEED)(test)


def real_of(dtype):
    return {"float32": "float32", "float64": "float64",
            "complex64": "float32", "complex128": "float64"}[dtype]


# ---- strategies -----------------------------------------------------------------------------

@st.composite
def shapes(draw, min_mn=0):
    size = st.integers(0, 9).map(lambda x: 0 if x == 9 else x % 4 + 1)  # 0 one time in 10
    batch = draw(st.lists(size, min_size=0, max_size=4))
    while int(np.prod(batch, dtype=np.int64)) > MAX_BATCH:  # shrink the largest batch size
        batch[int(np.argmax(batch))] -= 1
    dim = st.one_of(st.integers(max(min_mn, 1), 5), st.integers(max(min_mn, 1), 40))

    def size_of_matrix():
        return 0 if min_mn == 0 and draw(st.integers(0, 9)) == 9 else draw(dim)
    return tuple(batch) + (size_of_matrix(), size_of_matrix())


@st.composite
def contents(draw, shape, dtype):
    """Values of the given shape in the given dtype (C order), from a drawn NumPy seed."""
    kind = draw(st.sampled_from(KINDS))
    seed = draw(st.integers(0, 2**32 - 1))
    t = SCALING_EXP[dtype]
    exp = draw(st.one_of(st.just(0), st.integers(-MAX_EXP[dtype], MAX_EXP[dtype]),
                         st.integers(-t - 12, -t + 12), st.integers(t - 12, t + 12)))
    note("contents: kind=%s seed=%d scale=2^%d" % (kind, seed, exp))
    return make_values(shape, dtype, kind, seed, exp)


def make_values(shape, dtype, kind, seed, exp):
    g = np.random.default_rng(seed)
    complex_ = dtype.startswith("complex")
    m, n = shape[-2:]
    k = min(m, n)

    def gauss(*s):
        x = g.standard_normal(s)
        return x + 1j * g.standard_normal(s) if complex_ else x

    if kind == "normal":
        a = gauss(*shape)
    elif kind == "uniform":
        a = g.uniform(-1, 1, shape) + (1j * g.uniform(-1, 1, shape) if complex_ else 0)
    elif kind == "integers":  # exact zeros, equal columns, exact rank deficiency
        a = g.integers(-2, 3, shape) + (1j * g.integers(-1, 2, shape) if complex_ else 0)
    elif kind == "zeros":
        a = np.zeros(shape)
    elif kind == "low_rank":
        r = int(g.integers(0, k)) if k > 0 else 0
        a = gauss(*shape[:-2], m, r) @ gauss(*shape[:-2], r, n)
    elif kind == "graded":  # columns and rows over many orders of magnitude
        depth = 2.5 if dtype in ("float32", "complex64") else 14.0  # condition < 1e4 in single
        a = (gauss(*shape) * 10.0 ** -np.linspace(0, depth, n)
             * 10.0 ** -np.linspace(0, depth / 2, m)[:, None])
    elif kind == "single":
        a = np.zeros(shape, dtype=np.complex128 if complex_ else np.float64)
        if a.size:
            flat = a.reshape(-1, m * n)
            rows = np.arange(flat.shape[0])
            flat[rows, g.integers(0, m * n, rows.size)] = gauss(rows.size)
    else:  # "repeated": columns copied from a few
        a = gauss(*shape)
        if n > 1:
            a = a[..., g.integers(0, max(1, n // 3), n)]
    return np.ascontiguousarray(np.ldexp(1.0, exp) * np.asarray(a)).astype(dtype)


@st.composite
def layouts(draw, ndim):
    """How an array is stored: see realise()."""
    order = draw(st.sampled_from(["C", "F", "matrix-F", "any"]))
    if order == "C":
        perm = tuple(range(ndim))
    elif order == "F":
        perm = tuple(reversed(range(ndim)))
    elif order == "matrix-F":
        perm = tuple(range(ndim - 2)) + (ndim - 1, ndim - 2)
    else:
        perm = tuple(draw(st.permutations(range(ndim))))
    axes = st.lists(st.booleans(), min_size=ndim, max_size=ndim)
    steps = tuple(draw(st.lists(st.integers(1, 3), min_size=ndim, max_size=ndim))
                  if draw(st.integers(0, 2)) == 0 else [1] * ndim)
    flips = tuple(draw(axes) if draw(st.integers(0, 2)) == 0 else [False] * ndim)
    broadcast = tuple(draw(axes) if draw(st.integers(0, 5)) == 0 else [False] * ndim)
    return dict(perm=perm, steps=steps, flips=flips, broadcast=broadcast,
                offset=draw(st.booleans()), readonly=draw(st.booleans()),
                storage=draw(st.sampled_from(["plain"] * 5
                                             + ["byteswapped", "unaligned", "record"])),
                pad=draw(st.integers(1, 3)))


def realise(vals, lay):
    """An array equal to `vals` stored as `lay` says, and the buffer holding it.

    perm: the axes in memory, outermost first; steps: a step per axis (non-contiguous);
    flips: reversed axes (negative strides); offset: the view starts one element in;
    broadcast: axes of stride 0 (vals must be constant along them); readonly: not writeable;
    storage: plain, byteswapped (non-native byte order), unaligned (one byte off) or record (a
    field of a structured array: strides that are not whole elements)."""
    shape = vals.shape
    ndim = len(shape)
    small = vals[tuple(slice(0, 1) if b else slice(None) for b in lay["broadcast"])]
    off = int(lay["offset"])
    length = [small.shape[ax] * lay["steps"][ax] + off for ax in range(ndim)]
    mem_shape = tuple(length[p] for p in lay["perm"])
    dtype = vals.dtype
    if lay["storage"] == "byteswapped":
        dtype = dtype.newbyteorder()
    if lay["storage"] == "unaligned":
        buffer = np.zeros(int(np.prod(mem_shape)) * dtype.itemsize + 1, dtype=np.uint8)
        storage = np.ndarray(mem_shape, dtype=dtype, buffer=buffer, offset=1)
        owner = buffer
    elif lay["storage"] == "record":
        owner = np.zeros(mem_shape, dtype=[("x", dtype), ("pad", np.uint8, (lay["pad"],))])
        storage = owner["x"]
    else:
        owner = storage = np.empty(mem_shape, dtype=dtype)
    storage[...] = 1e4  # anything read outside the view spoils the result
    view = storage.transpose(np.argsort(lay["perm"]))
    index = []
    for ax in range(ndim):
        size, step = small.shape[ax], lay["steps"][ax]
        if size == 0:
            index.append(slice(0, 0))
        elif lay["flips"][ax]:
            index.append(slice(length[ax] - 1 - off, None, -step))
        else:
            index.append(slice(off, None, step))
    view = view[tuple(index)]
    assert view.shape == small.shape
    view[...] = small
    a = np.broadcast_to(view, shape) if any(lay["broadcast"]) else view
    if lay["readonly"]:
        a.flags.writeable = False
    return a, owner


@st.composite
def cases(draw, min_mn=0, dtypes=DTYPES):
    dtype = draw(st.sampled_from(dtypes))
    shape = draw(shapes(min_mn))
    vals = draw(contents(shape, dtype))
    lay = draw(layouts(len(shape)))
    if any(lay["broadcast"]):  # constant along the broadcast axes
        vals = np.ascontiguousarray(np.broadcast_to(
            vals[tuple(slice(0, 1) if b else slice(None) for b in lay["broadcast"])], shape))
    note("dtype=%s shape=%s layout=%s" % (dtype, shape, lay))
    return dtype, vals, lay


# ---- checks ---------------------------------------------------------------------------------

def check_decomposition(vals, u, s, vh, dtype):
    """Shapes, dtypes, S and the paper's measures for every matrix, in double precision with each
    matrix scaled by a power of two to a largest entry near 1 (exact)."""
    shape = vals.shape
    batch_shape, (m, n) = shape[:-2], shape[-2:]
    k = min(m, n)
    assert isinstance(s, np.ndarray) and s.shape == batch_shape + (k,), s.shape
    assert s.dtype == np.dtype(real_of(dtype)), s.dtype
    if u is not None:
        assert isinstance(u, np.ndarray) and u.shape == batch_shape + (m, k), u.shape
        assert isinstance(vh, np.ndarray) and vh.shape == batch_shape + (k, n), vh.shape
        assert u.dtype == np.dtype(dtype) and vh.dtype == np.dtype(dtype), (u.dtype, vh.dtype)
    if s.size == 0:
        return
    assert np.isfinite(s).all(), "S is not finite"
    assert (s >= 0).all(), "S has negative values"
    assert (np.diff(s, axis=-1) <= 0).all(), "S is not sorted descending"
    hi = np.complex128 if dtype.startswith("complex") else np.float64
    a = vals.reshape(-1, m, n).astype(hi)
    big = np.abs(a).max(axis=(-2, -1))
    scale = np.ldexp(1.0, -np.frexp(np.where(big > 0, big, 1.0))[1])  # 2^-e, exact
    a = a * scale[:, None, None]
    s = s.reshape(-1, k).astype(np.float64) * scale[:, None]
    if u is not None:
        u = u.reshape(-1, m, k).astype(hi)
        vh = vh.reshape(-1, k, n).astype(hi)
    worst = error_measures(a, u, s, vh, e4_floor=np.finfo(np.float64).tiny)
    bound = TOL * UNIT[dtype]
    for name, e in worst.items():
        bad = ~(e <= bound)  # NaN fails
        assert not bad.any(), "%s = %.3g u at flat batch index %d (bound %g u)" % (
            name, np.nanmax(np.where(bad, e, 0)) / UNIT[dtype], int(np.argmax(bad)), TOL)


def solve(a, api, compute_uv, return_info, **kw):
    """Calls the API; returns (u, s, vh, info) with None for what the call does not give."""
    if api == "svdvals":
        out = batchsvd.svdvals(a, return_info=return_info, **kw)
    else:
        out = batchsvd.svd(a, compute_uv=compute_uv, return_info=return_info, **kw)
    if not compute_uv or api == "svdvals":
        if return_info:
            assert isinstance(out, tuple) and len(out) == 2
            return None, out[0], None, out[1]
        assert isinstance(out, np.ndarray)
        return None, out, None, None
    assert isinstance(out, tuple) and len(out) == (4 if return_info else 3)
    return out[0], out[1], out[2], (out[3] if return_info else None)


def check_info(info, batch_shape):
    assert isinstance(info, np.ndarray) and info.dtype == np.int32, type(info)
    assert info.shape == batch_shape, info.shape


def check_untouched(a, owner, before, outputs):
    assert np.array_equal(owner.view(np.uint8), before.view(np.uint8)), "the input was modified"
    for x in outputs:
        if x is not None:
            assert not np.may_share_memory(x, owner), "a result shares memory with the input"


# ---- properties -----------------------------------------------------------------------------

@seeded
@run_settings(1000)
@given(case=cases(), api=st.sampled_from(["svd", "svdvals"]), compute_uv=st.booleans(),
       return_info=st.booleans())
def test_valid_inputs_give_correct_results(case, api, compute_uv, return_info):
    note("BATCHSVD_TEST_SEED=%d api=%s compute_uv=%s return_info=%s"
         % (SEED, api, compute_uv, return_info))
    dtype, vals, lay = case
    a, owner = realise(vals, lay)
    before = owner.copy()
    u, s, vh, info = solve(a, api, compute_uv, return_info)
    in_place = batchsvd._batchsvd._last_input_pointer() == a.ctypes.data
    event("k = 0 or an empty batch" if vals.size == 0 else
          "read in place" if in_place else "copied")
    event("%d batch dimensions" % (vals.ndim - 2))
    event("max(m, n) > 20" if max(vals.shape[-2:]) > 20 else "max(m, n) <= 20")
    check_decomposition(vals, u, s, vh, dtype)
    if return_info:
        check_info(info, vals.shape[:-2])
        assert (info == 0).all(), "info %s for finite input" % np.unique(info)
    check_untouched(a, owner, before, (u, s, vh, info))
    if api == "svd" and not compute_uv:  # the same call as svdvals
        assert np.array_equal(batchsvd.svdvals(a), s)


@seeded
@run_settings(250)
@given(case=cases(min_mn=1), data=st.data())
def test_nonfinite_inputs_are_reported(case, data):
    note("BATCHSVD_TEST_SEED=%d" % SEED)
    dtype, vals, lay = case
    shape = vals.shape
    batch_shape, (m, n) = shape[:-2], shape[-2:]
    count = int(np.prod(batch_shape, dtype=np.int64))
    if count == 0:
        return
    bad = sorted(data.draw(st.sets(st.integers(0, count - 1), min_size=1), label="bad matrices"))
    dirty = vals.copy().reshape(count, m, n)
    for b in bad:
        spots = data.draw(st.lists(st.tuples(st.integers(0, m - 1), st.integers(0, n - 1),
                                             st.sampled_from([np.nan, np.inf, -np.inf])),
                                   min_size=1, max_size=3), label="entries of %d" % b)
        for i, j, x in spots:
            dirty[b, i, j] = x if not dtype.startswith("complex") else complex(x, 0.5)
    dirty = dirty.reshape(shape)
    if any(lay["broadcast"]):  # a broadcast input cannot hold one bad matrix among good ones
        lay = dict(lay, broadcast=(False,) * len(shape))
    a, owner = realise(dirty, lay)
    before = owner.copy()
    with pytest.raises(np.linalg.LinAlgError, match="^batchsvd.svd: %d matrices hold NaN or Inf"
                       % len(bad)):
        batchsvd.svd(a)
    u, s, vh, info = batchsvd.svd(a, return_info=True)
    check_info(info, batch_shape)
    check_untouched(a, owner, before, (u, s, vh, info))
    flat_info = info.reshape(-1)
    expect = np.zeros(count, dtype=np.int32)
    expect[bad] = -1
    assert np.array_equal(flat_info, expect), "info %s, expected -1 at %s" % (flat_info, bad)
    k = min(m, n)
    s2, u2, vh2 = s.reshape(count, k), u.reshape(count, m, k), vh.reshape(count, k, n)
    assert np.isnan(s2[bad]).all() and np.isnan(u2[bad]).all() and np.isnan(vh2[bad]).all()
    good = [b for b in range(count) if b not in bad]
    clean, _ = realise(vals, lay)  # the same layout without the NaN/Inf
    cu, cs, cvh = batchsvd.svd(clean)
    cs, cu, cvh = cs.reshape(count, k), cu.reshape(count, m, k), cvh.reshape(count, k, n)
    for x, y in ((s2, cs), (u2, cu), (vh2, cvh)):
        assert np.array_equal(x[good], y[good], equal_nan=True), \
            "the finite matrices changed with the bad ones"
    check_decomposition(vals.reshape(count, m, n)[good], u2[good], s2[good], vh2[good], dtype)


@seeded
@run_settings(200)
@given(case=cases(min_mn=1), max_sweeps=st.integers(1, 4),
       tol=st.one_of(st.none(), st.floats(1.0, 1e6)))
def test_sweep_limit_and_tolerance(case, max_sweeps, tol):
    note("BATCHSVD_TEST_SEED=%d max_sweeps=%d tol=%s" % (SEED, max_sweeps, tol))
    dtype, vals, lay = case
    a, owner = realise(vals, lay)
    before = owner.copy()
    u, s, vh, info = batchsvd.svd(a, tol=tol, max_sweeps=max_sweeps, return_info=True)
    check_info(info, vals.shape[:-2])
    check_untouched(a, owner, before, (u, s, vh, info))
    assert ((info == 0) | (info == max_sweeps)).all(), "info %s" % np.unique(info)
    assert np.isfinite(s).all() and (s >= 0).all()
    if tol is None and max_sweeps == 4 and (info == 0).all():
        check_decomposition(vals, u, s, vh, dtype)
    if (info > 0).any():
        with pytest.raises(np.linalg.LinAlgError, match="^batchsvd.svd: %d matrices did not "
                           "converge" % int((info > 0).sum())):
            batchsvd.svd(a, tol=tol, max_sweeps=max_sweeps)
    else:
        batchsvd.svd(a, tol=tol, max_sweeps=max_sweeps)


@seeded
@run_settings(300)
@given(dtype=st.sampled_from(DTYPES + INVALID_DTYPES), ndim=st.integers(0, 6),
       sizes=st.lists(st.integers(0, 3), min_size=6, max_size=6),
       api=st.sampled_from(["svd", "svdvals"]), flip=st.booleans(), readonly=st.booleans())
def test_invalid_arrays_raise_the_documented_exception(dtype, ndim, sizes, api, flip, readonly):
    note("BATCHSVD_TEST_SEED=%d" % SEED)
    valid_dtype = dtype in DTYPES
    if valid_dtype and ndim >= 2:
        return  # valid: the other properties
    a = np.zeros(sizes[:ndim], dtype=dtype)
    if ndim and flip:
        a = a[::-1]
    a.flags.writeable = not readonly
    before = a.copy()
    expected = ((TypeError,) if ndim >= 2 else (ValueError,) if valid_dtype
                else (TypeError, ValueError))
    call = batchsvd.svdvals if api == "svdvals" else batchsvd.svd
    with pytest.raises(expected, match="^batchsvd"):
        call(a)
    if ndim >= 2:
        with pytest.raises(TypeError, match="unsupported dtype"):
            call(a)
    elif valid_dtype:
        with pytest.raises(ValueError, match="at least 2 dimensions"):
            call(a)
    assert np.array_equal(a, before)


NOT_ARRAYS = [None, 3, 2.5, 1j, "abc", b"xy", [[1.0, 2.0], [3.0, 4.0]], ((1.0,),), {"a": 1},
              np.float64(2.0), np.complex64(1.0), np.int32(3), memoryview(b"abcd")]


@pytest.mark.parametrize("obj", NOT_ARRAYS, ids=lambda x: type(x).__name__)
def test_objects_that_are_not_arrays_raise_type_error(obj):
    for call in (batchsvd.svd, batchsvd.svdvals):
        with pytest.raises(TypeError, match="expected a NumPy, PyTorch, CuPy or JAX array"):
            call(obj)


@seeded
@run_settings(150)
@given(case=cases(), tol=st.one_of(st.floats(max_value=0.0), st.just(float("nan")),
                                    st.just(float("inf"))),
       max_sweeps=st.integers(-5, 0), which=st.sampled_from(["full_matrices", "tol", "max_sweeps"]))
def test_invalid_options_raise_the_documented_exception(case, tol, max_sweeps, which):
    note("BATCHSVD_TEST_SEED=%d" % SEED)
    dtype, vals, lay = case
    a, owner = realise(vals, lay)
    before = owner.copy()
    if which == "full_matrices":
        with pytest.raises(NotImplementedError, match="full_matrices"):
            batchsvd.svd(a, full_matrices=True)
    elif which == "tol":
        if np.isinf(tol) and vals.size == 0:
            return  # nothing is solved, so the library never sees tol (not a documented error)
        with pytest.raises(ValueError, match="tol"):
            batchsvd.svd(a, tol=tol)
        with pytest.raises(ValueError, match="tol"):
            batchsvd.svdvals(a, tol=tol)
    else:
        with pytest.raises(ValueError, match="max_sweeps"):
            batchsvd.svd(a, max_sweeps=max_sweeps)
        with pytest.raises(ValueError, match="max_sweeps"):
            batchsvd.svdvals(a, max_sweeps=max_sweeps)
    check_untouched(a, owner, before, ())


def test_hostile_layouts_found_by_these_properties():
    """Minimal forms of what the properties found: each must be solved like a plain copy."""
    g = np.random.default_rng(SEED)
    base = g.standard_normal((1, 5, 3))
    rec = np.zeros((2, 5, 3), dtype=[("x", np.float64), ("pad", np.uint8, (3,))])
    rec["x"] = g.standard_normal((2, 5, 3))
    for a in (base[::-1],                            # a negative stride on an axis of length 1
              base[0, :1][::-1],                     # the same on the matrix's own axis
              np.ones((3, 1))[:, ::-1],
              np.broadcast_to(base, (4, 5, 3)),      # a batch stride of 0
              g.standard_normal((5, 4, 3)).transpose(1, 0, 2),  # matrices interleaved by row
              base.astype(">f8"),                    # non-native byte order
              rec["x"]):                             # strides that are not whole elements
        u, s, vh = batchsvd.svd(a)
        ref = np.array(a, dtype=np.float64)
        assert abs(u @ (s[..., None] * vh) - ref).max() < 1e-13
        assert np.allclose(s, np.linalg.svd(ref, compute_uv=False), rtol=0, atol=1e-13)


# ---- regressions these properties found --------------------------------------------------
# Rank-deficient single-precision matrices (equal rows, rank 1) gave Inf singular values, Inf/NaN
# singular vectors or no convergence, with info = 0, and near 2^-31 singular vectors far from
# orthogonal: the QR pre-processing's column norm scaled by 2^-e, which overflows for a
# subnormal largest entry, and matrices of largest entry down to 2^-40 went unscaled, where
# the products of rounding-noise columns underflow (core/precision.hpp's scale_exp_low).


def test_rank_deficient_single_precision_is_finite():
    row = np.array([3, 2, 2, -3, 0, -1, -3, -3], dtype=np.float32)
    a = np.ascontiguousarray(np.broadcast_to(row, (20, 8)))  # equal rows: sigma_1 = 30
    u, s, vh, info = batchsvd.svd(a, return_info=True)
    assert info == 0
    assert np.isfinite(s).all() and np.isfinite(u).all() and np.isfinite(vh).all(), s
    check_decomposition(a, u, s, vh, "float32")


@pytest.mark.parametrize("dtype", ["float32", "complex64"])
def test_rank_deficient_single_precision_near_underflow_is_finite(dtype):
    a = (np.outer([1, 3, 2], [1, 2, 3]) * 2.0**-42).astype(dtype)  # rank 1
    u, s, vh, info = batchsvd.svd(a, return_info=True)
    assert info == 0
    assert np.isfinite(s).all() and np.isfinite(u).all() and np.isfinite(vh).all(), s
    check_decomposition(a, u, s, vh, dtype)


def test_rank_deficient_single_precision_near_underflow_is_orthogonal():
    a = (np.outer([1, 3, 2], np.ones(15)) * 2.0**-31).astype(np.float32)  # rank 1
    u, s, vh, info = batchsvd.svd(a, return_info=True)
    assert info == 0
    check_decomposition(a, u, s, vh, "float32")
