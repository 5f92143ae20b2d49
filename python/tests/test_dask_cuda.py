# SPDX-License-Identifier: BSD-3-Clause
"""batchsvd.dask on ``dask_cuda.LocalCUDACluster``: one worker process per GPU (at most two), a
real scheduler. Every worker sees its own GPU; NumPy chunks are solved on the worker's GPU and
CuPy chunks stay there (the results are CuPy arrays); each chunk's result is bitwise what
``batchsvd.svd`` gives that chunk in this process, NumPy and CuPy chunks alike, and the whole
batch reconstructs (e1-e4 < 30u); a NaN matrix raises LinAlgError, or gives info -1 for that
matrix alone. Skips where dask-cuda, CuPy or a CUDA GPU is missing (``pip install
".[dask-cuda]"``). Fresh random inputs on every run (the seed is printed on failure;
BATCHSVD_TEST_SEED replays it)."""

import os
import warnings

import numpy as np
import pytest

pytest.importorskip("dask", reason='dask is not installed (pip install ".[dask-cuda]"): not tested')
pytest.importorskip("distributed", reason='distributed is not installed (pip install ".[dask-cuda]"): not tested')
pytest.importorskip("dask_cuda", reason='dask-cuda is not installed (pip install ".[dask-cuda]"): not tested')
cupy = pytest.importorskip("cupy", reason="CuPy is not installed: dask-cuda's CuPy chunks are not tested")

import batchsvd  # noqa: E402

if not batchsvd.cuda_available():
    pytest.skip("no usable CUDA GPU (or batchsvd built without CUDA): dask-cuda workers are not tested",
                allow_module_level=True)

import dask.array as da  # noqa: E402
from dask_cuda import LocalCUDACluster  # noqa: E402
from distributed import Client  # noqa: E402

import batchsvd.dask as bd  # noqa: E402
from svd_measures import error_measures, random_matrices  # noqa: E402

SEED = int(os.environ.get("BATCHSVD_TEST_SEED", np.random.SeedSequence().entropy % (2**63)))
CHUNK = 5000


@pytest.fixture(scope="module")
def client():
    """One worker a GPU, at most two (a one-GPU machine gets one worker)."""
    workers = min(2, len(batchsvd.cuda_devices()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the dashboard's port, memory limits and the like)
        cluster = LocalCUDACluster(n_workers=workers, CUDA_VISIBLE_DEVICES=list(range(workers)),
                                   threads_per_worker=1, dashboard_address=None)
    with Client(cluster) as c:
        yield c
    cluster.close()


def _batch(shape, seed, dtype=np.float64):
    return random_matrices(np.random.default_rng(seed), shape, np.dtype(dtype).name)


def _visible_gpu():
    return os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0]


def test_every_worker_has_its_own_gpu(client):
    gpus = list(client.run(_visible_gpu).values())
    assert len(gpus) == min(2, len(batchsvd.cuda_devices()))
    assert "" not in gpus and len(set(gpus)) == len(gpus), "workers share a GPU: %s" % gpus


def _per_chunk(a):
    """batchsvd.svd of each chunk in this process: the result each task must give."""
    parts = [batchsvd.svd(a[i:i + CHUNK]) for i in range(0, a.shape[0], CHUNK)]
    return [np.concatenate([p[k] for p in parts]) for k in range(3)]


@pytest.mark.parametrize("dtype", [np.float64, np.complex64])
@pytest.mark.filterwarnings("ignore:Sending large graph")  # (the batch travels in the graph)
def test_numpy_and_cupy_chunks_on_the_workers_gpus(client, dtype):
    a = _batch((4 * CHUNK, 16, 12), SEED, dtype)
    expect = _per_chunk(a)
    e = error_measures(a, *expect, 1.0)
    worst = max(float(v.max()) for v in e.values()) / (np.finfo(a.real.dtype).eps / 2)
    assert worst < 30, "seed %d: worst e1-e4 %.1fu" % (SEED, worst)

    x = da.from_array(a, chunks=(CHUNK, 16, 12))
    got = client.compute(list(bd.svd(x)), sync=True)
    for name, g, w in zip(("U", "S", "Vh"), got, expect):
        assert isinstance(g, np.ndarray) and np.array_equal(g, w), \
            "seed %d: %s of NumPy chunks is not each chunk's batchsvd.svd" % (SEED, name)

    xg = x.map_blocks(cupy.asarray, dtype=a.dtype, meta=cupy.empty((0, 0, 0), a.dtype))
    U, S, Vh = bd.svd(xg)
    assert isinstance(U._meta, cupy.ndarray) and isinstance(S._meta, cupy.ndarray)
    got = client.compute([U, S, Vh], sync=True)
    for name, g, w in zip(("U", "S", "Vh"), got, expect):
        assert isinstance(g, cupy.ndarray), "%s of CuPy chunks came back as %s" % (name, type(g).__name__)
        assert np.array_equal(cupy.asnumpy(g), w), \
            "seed %d: %s of CuPy chunks is not each chunk's batchsvd.svd" % (SEED, name)


@pytest.mark.filterwarnings("ignore:Sending large graph")
def test_nan_matrix_on_a_gpu_worker(client):
    a = _batch((4 * CHUNK, 8, 8), SEED + 2)
    bad = 3 * CHUNK + 17
    a[bad, 2, 5] = np.inf
    for x in (da.from_array(a, chunks=(CHUNK, 8, 8)),
              da.from_array(a, chunks=(CHUNK, 8, 8)).map_blocks(cupy.asarray, dtype=a.dtype,
                                                                  meta=cupy.empty((0, 0, 0), a.dtype))):
        with pytest.raises(np.linalg.LinAlgError):
            client.compute(bd.svd(x)[1], sync=True)
        S, info, sweeps = bd.svdvals(x, return_info="sweeps")
        s, i, sw = (cupy.asnumpy(v) for v in client.compute([S, info, sweeps], sync=True))
        assert i[bad] == -1 and sw[bad] == 0 and np.isnan(s[bad]).all()
        assert (np.delete(i, bad) == 0).all() and (np.delete(sw, bad) >= 1).all()
        expect = np.concatenate([batchsvd.svdvals(a[k:k + CHUNK], return_info=True)[0]
                                 for k in range(0, a.shape[0], CHUNK)])
        assert np.array_equal(np.delete(s, bad, axis=0), np.delete(expect, bad, axis=0))
