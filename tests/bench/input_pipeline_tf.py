#!/usr/bin/env python3
"""tf.data's input pipeline over the same TFRecord file as tests/bench/input_pipeline.cc:
TFRecordDataset -> map(parse_single_example + decode_raw, num_parallel_calls=THREADS) ->
shuffle(10000) -> batch(BATCH) -> prefetch(1), EPOCHS passes, on a private thread pool of
THREADS threads; prints examples per second in the same form. THREADS 0: TensorFlow's
defaults (its own thread pools, map's num_parallel_calls AUTOTUNE), its best case here.

Usage: input_pipeline_tf.py FILE.tfrecord BATCH THREADS [EPOCHS]
"""
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402


def main():
    path, batch, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    epochs = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    if threads > 0:
        tf.config.threading.set_inter_op_parallelism_threads(threads)
        tf.config.threading.set_intra_op_parallelism_threads(threads)
    spec = {"image_raw": tf.io.FixedLenFeature([], tf.string), "label": tf.io.FixedLenFeature([], tf.int64)}

    def parse(record):
        example = tf.io.parse_single_example(record, spec)
        return tf.reshape(tf.io.decode_raw(example["image_raw"], tf.uint8), [784]), example["label"]

    options = tf.data.Options()
    if threads > 0:
        options.threading.private_threadpool_size = threads
    calls = threads if threads > 0 else tf.data.AUTOTUNE
    dataset = (tf.data.TFRecordDataset(path).repeat(epochs).map(parse, num_parallel_calls=calls)
               .shuffle(10000).batch(batch).prefetch(1).with_options(options))
    start = time.perf_counter()
    examples = 0
    for images, _ in dataset:
        examples += int(images.shape[0])
    secs = time.perf_counter() - start
    what = f"{threads} threads" if threads > 0 else "default threads, AUTOTUNE"
    print(f"tf.data input pipeline: batch {batch}, {what}: {examples / secs:.0f} examples/s "
          f"({examples} examples in {secs:.2f} s)")


if __name__ == "__main__":
    main()
