#!/usr/bin/env python3
"""The peer of loop_overhead.cc: TensorFlow's own Session runs the very loop GraphDefs our
benchmark wrote (DIR/loop_<case>.pb, TF 1.x control flow: Enter/Merge/Switch/...), timed
the same way: (t(ITERATIONS) - t(0)) / ITERATIONS.

    loop_overhead_tf.py ITERATIONS STEPS DIR

Grappler and the classic graph optimizer are off, one inter-op and one intra-op thread,
as on our side.
"""
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

iterations, steps, directory = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
tf1 = tf.compat.v1
config = tf1.ConfigProto(inter_op_parallelism_threads=1, intra_op_parallelism_threads=1)
config.graph_options.optimizer_options.opt_level = tf1.OptimizerOptions.L0
config.graph_options.rewrite_options.disable_meta_optimizer = True


def micros_per_step(sess, n, count):
    feed = {"n:0": np.int32(n), "x:0": np.float32(1)}
    for _ in range(3):
        sess.run("out:0", feed)
    start = time.perf_counter()
    for _ in range(count):
        sess.run("out:0", feed)
    return 1e6 * (time.perf_counter() - start) / count


for name in ("counter", "accumulate", "counter_p1"):
    graph_def = tf1.GraphDef()
    with open(os.path.join(directory, "loop_" + name + ".pb"), "rb") as f:
        graph_def.ParseFromString(f.read())
    graph = tf.Graph()
    with graph.as_default():
        tf1.import_graph_def(graph_def, name="")
    with tf1.Session(graph=graph, config=config) as sess:
        empty = micros_per_step(sess, 0, steps * 10)
        full = micros_per_step(sess, iterations, steps)
    print(f"tensorflow {name:<10} {iterations} iterations: {full:9.1f} us/step (0 iterations: {empty:6.1f} us) "
          f"{(full - empty) / iterations:6.3f} us/iteration  ({tf.__version__})")
