#!/usr/bin/env bash
# The eager example in full: the MLP trained 10 epochs eagerly with a GradientTape and 10
# epochs with its step traced into a Function; each must reach the main job's accuracy
# (0.88) and the Function must have traced once.
#   tests/examples_eager_fashion_mnist.sh <eager_fashion_mnist binary> <scratch dir>
set -euo pipefail
bin=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
"$bin" > "$dir/out" 2> "$dir/err" || { echo "exit status $?"; cat "$dir/err"; exit 1; }
cat "$dir/out"
accuracy() { grep "^eager_fashion_mnist $1:" "$dir/out" | sed 's/.*test accuracy \([0-9.]*\).*/\1/'; }
for mode in eager function; do
  a=$(accuracy $mode)
  [ -n "$a" ] || { echo "no $mode result"; exit 1; }
  awk -v a="$a" 'BEGIN { exit !(a >= 0.88) }' || { echo "$mode accuracy $a is below 0.88"; exit 1; }
done
grep -q "traced 1 time(s) for 9380 calls" "$dir/out" || { echo "the train step retraced"; exit 1; }
if "$bin" --mode graph 2> "$dir/bad.err"; then echo "accepted --mode graph"; exit 1; fi
grep -q "unknown mode 'graph'" "$dir/bad.err"
echo "eager_fashion_mnist: eager and traced training reach the main job's accuracy"
