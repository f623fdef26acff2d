"""The same Fashion-MNIST training steps as train_step.cc, in PyTorch and in TensorFlow.

  python3 train_step_peers.py torch|tf|tf2 --model mlp|cnn --batch N --threads N [--steps N]
                              [--profile N] [--device cpu|gpu]  (gpu: torch on CUDA; each
                                               step copies its batch from host memory, as
                                               train_step --device gpu feeds it)   (tf: then N traced steps, time per node, as
                                               train_step --profile prints ours)

Same models (784-256-10 MLP; TensorFlow's layers-tutorial CNN: conv5x5x32, pool, conv5x5x64,
pool, dense 1024, dense 10), Glorot-uniform weights, Adam(1e-3), mean sparse cross-entropy,
real Fashion-MNIST batches prepared before timing. Each framework gets `threads` threads for
its intra-op pool and BLAS (OMP/MKL variables are set before import); TensorFlow runs as a
graph through tf.compat.v1.Session, as tensoract does ("tf"), or the TensorFlow 2 way
("tf2": a tf.function step with a GradientTape and tf.keras' Adam, the peer of
examples/eager_fashion_mnist's traced step).
"""
import argparse
import gzip
import os
import sys
import time

p = argparse.ArgumentParser()
p.add_argument("framework", choices=["torch", "tf", "tf2"])
p.add_argument("--model", default="mlp", choices=["mlp", "cnn"])
p.add_argument("--batch", type=int, default=64)
p.add_argument("--threads", type=int, default=1)
p.add_argument("--steps", type=int, default=200)
p.add_argument("--warmup", type=int, default=20)
p.add_argument("--profile", type=int, default=0)
p.add_argument("--device", default="cpu", choices=["cpu", "gpu"])
args = p.parse_args()
for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[var] = str(args.threads)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np

data_dir = os.environ.get("TENSORACT_FASHION_MNIST", "/usr/share/datasets/fashion-mnist")
with gzip.open(os.path.join(data_dir, "train-images-idx3-ubyte.gz")) as f:
    images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 28, 28, 1).astype(np.float32) / 255.0
with gzip.open(os.path.join(data_dir, "train-labels-idx1-ubyte.gz")) as f:
    labels = np.frombuffer(f.read(), np.uint8, offset=8).astype(np.int64)
rng = np.random.default_rng(1)
order = rng.permutation(len(labels))
batches = []
for i in range(16):
    idx = order[i * args.batch:(i + 1) * args.batch]
    x = images[idx]
    batches.append((x.reshape(len(idx), 784) if args.model == "mlp" else x, labels[idx]))


def cpu_ticks():
    """The machine's CPU time so far and the hypervisor's steal of it (/proc/stat), in ticks."""
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return v[7], sum(v)
    except (OSError, ValueError, IndexError):
        return 0, 0


def timed(step):
    for i in range(args.warmup):
        step(i)
    before = cpu_ticks()
    start = time.perf_counter()
    for i in range(args.steps):
        loss = step(i)
    secs = time.perf_counter() - start
    after = cpu_ticks()
    total = after[1] - before[1]
    steal = 100 * (after[0] - before[0]) // total if total > 0 else 0
    return args.steps / secs, loss, steal


if args.framework == "torch":
    import torch
    from torch import nn
    torch.set_num_threads(args.threads)
    torch.set_num_interop_threads(1)
    torch.manual_seed(1)
    if args.model == "mlp":
        net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    else:
        # NHWC data is transposed to NCHW once, outside the timed step.
        net = nn.Sequential(nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                            nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                            nn.Linear(7 * 7 * 64, 1024), nn.ReLU(), nn.Linear(1024, 10))
    for m in net.modules():
        if isinstance(m, (nn.Linear, nn.Conv2d)):
            nn.init.xavier_uniform_(m.weight)
            nn.init.zeros_(m.bias)
    dev = torch.device("cuda" if args.device == "gpu" else "cpu")
    net = net.to(dev)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    tb = [(torch.from_numpy(x if args.model == "mlp" else x.transpose(0, 3, 1, 2).copy()), torch.from_numpy(y))
          for x, y in batches]

    def step(i):
        x, y = tb[i % len(tb)]
        x, y = x.to(dev), y.to(dev)
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        return loss.item()
    name, version = "pytorch", torch.__version__
elif args.framework == "tf2":
    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(args.threads)
    tf.random.set_seed(1)
    init = tf.keras.initializers.GlorotUniform(seed=1)

    def variable(shape, name):
        return tf.Variable(init(shape) if len(shape) > 1 else tf.zeros(shape), name=name)

    if args.model == "mlp":
        params = [variable([784, 256], "w1"), variable([256], "b1"), variable([256, 10], "w2"), variable([10], "b2")]

        def logits_of(x):
            return tf.matmul(tf.nn.relu(tf.matmul(x, params[0]) + params[1]), params[2]) + params[3]
    else:
        params = [variable([5, 5, 1, 32], "c1"), variable([32], "cb1"), variable([5, 5, 32, 64], "c2"),
                  variable([64], "cb2"), variable([7 * 7 * 64, 1024], "w1"), variable([1024], "b1"),
                  variable([1024, 10], "w2"), variable([10], "b2")]

        def logits_of(x):
            h = tf.nn.max_pool2d(tf.nn.relu(tf.nn.conv2d(x, params[0], 1, "SAME") + params[1]), 2, 2, "VALID")
            h = tf.nn.max_pool2d(tf.nn.relu(tf.nn.conv2d(h, params[2], 1, "SAME") + params[3]), 2, 2, "VALID")
            h = tf.nn.relu(tf.matmul(tf.reshape(h, [-1, 7 * 7 * 64]), params[4]) + params[5])
            return tf.matmul(h, params[6]) + params[7]
    adam = tf.keras.optimizers.Adam(1e-3)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits_of(x)))
        adam.apply_gradients(zip(tape.gradient(loss, params), params))
        return loss
    tb = [(tf.constant(x), tf.constant(y.astype(np.int32))) for x, y in batches]

    def step(i):
        x, y = tb[i % len(tb)]
        return float(train_step(x, y))
    name, version = "tensorflow-tf.function", tf.__version__
else:
    import tensorflow as tf
    tf.compat.v1.disable_eager_execution()
    g = tf.Graph()
    with g.as_default():
        tf.compat.v1.set_random_seed(1)
        init = tf.compat.v1.glorot_uniform_initializer()
        shape = [None, 784] if args.model == "mlp" else [None, 28, 28, 1]
        x = tf.compat.v1.placeholder(tf.float32, shape, name="images")
        y = tf.compat.v1.placeholder(tf.int64, [None], name="labels")

        def dense(h, n_in, n_out, name):
            w = tf.compat.v1.get_variable(name + "/kernel", [n_in, n_out], initializer=init)
            b = tf.compat.v1.get_variable(name + "/bias", [n_out], initializer=tf.compat.v1.zeros_initializer())
            return tf.nn.bias_add(tf.matmul(h, w), b)

        def conv(h, n_in, n_out, name):
            w = tf.compat.v1.get_variable(name + "/kernel", [5, 5, n_in, n_out], initializer=init)
            b = tf.compat.v1.get_variable(name + "/bias", [n_out], initializer=tf.compat.v1.zeros_initializer())
            return tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, w, [1, 1, 1, 1], "SAME"), b))

        if args.model == "mlp":
            logits = dense(tf.nn.relu(dense(x, 784, 256, "dense")), 256, 10, "dense_1")
        else:
            h = tf.nn.max_pool2d(conv(x, 1, 32, "conv2d"), 2, 2, "VALID")
            h = tf.nn.max_pool2d(conv(h, 32, 64, "conv2d_1"), 2, 2, "VALID")
            h = tf.reshape(h, [-1, 7 * 7 * 64])
            logits = dense(tf.nn.relu(dense(h, 7 * 7 * 64, 1024, "dense")), 1024, 10, "dense_1")
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        train = tf.compat.v1.train.AdamOptimizer(1e-3).minimize(loss)
        init_op = tf.compat.v1.global_variables_initializer()
    config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=args.threads,
                                      inter_op_parallelism_threads=args.threads)
    sess = tf.compat.v1.Session(graph=g, config=config)
    sess.run(init_op)

    def step(i):
        bx, by = batches[i % len(batches)]
        return sess.run([loss, train], {x: bx, y: by})[0]
    name, version = "tensorflow", tf.__version__

rate, last, steal = timed(step)
print(f"{name} {version} {args.model} batch {args.batch} threads {args.threads} device {args.device}: {rate:.1f} steps/s "
      f"({rate * args.batch:.0f} examples/s, last loss {last:.4f}; steal {steal}%)")

if args.profile > 0 and args.framework == "tf":
    # Each node's time in traced steps (its step_stats), averaged, largest first: the same
    # table as `train_step --profile`, to set TensorFlow's kernels beside ours op by op.
    per_node = {}
    for i in range(args.profile):
        bx, by = batches[i % len(batches)]
        meta = tf.compat.v1.RunMetadata()
        sess.run([loss, train], {x: bx, y: by}, run_metadata=meta,
                 options=tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE))
        for dev in meta.step_stats.dev_stats:
            for node in dev.node_stats:
                per_node[node.node_name] = per_node.get(node.node_name, 0) + node.all_end_rel_micros / args.profile
    total = sum(per_node.values())
    print(f"kernel time per step: {total:.0f} us")
    for node, us in sorted(per_node.items(), key=lambda kv: -kv[1])[:15]:
        print(f"  {node:50s} {us:9.0f} us {100 * us / total:6.1f}%")
