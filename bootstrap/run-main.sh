#!/usr/bin/env bash
# The main job: sets up what it needs (Debian's packages, not the PyPI references the
# tests use), builds what it needs (the library and the training program, not the tests,
# benchmarks or the CUDA kernels), and trains on Fashion-MNIST with the local
# runtime: the MLP (10 epochs, ~10 s on 2 cores) and then the CNN (5 epochs, ~2.5 minutes
# on 2 cores). Each checkpoints every epoch under checkpoints/ and, run again, resumes from
# the latest (a finished run just evaluates); pass --fresh to start over. --gpu builds the
# CUDA kernels too and trains on the GPU. Other arguments go to both runs (e.g. --threads 2).
set -euo pipefail
cd "$(dirname "$0")/.."
build_args=(--target fashion_mnist --no-python)
run_args=()
for arg in "$@"; do
  if [ "$arg" = "--gpu" ]; then
    # The GPU's graphs place some ops on the CPU beside it: the CPU kernels the CPU-only
    # trainer does not ask for (libraries the registry loads on demand) are built too.
    build_args+=(-DTENSORACT_CUDA=ON --target tensoract_kernels_more_ops)
    run_args+=(--device gpu)
  else
    run_args+=("$arg")
  fi
done
bash bootstrap/build.sh "${build_args[@]}"
./build/examples/fashion_mnist --model mlp "${run_args[@]}"
./build/examples/fashion_mnist --model cnn "${run_args[@]}"
