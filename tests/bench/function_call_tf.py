#!/usr/bin/env python3
"""The Python reference for eager_overhead.cc's Function call: tf.function calling the same
y = x·W + b, and an eager tf.add of 1-element tensors, timed the same way.

    function_call_tf.py [calls]
"""
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
try:
    import tensorflow as tf
except ImportError:
    print("tensorflow not installed: no peer figure")
    sys.exit(0)

calls = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
tf.config.threading.set_inter_op_parallelism_threads(1)
tf.config.threading.set_intra_op_parallelism_threads(1)
w = tf.constant([[1.0, 2.0], [3.0, 4.0]])
b = tf.constant([0.5, -0.5])


@tf.function
def affine(x):
    return tf.matmul(x, w) + b


def per_call(n, f):
    for _ in range(n // 10 + 10):
        f()
    start = time.perf_counter()
    for _ in range(n):
        f()
    return 1e6 * (time.perf_counter() - start) / n


x = tf.ones((1, 2))
call_us = per_call(calls, lambda: affine(x))
one = tf.constant([1.0])
acc = [tf.constant([1.0])]


def add():
    acc[0] = tf.add(acc[0], one)


add_us = per_call(calls * 5, add)
print(f"tensorflow {tf.__version__} tf.function call (Python): {call_us:8.2f} us/call  ({calls} calls)")
print(f"tensorflow {tf.__version__} eager tf.add (Python):     {add_us:8.2f} us/op    ({calls * 5} ops)")
