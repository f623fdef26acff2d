#!/usr/bin/env bash
# The soak test: the distributed example's MLP trains under a TrainingLoop for MINUTES
# (default 30) while the ps and worker 1 are killed and restarted and worker 1 is frozen,
# in turn, every CHAOS seconds (default 30); every node's descriptors, threads, memory and
# rendezvous entries are printed every 30 s, and the final accuracy is compared with an
# uninterrupted run's (tests/soak/soak.cc says what passes).
#   bash tests/soak/run-soak.sh [MINUTES] [CHAOS] [build_dir]      (output also in soak.log)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${3:-$here/../../build}
cmake --build "$build" --target soak tensoract-node >/dev/null
TENSORACT_BUILD_DIR=$build "$build/tests/soak/soak" --minutes "${1:-30}" --chaos-every-s "${2:-30}" 2>&1 | tee soak.log
