#!/usr/bin/env bash
# A loop writing a TensorArray (a TensorList) of N elements, one per iteration, as
# TensorFlow exports it: ours (SavedModelBundle::Run) against TensorFlow on the same
# SavedModel, for each length. An append that copied the list made the loop O(N^2).
#   tests/bench/run_list_loop_bench.sh [build_dir] [lengths] [seconds]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
lengths=${2:-"1000 10000"}
seconds=${3:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for n in $lengths; do
  mkdir -p "$dir/$n"
  python3 "$here/list_loop_tf.py" export "$dir/$n" "$n" >/dev/null 2>&1
  ours=$("$build/tests/bench/saved_model_latency" "$dir/$n/saved_model" 1 "$seconds" | tail -1)
  peer=$(python3 "$here/list_loop_tf.py" time "$dir/$n" 15 2>/dev/null | tail -1)
  echo "length $n: $ours"
  echo "length $n: $peer"
  a=$(echo "$ours" | sed -E 's/.*median ([0-9.]+) ms.*/\1/')
  b=$(echo "$peer" | sed -E 's/.*median ([0-9.]+) ms.*/\1/')
  awk -v n="$n" -v a="$a" -v b="$b" 'BEGIN { printf "length %s: %.2fx TensorFlow (its median time over ours)\n", n, b / a }'
done
