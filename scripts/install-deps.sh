#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs what batchsvd needs on Debian/Ubuntu: from Debian packages, compilers, CMake,
# Ninja, LAPACK/BLAS (OpenBLAS: the CPU backend's preconditioning), GoogleTest, OpenMP (with GCC), CLI11 (the CLI's option parser), libzip
# and pkg-config (the CLI's .npz files; CMake finds libzip through pkg-config), Python
# with its headers and pip (the Python package), NumPy (the CLI's check), Hypothesis (the
# Python package's property tests), Open MPI (batchsvd::distributed and its tests); from
# PyPI, NumPy, pytest and Hypothesis for a python3 that is not Debian's, and JAX, Dask and
# distributed (batchsvd.jax's and batchsvd.dask's tests; optional). `pip install .` fetches the Python build's
# own needs (scikit-build-core, nanobind, jax) from PyPI.
# The CUDA backend is built too when nvcc is present (the CUDA toolkit is not a Debian
# package we install here: put nvcc on PATH, or in /usr/local/cuda/bin).
set -euo pipefail
packages=(build-essential cmake ninja-build pkg-config liblapack-dev libblas-dev libopenblas-dev libgtest-dev
          libcli11-dev libzip-dev python3 python3-dev python3-pip python3-numpy python3-hypothesis
          libopenmpi-dev openmpi-bin)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all Debian packages present"
else
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The python3 first on PATH may not be Debian's (pyenv, a venv): the CLI's NumPy check needs
# NumPy in that interpreter, so it comes from PyPI when python3-numpy does not serve it.
# The Python package's tests need pytest, Hypothesis and JAX (CPU; batchsvd.jax's tests) in
# that interpreter too.
for mod in numpy pytest hypothesis jax dask distributed; do
  if ! python3 -c "import $mod" 2>/dev/null; then
    echo "install-deps: installing $mod for $(command -v python3) from PyPI"
    if [ "$mod" = jax ] || [ "$mod" = dask ] || [ "$mod" = distributed ]; then  # (optional: their tests skip)
      spec=$mod
      [ "$mod" = dask ] && spec="dask[array]"
      python3 -m pip install -q "$spec" || python3 -m pip install -q --break-system-packages "$spec" ||
        echo "install-deps: $mod could not be installed; its tests will skip"
    else
      python3 -m pip install -q "$mod" || python3 -m pip install -q --break-system-packages "$mod"
    fi
  fi
done
