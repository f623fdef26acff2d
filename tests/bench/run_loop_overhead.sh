#!/usr/bin/env bash
# Per-iteration overhead of a while loop, ours and TensorFlow's on the same GraphDefs, and
# the ratios.
#   tests/bench/run_loop_overhead.sh [build_dir] [iterations] [steps]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
iterations=${2:-10000}
steps=${3:-20}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
ours=$("$build/tests/bench/loop_overhead" "$iterations" "$steps" "$dir")
peer=$(python3 "$here/loop_overhead_tf.py" "$iterations" "$steps" "$dir")
echo "$ours"
echo "$peer"
# tensoract: the executor's frames; sequential: each loop one kernel (sequential_loops).
for label in tensoract sequential; do
  for case in counter accumulate counter_p1; do
    a=$(echo "$ours" | awk -v l="$label" -v c="$case" '$1 == l && $2 == c {for (i=1;i<=NF;i++) if ($(i+1)=="us/iteration") print $i}')
    b=$(echo "$peer" | awk -v c="$case" '$2 == c {for (i=1;i<=NF;i++) if ($(i+1)=="us/iteration") print $i}')
    [ -n "$b" ] && awk -v l="$label" -v c="$case" -v a="$a" -v b="$b" \
      'BEGIN { printf "%s (%s): takes %.2fx the time per iteration of TensorFlow\n", c, l, a / b }'
  done
done
