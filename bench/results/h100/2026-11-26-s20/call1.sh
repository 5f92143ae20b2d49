#!/usr/bin/env bash
# Session 20, call 1: the eigensolver tests (fused and split forms) and the eigensolver probe
# with the split form. From the repository root with gpu-pack/ and probe-carry/ carried.
set -u
python3 -c "import tarfile; tarfile.open('gpu-pack/carry.tar.xz').extractall()"
export LD_LIBRARY_PATH=$PWD/gpu-carry/lib
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 150 gpu-carry/batchsvd_tests --gtest_filter='CudaSymmetricEig*' 2>&1 | grep -E "eig   |OK|FAILED|PASSED|Failure|Expected|Which|info" | head -80 | tee $OUT/c1_tests.log
timeout 90 ./probe-carry/syev_probe 128:1000 236:1000 256:1000 300:1000 2>&1 | grep -v chunks | tee $OUT/c1_syev_probe.csv
