#!/usr/bin/env python3
"""TensorFlow's side of run_sync_train_scale.sh: the same MLP (784 -> hidden -> 10, ReLU,
sparse softmax cross-entropy, SGD) trained with MultiWorkerMirroredStrategy (all-reduce
over gRPC, CommunicationImplementation.RING), one process per worker in its lab namespace,
64 Fashion-MNIST images per worker a step. Run by the driver, one per task, all at once:

    python3 sync_train_tf.py --task 0 --addresses 10.77.3.2:2300,10.77.3.3:2300 \
        --hidden 4096 --steps 3

Prints "tensorflow <workers> <examples/s> <ms a step>" from task 0 (after 2 warm-up
steps), where every worker has taken the same steps.
"""
import argparse
import json
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--task", type=int, required=True)
    p.add_argument("--addresses", required=True)
    p.add_argument("--hidden", type=int, default=4096)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--data-dir", default="/usr/share/datasets/fashion-mnist")
    a = p.parse_args()
    addresses = a.addresses.split(",")
    n = len(addresses)
    os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": addresses}, "task": {"type": "worker", "index": a.task}})
    import gzip
    import numpy as np
    import tensorflow as tf
    tf.config.threading.set_inter_op_parallelism_threads(1)
    tf.config.threading.set_intra_op_parallelism_threads(1)
    options = tf.distribute.experimental.CommunicationOptions(
        implementation=tf.distribute.experimental.CommunicationImplementation.RING)
    strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)
    with gzip.open(os.path.join(a.data_dir, "train-images-idx3-ubyte.gz"), "rb") as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 784).astype(np.float32) / 255.0
    with gzip.open(os.path.join(a.data_dir, "train-labels-idx1-ubyte.gz"), "rb") as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8).astype(np.int32)
    with strategy.scope():
        w1 = tf.Variable(tf.random.uniform([784, a.hidden], -0.03, 0.03, seed=1))
        b1 = tf.Variable(tf.zeros([a.hidden]))
        w2 = tf.Variable(tf.random.uniform([a.hidden, 10], -0.03, 0.03, seed=2))
        b2 = tf.Variable(tf.zeros([10]))
    variables = [w1, b1, w2, b2]

    @tf.function
    def step(x, y):
        def replica(x, y):
            with tf.GradientTape() as tape:
                logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + b2
                loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
            grads = tape.gradient(loss, variables)
            grads = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.MEAN, grads)
            for v, g in zip(variables, grads):
                v.assign_sub(0.05 * g)
            return loss
        return strategy.run(replica, args=(x, y))

    def batch(k):
        start = ((k * n + a.task) * a.batch) % (len(images) - a.batch)
        return tf.constant(images[start:start + a.batch]), tf.constant(labels[start:start + a.batch])

    for k in range(2):
        step(*batch(k))
    t = time.perf_counter()
    for k in range(2, 2 + a.steps):
        loss = step(*batch(k))
    float(loss)
    seconds = time.perf_counter() - t
    if a.task == 0:
        print("tensorflow %d %.1f %.1f" % (n, a.steps * a.batch * n / seconds, 1e3 * seconds / a.steps), flush=True)


if __name__ == "__main__":
    sys.exit(main())
