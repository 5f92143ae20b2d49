#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End-to-end tests of the batchsvd command-line tool:
#   cli_test.sh <path-to-batchsvd-binary> <tests-source-dir>
# Inputs are written by cli_check.py with Python's struct module (no NumPy needed); the
# outputs are checked without NumPy (files, header shapes, a few reconstructions) and, when
# NumPy is importable, in full by cli_check.py verify. Ends with "cli: N passed, M failed".
set -euo pipefail

if [[ $# -ne 2 ]]; then
    echo "usage: $0 <path-to-batchsvd-binary> <tests-source-dir>" >&2
    exit 2
fi
BIN=$1
CHECK=$2/cli_check.py
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
svd_options=(--out --backend --devices --tol --max-sweeps --no-u --no-v --progress --quiet -h,--help)
demo_options=(--m --n --batch --dtype --family --seed --backend --devices --tol --max-sweeps -h,--help)
run svd_help "$BIN" svd --help
check_help svd IN.npy "${svd_options[@]}"
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
svd_case c128_2d '<c16' 6,11 C --backend cpu --tol 10 --max-sweeps 50
svd_case f64_big_endian '>f8' 4,5,3 C
svd_case f64_f_wide '<f8' 7,3,8 F
svd_case no_u '<f8' 10,6,5 C --no-u
svd_case no_v '<c16' 10,5,6 F --no-v
svd_case no_uv '<f4' 3,4,4 C --no-u --no-v

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
