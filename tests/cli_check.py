#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Helper of tests/cli_test.sh for the batchsvd command-line tool.

  cli_check.py make PATH DESCR SHAPE ORDER SEED [nan]
      writes a .npy file with the struct module only (no NumPy): DESCR like '<f8', '>f8',
      '<c8', '<i8'; SHAPE like 100,40,25; ORDER C or F; values uniform in [-1, 1); with
      'nan', element 0 of matrix 1 is NaN
  cli_check.py lite IN DIR [--no-u] [--no-v]
      checks without NumPy: output files, their dtypes and shapes, info all zero, and
      A = U diag(S) Vh for a few matrices
  cli_check.py verify IN DIR [--no-u] [--no-v]
      full NumPy check of every matrix: reconstruction, orthonormality, S against NumPy's
  cli_check.py info DIR
      prints info.npy's values on one line (no NumPy)
"""
import ast
import math
import os
import random
import struct
import sys

FORMATS = {"f4": ("f", 1), "f8": ("d", 1), "c8": ("f", 2), "c16": ("d", 2),
           "i4": ("i", 1), "i8": ("q", 1), "f2": ("e", 1)}
REAL_OF = {"f4": "f4", "f8": "f8", "c8": "f4", "c16": "f8"}


def fail(msg):
    print("cli_check: FAIL: " + msg)
    sys.exit(1)


def npy_bytes(descr, shape, fortran, values):
    """The bytes of a .npy file (version 1.0) holding `values` in file order."""
    dict_text = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, "True" if fortran else "False", repr(tuple(shape)))
    pad = -(10 + len(dict_text) + 1) % 64
    header = (dict_text + " " * pad + "\n").encode("latin1")
    code, parts = FORMATS[descr[1:]]
    flat = []
    for v in values:
        flat.extend([v.real, v.imag] if parts == 2 else [v])
    return (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header +
            struct.pack("%s%d%s" % (descr[0], len(flat), code), *flat))


def write_npy(path, descr, shape, fortran, values):
    with open(path, "wb") as f:
        f.write(npy_bytes(descr, shape, fortran, values))


def parse_npy(raw, where):
    """(descr, fortran_order, shape, values in file order) of the bytes of a .npy file."""
    if raw[:6] != b"\x93NUMPY":
        fail(where + ": bad magic")
    if raw[6] == 1:
        (hlen,), start = struct.unpack("<H", raw[8:10]), 10
    else:
        (hlen,), start = struct.unpack("<I", raw[8:12]), 12
    d = ast.literal_eval(raw[start:start + hlen].decode("latin1"))
    descr, shape = d["descr"], tuple(d["shape"])
    code, parts = FORMATS[descr[1:]]
    count = math.prod(shape) * parts
    flat = struct.unpack("%s%d%s" % (descr[0], count, code), raw[start + hlen:])
    values = [complex(flat[i], flat[i + 1]) for i in range(0, count, 2)] if parts == 2 else list(flat)
    return descr, d["fortran_order"], shape, values


def read_npy(path):
    """(descr, fortran_order, shape, values in file order) of a .npy file."""
    with open(path, "rb") as f:
        return parse_npy(f.read(), path)


def element(arr, idx):
    """Element idx (a full index tuple) of an array from read_npy."""
    _, fortran, shape, values = arr
    flat, mult = 0, 1
    order = range(len(shape)) if fortran else reversed(range(len(shape)))
    for ax in order:
        flat += idx[ax] * mult
        mult *= shape[ax]
    return values[flat]


def make_values(descr, shape, order, seed, nan=False):
    """Values in file order, uniform in [-1, 1) (integers in [-100, 100)); with `nan`, element
    (1, 0, 0) of a 3-D array (of a 2-D one, element (0, 0)) is NaN."""
    rng = random.Random(int(seed))
    count = math.prod(shape)
    kind = descr[1:]
    if kind.startswith("i"):
        values = [rng.randrange(-100, 100) for _ in range(count)]
    elif kind.startswith("c"):
        values = [complex(rng.uniform(-1, 1), rng.uniform(-1, 1)) for _ in range(count)]
    else:
        values = [rng.uniform(-1, 1) for _ in range(count)]
    if nan:
        index = 0
        if len(shape) == 3:
            index = shape[1] * shape[2] if order == "C" else 1
        values[index] = float("nan")
    return values


def cmd_make(args):
    path, descr, shape_text, order, seed = args[:5]
    shape = [int(x) for x in shape_text.split(",")]
    values = make_values(descr, shape, order, seed, len(args) > 5 and args[5] == "nan")
    write_npy(path, descr, shape, order == "F", values)


def expected_outputs(in_shape, kind, no_u, no_v):
    batch = in_shape[:-2]
    m, n = in_shape[-2:]
    k = min(m, n)
    out = {"S.npy": ("<" + REAL_OF[kind], batch + (k,)), "info.npy": ("<i4", batch)}
    if not no_u:
        out["U.npy"] = ("<" + kind, batch + (m, k))
    if not no_v:
        out["Vh.npy"] = ("<" + kind, batch + (k, n))
    return out


def cmd_lite(args):
    in_path, out_dir = args[0], args[1]
    no_u, no_v = "--no-u" in args, "--no-v" in args
    a = read_npy(in_path)
    kind = a[0][1:]
    tol = 1e-13 if kind in ("f8", "c16") else 1e-5
    expected = expected_outputs(a[2], kind, no_u, no_v)
    present = {f for f in os.listdir(out_dir)}
    if present != set(expected):
        fail("files in %s are %s, expected %s" % (out_dir, sorted(present), sorted(expected)))
    arrays = {}
    for name, (descr, shape) in expected.items():
        arrays[name] = read_npy(os.path.join(out_dir, name))
        got = arrays[name]
        if got[0] != descr or got[2] != shape or got[1]:
            fail("%s: descr %s shape %s fortran %s, expected %s %s C" %
                 (name, got[0], got[2], got[1], descr, shape))
    if any(v != 0 for v in arrays["info.npy"][3]):
        fail("info has nonzero entries")
    batched = len(a[2]) == 3
    batch = a[2][0] if batched else 1
    m, n = a[2][-2:]
    k = min(m, n)
    worst = 0.0
    for b in sorted({0, batch // 2, batch - 1}):
        pre = (b,) if batched else ()
        s = [element(arrays["S.npy"], pre + (r,)) for r in range(k)]
        if any(s[r] < s[r + 1] for r in range(k - 1)) or any(x < 0 for x in s):
            fail("S of matrix %d is not descending and nonnegative" % b)
        if no_u or no_v:
            continue
        num = den = 0.0
        for i in range(m):
            urow = [element(arrays["U.npy"], pre + (i, r)) * s[r] for r in range(k)]
            for j in range(n):
                rec = sum(urow[r] * element(arrays["Vh.npy"], pre + (r, j)) for r in range(k))
                x = element(a, pre + (i, j))
                num += abs(x - rec) ** 2
                den += abs(x) ** 2
        worst = max(worst, math.sqrt(num / den))
    if worst >= tol:
        fail("relative reconstruction error %.3e >= %.0e" % (worst, tol))
    print("lite check ok: shapes, dtypes, info; reconstruction error %.2e" % worst)


def cmd_verify(args):
    import numpy as np

    in_path, out_dir = args[0], args[1]
    no_u, no_v = "--no-u" in args, "--no-v" in args
    a = np.load(in_path)
    kind = a.dtype.str[1:]
    single = kind in ("f4", "c8")
    tol = 1e-5 if single else 1e-13
    orth_tol = 1e-4 if single else 1e-12
    expected = expected_outputs(a.shape, kind, no_u, no_v)
    if {f for f in os.listdir(out_dir)} != set(expected):
        fail("unexpected set of files in " + out_dir)
    out = {}
    for name, (descr, shape) in expected.items():
        out[name] = np.load(os.path.join(out_dir, name))
        if out[name].dtype != np.dtype(descr) or out[name].shape != shape:
            fail("%s: %s %s, expected %s %s" % (name, out[name].dtype, out[name].shape, descr, shape))
    if np.any(out["info.npy"] != 0):
        fail("info has nonzero entries")
    s = out["S.npy"].astype(np.float64)
    if np.any(s < 0) or np.any(np.diff(s, axis=-1) > 0):
        fail("S is not descending and nonnegative")
    a64 = a.astype(np.complex128 if kind.startswith("c") else np.float64)
    s_ref = np.linalg.svd(a64, compute_uv=False)
    scale = np.where(s_ref[..., :1] > 0, s_ref[..., :1], 1) if s_ref.shape[-1] else 1
    s_err = float(np.max(np.abs(s - s_ref) / scale, initial=0))
    if s_err >= tol:
        fail("S differs from numpy.linalg.svd by %.3e (relative to ||A||_2)" % s_err)
    k = s.shape[-1]
    eye = np.eye(k)
    report = ["S error %.2e" % s_err]
    if not no_u:
        u = out["U.npy"].astype(a64.dtype)
        e = float(np.max(np.linalg.norm(np.conj(np.swapaxes(u, -1, -2)) @ u - eye, axis=(-2, -1)), initial=0))
        if e >= orth_tol:
            fail("||U^H U - I||_F = %.3e >= %.0e" % (e, orth_tol))
        report.append("U orth %.2e" % e)
    if not no_v:
        vh = out["Vh.npy"].astype(a64.dtype)
        e = float(np.max(np.linalg.norm(vh @ np.conj(np.swapaxes(vh, -1, -2)) - eye, axis=(-2, -1)), initial=0))
        if e >= orth_tol:
            fail("||Vh Vh^H - I||_F = %.3e >= %.0e" % (e, orth_tol))
        report.append("V orth %.2e" % e)
    if not no_u and not no_v:
        rec = (out["U.npy"].astype(a64.dtype) * s[..., None, :]) @ out["Vh.npy"].astype(a64.dtype)
        num = np.linalg.norm(a64 - rec, axis=(-2, -1))
        den = np.linalg.norm(a64, axis=(-2, -1))
        e = float(np.max(num / np.where(den > 0, den, 1), initial=0))
        if e >= tol:
            fail("max ||A - U diag(S) Vh||_F / ||A||_F = %.3e >= %.0e" % (e, tol))
        report.append("reconstruction %.2e" % e)
    print("numpy check ok: " + ", ".join(report))


def cmd_info(args):
    print(" ".join(str(v) for v in read_npy(os.path.join(args[0], "info.npy"))[3]))


def main():
    if len(sys.argv) < 2:
        fail(__doc__)
    cmds = {"make": cmd_make, "lite": cmd_lite, "verify": cmd_verify, "info": cmd_info}
    if sys.argv[1] not in cmds:
        fail("unknown command " + sys.argv[1])
    cmds[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()
