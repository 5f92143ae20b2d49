# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the build scripts: puts nvcc on PATH when the CUDA toolkit is in its usual place,
# so that the CUDA backend is compiled wherever nvcc exists.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
JOBS=${JOBS:-$(nproc)}
