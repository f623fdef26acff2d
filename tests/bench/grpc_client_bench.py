#!/usr/bin/env python3
"""TensorFlow's Python client over gRPC: tensoract-node's MasterService against TensorFlow's
own server, in one run.

Usage: grpc_client_bench.py TENSORACT_NODE [--runs 2000] [--steps 300] [--batch 64]

Both servers run in processes of their own on loopback, with the client in this one:
tensoract-node (--grpc-master, --threads 2) and a tf.distribute.Server (TensorFlow's gRPC
server, oneDNN on, its default threads). Two measurements, each engine twice, alternating:
  latency:  Session.run of a small graph (x[4] * 2 + 1, fed and fetched), median and p99;
  training: the Fashion-MNIST MLP (784-256-10, ReLU, Adam, batch 64) as a tf.compat.v1 graph,
            real data fed with feed_dict, examples a second after warm-up steps.
Prints one line per engine and measurement, and ours over TensorFlow's (above 1: tensoract
is faster).
"""
import argparse
import gzip
import os
import socket
import subprocess
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()
DATA = os.environ.get("TENSORACT_FASHION_MNIST", "/usr/share/datasets/fashion-mnist")
TOKEN = "grpc-client-bench-token-0123456789abcdef"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(proc, log, words):
    deadline = time.time() + 60
    while words not in open(log).read():
        if proc.poll() is not None or time.time() > deadline:
            sys.exit("grpc_client_bench: a server did not start:\n" + open(log).read())
        time.sleep(0.05)


def start_servers(node_bin, work):
    node_port, grpc_port, tf_port = free_port(), free_port(), free_port()
    node_log, tf_log = os.path.join(work, "node.log"), os.path.join(work, "tf_server.log")
    node = subprocess.Popen([node_bin, "--cluster", "worker=127.0.0.1:%d" % node_port, "--job", "worker", "--task", "0",
                             "--threads", "2", "--grpc-master", str(grpc_port)],
                            stdout=open(node_log, "w"), stderr=subprocess.STDOUT,
                            env=dict(os.environ, TENSORACT_CLUSTER_TOKEN=TOKEN))
    server_code = ("import tensorflow as tf, sys\n"
                   "s = tf.distribute.Server({'worker': ['127.0.0.1:%d']}, job_name='worker', task_index=0)\n"
                   "print('ready', flush=True)\n"
                   "s.join()\n" % tf_port)
    tfs = subprocess.Popen([sys.executable, "-c", server_code], stdout=open(tf_log, "w"), stderr=subprocess.STDOUT)
    wait_for(node, node_log, "ready")
    wait_for(tfs, tf_log, "ready")
    return [node, tfs], {"tensoract": "grpc://127.0.0.1:%d" % grpc_port, "tensorflow": "grpc://127.0.0.1:%d" % tf_port}


def latency(target, runs):
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [4])
        y = x * 2.0 + 1.0
        value = np.arange(4, dtype=np.float32)
        with tf1.Session(target, graph=g) as sess:
            for _ in range(100):
                sess.run(y, {x: value})
            times = []
            for _ in range(runs):
                t = time.perf_counter()
                sess.run(y, {x: value})
                times.append(time.perf_counter() - t)
    times = np.array(times) * 1e6
    return float(np.median(times)), float(np.percentile(times, 99))


def load_fashion_mnist():
    with gzip.open(os.path.join(DATA, "train-images-idx3-ubyte.gz"), "rb") as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 784).astype(np.float32) / 255.0
    with gzip.open(os.path.join(DATA, "train-labels-idx1-ubyte.gz"), "rb") as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8).astype(np.int64)
    return images, labels


def training(target, images, labels, steps, batch):
    g = tf.Graph()
    with g.as_default():
        tf1.set_random_seed(1)
        x = tf1.placeholder(tf.float32, [None, 784], name="images")
        y = tf1.placeholder(tf.int64, [None], name="labels")
        def dense(name, inputs, n_in, n_out):
            with tf1.variable_scope(name):
                w = tf1.get_variable("kernel", [n_in, n_out], initializer=tf1.glorot_uniform_initializer())
                b = tf1.get_variable("bias", [n_out], initializer=tf1.zeros_initializer())
                return tf.matmul(inputs, w) + b

        hidden = tf.nn.relu(dense("dense", x, 784, 256))
        logits = dense("dense_1", hidden, 256, 10)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        train = tf1.train.AdamOptimizer(1e-3).minimize(loss)
        with tf1.Session(target, graph=g) as sess:
            sess.run(tf1.global_variables_initializer())
            n = len(images) // batch

            def step(k):
                i = (k % n) * batch
                return sess.run([loss, train], {x: images[i:i + batch], y: labels[i:i + batch]})[0]

            for k in range(20):
                step(k)
            t = time.perf_counter()
            for k in range(steps):
                last = step(20 + k)
            seconds = time.perf_counter() - t
    return steps * batch / seconds, float(last)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("node")
    p.add_argument("--runs", type=int, default=2000)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--batch", type=int, default=64)
    a = p.parse_args()
    work = "/tmp/grpc_client_bench.%d" % os.getpid()
    os.makedirs(work, exist_ok=True)
    procs, targets = start_servers(a.node, work)
    try:
        images, labels = load_fashion_mnist()
        lat = {name: [] for name in targets}
        ex = {name: [] for name in targets}
        for _ in range(2):
            for name, target in targets.items():
                lat[name].append(latency(target, a.runs))
                ex[name].append(training(target, images, labels, a.steps, a.batch))
        for name in targets:
            med = np.median([m for m, _ in lat[name]])
            p99 = np.median([q for _, q in lat[name]])
            print("grpc_client: %s Session.run latency median %.1f us, p99 %.1f us (runs: %s)" %
                  (name, med, p99, ", ".join("%.1f" % m for m, _ in lat[name])))
        ratio = np.median([m for m, _ in lat["tensorflow"]]) / np.median([m for m, _ in lat["tensoract"]])
        print("grpc_client: latency tensorflow/tensoract %.2fx" % ratio)
        for name in targets:
            print("grpc_client: %s MLP training batch %d: %.0f ex/s (runs: %s), last loss %.3f" %
                  (name, a.batch, np.median([e for e, _ in ex[name]]),
                   ", ".join("%.0f" % e for e, _ in ex[name]), ex[name][-1][1]))
        ratio = np.median([e for e, _ in ex["tensoract"]]) / np.median([e for e, _ in ex["tensorflow"]])
        print("grpc_client: training tensoract/tensorflow %.2fx" % ratio)
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=10)


if __name__ == "__main__":
    main()
