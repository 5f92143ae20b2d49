#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds, on a machine without a GPU, everything the scripts/gpu_*.sh run on the GPU machine,
# into gpu-carry/ (ignored by git): the test program, the benchmarks, the soak test and the
# CLI, for sm_90 (H100/H200), with the host libraries they need beside them in gpu-carry/lib
# (the GPU machine's image is not Debian and may lack LAPACK/OpenBLAS/libgfortran). The CUDA
# libraries are the device image's.
#   scripts/gpu_build.sh [PROGRAM ...]
# Then it packs the PROGRAMs named (default all: tests, gpu_bench, multi_gpu_bench,
# vbatched_device_bench, bidiagonal_bench, hyperbolic_bench, soak, cli) with lib/ and COMMIT into one archive, gpu-pack/programs.tar.xz
# (ignored by git). Each program is about 40 MB, mostly the kernels of every path, which the
# programs share: with a dictionary larger than a program xz stores them once, so two programs
# pack to about 25 MB and all six to about 30 MB, within the 64 MiB a copy to the GPU machine
# may carry with the sources. On the GPU machine the scripts/gpu_*.sh unpack what gpu-pack/
# holds (scripts/gpu_unpack.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
source scripts/env.sh
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -z "$(git status --porcelain -- src include bench tests testing 2>/dev/null)" ] || commit="$commit+dirty"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DBATCHSVD_BUILD_TESTS=ON -DBATCHSVD_BUILD_TOOLS=ON -DBATCHSVD_BUILD_BENCH=ON \
      -DBATCHSVD_GIT_COMMIT="$commit" >/dev/null
cmake --build build-gpu -j "$JOBS" --target batchsvd_tests batchsvd_gpu_bench batchsvd_cli batchsvd_soak batchsvd_multi_gpu_bench \
  batchsvd_vbatched_device_bench batchsvd_bidiagonal_bench batchsvd_hyperbolic_bench
rm -rf gpu-carry
mkdir -p gpu-carry/lib
cp build-gpu/tests/batchsvd_tests build-gpu/bench/batchsvd_gpu_bench build-gpu/bench/batchsvd_soak \
   build-gpu/bench/batchsvd_multi_gpu_bench build-gpu/bench/batchsvd_vbatched_device_bench \
   build-gpu/bench/batchsvd_bidiagonal_bench build-gpu/bench/batchsvd_hyperbolic_bench build-gpu/tools/batchsvd \
   gpu-carry/
# (libzip: the CLI's .npz files; its own needs, zlib, libbz2 and libcrypto, are left to the image)
for bin in gpu-carry/batchsvd_tests gpu-carry/batchsvd_gpu_bench gpu-carry/batchsvd; do
  ldd "$bin" | awk '/=> \// {print $3}' | grep -E '/lib(lapack|blas|openblas|gfortran|quadmath|gomp|zip)\.so' || true
done | sort -u | while read -r lib; do cp -L "$lib" gpu-carry/lib/; done
echo "$commit" >gpu-carry/COMMIT
du -sh gpu-carry
programs=("$@")
[ ${#programs[@]} -gt 0 ] || programs=(tests gpu_bench multi_gpu_bench vbatched_device_bench bidiagonal_bench hyperbolic_bench soak cli)
rm -rf gpu-pack
mkdir -p gpu-pack
files=()
for p in "${programs[@]}"; do
  case $p in
    cli) files+=(gpu-carry/batchsvd) ;;
    tests|gpu_bench|multi_gpu_bench|vbatched_device_bench|bidiagonal_bench|hyperbolic_bench|soak) files+=("gpu-carry/batchsvd_$p") ;;
    *) echo "gpu_build: unknown program $p" >&2; exit 2 ;;
  esac
done
tar -cf - "${files[@]}" gpu-carry/lib gpu-carry/COMMIT | xz --lzma2=preset=6,dict=192MiB >gpu-pack/programs.tar.xz
du -sh gpu-pack/programs.tar.xz
