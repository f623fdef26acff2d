#!/usr/bin/env python3
"""Trains a small convolutional network on Fashion-MNIST with TensorFlow and exports it, for
run_int8_accuracy.sh: a trained network on real data, on which products in 8-bit integers
can be judged by accuracy (a random-weight model's near-uniform scores cannot).

Usage: int8_fashion_mnist.py OUT_DIR [--epochs 2] [--activation relu|swish]

OUT_DIR/saved_model/      the SavedModel (model.export: serving_default, [batch, 28, 28, 1] -> [batch, 10])
OUT_DIR/test_images.f32   the 10,000 test images, raw float32 in [0, 1], [10000, 28, 28, 1]
OUT_DIR/test_labels.u8    their labels, raw uint8
and prints TensorFlow's own test accuracy:
  int8_fashion_mnist: TensorFlow test accuracy A after E epochs (T s)

The data is Debian's dataset-fashion-mnist. Five 3x3 convolutions of 32 to 128 channels,
each with batch normalisation and a ReLU (so that inference folds them into _FusedConv2D),
two max pools, global average pooling and a dense layer. With --activation swish the
convolutions' inputs take both signs (quantized to int8, not 7-bit unsigned).
"""
import argparse
import gzip
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402

DATA = "/usr/share/datasets/fashion-mnist"


def read(name, offset):
    with gzip.open(os.path.join(DATA, name)) as f:
        return np.frombuffer(f.read(), np.uint8, offset=offset)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--activation", default="relu", choices=["relu", "swish"])
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    x_train = read("train-images-idx3-ubyte.gz", 16).reshape(-1, 28, 28, 1).astype(np.float32) / 255
    y_train = read("train-labels-idx1-ubyte.gz", 8)
    x_test = read("t10k-images-idx3-ubyte.gz", 16).reshape(-1, 28, 28, 1).astype(np.float32) / 255
    y_test = read("t10k-labels-idx1-ubyte.gz", 8)
    keras.utils.set_random_seed(1)

    def block(x, channels):
        x = keras.layers.Conv2D(channels, 3, padding="same", use_bias=False)(x)
        x = keras.layers.BatchNormalization()(x)
        return keras.layers.ReLU()(x) if args.activation == "relu" else keras.layers.Activation("swish")(x)

    inputs = keras.Input((28, 28, 1))
    x = block(inputs, 32)
    x = block(x, 32)
    x = keras.layers.MaxPooling2D()(x)
    x = block(x, 64)
    x = block(x, 64)
    x = keras.layers.MaxPooling2D()(x)
    x = block(x, 128)
    x = keras.layers.GlobalAveragePooling2D()(x)
    outputs = keras.layers.Dense(10)(x)
    model = keras.Model(inputs, outputs)
    model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    start = time.perf_counter()
    model.fit(x_train, y_train, batch_size=128, epochs=args.epochs, verbose=0)
    trained = time.perf_counter() - start
    _, accuracy = model.evaluate(x_test, y_test, batch_size=500, verbose=0)
    model.export(os.path.join(args.out, "saved_model"), verbose=False)
    x_test.tofile(os.path.join(args.out, "test_images.f32"))
    y_test.tofile(os.path.join(args.out, "test_labels.u8"))
    print(f"int8_fashion_mnist: TensorFlow test accuracy {accuracy:.4f} after {args.epochs} epochs, "
          f"{args.activation} ({trained:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
