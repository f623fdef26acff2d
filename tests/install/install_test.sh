#!/usr/bin/env bash
# Installs the built project into a scratch prefix, then configures, builds and runs
# examples/standalone against it with find_package(tensoract), as a user's project would.
set -euo pipefail
build_dir=$1 app_src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build_dir" --prefix "$work/prefix" > "$work/install.log"
test -f "$work/prefix/lib/cmake/tensoract/tensoractConfig.cmake"
test -f "$work/prefix/include/tensoract/client/session.h"
test -f "$work/prefix/include/tensoract/messages/graph.pb.h"
cmake -S "$app_src" -B "$work/app" -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
cmake --build "$work/app" -j2 > "$work/build.log" || { cat "$work/build.log"; exit 1; }
"$work/app/standalone"
