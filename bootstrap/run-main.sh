#!/usr/bin/env bash
# The main job: sets up, builds, and trains on Fashion-MNIST with the local runtime: the
# MLP (10 epochs, about a minute) and then the CNN (5 epochs, several minutes on 2 cores).
# Each checkpoints every epoch under checkpoints/ and, run again, resumes from the latest
# (a finished run just evaluates); pass --fresh to start over. Extra arguments go to both
# runs (e.g. --threads 2).
set -euo pipefail
cd "$(dirname "$0")/.."
bash bootstrap/build.sh
./build/examples/fashion_mnist --model mlp "$@"
./build/examples/fashion_mnist --model cnn "$@"
