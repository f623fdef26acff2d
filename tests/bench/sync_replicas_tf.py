#!/usr/bin/env python3
"""TensorFlow's side of run_backup_workers.sh: the same MLP (784 -> hidden -> 10, ReLU,
sparse softmax cross-entropy, SGD 0.05) trained the TF 1.x way through a ps: a
tf.distribute.Server per task, between-graph replication (replica_device_setter: the
variables on the ps, each worker's replica on itself), tf.compat.v1.train.
SyncReplicasOptimizer aggregating `--aggregate` of the workers' gradients a step. One
process per task in its lab namespace, all started at once by the driver:

    python3 sync_replicas_tf.py --job ps --task 0 --ps 10.77.3.1:2300 --workers A:2300,B:2300
    python3 sync_replicas_tf.py --job worker --task i --ps ... --workers ... --aggregate 2 \
        --hidden 1024 --steps 20

The ps serves until killed. Workers wait for the chief (worker 0) to initialize, say they
are ready through a queue on the ps, and train, 64 Fashion-MNIST images a replica step.
The chief starts the sync queue runner once every worker is ready and prints
"tensorflow <workers> <aggregate> <global steps/s> <ms a step>" over global steps
2 .. 2 + steps; the driver then stops every process.
"""
import argparse
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--job", choices=["ps", "worker"], required=True)
    p.add_argument("--task", type=int, required=True)
    p.add_argument("--ps", required=True)
    p.add_argument("--workers", required=True)
    p.add_argument("--aggregate", type=int, default=0)
    p.add_argument("--hidden", type=int, default=1024)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--data-dir", default="/usr/share/datasets/fashion-mnist")
    a = p.parse_args()
    import gzip
    import numpy as np
    import tensorflow as tf
    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    workers = a.workers.split(",")
    n = len(workers)
    k = a.aggregate or n
    cluster = tf.train.ClusterSpec({"ps": [a.ps], "worker": workers})
    config = tf1.ConfigProto(inter_op_parallelism_threads=1, intra_op_parallelism_threads=1)
    server = tf.distribute.Server(cluster, job_name=a.job, task_index=a.task, config=config)
    if a.job == "ps":
        server.join()
        return 0
    with gzip.open(os.path.join(a.data_dir, "train-images-idx3-ubyte.gz"), "rb") as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 784).astype(np.float32) / 255.0
    with gzip.open(os.path.join(a.data_dir, "train-labels-idx1-ubyte.gz"), "rb") as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8).astype(np.int32)
    chief = a.task == 0
    with tf1.device(tf1.train.replica_device_setter(worker_device="/job:worker/task:%d" % a.task, cluster=cluster)):
        x = tf1.placeholder(tf.float32, [None, 784])
        y = tf1.placeholder(tf.int32, [None])
        w1 = tf1.get_variable("w1", initializer=tf1.random_uniform([784, a.hidden], -0.03, 0.03, seed=1))
        b1 = tf1.get_variable("b1", initializer=tf.zeros([a.hidden]))
        w2 = tf1.get_variable("w2", initializer=tf1.random_uniform([a.hidden, 10], -0.03, 0.03, seed=2))
        b2 = tf1.get_variable("b2", initializer=tf.zeros([10]))
        logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + b2
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        global_step = tf1.train.get_or_create_global_step()
        opt = tf1.train.SyncReplicasOptimizer(tf1.train.GradientDescentOptimizer(0.05), replicas_to_aggregate=k,
                                              total_num_replicas=n)
        train_op = opt.minimize(loss, global_step=global_step)
        with tf1.device("/job:ps/task:0"):
            ready = tf1.FIFOQueue(-1, tf.int32, shapes=[], shared_name="ready_q", name="ready_q")
        say_ready = ready.enqueue(a.task)
        all_ready = ready.dequeue_many(n - 1) if n > 1 else tf.no_op()
        init = tf1.global_variables_initializer()
        local_init = [tf1.local_variables_initializer(), opt.local_step_init_op]
        uninitialized = tf1.report_uninitialized_variables(tf1.global_variables())
        chief_queue_runner = opt.get_chief_queue_runner()
        init_tokens = opt.get_init_tokens_op()
    sess = tf1.Session(server.target, config=config)
    if chief:
        sess.run(init)
        sess.run(opt.chief_init_op)
        sess.run(init_tokens)
    else:
        while len(sess.run(uninitialized)) > 0:
            time.sleep(0.1)
    sess.run(local_init)
    if chief:
        sess.run(all_ready)
        coord = tf1.train.Coordinator()
        chief_queue_runner.create_threads(sess, coord=coord, daemon=True, start=True)
    else:
        sess.run(say_ready)

    def batch(step):
        start = ((step * n + a.task) * a.batch) % (len(images) - a.batch)
        return {x: images[start:start + a.batch], y: labels[start:start + a.batch]}

    step, start_time, start_step = 0, None, None
    while True:
        _, gs = sess.run([train_op, global_step], feed_dict=batch(step))
        step += 1
        if chief and start_time is None and gs >= 2:
            start_time, start_step = time.perf_counter(), gs
        if chief and start_step is not None and gs >= start_step + a.steps:
            seconds = time.perf_counter() - start_time
            done = gs - start_step
            print("tensorflow %d %d %.2f %.1f" % (n, k, done / seconds, 1e3 * seconds / done), flush=True)
            os._exit(0)  # the driver stops the other tasks


if __name__ == "__main__":
    sys.exit(main())
