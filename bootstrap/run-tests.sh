#!/usr/bin/env bash
# Sets up, builds and runs every test (Catch2 through ctest, plus the TensorFlow
# compatibility checks and the install test). Tests that need a GPU or TensorFlow say
# "Skipped" where those are missing.
#   bash bootstrap/run-tests.sh [--full] [--gpu]
# Without --full (the quick tier, a newcomer's first run): every test runs, the two long
# sweeps (the differential harness against TensorFlow, the Keras zoo) take a cross-section
# of their cases (--quick), and the build leaves out what no test runs: the benchmarks
# (`cmake --build build --target benchmarks` builds them), gemm's tests on emulated AVX-512
# vectors (gemm_wide_emulated_tests) and, where no GPU is visible, the CUDA kernels (--gpu
# builds them anyway).
# --full (what CI runs, .ci/run): everything is built, the CUDA kernels too where nvcc is
# (they only run where a GPU is), so no part of the tree rots unbuilt, and the sweeps run
# whole.
set -euo pipefail
cd "$(dirname "$0")/.."
tier=quick
cuda=AUTO
for arg in "$@"; do
  case "$arg" in
    --full) tier=full; cuda=ON ;;
    --gpu) cuda=ON ;;
    *) echo "run-tests.sh: unknown argument '$arg' (--full, --gpu)" >&2; exit 2 ;;
  esac
done
benchmarks=OFF
[ "$tier" = full ] && benchmarks=ON
# Debian's packages first (the build needs them, and pip is one of them). The quick tier
# installs PyPI's (TensorFlow, the tests' reference: ~1 minute on a fresh machine, mostly
# download) while it builds; --full before, as the benchmarks' configure looks for
# TensorFlow's C API in its wheel.
if [ "$tier" = full ]; then
  bash bootstrap/install-deps.sh
  pip_pid=""
else
  bash bootstrap/install-deps.sh --debian
  pip_log=$(mktemp)
  bash bootstrap/install-deps.sh --pypi >"$pip_log" 2>&1 &
  pip_pid=$!
fi
bash bootstrap/build.sh --debian -DTENSORACT_CUDA=$cuda -DTENSORACT_BUILD_BENCHMARKS=$benchmarks -DTENSORACT_TEST_TIER=$tier
if [ -n "$pip_pid" ]; then
  wait "$pip_pid" || echo "run-tests: installing PyPI's packages failed; the tests that need them say they are skipped" >&2
  cat "$pip_log"
  rm -f "$pip_log"
fi
cd build
# Twice the cores: the tests of real processes on loopback mostly wait (heartbeat
# timeouts, handshake deadlines), so a third and fourth test fill those waits.
ctest --output-on-failure -j"$(( $(nproc) * 2 ))"
