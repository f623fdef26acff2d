#!/usr/bin/env python3
"""Writes the Fashion-MNIST CNN of the main job (conv 5x5x32, max-pool, conv 5x5x64,
max-pool, dense 1024, dense 10, softmax) as a SavedModel for serving benchmarks, trained
for one epoch on the first 10,000 training images so its outputs mean something, and a
request body of one test image in TensorFlow Serving's row format.

Usage: serving_models.py MODEL_BASE_PATH BODY_FILE    (writes MODEL_BASE_PATH/1)
"""
import gzip
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np
import tensorflow as tf

DATA = "/usr/share/datasets/fashion-mnist"


def images(name):
    with gzip.open(os.path.join(DATA, name), "rb") as f:
        return np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 28, 28, 1).astype(np.float32) / 255


def labels(name):
    with gzip.open(os.path.join(DATA, name), "rb") as f:
        return np.frombuffer(f.read(), np.uint8, offset=8).astype(np.int64)


def main():
    base, body = sys.argv[1], sys.argv[2]
    tf.keras.utils.set_random_seed(1)
    model = tf.keras.Sequential([
        tf.keras.Input((28, 28, 1)),
        tf.keras.layers.Conv2D(32, 5, padding="same", activation="relu"), tf.keras.layers.MaxPooling2D(2),
        tf.keras.layers.Conv2D(64, 5, padding="same", activation="relu"), tf.keras.layers.MaxPooling2D(2),
        tf.keras.layers.Flatten(), tf.keras.layers.Dense(1024, activation="relu"),
        tf.keras.layers.Dense(10, activation="softmax")])
    model.compile("adam", "sparse_categorical_crossentropy")
    model.fit(images("train-images-idx3-ubyte.gz")[:10000], labels("train-labels-idx1-ubyte.gz")[:10000],
              batch_size=64, epochs=1, verbose=0)
    model.export(os.path.join(base, "1"), verbose=False)
    test = images("t10k-images-idx3-ubyte.gz")[:1]
    with open(body, "w") as f:
        json.dump({"instances": test.tolist()}, f)


if __name__ == "__main__":
    main()
