#!/usr/bin/env bash
# Runs the step-overhead benchmark and its TensorFlow peers in one go and prints the ratios:
# TensorFlow's Session.run from Python, and its C API (TF_SessionRun) with the ops on the
# caller's thread (inter_op -1) against ours with the step's actors on the caller's thread,
# and on one pool thread (inter_op 1) against ours on the actor system's threads.
#   tests/bench/run_step_overhead.sh [build_dir] [steps]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
steps=${2:-20000}
us() { awk '{for (i=1;i<=NF;i++) if ($(i+1)=="us/step") print $i}'; }
ratio() { [ -n "$2" ] && awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { printf "ratio: tensoract takes %.2fx the time per step of %s\n", a / b, n }'; }
ours=$("$build/tests/bench/step_overhead" "$steps" caller)
ours_scheduler=$("$build/tests/bench/step_overhead" "$steps" scheduler)
peer=$(python3 "$here/step_overhead_tf.py" "$steps")
echo "$ours"
echo "$ours_scheduler"
echo "$peer"
a=$(echo "$ours" | us)
b=$(echo "$ours_scheduler" | us)
ratio "$a" "$(echo "$peer" | us)" "TensorFlow's Session.run (Python)" || true
if [ -x "$build/tests/bench/step_overhead_tf_capi" ]; then
  inline=$("$build/tests/bench/step_overhead_tf_capi" "$steps" -1 2>/dev/null)
  pool=$("$build/tests/bench/step_overhead_tf_capi" "$steps" 1 2>/dev/null)
  echo "$inline"
  echo "$pool"
  ratio "$a" "$(echo "$inline" | us)" "TensorFlow's C API, ops on the caller's thread" || true
  ratio "$b" "$(echo "$pool" | us)" "TensorFlow's C API, one pool thread (ours on the scheduler's threads)" || true
else
  echo "TensorFlow C API peer not built (tensorflow-cpu not found when configuring)"
fi
