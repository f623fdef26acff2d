#!/usr/bin/env bash
# Runs the step-overhead benchmark and its TensorFlow peer in one go and prints the ratio.
#   tests/bench/run_step_overhead.sh [build_dir] [steps]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
steps=${2:-20000}
ours=$("$build/tests/bench/step_overhead" "$steps")
peer=$(python3 "$here/step_overhead_tf.py" "$steps")
echo "$ours"
echo "$peer"
a=$(echo "$ours" | awk '{for (i=1;i<=NF;i++) if ($(i+1)=="us/step") print $i}')
b=$(echo "$peer" | awk '{for (i=1;i<=NF;i++) if ($(i+1)=="us/step") print $i}')
[ -n "$b" ] && awk -v a="$a" -v b="$b" 'BEGIN { printf "ratio: tensoract takes %.2fx the time per step of TensorFlow\n", a / b }'
