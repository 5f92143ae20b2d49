#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The CPU backend's copies for wider instruction sets (src/cpu/isa.hpp) may not hold a shared
# (weak, COMDAT) function with AVX code outside their own namespace: the linker keeps one copy
# of such a function for the whole program, and an AVX one would crash the baseline copy on a
# processor without AVX. Arguments: the object files of the wider copies.
#   isa_copies_check.sh OBJ...
set -euo pipefail
command -v objdump >/dev/null && command -v nm >/dev/null || { echo "objdump/nm not found: check not run"; exit 77; }
bad=0
for obj in "$@"; do
  # Weak definitions (mangled names), then every function whose code touches ymm/zmm registers.
  nm --defined-only "$obj" | awk '$2 == "W" || $2 == "V" {print $3}' | sort -u > /tmp/isa_weak.$$
  objdump -d --no-show-raw-insn "$obj" | awk '/^[0-9a-f]+ <.*>:$/ {name = substr($2, 2, length($2) - 3)} /%[yz]mm/ {print name}' \
    | sort -u > /tmp/isa_wide.$$
  # Allowed: the copy's own namespace (isa_avx2, isa_avx512, lanes_avx2, lanes_avx512).
  leaks=$(comm -12 /tmp/isa_weak.$$ /tmp/isa_wide.$$ | grep -vE '(isa|lanes)_avx(2|512)' || true)
  n_wide=$(wc -l < /tmp/isa_wide.$$)
  rm -f /tmp/isa_weak.$$ /tmp/isa_wide.$$
  if [ -n "$leaks" ]; then
    echo "FAIL $obj: shared functions with AVX code outside the copy's namespace:"; echo "$leaks" | c++filt | head -20
    bad=1
  elif [ "$n_wide" -eq 0 ]; then
    echo "FAIL $obj: no AVX code at all (the copy was not compiled for its instruction set)"; bad=1
  else
    echo "ok $obj ($n_wide functions with AVX code, none shared)"
  fi
done
exit $bad
