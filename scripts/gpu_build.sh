#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds, on a machine without a GPU, everything scripts/gpu_check.sh runs on the GPU machine,
# into gpu-carry/ (ignored by git): the test program, the GPU benchmark and the CLI, for
# sm_90 (H100/H200), with the host libraries they need beside them (the GPU machine's image
# is not Debian and may lack LAPACK/libgfortran). The CUDA libraries are the device image's.
# It also packs gpu-carry/ into gpu-pack/carry.tar.xz (ignored by git): the binaries take about
# 70 MB, about 16 MB packed, for a copy to the GPU machine limited to 64 MiB. Then, on the GPU
# machine with gpu-pack/ copied there: scripts/gpu_check.sh (which unpacks it).
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
  batchsvd_vbatched_device_bench
rm -rf gpu-carry
mkdir -p gpu-carry/lib
cp build-gpu/tests/batchsvd_tests build-gpu/bench/batchsvd_gpu_bench build-gpu/bench/batchsvd_soak \
   build-gpu/bench/batchsvd_multi_gpu_bench build-gpu/bench/batchsvd_vbatched_device_bench build-gpu/tools/batchsvd \
   gpu-carry/
# (libzip: the CLI's .npz files; its own needs, zlib, libbz2 and libcrypto, are left to the image)
for bin in gpu-carry/batchsvd_tests gpu-carry/batchsvd_gpu_bench gpu-carry/batchsvd; do
  ldd "$bin" | awk '/=> \// {print $3}' | grep -E '/lib(lapack|blas|gfortran|quadmath|gomp|zip)\.so' || true
done | sort -u | while read -r lib; do cp -L "$lib" gpu-carry/lib/; done
echo "$commit" >gpu-carry/COMMIT
du -sh gpu-carry
rm -rf gpu-pack
mkdir -p gpu-pack
tar -cf - gpu-carry | xz -T2 -6 >gpu-pack/carry.tar.xz
du -sh gpu-pack/carry.tar.xz
