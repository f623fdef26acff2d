#!/usr/bin/env bash
# Training a real network on the CPU (issue 54): Keras' ResNet50 at 64x64 (50 classes), one
# SGD step of TensorFlow's own training graph in tensoract (its SavedModel's train_step
# signature, run by saved_model_latency), against the same SavedModel in TensorFlow and the
# same architecture in PyTorch, in one run (tests/bench/resnet_train.py). Prints each one's
# median step time and steps/s, and ours over the faster peer's (above 1: we are faster).
#
#   tests/bench/run_resnet_train_bench.sh [build_dir] [--batches 32] [--size 64] [--steps 10]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../../build
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then build=$1; shift; fi
batches=32 size=64 steps=10
while [ $# -gt 0 ]; do
  case "$1" in
    --batches) batches=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    *) echo "run_resnet_train_bench.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
source "$here/bench_util.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$here/resnet_train.py" export "$work/resnet50" --size "$size" 2> /dev/null | grep '^resnet_train'
for b in ${batches//,/ }; do
  line=$(quiet_run "$build/tests/bench/saved_model_latency" "$work/resnet50" "$b" 20 --signature train_step 2>&1 |
         tail -1 || true)
  ours=$(echo "$line" | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p')
  [ -n "$ours" ] || { echo "resnet_train: tensoract batch $b failed: $line"; continue; }
  echo "resnet_train: tensoract batch $b: median $ours ms a step"
  best=""
  for engine in tensorflow pytorch; do
    peer=$(python3 "$here/resnet_train.py" peers "$work/resnet50" --batch "$b" --size "$size" --steps "$steps" \
             --engine "$engine" 2> /dev/null | grep '^resnet_train' || true)
    echo "$peer"
    ms=$(echo "$peer" | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p')
    [ -n "$ms" ] && { [ -z "$best" ] || awk -v a="$ms" -v b="$best" 'BEGIN { exit !(a < b) }'; } && best=$ms
  done
  awk -v o="$ours" -v p="${best:-0}" -v b="$b" 'BEGIN {
    printf "ratio resnet50 training batch %s: tensoract %.2f steps/s", b, 1000 / o
    if (p > 0) printf ", faster peer %.2f steps/s, %.2fx\n", 1000 / p, p / o; else printf ", no peer\n" }'
done
