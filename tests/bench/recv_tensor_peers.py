"""TensorFlow's peer of recv_tensor_bench: the same transfers between two TensorFlow servers.

    python3 recv_tensor_peers.py [reps_1mb] [reps_64mb] [reps_4b]

A tf.compat.v1 cluster of two tasks on loopback, each task its own process (task 1 is
started as a subprocess of this script), talking TensorFlow's gRPC runtime. A float
variable of 1 MiB, 64 MiB and 4 bytes lives on task 1; task 0 runs tf.identity of it on
its own CPU, so every Session.run moves the tensor with one RecvTensor. The identity is
run as a target (no copy into numpy). Nothing is subtracted: the time per run includes
the session's own overhead. Prints the median per run in recv_tensor_bench's format:
    tensorflow 64MB 1.23 GB/s / tensorflow 4B 456.7 us
"""
import os
import socket
import subprocess
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cluster(ports):
    return {"worker": ["127.0.0.1:%d" % p for p in ports]}


def serve_task1(ports):
    import tensorflow as tf
    server = tf.distribute.Server(tf.train.ClusterSpec(cluster(ports)), job_name="worker", task_index=1)
    server.join()


def main():
    reps = [int(a) for a in sys.argv[1:4]] + [None] * 3
    cases = [("1MB", 1 << 20, reps[0] or 100), ("64MB", 64 << 20, reps[1] or 10), ("4B", 4, reps[2] or 1000)]
    ports = [free_port(), free_port()]
    task1 = subprocess.Popen([sys.executable, __file__, "--task1", str(ports[0]), str(ports[1])])
    try:
        import tensorflow as tf
        tf.compat.v1.disable_eager_execution()
        server = tf.distribute.Server(tf.train.ClusterSpec(cluster(ports)), job_name="worker", task_index=0)
        graph = tf.Graph()
        reads = {}
        with graph.as_default():
            for name, size, _ in cases:
                with tf.device("/job:worker/task:1/device:CPU:0"):
                    v = tf.Variable(tf.fill([size // 4], 1.5), name="v" + name)
                with tf.device("/job:worker/task:0/device:CPU:0"):
                    reads[name] = tf.identity(v).op
            init = tf.compat.v1.global_variables_initializer()
        config = tf.compat.v1.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=2)
        with tf.compat.v1.Session(server.target, graph=graph, config=config) as sess:
            sess.run(init)
            for name, size, n in cases:
                times = []
                for i in range(n + 3):  # 3 warm-up runs
                    start = time.perf_counter()
                    sess.run(reads[name])
                    if i >= 3:
                        times.append(time.perf_counter() - start)
                t = sorted(times)[len(times) // 2]
                if size <= 4:
                    print("tensorflow %s %.1f us" % (name, t * 1e6), flush=True)
                else:
                    print("tensorflow %s %.2f GB/s" % (name, size / t / 1e9), flush=True)
        print("tensorflow_version %s" % tf.__version__)
    finally:
        task1.kill()
        task1.wait()


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--task1":
        serve_task1([int(sys.argv[2]), int(sys.argv[3])])
    else:
        main()
