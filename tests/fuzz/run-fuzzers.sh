#!/usr/bin/env bash
# Fuzzes each target of tests/fuzz/fuzz_targets.h with libFuzzer for MINUTES minutes
# (default 5), one after another, and prints what each did:
#   bash tests/fuzz/run-fuzzers.sh [MINUTES] [TARGET...]     # targets: all when none named
# It builds the fuzzers first, in build-fuzz/ (clang, every library with coverage, ASan and
# UBSan, -O1; about 25 minutes on 2 cores the first time; tests/sanitize/run-sanitized-tests.sh shares it). Each target starts from its kept
# inputs (tests/fuzz/corpus/<target>/) and grows a working corpus in build-fuzz/corpus/<target>/.
# A crash, a sanitizer report, a hang or a leak of the harness lands in
# build-fuzz/findings/<target>/: fix it, copy the input into tests/fuzz/corpus/<target>/
# (fuzz_tests replays it from then on) and run again.
set -euo pipefail
cd "$(dirname "$0")/../.."
minutes=${1:-5}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(graph_def tensor_proto control_request data_plane_server data_plane_client record_file)
fi
command -v clang++ >/dev/null || { echo "run-fuzzers: needs clang (apt-get install clang)" >&2; exit 1; }

cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DTENSORACT_FUZZ=ON \
      -DTENSORACT_BUILD_EXAMPLES=OFF -DCMAKE_BUILD_TYPE=None "-DCMAKE_CXX_FLAGS=-O1 -gline-tables-only" >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]/#/fuzz_}"

summary=()
for t in "${targets[@]}"; do
  mkdir -p "build-fuzz/corpus/$t" "build-fuzz/findings/$t"
  log="build-fuzz/fuzz_$t.log"
  # Leaks off: a Device's allocator is never freed on purpose (kernels/device.h), and the
  # harnesses keep their server for the whole run. Expansions of short TensorProtos are
  # capped at 16 MiB (1 GiB by default): a 20-byte proto may legitimately announce a 1 GiB
  # tensor of one repeated value, whose round trip through per-element proto fields takes
  # longer than the timeout under ASan without being a fault.
  TENSORACT_MAX_EXPANDED_TENSOR_BYTES=$((16 << 20)) ASAN_OPTIONS=detect_leaks=0 "build-fuzz/tests/fuzz_$t" -max_total_time=$((minutes * 60)) -timeout=30 \
      -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="build-fuzz/findings/$t/" \
      "build-fuzz/corpus/$t" "tests/fuzz/corpus/$t" >"$log" 2>&1 || true
  execs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log" | tail -1)
  findings=$(find "build-fuzz/findings/$t" -type f | wc -l)
  corpus=$(find "build-fuzz/corpus/$t" -type f | wc -l)
  summary+=("$(printf '%-18s %3s min %12s executions %6s inputs in corpus %3s findings' \
                "$t" "$minutes" "${execs:-?}" "$corpus" "$findings")")
  echo "${summary[-1]}"
done
echo "--- summary (logs: build-fuzz/fuzz_<target>.log)"
printf '%s\n' "${summary[@]}"
