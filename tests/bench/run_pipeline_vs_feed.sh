#!/usr/bin/env bash
# The main job fed from the client against reading its data inside the graph: alternating
# pairs of `fashion_mnist --epochs 2 --input feed|pipeline` (no checkpoints, no summaries),
# the second epoch's examples per second of each, then the medians and the median of the
# pairs' ratios. Alternating, because this VM's speed drifts by 10-20% within minutes.
#   tests/bench/run_pipeline_vs_feed.sh [build_dir] [pairs] [model]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/bench_util.sh"
build=${1:-$here/../../build}
pairs=${2:-10}
model=${3:-mlp}
# The progress bar (stderr) carries the rates.
rate() {
  quiet_run bash -c '"$@" 2>&1' _ "$build/examples/fashion_mnist" --model "$model" --epochs 2 --input "$1" \
    --checkpoint-dir "" --logdir "" |
    tr '\r' '\n' | grep 'epoch 2/2' | tail -1 | grep -o '[0-9]* ex/s' | cut -d' ' -f1
}
fed=() piped=() ratios=()
for ((i = 1; i <= pairs; ++i)); do
  f=$(rate feed)
  p=$(rate pipeline)
  r=$(awk -v a="$f" -v b="$p" 'BEGIN { printf "%.3f", b / a }')
  echo "pair $i: fed $f ex/s, pipeline $p ex/s, pipeline/fed $r"
  fed+=("$f") piped+=("$p") ratios+=("$r")
done
mf=$(echo "${fed[@]}" | median)
mp=$(echo "${piped[@]}" | median)
echo "median: fed $mf ex/s, pipeline $mp ex/s, ratio of medians $(awk -v a="$mf" -v b="$mp" 'BEGIN { printf "%.3f", b / a }')," \
  "median of the pairs' ratios $(echo "${ratios[@]}" | median)"
