#!/usr/bin/env python3
"""The peer of step_overhead.cc: the same graph in tf.compat.v1, timed the same way."""
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
try:
    import numpy as np
    import tensorflow as tf
except ImportError:
    print("tensorflow not installed: no peer figure")
    sys.exit(0)

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
tf1 = tf.compat.v1
graph = tf.Graph()
with graph.as_default():
    w = tf1.constant([[1.0, 2.0], [3.0, 4.0]], name="W")
    b = tf1.constant([0.5, -0.5], name="b")
    x = tf1.placeholder(tf.float32, name="x")
    y = tf1.add(tf1.matmul(x, w), b, name="y")
config = tf1.ConfigProto(inter_op_parallelism_threads=1, intra_op_parallelism_threads=1)
xv = np.ones((1, 2), dtype=np.float32)
with tf1.Session(graph=graph, config=config) as sess:
    for _ in range(200):
        sess.run(y, {x: xv})
    start = time.perf_counter()
    for _ in range(steps):
        sess.run(y, {x: xv})
    seconds = time.perf_counter() - start
print(f"tensorflow Session.run (Python), {tf.__version__}: {1e6 * seconds / steps:8.1f} us/step  "
      f"({steps / seconds:.0f} steps/s, {steps} steps)")
