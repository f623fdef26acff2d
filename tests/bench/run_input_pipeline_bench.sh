#!/usr/bin/env bash
# The input pipeline alone against tf.data, in one run: a TFRecord file of Fashion-MNIST
# tf.Examples written by TensorFlow, parsed, shuffled and batched (64 and 512), with one and
# two threads; prints both figures and the ratio.
#   tests/bench/run_input_pipeline_bench.sh [build_dir] [epochs]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
epochs=${2:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$here/../compat/write_fashion_mnist_tfrecord.py" "$work/train.tfrecord" > /dev/null
rate() { awk '{for (i=1;i<=NF;i++) if ($(i+1)=="examples/s") print $i}'; }
for batch in 64 512; do
  for threads in 1 2; do
    ours=$("$build/tests/bench/input_pipeline" "$work/train.tfrecord" "$batch" "$threads" "$epochs")
    peer=$(python3 "$here/input_pipeline_tf.py" "$work/train.tfrecord" "$batch" "$threads" "$epochs")
    echo "$ours"
    echo "$peer"
    awk -v a="$(echo "$ours" | rate)" -v b="$(echo "$peer" | rate)" \
      'BEGIN { printf "ratio: tensoract gives %.2fx the examples per second of tf.data\n", a / b }'
  done
  # tf.data at its best here (its own thread pools, AUTOTUNE), against our two threads.
  best=$(python3 "$here/input_pipeline_tf.py" "$work/train.tfrecord" "$batch" 0 "$epochs")
  echo "$best"
  awk -v a="$(echo "$ours" | rate)" -v b="$(echo "$best" | rate)" \
    'BEGIN { printf "ratio: tensoract (2 threads) gives %.2fx the examples per second of tf.data (defaults)\n", a / b }'
done
