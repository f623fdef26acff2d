#!/usr/bin/env bash
# Eager dispatch, tape steps and Function calls against their peers, in one run, with ratios:
# libtorch's C++ API (eager add, tape step), TensorFlow's C API (a small TF_SessionRun with
# its ops on the caller's thread) and tf.function from Python (a call, for reference).
#   tests/bench/run_eager_overhead.sh [build_dir] [calls]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
calls=${2:-200000}
field() { awk -v unit="$1" '{for (i = 1; i < NF; i++) if ($(i + 1) == unit) print $i}'; }
ratio() {  # ratio NAME OURS PEER; a missing peer is said, and the other ratios still print
  if [ -n "$2" ] && [ -n "$3" ]; then
    awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "ratio %s: tensoract takes %.2fx the peer'"'"'s time\n", n, a / b }'
  else
    echo "ratio $1: not measured (a peer is missing)"
  fi
}
ours=$("$build/tests/bench/eager_overhead" "$calls")
echo "$ours"
session=$("$build/tests/bench/step_overhead" $((calls / 10)))
echo "$session"
torch=""
if [ -x "$build/tests/bench/eager_overhead_torch" ]; then
  torch=$("$build/tests/bench/eager_overhead_torch" "$calls")
  echo "$torch"
else
  echo "libtorch peer not built (pip install torch, then reconfigure)"
fi
capi=""
if [ -x "$build/tests/bench/step_overhead_tf_capi" ]; then
  capi=$("$build/tests/bench/step_overhead_tf_capi" $((calls / 10)) -1 2>/dev/null)
  echo "$capi"
else
  echo "TensorFlow C API peer not built (pip install tensorflow-cpu, then reconfigure)"
fi
python3 "$here/function_call_tf.py" $((calls / 10)) || true
ratio "eager add vs libtorch" "$(echo "$ours" | grep "eager Add" | field us/op)" "$(echo "$torch" | grep "eager add" | field us/op)"
ratio "tape step vs libtorch" "$(echo "$ours" | grep "tape step" | field us/step)" "$(echo "$torch" | grep "tape step" | field us/step)"
ratio "Function call vs TF C API TF_SessionRun" "$(echo "$ours" | grep "Function call" | field us/call)" "$(echo "$capi" | field us/step)"
ratio "Session::Run vs TF C API TF_SessionRun" "$(echo "$session" | field us/step)" "$(echo "$capi" | field us/step)"
