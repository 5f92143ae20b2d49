#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Sweeps of the GPU's blocked one-sided Jacobi (Design-2) on A, on R and on R^H, in NumPy.

A model, not the library: round-robin over block pairs; per pair G = X^T X, one sweep of the
parallel two-sided Jacobi eigensolver (round-robin inner steps, the same test
|g_ij| > 30u sqrt(g_ii g_jj)), then X <- X Q. A sweep with no rotation ends the iteration and is
counted, as the library counts it. R is the triangular factor of A = QR; Jacobi on R^H is the
preconditioning of Drmac and Veselic (its SVD gives A's V directly and U = Q times the
accumulated rotations). Real matrices, n a multiple of the block width.

    python3 bench/blocked_sweeps_model.py N NB random|geo [SEED]

It was run (2026-11-25; docs/paths/blocked.md) at 64/128 (NB 16) and 256 (NB 16, 32), two matrices each;
then with the sweeps from A V0 added (the preconditioning, src/cuda/precondition/precondition.cu).
"""
import sys

import numpy as np


def round_robin(n):
    """The library's ordering (core/ordering.hpp): steps of disjoint pairs, each pair once."""
    w = n + (n & 1)
    steps = []
    for s in range(w - 1):
        def slot(q):
            return 0 if q == 0 else 1 + (q - 1 + s) % (w - 1)
        steps.append([tuple(sorted((slot(p), slot(w - 1 - p)))) for p in range(w // 2)])
    return steps


def eigen_sweep(G, tol):
    """One sweep of parallel two-sided Jacobi on G in place; returns (Q, rotated)."""
    n = G.shape[0]
    Q = np.eye(n)
    rotated = False
    for step in round_robin(n):
        P = np.array([p for p, q in step if q < n])
        R = np.array([q for p, q in step if q < n])
        a, b, c = G[P, P], G[R, R], G[P, R]
        on = (np.abs(c) > tol * np.sqrt(np.abs(a * b))) & (a > 0) & (b > 0)
        if not on.any():
            continue
        rotated = True
        P, R, a, b, c = P[on], R[on], a[on], b[on], c[on]
        zeta = (b - a) / (2 * c)
        t = np.where(zeta == 0, 1.0, np.sign(zeta) / (np.abs(zeta) + np.sqrt(1 + zeta * zeta)))
        cs = 1 / np.sqrt(1 + t * t)
        sn = cs * t
        for M, cols in ((G, True), (G, False), (Q, True)):
            x = (M[:, P] if cols else M[P, :]).copy()
            y = (M[:, R] if cols else M[R, :]).copy()
            k = (lambda v: v) if cols else (lambda v: v[:, None])
            nx, ny = k(cs) * x - k(sn) * y, k(sn) * x + k(cs) * y
            if cols:
                M[:, P], M[:, R] = nx, ny
            else:
                M[P, :], M[R, :] = nx, ny
    return Q, rotated


def blocked_sweeps(X, nb, tol=30 * np.finfo(float).eps / 2, max_sweeps=60):
    X = X.copy()
    n = X.shape[1]
    nblk = (n + nb - 1) // nb
    blocks = [list(range(i * nb, min(n, (i + 1) * nb))) for i in range(nblk)]
    for sweep in range(1, max_sweeps + 1):
        rotated = False
        for step in round_robin(nblk):
            for i, j in step:
                cols = blocks[i] + (blocks[j] if j < nblk else [])
                Y = X[:, cols]
                Q, r = eigen_sweep(Y.T @ Y, tol)
                if r:
                    X[:, cols] = Y @ Q
                    rotated = True
        if not rotated:
            return sweep
    return max_sweeps


def main(argv):
    n, nb, family = int(argv[0]), int(argv[1]), argv[2]
    rng = np.random.default_rng(int(argv[3]) if len(argv) > 3 else 0)
    for _ in range(2):
        if family == "random":
            A = rng.random((n, n))
        else:  # geo: singular values 1 .. 1e-10 geometrically, random orthogonal factors
            U, _ = np.linalg.qr(rng.standard_normal((n, n)))
            V, _ = np.linalg.qr(rng.standard_normal((n, n)))
            A = (U * 1e-10 ** (np.arange(n) / (n - 1))) @ V.T
        R = np.linalg.qr(A)[1]
        # The preconditioning (src/cuda/precondition/precondition.cu): V0 the eigenvectors of
        # A^T A in float32 (descending), made orthogonal in float64 (here by QR), then A V0.
        G = (A.T @ A).astype(np.float32)
        V0 = np.linalg.qr(np.linalg.eigh(G)[1][:, ::-1].astype(np.float64))[0]
        print(n, nb, family, "A", blocked_sweeps(A, nb), "R", blocked_sweeps(R, nb),
              "R^H", blocked_sweeps(R.T.copy(), nb), "A V0", blocked_sweeps(A @ V0, nb), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
