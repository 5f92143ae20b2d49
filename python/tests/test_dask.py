# SPDX-License-Identifier: BSD-3-Clause
"""batchsvd.dask on a real ``distributed.LocalCluster``: two worker processes, a real scheduler.
A chunked batch reconstructs (e1-e4 < 30u) and equals the one-process result bitwise; a NaN
chunk raises LinAlgError, or gives info -1 with return_info; a worker process killed while it
computes is survived (the scheduler reruns its tasks) with a complete, correct result; bad
arguments fail at the call. Skips where dask or distributed is not installed
(``pip install ".[dask]"``). Fresh random inputs on every run (the seed is printed on failure;
BATCHSVD_TEST_SEED replays it)."""

import os
import signal
import tempfile
import warnings

import numpy as np
import pytest

pytest.importorskip("dask", reason='dask is not installed (pip install ".[dask]"): batchsvd.dask is not tested')
pytest.importorskip("distributed",
                    reason='distributed is not installed (pip install ".[dask]"): batchsvd.dask is not tested')

import dask.array as da  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

import batchsvd  # noqa: E402
import batchsvd.dask as bd  # noqa: E402
from svd_measures import error_measures  # noqa: E402

SEED = int(os.environ.get("BATCHSVD_TEST_SEED", np.random.SeedSequence().entropy % (2**63)))


@pytest.fixture(scope="module")
def client():
    """Two worker processes of one thread each (the CI machine has two cores), each task's
    batchsvd call on one CPU thread. Nannies restart a killed worker."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the dashboard's port and the like)
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with Client(cluster) as c:
        yield c
    cluster.close()


def _batch(shape, seed, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.filterwarnings("ignore:Sending large graph")  # (the batch travels in the graph)
def test_chunked_batch_matches_one_process(client):
    a = _batch((20000, 16, 16), SEED)
    x = da.from_array(a, chunks=(5000, 16, 16))
    U, S, Vh = bd.svd(x, threads=1)
    assert U.chunks[0] == (5000,) * 4 and S.shape == (20000, 16) and Vh.shape == (20000, 16, 16)
    u, s, vh = client.compute([U, S, Vh], sync=True)
    e = error_measures(a, u, s, vh, 1.0)
    worst = max(float(v.max()) for v in e.values()) / (np.finfo(np.float64).eps / 2)
    assert worst < 30, "seed %d: worst e1-e4 %.1fu" % (SEED, worst)
    u1, s1, vh1 = batchsvd.svd(a, threads=1)
    assert np.array_equal(u, u1) and np.array_equal(s, s1) and np.array_equal(vh, vh1), \
        "seed %d: not the one-process result" % SEED


def test_values_info_sweeps_and_more_batch_dimensions(client):
    a = _batch((6, 50, 40, 24), SEED + 1, np.float32)
    x = da.from_array(a, chunks=(3, 25, 40, 24))
    S, info, sweeps = bd.svdvals(x, return_info="sweeps")
    assert S.chunks == ((3, 3), (25, 25), (24,)) and info.shape == (6, 50) and info.dtype == np.int32
    s, i, sw = client.compute([S, info, sweeps], sync=True)
    assert (i == 0).all() and (sw >= 1).all()
    assert np.array_equal(s, batchsvd.svdvals(a))


def test_nan_chunk_raises_or_reports(client):
    a = _batch((4000, 8, 8), SEED + 2)
    a[2500, 3, 3] = np.nan
    x = da.from_array(a, chunks=(1000, 8, 8))
    with pytest.raises(np.linalg.LinAlgError):
        client.compute(bd.svd(x)[1], sync=True)
    S, info = bd.svdvals(x, return_info=True)
    s, i = client.compute([S, info], sync=True)
    assert i[2500] == -1 and np.isnan(s[2500]).all()
    assert (np.delete(i, 2500) == 0).all()


def _die_once(block, marker):
    """Kills the worker process computing the first chunk that reaches it (once: the marker
    file records it), as a real crash would: SIGKILL, no clean-up."""
    if block.size == 0:  # (Dask's metadata probe, in the calling process)
        return block
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return block
    os.close(fd)
    os.kill(os.getpid(), signal.SIGKILL)
    return block  # (not reached)


def test_a_worker_killed_while_computing_is_survived(client):
    a = _batch((8000, 12, 12), SEED + 3)
    with tempfile.TemporaryDirectory() as d:
        marker = os.path.join(d, "killed")
        x = da.from_array(a, chunks=(1000, 12, 12)).map_blocks(_die_once, marker, dtype=a.dtype,
                                                                     meta=np.empty((0, 0, 0), a.dtype))
        U, S, Vh = bd.svd(x, threads=1)
        u, s, vh = client.compute([U, S, Vh], sync=True)
        assert os.path.exists(marker), "no worker was killed"
    u1, s1, vh1 = batchsvd.svd(a, threads=1)
    assert np.array_equal(u, u1) and np.array_equal(s, s1) and np.array_equal(vh, vh1), \
        "seed %d: the result after a lost worker is not the one-process result" % SEED


def test_bad_arguments_fail_at_the_call():
    with pytest.raises(TypeError):
        bd.svd(np.ones((3, 4, 4)))
    with pytest.raises(TypeError):
        bd.svd(da.ones((3, 4, 4), dtype=np.int64))
    with pytest.raises(ValueError):
        bd.svd(da.ones((4,)))
    with pytest.raises(NotImplementedError):
        bd.svd(da.ones((3, 4, 4)), full_matrices=True)
    with pytest.raises(ValueError):
        bd.svd(da.ones((3, 4, 4)), return_info="yes")
    with pytest.warns(da.PerformanceWarning):
        U, S, Vh = bd.svd(da.ones((3, 8, 8), chunks=(3, 4, 8)))
    assert S.chunks == ((3,), (8,))


def test_copy_threads_of_a_gpu_worker(monkeypatch):
    """threads= as given; else, for a NumPy chunk on a worker with GPUs, its cores over the
    node's GPUs (at most 16), not Dask's OMP_NUM_THREADS=1; CPU workers keep OpenMP's default."""
    a = np.ones((2, 3, 3))
    assert bd._copy_threads(a, 3) == 3
    monkeypatch.setattr(batchsvd, "cuda_available", lambda: False)
    assert bd._copy_threads(a, None) is None
    monkeypatch.setattr(batchsvd, "cuda_available", lambda: True)
    monkeypatch.setattr(batchsvd, "cuda_devices", lambda: [0, 1])
    cores = len(os.sched_getaffinity(0))
    assert bd._copy_threads(a, None) == max(1, min(16, cores // 2))
    assert bd._copy_threads(a.tolist(), None) is None  # (not a NumPy chunk: CuPy's stay on the GPU)
