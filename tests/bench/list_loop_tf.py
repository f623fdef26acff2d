"""A loop that writes a TensorArray of `length` elements, exported as a SavedModel by
TensorFlow and timed there (run_list_loop_bench.sh times ours on the same export).

  python3 list_loop_tf.py export DIR LENGTH   # writes DIR/saved_model
  python3 list_loop_tf.py time DIR RUNS       # prints "tensorflow ... median X ms"
"""
import sys
import time

import numpy as np
import tensorflow as tf


def export(directory, length):
    class Loop(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None, 8], tf.float32)])
        def serve(self, x):
            array = tf.TensorArray(tf.float32, size=length, element_shape=[None, 8])

            def body(i, h, array):
                h = tf.tanh(h * 0.5 + 0.1)
                return i + 1, h, array.write(i, h)

            _, _, array = tf.while_loop(lambda i, h, array: i < length, body, [0, x, array])
            return {"out": tf.reduce_sum(array.stack(), axis=0)}

    loop = Loop()
    tf.saved_model.save(loop, directory + "/saved_model", signatures={"serving_default": loop.serve})


def time_it(directory, runs):
    serve = tf.saved_model.load(directory + "/saved_model").signatures["serving_default"]
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
        export(sys.argv[2], int(sys.argv[3]))
    else:
        time_it(sys.argv[2], int(sys.argv[3]))
