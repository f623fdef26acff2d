#!/usr/bin/env bash
# The main job, shortened: fashion_mnist trains the MLP for one epoch on 3,200 images,
# saves a checkpoint, and a second run resumes from it instead of starting over.
#   tests/examples_fashion_mnist.sh <fashion_mnist binary> <scratch dir>
set -euo pipefail
bin=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
"$bin" --model mlp --epochs 1 --train-examples 3200 --checkpoint-dir "$dir/ckpt" --logdir "$dir/logs" > "$dir/first.out" 2> "$dir/first.err"
cat "$dir/first.out"
grep -q "saved $dir/ckpt/model.ckpt-50" "$dir/first.err" || { echo "no checkpoint saved"; cat "$dir/first.err"; exit 1; }
grep -q "test accuracy" "$dir/first.out"
test -f "$dir/ckpt/checkpoint"
"$bin" --model mlp --epochs 2 --train-examples 3200 --checkpoint-dir "$dir/ckpt" --logdir "$dir/logs" > "$dir/second.out" 2> "$dir/second.err"
cat "$dir/second.out"
grep -q "resumed from $dir/ckpt/model.ckpt-50 (step 50, epoch 1 done)" "$dir/second.err" || { echo "did not resume"; cat "$dir/second.err"; exit 1; }
grep -q "epoch 2/2" "$dir/second.err"
if grep -q "epoch 1/2" "$dir/second.err"; then echo "epoch 1 ran again after resuming"; exit 1; fi
grep -q "saved $dir/ckpt/model.ckpt-100" "$dir/second.err"
# A bad option is a clear error, not a crash.
if "$bin" --model rnn --checkpoint-dir "" 2> "$dir/bad.err"; then echo "accepted --model rnn"; exit 1; fi
grep -q "unknown model 'rnn'" "$dir/bad.err"
echo "fashion_mnist: trains, checkpoints, resumes"
