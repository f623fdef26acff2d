#!/usr/bin/env bash
# Sets up, builds and runs every test (Catch2 through ctest, plus the TensorFlow
# compatibility checks and the install test). Tests that need a GPU or TensorFlow say
# "Skipped" where those are missing. Everything is built, the CUDA kernels too where nvcc
# is (they only run where a GPU is), so no part of the tree rots unbuilt.
set -euo pipefail
cd "$(dirname "$0")/.."
bash bootstrap/build.sh -DTENSORACT_CUDA=ON
cd build
ctest --output-on-failure -j"$(nproc)"
