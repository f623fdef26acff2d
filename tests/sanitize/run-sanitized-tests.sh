#!/usr/bin/env bash
# The runtime's tests under sanitizers, with clang:
#   bash tests/sanitize/run-sanitized-tests.sh [asan|tsan|all]      (default: all)
# asan: every test of actors_tests (executor, rendezvous, data plane, sessions, control
#       flow...), client_tests (eager ops, Functions, SavedModels), bootstrap_tests
#       (tensoract-serve's JSON and server) and cluster_tests (real tensoract-node processes,
#       themselves instrumented) under AddressSanitizer and UndefinedBehaviorSanitizer, in
#       build-fuzz/ (the fuzzers'
#       build: the same instrumentation, so one build serves both; ~25 minutes on 2 cores
#       the first time).
# tsan: every test of actors_tests, client_tests (eager ops, tapes, Functions, SavedModels)
#       and bootstrap_tests (the model server's concurrent requests and version swaps) under
#       ThreadSanitizer (about 15 minutes), in build-tsan/, except the one that forks a
#       data-plane server (ThreadSanitizer cannot fork a multithreaded process).
# Any report fails the run (halt_on_error); the output of each binary is in
# <build>/sanitized_<binary>.log.
set -euo pipefail
cd "$(dirname "$0")/../.."
what=${1:-all}
command -v clang++ >/dev/null || { echo "run-sanitized-tests: needs clang (apt-get install clang)" >&2; exit 1; }
failed=0

run() {  # run BUILD BINARY FILTER...
  local build=$1 binary=$2
  shift 2
  local log="$build/sanitized_$binary.log"
  if TENSORACT_BUILD_DIR="$PWD/$build" TENSORACT_TEST_DATA="$PWD/tests/data" "$build/tests/$binary" "$@" >"$log" 2>&1; then
    echo "PASS $build/tests/$binary $* ($(grep -E '^All tests passed|^test cases' "$log" | tail -1))"
  else
    echo "FAIL $build/tests/$binary $* (see $log)"
    grep -E "ERROR: (Address|Thread|UndefinedBehavior)Sanitizer|runtime error|WARNING: ThreadSanitizer" "$log" | head -5 || true
    failed=1
  fi
}

if [ "$what" = asan ] || [ "$what" = all ]; then
  cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DTENSORACT_FUZZ=ON \
        -DTENSORACT_BUILD_EXAMPLES=OFF -DCMAKE_BUILD_TYPE=None "-DCMAKE_CXX_FLAGS=-O1 -gline-tables-only" >/dev/null
  cmake --build build-fuzz -j"$(nproc)" --target actors_tests client_tests bootstrap_tests cluster_tests tensoract-node
  # Leaks off: each Device's allocator is never freed, on purpose (kernels/device.h).
  export ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  run build-fuzz actors_tests
  run build-fuzz client_tests
  run build-fuzz bootstrap_tests
  run build-fuzz cluster_tests
  unset ASAN_OPTIONS UBSAN_OPTIONS
fi
if [ "$what" = tsan ] || [ "$what" = all ]; then
  cmake -S . -B build-tsan -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DTENSORACT_SANITIZE=thread \
        -DTENSORACT_BUILD_EXAMPLES=OFF -DCMAKE_BUILD_TYPE=None "-DCMAKE_CXX_FLAGS=-O1 -gline-tables-only" >/dev/null
  cmake --build build-tsan -j"$(nproc)" --target actors_tests client_tests bootstrap_tests
  # Debian's CAF is not instrumented: races inside its message passing are suppressed.
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/tests/sanitize/tsan.supp"
  # Hidden tests ([.]: a crash test's child side) run only when their parent starts them.
  run build-tsan actors_tests "~[.]" "~a server process killed mid-request gives Unavailable promptly"
  run build-tsan client_tests
  run build-tsan bootstrap_tests
  unset TSAN_OPTIONS
fi
exit $failed
