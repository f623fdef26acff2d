#!/usr/bin/env bash
# Installs the dependencies (once) and configures and builds tensoract in build/.
# Extra arguments go to CMake's configure step (e.g. -DTENSORACT_PORTABLE=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
bash bootstrap/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build -j"$(nproc)"
