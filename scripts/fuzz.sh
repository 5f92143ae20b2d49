#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Fuzzes the .npy reader and the command-line parse with libFuzzer (clang) under
# AddressSanitizer and UndefinedBehaviorSanitizer, for a fixed time:
#   scripts/fuzz.sh [SECONDS]       (default 60)
# Seeds: tests/fuzz_corpus/. New interesting inputs go to build-fuzz/corpus/; a crash is
# written to build-fuzz/crash-* and the script fails. Keep a crash's input in
# tests/fuzz_corpus/ once it is fixed: tests/npy_test.cpp replays the .npy inputs there and
# tests/cli_test.sh runs the tool with the argument ones.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
need=()
command -v clang++ >/dev/null || need+=(clang)
compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null ||
  need+=(libclang-rt-dev)
for p in libomp-dev libcli11-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
san="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DBATCHSVD_WITH_CUDA=OFF -DBATCHSVD_BUILD_TESTS=OFF -DBATCHSVD_BUILD_BENCH=OFF \
  -DBATCHSVD_BUILD_TOOLS=ON -DBATCHSVD_BUILD_FUZZ=ON -DCMAKE_CXX_FLAGS="$san" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build build-fuzz --target batchsvd_fuzz
mkdir -p build-fuzz/corpus
build-fuzz/tools/batchsvd_fuzz -max_total_time="$seconds" -max_len=4096 -timeout=10 \
  -artifact_prefix=build-fuzz/ build-fuzz/corpus tests/fuzz_corpus
