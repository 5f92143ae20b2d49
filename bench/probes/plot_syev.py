#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The fused eigensolver against cuSOLVER's syevBatched, 1000 real Gram matrices a point, from
syev_probe's CSV (lines 'n,batch,variant,streams,ms,...'; '#' and 'gpu,' lines skipped).

    python3 bench/probes/plot_syev.py \
        bench/results/h100/2026-11-26-fused-eigensolver/syev_probe_2501a16.csv syev_probe.png
"""
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows, gpu = [], ""
for line in open(sys.argv[1]):
    f = line.strip().split(",")
    if line.startswith("gpu,"):
        gpu = f[1]
    elif len(f) >= 5 and f[0].isdigit():
        rows.append((int(f[0]), int(f[1]), f[2], float(f[4])))
fig, ax = plt.subplots(figsize=(6, 4))
for variant, label in (("batched", "cuSOLVER cusolverDnXsyevBatched"), ("own", "batchsvd symmetric_eig_kernel")):
    pts = sorted((n, ms) for n, b, v, ms in rows if v == variant and b == 1000)
    ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=label)
ax.set_xlabel("order n (1000 float32 Gram matrices, eigenvalues and vectors)")
ax.set_ylabel("ms")
ax.set_title(f"Batched symmetric eigensolve, {gpu}")
ax.grid(True, alpha=0.3)
ax.legend()
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
print("wrote", sys.argv[2])
