#!/usr/bin/env bash
# Loops whose state goes through TensorLists, as TensorFlow exports them: a loop writing a
# TensorArray of N elements ("write"), a training step through a loop of N iterations,
# whose gradient pushes and pops the iterations' values ("gradient"), and a TensorFlow 1
# loop over TensorArrays (TensorArrayV3) of an [N, 8] input ("tf1"). Ours
# (SavedModelBundle::Run) against TensorFlow on the same SavedModels, for each length. A
# list op that copied the list made such loops O(N^2).
#   tests/bench/run_list_loop_bench.sh [build_dir] [lengths] [seconds]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
lengths=${2:-"1000 10000"}
seconds=${3:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for kind in write gradient tf1; do
  signature=serving_default
  [ "$kind" = gradient ] && signature=train_step
  for n in $lengths; do
    batch=1
    [ "$kind" = tf1 ] && batch=$n  # the loop runs over the input's rows
    mkdir -p "$dir/$kind$n"
    python3 "$here/list_loop_tf.py" export "$kind" "$dir/$kind$n" "$n" >/dev/null 2>&1
    ours=$("$build/tests/bench/saved_model_latency" "$dir/$kind$n/saved_model" "$batch" "$seconds" --signature "$signature" | tail -1)
    peer=$(python3 "$here/list_loop_tf.py" time "$kind" "$dir/$kind$n" "$n" 10 2>/dev/null | tail -1)
    echo "$kind $n: $ours"
    echo "$kind $n: $peer"
    a=$(echo "$ours" | sed -E 's/.*median ([0-9.]+) ms.*/\1/')
    b=$(echo "$peer" | sed -E 's/.*median ([0-9.]+) ms.*/\1/')
    awk -v k="$kind" -v n="$n" -v a="$a" -v b="$b" 'BEGIN { printf "%s %s: %.2fx TensorFlow (its median time over ours)\n", k, n, b / a }'
  done
done
