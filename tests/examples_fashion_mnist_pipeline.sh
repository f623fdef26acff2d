#!/usr/bin/env bash
# The main job with --input pipeline: Fashion-MNIST read inside the graph, from Debian's IDX
# files and from a TFRecord file of tf.Examples that TensorFlow writes here; one epoch of
# the MLP each, reaching feeding's accuracy; a second run resumes from the checkpoint.
#   tests/examples_fashion_mnist_pipeline.sh <fashion_mnist binary> <scratch dir> <python>
set -euo pipefail
bin=$1
dir=$2
python=${3:-python3}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$dir"
mkdir -p "$dir"
accuracy() { sed -n 's/.*test accuracy \([0-9.]*\).*/\1/p' "$1"; }
at_least() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }

"$bin" --model mlp --epochs 1 --input pipeline --checkpoint-dir "$dir/ckpt" --logdir "$dir/logs" > "$dir/idx.out" 2> "$dir/idx.err"
cat "$dir/idx.out"
grep -q "saved $dir/ckpt/model.ckpt-938" "$dir/idx.err" || { echo "no checkpoint after one epoch"; cat "$dir/idx.err"; exit 1; }
at_least "$(accuracy "$dir/idx.out")" 0.80 || { echo "IDX pipeline: accuracy too low"; exit 1; }
"$bin" --model mlp --epochs 2 --input pipeline --checkpoint-dir "$dir/ckpt" --logdir "$dir/logs" > "$dir/resume.out" 2> "$dir/resume.err"
grep -q "resuming from $dir/ckpt/model.ckpt-938 (step 938, epoch 1 done)" "$dir/resume.err" || { echo "did not resume"; cat "$dir/resume.err"; exit 1; }
grep -q "saved $dir/ckpt/model.ckpt-1876" "$dir/resume.err" || { echo "no checkpoint after the second epoch"; cat "$dir/resume.err"; exit 1; }
at_least "$(accuracy "$dir/resume.out")" 0.82 || { echo "resumed run: accuracy too low"; exit 1; }

if "$python" "$here/compat/write_fashion_mnist_tfrecord.py" "$dir/train.tfrecord"; then
  "$bin" --model mlp --epochs 1 --input pipeline --tfrecord "$dir/train.tfrecord" --checkpoint-dir "" --logdir "" \
    > "$dir/tfrecord.out" 2> "$dir/tfrecord.err"
  cat "$dir/tfrecord.out"
  at_least "$(accuracy "$dir/tfrecord.out")" 0.80 || { echo "TFRecord pipeline: accuracy too low"; cat "$dir/tfrecord.err"; exit 1; }
else
  echo "TFRecord source skipped: TensorFlow is not installed"
fi
# A bad combination is a clear error.
if "$bin" --tfrecord x --checkpoint-dir "" 2> "$dir/bad.err"; then echo "accepted --tfrecord without --input pipeline"; exit 1; fi
grep -q "needs --input pipeline" "$dir/bad.err"
echo "fashion_mnist --input pipeline: trains from IDX and TFRecord files, checkpoints, resumes"
