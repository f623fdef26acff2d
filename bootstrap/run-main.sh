#!/usr/bin/env bash
# The main job: sets up, builds and runs it. For now that is examples/hello, y = W·x + b
# through the actor runtime; Fashion-MNIST training replaces it in a later issue.
set -euo pipefail
cd "$(dirname "$0")/.."
bash bootstrap/build.sh
./build/examples/hello
