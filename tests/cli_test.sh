#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End-to-end tests of the batchsvd command-line tool:
#   cli_test.sh <path-to-batchsvd-binary> <tests-source-dir>
# Inputs are written by cli_check.py with Python's struct module (no NumPy needed); the
# outputs are checked without NumPy (files, header shapes, a few reconstructions) and, when
# NumPy is importable, in full by cli_check.py verify. The .npz mode's archives are written by
# cli_npz_check.py with Python's zipfile and, with NumPy, by numpy.savez / savez_compressed,
# and checked the same two ways. Cases that need NumPy, or a batchsvd built with libzip (for
# .npz), are skipped with a message without them. Ends with "cli: N passed, M failed".
set -euo pipefail

if [[ $# -ne 2 ]]; then
    echo "usage: $0 <path-to-batchsvd-binary> <tests-source-dir>" >&2
    exit 2
fi
BIN=$1
CHECK=$2/cli_check.py
NPZ_CHECK=$2/cli_npz_check.py
CORPUS=$2/fuzz_corpus
command -v python3 >/dev/null || { echo "cli_test.sh: python3 is required" >&2; exit 1; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok:   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL: $1"; }

if python3 -c "import numpy" 2>/dev/null; then
    have_numpy=1
else
    have_numpy=0
    echo "skipped NumPy check: numpy not installed"
fi

# run NAME CMD... : runs CMD, keeps its exit status in $rc and output in $WORK/out, err
run() {
    rc=0
    "${@:2}" >"$WORK/out" 2>"$WORK/err" || rc=$?
}

# ---- help, version, demo -----------------------------------------------------------------
for h in --help help -h; do
    run help "$BIN" $h
    if [[ $rc -eq 0 ]] && grep -q "^usage: batchsvd" "$WORK/out"; then pass "$h"; else fail "$h (rc $rc)"; fi
done
# --help of each command (CLI11's, the same as `help COMMAND`) names every option it takes
# check_help NAME OPTIONS... : $WORK/out holds the help text of command NAME
check_help() {
    local name=$1 missing=()
    shift
    for o in "$@"; do grep -Eq -- "^ +$o( |$)" "$WORK/out" || missing+=("$o"); done
    if [[ $rc -eq 0 && ${#missing[@]} -eq 0 ]] && grep -q "^usage: batchsvd $name" "$WORK/out"; then
        pass "batchsvd${name:+ $name} --help"
    else fail "batchsvd${name:+ $name} --help (rc $rc), missing: ${missing[*]}"; fi
}
svd_options=(--out --backend --devices --tol --max-sweeps --threads --no-u --no-v --method --progress --quiet -h,--help)
demo_options=(--m --n --batch --dtype --family --seed --backend --devices --tol --max-sweeps --threads -h,--help)
run svd_help "$BIN" svd --help
check_help svd IN "${svd_options[@]}"
run demo_help "$BIN" demo -h
check_help demo "${demo_options[@]}"
cp "$WORK/out" "$WORK/demo_help"
run help_demo "$BIN" help demo
if [[ $rc -eq 0 ]] && cmp -s "$WORK/out" "$WORK/demo_help"; then pass "help demo"; else fail "help demo (rc $rc)"; fi
run main_help "$BIN" --help
check_help "" --version svd demo help

run version "$BIN" --version
if [[ $rc -eq 0 ]] && grep -Eq "^batchsvd [0-9]+\.[0-9]+\.[0-9]+$" "$WORK/out"; then
    pass "--version"; else fail "--version (rc $rc)"; fi

run demo "$BIN" demo
table_row='^(cpu|cuda) +float64 +%s +32 +32 +1000 +[0-9.]+( +[0-9.]+e[-+][0-9]+){4} +yes$'
# shellcheck disable=SC2059
if [[ $rc -eq 0 ]] && grep -Eq "$(printf "$table_row" random)" "$WORK/out" &&
    grep -Eq "$(printf "$table_row" geo)" "$WORK/out"; then
    pass "demo"; else fail "demo (rc $rc)"; cat "$WORK/out" "$WORK/err"; fi
demo_backend=$(awk '/^(cpu|cuda) /{print $1; exit}' "$WORK/out")

run demo_c64 "$BIN" demo --dtype complex64 --m 12 --n 7 --batch 50 --family logrand --seed 3
if [[ $rc -eq 0 ]] && grep -Eq '^(cpu|cuda) +complex64 +logrand +12 +7 +50 .* yes$' "$WORK/out"; then
    pass "demo --dtype complex64"; else fail "demo --dtype complex64 (rc $rc)"; cat "$WORK/out"; fi

# ---- svd: outputs checked with and without NumPy -----------------------------------------
# svd_case NAME DESCR SHAPE ORDER [svd options...]
svd_case() {
    local name=$1 descr=$2 shape=$3 order=$4
    shift 4
    local in="$WORK/$name.npy" out="$WORK/out_$name/nested"
    python3 "$CHECK" make "$in" "$descr" "$shape" "$order" 42
    run svd "$BIN" svd "$in" --out "$out" "$@"
    if [[ $rc -ne 0 || -s "$WORK/err" ]]; then
        fail "svd $name: rc $rc, stderr: $(head -c 300 "$WORK/err")"
        return
    fi
    local flags=()
    for f in "$@"; do [[ $f == --no-u || $f == --no-v ]] && flags+=("$f"); done
    if python3 "$CHECK" lite "$in" "$out" "${flags[@]}"; then pass "svd $name: files and shapes"
    else fail "svd $name: files and shapes"; fi
    if [[ $have_numpy -eq 1 ]]; then
        if python3 "$CHECK" verify "$in" "$out" "${flags[@]}"; then pass "svd $name: numpy check"
        else fail "svd $name: numpy check"; fi
    fi
}
svd_case f64_c '<f8' 100,40,25 C
svd_case c64_f '<c8' 30,16,24 F
svd_case c64_c '<c8' 20,9,9 C --backend auto
svd_case f32_2d_f '<f4' 20,7 F
svd_case c128_2d '<c16' 6,11 C --backend cpu --tol 10 --max-sweeps 50 --threads 2
svd_case f64_big_endian '>f8' 4,5,3 C
svd_case f64_f_wide '<f8' 7,3,8 F
svd_case no_u '<f8' 10,6,5 C --no-u
svd_case no_v '<c16' 10,5,6 F --no-v
svd_case no_uv '<f4' 3,4,4 C --no-u --no-v
svd_case values_bidiagonal '<f8' 6,40,30 C --no-u --no-v --method bidiagonal --backend cpu
svd_case values_jacobi '<c8' 6,30,40 F --no-u --no-v --method jacobi
# --method bidiagonal with vectors, or an unknown method: invalid usage (status 2)
python3 "$CHECK" make "$WORK/meth.npy" '<f8' 3,5,4 C 7
run meth_uv "$BIN" svd "$WORK/meth.npy" --out "$WORK/out_meth" --method bidiagonal --no-u
if [[ $rc -eq 2 ]] && grep -q "singular values only" "$WORK/err"; then pass "svd --method bidiagonal with V"
else fail "svd --method bidiagonal with V: rc $rc, $(head -c 300 "$WORK/err")"; fi
run meth_bad "$BIN" svd "$WORK/meth.npy" --out "$WORK/out_meth" --method qr
if [[ $rc -eq 2 ]] && grep -q "automatic, jacobi or bidiagonal" "$WORK/err"; then pass "svd --method qr"
else fail "svd --method qr: rc $rc, $(head -c 300 "$WORK/err")"; fi

# --progress: the batch in 20 slices with a line after each, the same files as one call
python3 "$CHECK" make "$WORK/prog.npy" '<f8' 40,9,7 C 5
run prog_whole "$BIN" svd "$WORK/prog.npy" --out "$WORK/out_prog_whole" --quiet
run prog "$BIN" svd "$WORK/prog.npy" --out "$WORK/out_prog" --progress
if [[ $rc -eq 0 && $(grep -c '^batchsvd: [0-9]* of 40 matrices' "$WORK/err") -eq 20 ]] &&
    grep -q '^batchsvd: 40 of 40 matrices (100%)' "$WORK/err" &&
    cmp -s "$WORK/out_prog/S.npy" "$WORK/out_prog_whole/S.npy" &&
    cmp -s "$WORK/out_prog/U.npy" "$WORK/out_prog_whole/U.npy" &&
    cmp -s "$WORK/out_prog/Vh.npy" "$WORK/out_prog_whole/Vh.npy"; then
    pass "svd --progress: 20 lines, same results"; else fail "svd --progress (rc $rc): $(head -c 300 "$WORK/err")"; fi
# of --progress and --quiet the last one counts
run prog_last "$BIN" svd "$WORK/prog.npy" --out "$WORK/out_prog_last" --quiet --progress
if [[ $rc -eq 0 && $(grep -c '^batchsvd: [0-9]* of 40 matrices' "$WORK/err") -eq 20 ]]; then
    pass "svd --quiet --progress: 20 lines"; else fail "svd --quiet --progress (rc $rc)"; fi
run quiet_last "$BIN" svd "$WORK/prog.npy" --out "$WORK/out_quiet_last" --progress --quiet
if [[ $rc -eq 0 && ! -s "$WORK/err" ]]; then
    pass "svd --progress --quiet: no lines"; else fail "svd --progress --quiet (rc $rc)"; fi

# nonconvergence and NaN are warnings, not errors
python3 "$CHECK" make "$WORK/slow.npy" '<f8' 8,30,30 C 1
run slow "$BIN" svd "$WORK/slow.npy" --out "$WORK/out_slow" --max-sweeps 1
if [[ $rc -eq 0 && $(wc -l <"$WORK/err") -eq 1 ]] &&
    grep -q "^batchsvd: warning: 8 of 8 matrices did not converge within 1 sweeps" "$WORK/err" &&
    [[ $(python3 "$CHECK" info "$WORK/out_slow") == "1 1 1 1 1 1 1 1" ]]; then
    pass "svd --max-sweeps 1: warning, info = 1"; else fail "svd --max-sweeps 1 (rc $rc): $(cat "$WORK/err")"; fi

python3 "$CHECK" make "$WORK/nan.npy" '<f4' 3,4,2 F 1 nan
run nan "$BIN" svd "$WORK/nan.npy" --out "$WORK/out_nan"
if [[ $rc -eq 0 && $(wc -l <"$WORK/err") -eq 1 ]] &&
    grep -q "^batchsvd: warning: 1 of 3 matrices hold NaN or Inf" "$WORK/err" &&
    [[ $(python3 "$CHECK" info "$WORK/out_nan") == "0 -1 0" ]]; then
    pass "svd with a NaN: warning, info = -1"; else fail "svd with a NaN (rc $rc): $(cat "$WORK/err")"; fi

# ---- errors: one line on stderr, the right status, no output files --------------------------
python3 "$CHECK" make "$WORK/good.npy" '<f8' 4,6,5 C 7
head -c 300 "$WORK/good.npy" >"$WORK/truncated.npy"
head -c 40 "$WORK/good.npy" >"$WORK/truncated_header.npy"
python3 "$CHECK" make "$WORK/int64.npy" '<i8' 2,3,3 C 7
python3 "$CHECK" make "$WORK/float16.npy" '<f2' 2,3,3 C 7
python3 "$CHECK" make "$WORK/ndim1.npy" '<f8' 12 C 7
python3 "$CHECK" make "$WORK/ndim4.npy" '<f8' 2,2,2,2 C 7
printf 'this is not a numpy file at all, just some text\n' >"$WORK/bad_magic.npy"

# expect_error NAME STATUS ARGS... (the output directory is $WORK/err_NAME)
expect_error() {
    local name=$1 status=$2
    shift 2
    local out="$WORK/err_$name"
    run "$name" "$BIN" "${@//@OUT@/$out}"
    local leftovers
    leftovers=$( { find "$out" -type f 2>/dev/null || true; } | wc -l)
    if [[ $rc -eq $status && $(wc -l <"$WORK/err") -eq 1 && ! -s "$WORK/out" && $leftovers -eq 0 ]] &&
        grep -q "^batchsvd: error: " "$WORK/err"; then
        pass "error $name: status $status, $(cat "$WORK/err")"
    else
        fail "error $name: status $rc (expected $status), $leftovers files left, stderr: $(head -c 300 "$WORK/err")"
    fi
}
expect_error missing_file 2 svd "$WORK/does_not_exist.npy" --out @OUT@
expect_error truncated 2 svd "$WORK/truncated.npy" --out @OUT@
expect_error truncated_header 2 svd "$WORK/truncated_header.npy" --out @OUT@
expect_error bad_magic 2 svd "$WORK/bad_magic.npy" --out @OUT@
expect_error int64 2 svd "$WORK/int64.npy" --out @OUT@
expect_error float16 2 svd "$WORK/float16.npy" --out @OUT@
expect_error ndim1 2 svd "$WORK/ndim1.npy" --out @OUT@
expect_error ndim4 2 svd "$WORK/ndim4.npy" --out @OUT@
expect_error directory_input 2 svd "$WORK" --out @OUT@
expect_error unknown_option 2 svd "$WORK/good.npy" --out @OUT@ --frobnicate
expect_error bad_tol 2 svd "$WORK/good.npy" --out @OUT@ --tol abc
expect_error negative_tol 2 svd "$WORK/good.npy" --out @OUT@ --tol -1
expect_error zero_sweeps 2 svd "$WORK/good.npy" --out @OUT@ --max-sweeps 0
expect_error zero_threads 2 svd "$WORK/good.npy" --out @OUT@ --threads 0
expect_error bad_backend 2 svd "$WORK/good.npy" --out @OUT@ --backend gpu
expect_error bad_devices 2 svd "$WORK/good.npy" --out @OUT@ --devices 0,x
expect_error negative_device 2 svd "$WORK/good.npy" --out @OUT@ --devices -1
expect_error empty_device 2 svd "$WORK/good.npy" --out @OUT@ --devices 0,
expect_error flag_with_value 2 svd "$WORK/good.npy" --out @OUT@ --no-u=1
expect_error unknown_short_option 2 svd "$WORK/good.npy" --out @OUT@ -x
expect_error option_as_input 2 svd -in.npy --out @OUT@
expect_error empty_out 2 svd "$WORK/good.npy" --out ""
expect_error repeated_bad_value 2 svd "$WORK/good.npy" --out @OUT@ --tol abc --tol 3
expect_error missing_value 2 svd "$WORK/good.npy" --out
expect_error missing_out 2 svd "$WORK/good.npy"
expect_error two_inputs 2 svd "$WORK/good.npy" "$WORK/good.npy" --out @OUT@
expect_error no_input 2 svd --out @OUT@
expect_error no_command 2
expect_error unknown_command 2 frobnicate
expect_error demo_bad_dtype 2 demo --dtype int8
expect_error demo_bad_family 2 demo --family nope
expect_error demo_bad_size 2 demo --m 0
expect_error demo_too_large 2 demo --m 1048576 --n 1048576
expect_error demo_positional 2 demo extra
expect_error help_unknown 2 help frobnicate
if [[ $demo_backend == cpu ]]; then  # no usable GPU: asking for cuda is a runtime failure
    expect_error cuda_unavailable 1 svd "$WORK/good.npy" --out @OUT@ --backend cuda
fi
touch "$WORK/a_file"  # --out names an existing file: an output failure
expect_error out_is_file 1 svd "$WORK/good.npy" --out "$WORK/a_file"

# ---- svd with .npz: named arrays in, one call, named results out ---------------------------
# A build without libzip refuses .npz with one line and status 1; the other .npz cases skip.
python3 "$NPZ_CHECK" make "$WORK/probe.npz" stored 'a:<f8:2,2:C'
run npz_probe "$BIN" svd "$WORK/probe.npz" --out "$WORK/probe_out.npz"
have_npz=0
if [[ $rc -eq 0 ]]; then
    have_npz=1
elif [[ $rc -eq 1 && $(wc -l <"$WORK/err") -eq 1 ]] && grep -q "built without libzip" "$WORK/err"; then
    pass "svd .npz without libzip: status 1, $(cat "$WORK/err")"
    echo "skipped .npz cases: this batchsvd was built without libzip (Debian package libzip-dev)"
else
    fail "svd .npz probe (rc $rc): $(head -c 300 "$WORK/err")"
fi

# Tall, wide, square, 1 x 1, 0 x 3, 4 x 0, a stack, big-endian, Fortran order, and two with a
# NaN (a matrix, and the middle one of a stack): 16 matrices, 2 of them with NaN.
npz_specs() {  # npz_specs DESCR [clean]: with "clean", no NaN
    local t=$1 nan=:nan
    [[ ${2:-} == clean ]] && nan=
    echo "tall:<$t:9,4:C wide:<$t:3,7:F square:<$t:6,6:C one:<$t:1,1:C empty:<$t:0,3:C" \
         "empty_cols:<$t:4,0:F stack:<$t:5,4,3:C big_endian:>$t:4,5:C bad:<$t:4,4:C$nan" \
         "bad_stack:<$t:3,3,2:F$nan"
}
# npz_case NAME WRITER DESCR [svd options...]: the specs above, checked without and with NumPy
npz_case() {
    local name=$1 writer=$2 descr=$3
    shift 3
    if [[ ($writer == savez || $writer == savez_compressed) && $have_numpy -eq 0 ]]; then
        echo "skipped svd .npz $name: numpy.$writer needs NumPy"
        return
    fi
    local in="$WORK/$name.npz" out="$WORK/out_$name/nested/result.npz"
    # shellcheck disable=SC2046
    python3 "$NPZ_CHECK" make "$in" "$writer" $(npz_specs "$descr")
    run "npz_$name" "$BIN" svd "$in" --out "$out" "$@"
    if [[ $rc -ne 0 || $(wc -l <"$WORK/err") -ne 1 ]] ||
        ! grep -q "^batchsvd: warning: 2 of 16 matrices hold NaN or Inf (info < 0); see bad/info, bad_stack/info in $out\$" "$WORK/err" ||
        ! grep -q "^batchsvd: 16 matrices in 10 arrays, " "$WORK/out"; then
        fail "svd .npz $name: rc $rc, stdout: $(head -c 200 "$WORK/out"), stderr: $(head -c 300 "$WORK/err")"
        return
    fi
    if python3 "$NPZ_CHECK" lite "$in" "$out" "$@"; then pass "svd .npz $name: members, shapes, info, sweeps"
    else fail "svd .npz $name: members, shapes, info, sweeps"; fi
    if [[ $have_numpy -eq 1 ]]; then
        if python3 "$NPZ_CHECK" verify "$in" "$out" "$@"; then pass "svd .npz $name: numpy check"
        else fail "svd .npz $name: numpy check"; fi
    fi
}
if [[ $have_npz -eq 1 ]]; then
    npz_case f64_savez savez f8
    npz_case c64_savez_compressed savez_compressed c8 --no-u
    npz_case f32_zipfile_deflated deflated f4 --no-v
    npz_case c128_zipfile_stored stored c16 --no-u --no-v --backend cpu
    [[ $have_numpy -eq 1 ]] || npz_case f64_zipfile_stored stored f8

    # A NaN matrix changes nothing else: the same archive without NaN gives the other arrays'
    # results bit for bit.
    # shellcheck disable=SC2046
    python3 "$NPZ_CHECK" make "$WORK/nan.npz" stored $(npz_specs f8)
    # shellcheck disable=SC2046
    python3 "$NPZ_CHECK" make "$WORK/clean.npz" stored $(npz_specs f8 clean)
    run npz_nan "$BIN" svd "$WORK/nan.npz" --out "$WORK/out_nan.npz"
    run npz_clean "$BIN" svd "$WORK/clean.npz" --out "$WORK/out_clean.npz"
    if [[ $rc -eq 0 && ! -s "$WORK/err" ]] && python3 "$NPZ_CHECK" lite "$WORK/clean.npz" "$WORK/out_clean.npz" &&
        python3 "$NPZ_CHECK" same "$WORK/out_nan.npz" "$WORK/out_clean.npz" bad bad_stack; then
        pass "svd .npz: NaN matrices leave the other results bit for bit"
    else fail "svd .npz: NaN matrices leave the other results (rc $rc): $(head -c 300 "$WORK/err")"; fi

    # Nonconvergence is a warning naming the arrays; info = sweeps = the limit.
    python3 "$NPZ_CHECK" make "$WORK/slow.npz" stored 'a:<f8:30,30:C' 'b:<f8:2,20,20:F' 'c:<f8:0,5:C'
    run npz_slow "$BIN" svd "$WORK/slow.npz" --out "$WORK/out_slow.npz" --max-sweeps 1
    if [[ $rc -eq 0 && $(wc -l <"$WORK/err") -eq 1 ]] &&
        grep -q "^batchsvd: warning: 3 of 4 matrices did not converge within 1 sweeps (info > 0); see a/info, b/info in $WORK/out_slow.npz\$" "$WORK/err" &&
        [[ $(python3 "$NPZ_CHECK" show "$WORK/out_slow.npz" b/info) == "1 1" ]] &&
        [[ $(python3 "$NPZ_CHECK" show "$WORK/out_slow.npz" b/sweeps) == "1 1" ]] &&
        python3 "$NPZ_CHECK" lite "$WORK/slow.npz" "$WORK/out_slow.npz" --max-sweeps 1; then
        pass "svd .npz --max-sweeps 1: warning, info = sweeps = 1"
    else fail "svd .npz --max-sweeps 1 (rc $rc): $(cat "$WORK/err")"; fi

    # --progress: one call, one line when it returns
    run npz_progress "$BIN" svd "$WORK/slow.npz" --out "$WORK/out_progress.npz" --progress
    if [[ $rc -eq 0 && $(wc -l <"$WORK/err") -eq 1 ]] && grep -q '^batchsvd: 4 of 4 matrices (100%)' "$WORK/err"; then
        pass "svd .npz --progress: one line"; else fail "svd .npz --progress (rc $rc): $(cat "$WORK/err")"; fi

    # Only empty matrices, an empty stack among them: results of size 0, one call of no work.
    python3 "$NPZ_CHECK" make "$WORK/zeros.npz" deflated 'z:<c8:0,0:C' 's:<c8:0,3,2:C' 'w:<c8:2,0:F'
    run npz_zeros "$BIN" svd "$WORK/zeros.npz" --out "$WORK/out_zeros.npz"
    if [[ $rc -eq 0 && ! -s "$WORK/err" ]] && python3 "$NPZ_CHECK" lite "$WORK/zeros.npz" "$WORK/out_zeros.npz"; then
        pass "svd .npz of empty matrices"; else fail "svd .npz of empty matrices (rc $rc): $(cat "$WORK/err")"; fi

    # An archive without arrays (numpy.savez() with none) gives one without arrays.
    printf 'PK\005\006%018d' 0 | tr 0 '\000' >"$WORK/no_arrays.npz"
    run npz_no_arrays "$BIN" svd "$WORK/no_arrays.npz" --out "$WORK/out_no_arrays.npz"
    if [[ $rc -eq 0 && ! -s "$WORK/err" ]] && grep -q "holds no arrays; wrote an empty archive" "$WORK/out" &&
        [[ -z $(python3 "$NPZ_CHECK" show "$WORK/out_no_arrays.npz" members) ]]; then
        pass "svd .npz without arrays: an empty archive"
    else fail "svd .npz without arrays (rc $rc): $(cat "$WORK/err")"; fi

    # Errors: one line, the right status, no output file.
    for kind in text_member bad_npy mixed_dtypes ndim1 ndim4 int32 int64 directory_member; do
        python3 "$NPZ_CHECK" bad "$WORK/bad_$kind.npz" "$kind"
        expect_error "npz_$kind" 2 svd "$WORK/bad_$kind.npz" --out @OUT@/r.npz
    done
    printf 'this is not a zip archive\n' >"$WORK/not_zip.npz"
    : >"$WORK/empty_file.npz"
    head -c 200 "$WORK/probe.npz" >"$WORK/truncated.npz"
    cp "$WORK/probe.npz" "$WORK/damaged.npz"
    printf '\377\377\377\377' | dd of="$WORK/damaged.npz" bs=1 seek=150 conv=notrunc 2>/dev/null
    expect_error npz_not_zip 2 svd "$WORK/not_zip.npz" --out @OUT@/r.npz
    expect_error npz_empty_file 2 svd "$WORK/empty_file.npz" --out @OUT@/r.npz
    expect_error npz_truncated 2 svd "$WORK/truncated.npz" --out @OUT@/r.npz
    expect_error npz_damaged 2 svd "$WORK/damaged.npz" --out @OUT@/r.npz
    expect_error npz_missing 2 svd "$WORK/does_not_exist.npz" --out @OUT@/r.npz
    expect_error npz_out_not_npz 2 svd "$WORK/probe.npz" --out @OUT@
    expect_error npy_out_npz 2 svd "$WORK/good.npy" --out @OUT@/r.npz
    expect_error npz_devices 2 svd "$WORK/probe.npz" --out @OUT@/r.npz --devices 0
    expect_error npz_out_is_input 2 svd "$WORK/probe.npz" --out "$WORK/probe.npz"
    mkdir -p "$WORK/a_dir.npz"
    expect_error npz_out_is_dir 1 svd "$WORK/probe.npz" --out "$WORK/a_dir.npz"
fi

# ---- the fuzz corpus's argument inputs (first byte even, then NUL-separated arguments): each
# runs to an exit status of 0, 1 or 2, not a crash (in a directory of its own)
mkdir "$WORK/replay"
bin_path=$(realpath -- "$BIN")
for f in "$CORPUS"/*; do
    [[ -s $f ]] || continue
    [[ $(( $(od -An -tu1 -N1 "$f") % 2 )) -eq 0 ]] || continue
    mapfile -d '' -t argv < <(tail -c +2 "$f")
    rc=0
    (cd "$WORK/replay" && exec "$bin_path" "${argv[@]}") >"$WORK/out" 2>"$WORK/err" || rc=$?
    if [[ $rc -le 2 ]]; then pass "corpus $(basename "$f"): status $rc"
    else fail "corpus $(basename "$f"): status $rc, stderr: $(head -c 300 "$WORK/err")"; fi
done

echo "cli: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
