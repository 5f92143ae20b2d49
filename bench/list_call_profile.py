#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Where the time of a batchsvd.svd(list) call goes on the GPU: the whole call against the
# extension's gesvd_vbatched call inside it (the library, synchronised), for lists shaped as
# vbatched_bench.py's mixed_small (10000 square, orders 2..64) and mixed_shapes (2000, m and n
# 16..256), float64 CUDA tensors, three calls each after a warm-up. Needs PyTorch with CUDA.
#     python3 bench/list_call_profile.py
import time, torch, numpy as np, batchsvd, batchsvd._batchsvd as ext
rng = np.random.default_rng(0)
for case, shapes in [("mixed_small", [(int(o), int(o)) for o in rng.integers(2, 65, 10000)]),
                     ("mixed_shapes", [(int(m), int(n)) for m, n in rng.integers(16, 257, (2000, 2))])]:
    mats = [torch.rand(m, n, dtype=torch.float64, device="cuda") for m, n in shapes]
    batchsvd.svd(mats); torch.cuda.synchronize()
    inner = []
    name = "gesvd_vbatched_pointers" if hasattr(ext, "gesvd_vbatched_pointers") else "gesvd_vbatched"
    orig = getattr(ext, name)
    def timed(*a, **k):
        torch.cuda.synchronize(); t = time.perf_counter(); r = orig(*a, **k); torch.cuda.synchronize()
        inner.append(time.perf_counter() - t); return r
    setattr(ext, name, timed)
    for _ in range(3):
        torch.cuda.synchronize(); t = time.perf_counter(); batchsvd.svd(mats); torch.cuda.synchronize()
        print(case, "whole %.1f ms, in the library %.1f ms" % ((time.perf_counter() - t) * 1e3, inner[-1] * 1e3))
    setattr(ext, name, orig)
