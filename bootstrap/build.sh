#!/usr/bin/env bash
# Installs the dependencies (once) and configures and builds tensoract in build/.
#   bash bootstrap/build.sh [--target NAME]... [--no-python | --debian] [CMAKE_ARGS...]
# --target builds only NAME and what it needs (repeatable; default: everything);
# --no-python installs only Debian's packages, not the PyPI references the tests use
# (--debian: the tests' Debian packages too; run-tests.sh installs PyPI's meanwhile). The
# other arguments go to CMake's configure step (e.g. -DTENSORACT_PORTABLE=ON, -DTENSORACT_CUDA=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
targets=()
deps_args=()
cmake_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --target) [ $# -ge 2 ] || { echo "build.sh: --target needs a name" >&2; exit 2; }; targets+=(--target "$2"); shift 2 ;;
    --no-python | --debian) deps_args+=("$1"); shift ;;
    *) cmake_args+=("$1"); shift ;;
  esac
done
bash bootstrap/install-deps.sh "${deps_args[@]}"
# Ninja for a new build folder: it starts a library's files while the one below it still
# links, where make waits, which keeps both cores busy at each layer's end. A folder
# configured before keeps its generator.
generator=()
if [ ! -f build/CMakeCache.txt ] && command -v ninja >/dev/null; then generator=(-G Ninja); fi
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "${cmake_args[@]}"
cmake --build build -j"$(nproc)" "${targets[@]}"
