#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Helper of tests/cli_test.sh for `batchsvd svd IN.npz --out OUT.npz`.

  cli_npz_check.py make PATH WRITER SPEC...
      writes an .npz: WRITER savez or savez_compressed (NumPy's), stored or deflated
      (Python's zipfile, no NumPy); SPEC NAME:DESCR:SHAPE:ORDER[:nan] as cli_check.py make
      (array i takes seed 100 + i, so that two archives of the same specs hold the same values)
  cli_npz_check.py bad PATH KIND
      writes an invalid .npz (no NumPy): KIND text_member, bad_npy, mixed_dtypes, ndim1, ndim4,
      int32, int64 or directory_member
  cli_npz_check.py lite IN OUT [--no-u] [--no-v] [--max-sweeps N]
      checks without NumPy: the members of OUT (NAME/S, U, Vh, info, sweeps for each array NAME
      of IN, in order), their dtypes and shapes, info (-1 for a matrix with NaN, else 0, or N
      with --max-sweeps N), sweeps, NaN results of NaN matrices, and A = U diag(S) Vh
  cli_npz_check.py verify IN OUT [--no-u] [--no-v] [--max-sweeps N]
      the same with NumPy (numpy.load), and S against numpy.linalg.svd and U, V orthonormal
  cli_npz_check.py show OUT MEMBER
      prints the values of member MEMBER ("members": the member names) on one line
  cli_npz_check.py same OUT1 OUT2 NAME...
      every member of OUT1 is in OUT2 with the same bytes, but the results of arrays NAME
"""
import cmath
import io
import math
import sys
import zipfile

from cli_check import REAL_OF, element, fail, make_values, npy_bytes, parse_npy

RESULTS = ("S", "U", "Vh", "info", "sweeps")


def parse_spec(spec):
    name, descr, shape_text, order, *rest = spec.split(":")
    shape = [int(x) for x in shape_text.split(",")]
    return name, descr, shape, order, rest == ["nan"]


def cmd_make(args):
    path, writer, specs = args[0], args[1], args[2:]
    members = {}
    for i, spec in enumerate(specs):
        name, descr, shape, order, nan = parse_spec(spec)
        values = make_values(descr, shape, order, 100 + i, nan)
        members[name] = npy_bytes(descr, shape, order == "F", values)
    if writer in ("savez", "savez_compressed"):
        import numpy as np
        arrays = {name: np.load(io.BytesIO(raw)) for name, raw in members.items()}
        getattr(np, writer)(path, **arrays)
    elif writer in ("stored", "deflated"):
        method = zipfile.ZIP_STORED if writer == "stored" else zipfile.ZIP_DEFLATED
        with zipfile.ZipFile(path, "w", method) as z:
            for name, raw in members.items():
                z.writestr(name + ".npy", raw)
    else:
        fail("unknown writer " + writer)


def cmd_bad(args):
    path, kind = args
    good = npy_bytes("<f8", (2, 2), False, [1.0, 2.0, 3.0, 4.0])
    members = {
        "text_member": [("a.npy", good), ("notes.txt", b"not an array\n")],
        "bad_npy": [("a.npy", good), ("b.npy", b"\x93NUMPY but not really")],
        "mixed_dtypes": [("a.npy", good), ("b.npy", npy_bytes("<f4", (2, 2), False, [1.0] * 4))],
        "ndim1": [("a.npy", good), ("v.npy", npy_bytes("<f8", (4,), False, [1.0] * 4))],
        "ndim4": [("t.npy", npy_bytes("<f8", (1, 2, 2, 1), False, [1.0] * 4))],
        "int32": [("a.npy", npy_bytes("<i4", (2, 2), False, [1, 2, 3, 4]))],
        "int64": [("a.npy", npy_bytes("<i8", (2, 2), False, [1, 2, 3, 4]))],
        "directory_member": [("dir/", b""), ("a.npy", good)],
    }[kind]
    with zipfile.ZipFile(path, "w") as z:
        for name, raw in members:
            z.writestr(name, raw)


def read_npz(path):
    """{member name without .npy: parse_npy result}, in archive order."""
    with zipfile.ZipFile(path) as z:
        out = {}
        for info in z.infolist():
            if not info.filename.endswith(".npy"):
                fail("%s: member %s is not .npy" % (path, info.filename))
            out[info.filename[:-4]] = parse_npy(z.read(info), path + ":" + info.filename)
        return out


def options(args):
    no_u, no_v = "--no-u" in args, "--no-v" in args
    max_sweeps = int(args[args.index("--max-sweeps") + 1]) if "--max-sweeps" in args else None
    return no_u, no_v, max_sweeps


def expected_members(inputs, no_u, no_v):
    names = []
    for name in inputs:
        names += ["%s/%s" % (name, r) for r in RESULTS
                  if not (r == "U" and no_u) and not (r == "Vh" and no_v)]
    return names


def finite(x):
    return cmath.isfinite(x) if isinstance(x, complex) else math.isfinite(x)


def check_status(name, b, info, sweeps, bad, empty, max_sweeps, values_only=False):
    """The info and sweeps of matrix b of array `name` (`bad`: it holds NaN or Inf; values_only:
    --no-u --no-v, where a matrix may take the bidiagonal route, which runs no sweeps)."""
    limit = max_sweeps or 100
    if bad or empty:
        want_info, sweeps_ok = (-1 if bad else 0), sweeps == 0
    elif max_sweeps is not None and info != 0:
        want_info, sweeps_ok = max_sweeps, sweeps == max_sweeps
    else:
        want_info, sweeps_ok = 0, (0 if values_only else 1) <= sweeps <= limit
    if info != want_info:
        fail("%s matrix %d: info %d, expected %d" % (name, b, info, want_info))
    if not sweeps_ok:
        fail("%s matrix %d: sweeps %d with info %d%s" % (name, b, sweeps, info, " (empty)" if empty else ""))


def cmd_lite(args):
    inputs, outputs = read_npz(args[0]), read_npz(args[1])
    no_u, no_v, max_sweeps = options(args[2:])
    if list(outputs) != expected_members(inputs, no_u, no_v):
        fail("members %s, expected %s" % (list(outputs), expected_members(inputs, no_u, no_v)))
    worst = None  # the worst reconstruction error, where U and V are there
    for name, a in inputs.items():
        kind, shape = a[0][1:], a[2]
        batch, (m, n) = shape[:-2], shape[-2:]
        k = min(m, n)
        want = {"S": ("<" + REAL_OF[kind], batch + (k,)), "U": ("<" + kind, batch + (m, k)),
                "Vh": ("<" + kind, batch + (k, n)), "info": ("<i4", batch), "sweeps": ("<i4", batch)}
        res = {r: outputs["%s/%s" % (name, r)] for r in RESULTS if "%s/%s" % (name, r) in outputs}
        for r, got in res.items():
            if (got[0], got[2], got[1]) != want[r] + (False,):
                fail("%s/%s: %s %s fortran %s, expected %s %s C" % (name, r, got[0], got[2], got[1], *want[r]))
        tol = 1e-13 if kind in ("f8", "c16") else 1e-5
        for b in range(batch[0] if batch else 1):
            pre = (b,) if batch else ()
            mat = [[element(a, pre + (i, j)) for j in range(n)] for i in range(m)]
            bad = not all(finite(x) for row in mat for x in row)
            check_status(name, b, element(res["info"], pre), element(res["sweeps"], pre), bad,
                         k == 0, max_sweeps, no_u and no_v)
            s = [element(res["S"], pre + (r,)) for r in range(k)]
            if bad:
                if any(finite(x) for x in s):
                    fail("%s matrix %d holds NaN, its S does not" % (name, b))
                continue
            if any(s[r] < s[r + 1] for r in range(k - 1)) or any(x < 0 for x in s):
                fail("%s matrix %d: S is not descending and nonnegative" % (name, b))
            if no_u or no_v or k == 0 or (max_sweeps and element(res["info"], pre)):
                continue
            num = den = 0.0
            for i in range(m):
                urow = [element(res["U"], pre + (i, r)) * s[r] for r in range(k)]
                for j in range(n):
                    rec = sum(urow[r] * element(res["Vh"], pre + (r, j)) for r in range(k))
                    num += abs(mat[i][j] - rec) ** 2
                    den += abs(mat[i][j]) ** 2
            err = math.sqrt(num / den) if den else math.sqrt(num)
            if err >= tol:
                fail("%s matrix %d: relative reconstruction error %.3e >= %.0e" % (name, b, err, tol))
            worst = max(worst or 0.0, err)
    print("npz lite check ok: %d arrays, members, dtypes, shapes, info, sweeps%s" %
          (len(inputs), "" if worst is None else "; reconstruction error %.2e" % worst))


def cmd_verify(args):
    import numpy as np

    no_u, no_v, max_sweeps = options(args[2:])
    with np.load(args[0]) as f:
        inputs = {name: f[name] for name in f.files}
    with np.load(args[1]) as f:
        if f.files != expected_members(inputs, no_u, no_v):
            fail("members %s, expected %s" % (f.files, expected_members(inputs, no_u, no_v)))
        outputs = {name: f[name] for name in f.files}
    report = {"S": 0.0}  # worst of each measure taken
    for name, a in inputs.items():
        single = a.dtype.char in "fF"
        tol, orth_tol = (1e-5, 1e-4) if single else (1e-13, 1e-12)
        stack = a if a.ndim == 3 else a[None]
        res = {r: outputs.get("%s/%s" % (name, r)) for r in RESULTS}
        res = {r: (None if x is None else (x if a.ndim == 3 else x[None])) for r, x in res.items()}
        k = min(a.shape[-2:])
        for b, mat in enumerate(stack):
            bad = not np.all(np.isfinite(mat))
            info, sweeps = int(res["info"][b]), int(res["sweeps"][b])
            check_status(name, b, info, sweeps, bad, k == 0, max_sweeps, no_u and no_v)
            s = res["S"][b].astype(np.float64)
            if bad:
                if not np.all(np.isnan(s)):
                    fail("%s matrix %d holds NaN, its S does not" % (name, b))
                continue
            if k == 0 or info != 0:
                continue
            a64 = mat.astype(np.complex128 if np.iscomplexobj(mat) else np.float64)
            s_ref = np.linalg.svd(a64, compute_uv=False)
            err = float(np.max(np.abs(s - s_ref)) / max(s_ref[0], 1e-300))
            report["S"] = max(report["S"], err)
            if err >= tol:
                fail("%s matrix %d: S differs from numpy.linalg.svd by %.3e" % (name, b, err))
            eye = np.eye(k)
            if not no_u:
                u = res["U"][b].astype(a64.dtype)
                e = float(np.linalg.norm(u.conj().T @ u - eye))
                report["U orth"] = max(report.get("U orth", 0.0), e)
                if e >= orth_tol:
                    fail("%s matrix %d: ||U^H U - I||_F = %.3e" % (name, b, e))
            if not no_v:
                vh = res["Vh"][b].astype(a64.dtype)
                e = float(np.linalg.norm(vh @ vh.conj().T - eye))
                report["V orth"] = max(report.get("V orth", 0.0), e)
                if e >= orth_tol:
                    fail("%s matrix %d: ||Vh Vh^H - I||_F = %.3e" % (name, b, e))
            if not no_u and not no_v:
                rec = (res["U"][b].astype(a64.dtype) * s) @ res["Vh"][b].astype(a64.dtype)
                e = float(np.linalg.norm(a64 - rec) / max(np.linalg.norm(a64), 1e-300))
                report["reconstruction"] = max(report.get("reconstruction", 0.0), e)
                if e >= tol:
                    fail("%s matrix %d: ||A - U diag(S) Vh||_F / ||A||_F = %.3e" % (name, b, e))
    print("npz numpy check ok: %d arrays; worst " % len(inputs) +
          ", ".join("%s %.2e" % kv for kv in report.items()))


def cmd_show(args):
    with zipfile.ZipFile(args[0]) as z:
        if args[1] == "members":
            print(" ".join(n[:-4] if n.endswith(".npy") else n for n in z.namelist()))
            return
        arr = parse_npy(z.read(args[1] + ".npy"), args[0])
    print(" ".join(str(v) for v in arr[3]))


def cmd_same(args):
    skip = tuple(name + "/" for name in args[2:])
    with zipfile.ZipFile(args[0]) as z1, zipfile.ZipFile(args[1]) as z2:
        compared = 0
        for name in z1.namelist():
            if name.startswith(skip):
                continue
            if z1.read(name) != z2.read(name):
                fail("member %s differs" % name)
            compared += 1
    print("same: %d members bit for bit" % compared)


def main():
    cmds = {"make": cmd_make, "bad": cmd_bad, "lite": cmd_lite, "verify": cmd_verify,
            "show": cmd_show, "same": cmd_same}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        fail(__doc__)
    cmds[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()
