#!/usr/bin/env bash
# Training steps per second of the Fashion-MNIST MLP the TensorFlow 2 way, in one run:
# ours eagerly with a GradientTape and as a traced Function (examples/eager_fashion_mnist),
# against PyTorch eager and TensorFlow's tf.function with a GradientTape
# (train_step_peers.py torch / tf2). Batch 64 and 512, 1 and 2 threads; each figure is
# the second of two epochs of 200 steps (the first warms up).
#   tests/bench/run_eager_train_bench.sh [build_dir]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
bin="$build/examples/eager_fashion_mnist"
rate() { grep "epoch 2/2" | sed 's/.*, \([0-9.]*\) steps\/s.*/\1/'; }
peer() { sed 's/.*: \([0-9.]*\) steps\/s.*/\1/'; }
printf "%-20s %10s %10s %10s %10s   %s\n" "batch/threads" "eager" "function" "pytorch" "tf.function" "ratios (ours/peer, rate)"
for batch in 64 512; do
  for threads in 1 2; do
    n=$((batch * 200))
    e=$("$bin" --mode eager --epochs 2 --batch-size "$batch" --threads "$threads" --train-examples "$n" 2>&1 | rate)
    f=$("$bin" --mode function --epochs 2 --batch-size "$batch" --threads "$threads" --train-examples "$n" 2>&1 | rate)
    t=$(python3 "$here/train_step_peers.py" torch --model mlp --batch "$batch" --threads "$threads" 2>/dev/null | peer || echo "")
    g=$(python3 "$here/train_step_peers.py" tf2 --model mlp --batch "$batch" --threads "$threads" 2>/dev/null | peer || echo "")
    ratios=$(awk -v e="$e" -v f="$f" -v t="$t" -v g="$g" 'BEGIN {
      if (t > 0) printf "eager/pytorch %.2fx  ", e / t;
      if (g > 0) printf "function/tf.function %.2fx", f / g }')
    printf "%-20s %10s %10s %10s %10s   %s\n" "$batch/$threads" "$e" "$f" "${t:--}" "${g:--}" "$ratios"
  done
done
