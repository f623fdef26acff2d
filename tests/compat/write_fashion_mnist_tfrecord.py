#!/usr/bin/env python3
"""Writes Fashion-MNIST's training images as a TFRecord file of tf.Examples, with
TensorFlow's own writer: "image_raw" (the 784 pixel bytes) and "label" (int64), the way a
TensorFlow user converts a data set for an input pipeline.

Usage: write_fashion_mnist_tfrecord.py OUT.tfrecord [COUNT]   (COUNT: the first COUNT images)

Reads Debian's dataset-fashion-mnist ($TENSORACT_FASHION_MNIST or
/usr/share/datasets/fashion-mnist). Exits 77 when TensorFlow cannot be imported.
"""
import gzip
import os
import sys

from compat_util import skip_without  # noqa: E402
with skip_without():
    import numpy as np
    import tensorflow as tf


def main():
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else None
    data = os.environ.get("TENSORACT_FASHION_MNIST", "/usr/share/datasets/fashion-mnist")
    with gzip.open(os.path.join(data, "train-images-idx3-ubyte.gz")) as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 784)
    with gzip.open(os.path.join(data, "train-labels-idx1-ubyte.gz")) as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8)
    if count:
        images, labels = images[:count], labels[:count]
    with tf.io.TFRecordWriter(out) as writer:
        for image, label in zip(images, labels):
            example = tf.train.Example(features=tf.train.Features(feature={
                "image_raw": tf.train.Feature(bytes_list=tf.train.BytesList(value=[image.tobytes()])),
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[int(label)])),
            }))
            writer.write(example.SerializeToString())
    print(f"wrote {len(labels)} tf.Examples to {out}")


if __name__ == "__main__":
    main()
