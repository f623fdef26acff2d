#!/usr/bin/env python3
"""GraphDefs written by real TensorFlow run in tensoract with TensorFlow's results.

Usage: tf_graph_compat.py TENSORACT_RUN WORK_DIR

tf.compat.v1 builds y = matmul(x, W) + b (plus an Identity and an unused branch that
pruning must drop), writes it in binary and text form, and computes y itself. Then
tensoract-run runs both files with the same feed, and the printed values must match.
Exits 77 (ctest: skipped) when TensorFlow cannot be imported.
"""
import os
import re
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
try:
    import numpy as np
    import tensorflow as tf
except ImportError:
    print("SKIPPED: tensorflow is not installed (bootstrap/install-deps.sh installs tensorflow-cpu)")
    sys.exit(77)


def build(work):
    tf1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        w = tf1.constant([[1.0, -2.0, 0.5], [3.0, 4.0, -1.5]], name="W")
        b = tf1.constant([0.25, -0.75, 2.0], name="b")
        x = tf1.placeholder(tf.float32, shape=[None, 2], name="x")
        y = tf1.add(tf1.matmul(x, w), b, name="y")
        tf1.identity(y, name="y_copy")
        tf1.multiply(w, 3.0, name="unused")  # not needed by the fetch: pruned
    tf1.train.write_graph(graph.as_graph_def(), work, "tf_graph.pb", as_text=False)
    tf1.train.write_graph(graph.as_graph_def(), work, "tf_graph.pbtxt", as_text=True)
    feed = np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, 3.0]], dtype=np.float32)
    with tf1.Session(graph=graph) as sess:
        expected = sess.run("y_copy:0", {"x:0": feed})
    return feed, expected


def run_tensoract(tool, path, feed):
    values = ",".join(repr(float(v)) for v in feed.flatten())
    shape = "x".join(str(d) for d in feed.shape)
    out = subprocess.run([tool, "--graph", path, "--feed", f"x={values}@{shape}", "--fetch", "y_copy"],
                         capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        sys.exit(f"tensoract-run failed on {path}:\n{out.stdout}{out.stderr}")
    match = re.search(r"shape: \[([0-9,]*)\] values: (.*)>", out.stdout)
    if not match:
        sys.exit(f"unexpected output from tensoract-run: {out.stdout!r}")
    shape = [int(d) for d in match.group(1).split(",")]
    numbers = [float(v) for v in re.findall(r"-?[0-9.]+(?:e[-+]?[0-9]+)?", match.group(2))]
    return np.array(numbers, dtype=np.float32).reshape(shape)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    tool, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    feed, expected = build(work)
    for name in ("tf_graph.pb", "tf_graph.pbtxt"):
        got = run_tensoract(tool, os.path.join(work, name), feed)
        if got.shape != expected.shape or not np.allclose(got, expected, rtol=1e-6, atol=1e-6):
            sys.exit(f"{name}: tensoract gave {got.tolist()}, TensorFlow {expected.tolist()}")
        print(f"{name}: tensoract matches TensorFlow {tf.__version__}: {got.tolist()}")


if __name__ == "__main__":
    main()
