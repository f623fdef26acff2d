"""Loops whose state goes through TensorLists, exported as SavedModels by TensorFlow and
timed there (run_list_loop_bench.sh times ours on the same exports):
  write:    a loop writing a TensorArray of `length` elements, one per iteration
            (signature serving_default);
  gradient: a training step through a loop of `length` iterations, whose gradient reads
            the forward iterations' values from lists the loop pushed them to and pops
            them back (signature train_step).

  python3 list_loop_tf.py export KIND DIR LENGTH   # writes DIR/saved_model
  python3 list_loop_tf.py time KIND DIR RUNS       # prints "tensorflow ...: median X ms"
"""
import sys
import time

import numpy as np
import tensorflow as tf

SIGNATURES = {"write": "serving_default", "gradient": "train_step"}


class Write(tf.Module):
    def __init__(self, length):
        self.length = length

    @tf.function(input_signature=[tf.TensorSpec([None, 8], tf.float32)])
    def serve(self, x):
        array = tf.TensorArray(tf.float32, size=self.length, element_shape=[None, 8])

        def body(i, h, array):
            h = tf.tanh(h * 0.5 + 0.1)
            return i + 1, h, array.write(i, h)

        _, _, array = tf.while_loop(lambda i, h, array: i < self.length, body, [0, x, array])
        return {"out": tf.reduce_sum(array.stack(), axis=0)}


class Gradient(tf.Module):
    def __init__(self, length):
        self.length = length
        self.w = tf.Variable(tf.fill([8, 8], 0.05))

    @tf.function(input_signature=[tf.TensorSpec([None, 8], tf.float32)])
    def serve(self, x):
        with tf.GradientTape() as tape:
            h = x
            for _ in tf.range(self.length):
                h = tf.tanh(tf.matmul(h, self.w) + 0.1)
            loss = tf.reduce_sum(h * h)
        self.w.assign_sub(0.001 * tape.gradient(loss, self.w))
        return {"loss": loss}


def export(kind, directory, length):
    module = (Write if kind == "write" else Gradient)(length)
    tf.saved_model.save(module, directory + "/saved_model", signatures={SIGNATURES[kind]: module.serve})


def time_it(kind, directory, runs):
    serve = tf.saved_model.load(directory + "/saved_model").signatures[SIGNATURES[kind]]
    x = tf.ones([1, 8])
    for _ in range(3):
        serve(x=x)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        serve(x=x)
        times.append(time.perf_counter() - start)
    print("tensorflow %s: median %.3f ms, min %.3f ms over %d runs" %
          (tf.__version__, np.median(times) * 1e3, min(times) * 1e3, runs))


if __name__ == "__main__":
    if sys.argv[1] == "export":
        export(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        time_it(sys.argv[2], sys.argv[3], int(sys.argv[4]))
