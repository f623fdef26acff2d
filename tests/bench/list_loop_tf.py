"""Loops whose state goes through TensorLists, exported as SavedModels by TensorFlow and
timed there (run_list_loop_bench.sh times ours on the same exports):
  write:    a loop writing a TensorArray of `length` elements, one per iteration
            (signature serving_default);
  gradient: a training step through a loop of `length` iterations, whose gradient reads
            the forward iterations' values from lists the loop pushed them to and pops
            them back (signature train_step);
  tf1:      TensorFlow 1 control flow and TensorArrays (TensorArrayV3), a dynamic_rnn-style
            loop over the rows of its [length, 8] input, as a TensorFlow 1 SavedModel
            (signature serving_default), timed with tf.compat.v1.Session.run.

  python3 list_loop_tf.py export KIND DIR LENGTH   # writes DIR/saved_model
  python3 list_loop_tf.py time KIND DIR LENGTH RUNS  # prints "tensorflow ...: median X ms"
"""
import sys

import numpy as np
import tensorflow as tf

from model_zoo_peers import timed  # the zoo's peers are timed the same way

SIGNATURES = {"write": "serving_default", "gradient": "train_step", "tf1": "serving_default"}


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


def export_tf1(directory):
    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    tf1.disable_control_flow_v2()
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [None, 8], name="x")
        n = tf1.shape(x)[0]
        inputs = tf1.TensorArray(tf.float32, size=n).unstack(x)
        outputs = tf1.TensorArray(tf.float32, size=n)

        def body(t, h, outputs):
            h = tf1.tanh(h * 0.5 + inputs.read(t))
            return t + 1, h, outputs.write(t, h)

        _, _, outputs = tf1.while_loop(lambda t, h, o: t < n, body, [0, tf1.zeros([8]), outputs])
        y = tf1.reduce_sum(outputs.stack(), 0)
        with tf1.Session(graph=graph) as session:
            builder = tf1.saved_model.Builder(directory + "/saved_model")
            signature = tf1.saved_model.predict_signature_def({"x": x}, {"out": y})
            builder.add_meta_graph_and_variables(session, ["serve"], signature_def_map={"serving_default": signature})
            builder.save()


def time_tf1(directory, length, runs):
    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    with tf1.Session(graph=tf.Graph()) as session:
        meta = tf1.saved_model.loader.load(session, ["serve"], directory + "/saved_model")
        signature = meta.signature_def["serving_default"]
        x, y = signature.inputs["x"].name, signature.outputs["out"].name
        feed = {x: np.ones([length, 8], np.float32)}
        return timed(lambda: session.run(y, feed), runs, 3)


def export(kind, directory, length):
    if kind == "tf1":
        export_tf1(directory)
        return
    module = (Write if kind == "write" else Gradient)(length)
    tf.saved_model.save(module, directory + "/saved_model", signatures={SIGNATURES[kind]: module.serve})


def time_it(kind, directory, length, runs):
    if kind == "tf1":
        median_ms = time_tf1(directory, length, runs)
    else:
        serve = tf.saved_model.load(directory + "/saved_model").signatures[SIGNATURES[kind]]
        x = tf.ones([1, 8])
        median_ms = timed(lambda: serve(x=x), runs, 3)
    print("tensorflow %s: median %.3f ms over %d runs" % (tf.__version__, median_ms, runs))


if __name__ == "__main__":
    if sys.argv[1] == "export":
        export(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        time_it(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
