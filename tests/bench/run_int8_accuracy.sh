#!/usr/bin/env bash
# Products in 8-bit integers on a trained network (issue 54): a convolutional network
# trained on Fashion-MNIST by TensorFlow (tests/bench/int8_fashion_mnist.py, ~2 minutes on
# 2 cores), then its 10,000 test images run by tensoract in float and with
# GraphOptimizerOptions::int8_products (tests/bench/saved_model_accuracy): the accuracy of
# each, how often they agree, and the time of a batch. TensorFlow's own accuracy is the
# first line.
#
#   tests/bench/run_int8_accuracy.sh [build_dir] [--epochs 2] [--batches 1,100] [--activation relu|swish]
#
# (swish: the convolutions' inputs take both signs, quantized to int8 rather than 7 bits.)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../../build
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then build=$1; shift; fi
epochs=2 batches=1,100 activation=relu
while [ $# -gt 0 ]; do
  case "$1" in
    --epochs) epochs=$2; shift 2 ;;
    --batches) batches=$2; shift 2 ;;
    --activation) activation=$2; shift 2 ;;
    *) echo "run_int8_accuracy.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$here/int8_fashion_mnist.py" "$work" --epochs "$epochs" --activation "$activation" 2> /dev/null | grep '^int8_fashion_mnist'
for b in ${batches//,/ }; do
  "$build/tests/bench/saved_model_accuracy" "$work/saved_model" "$work/test_images.f32" "$work/test_labels.u8" \
    --batch "$b" 2>&1 | grep '^saved_model_accuracy'
done
