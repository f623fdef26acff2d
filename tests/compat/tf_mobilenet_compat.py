#!/usr/bin/env python3
"""A MobileNet block written by TensorFlow trains here with TensorFlow's numbers.

Usage: tf_mobilenet_compat.py TENSORACT_RUN WORK_DIR

TensorFlow builds, in tf.compat.v1 graph mode, a MobileNet-style block with its initial
values in the GraphDef: a 3x3 depthwise convolution (tf.nn.depthwise_conv2d, depth
multiplier 2, stride 2), batch normalisation in training mode (tf.compat.v1.nn.
fused_batch_norm: FusedBatchNormV3 with the running statistics mixed in by
exponential_avg_factor and assigned back), ReLU6 and a pointwise 1x1 Conv2D, a squared
error loss, tf.gradients through all of it (DepthwiseConv2dNativeBackpropInput and
-Filter, FusedBatchNormGradV3, Relu6Grad, Conv2DBackprop*) and a GradientDescent step on
resource variables. Beside it, the same block in inference (FusedBatchNormV3 with
is_training=False on the running statistics) and the gradient of its output with respect
to the input (the inference form of the batch norm gradient).

The GraphDef runs in TensorFlow (oneDNN off: its own kernels are the reference) and through
tensoract-run: the initialiser, the loss and the gradients, two training steps, the
variables after each, and the inference output and its gradient. Values must agree within
1e-5 relative (sums in another order: the pointwise Conv2D's GEMM, the batch statistics).

Exits 77 (ctest: skipped) when TensorFlow cannot be imported.
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # before TensorFlow loads
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import numpy as np
    import tensorflow as tf
except ImportError as e:
    print(f"SKIPPED: tensorflow cannot be imported ({e}); bootstrap/install-deps.sh installs tensorflow-cpu")
    sys.exit(77)

from tf_graph_compat import run_tensoract, run_tensorflow, step  # noqa: E402

tf1 = tf.compat.v1
RTOL, ATOL = 1e-5, 1e-6


def mobilenet_block():
    rng = np.random.default_rng(7)
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [None, 8, 8, 3], name="x")
        target = tf1.placeholder(tf.float32, [None, 4, 4, 8], name="target")

        def var(name, value):
            return tf1.Variable(np.asarray(value, np.float32), name=name, use_resource=True)

        dw = var("depthwise", rng.normal(0, 0.5, (3, 3, 3, 2)))
        gamma = var("gamma", rng.uniform(0.5, 1.5, 6))
        beta = var("beta", rng.normal(0, 0.1, 6))
        moving_mean = var("moving_mean", np.zeros(6))
        moving_var = var("moving_variance", np.ones(6))
        pw = var("pointwise", rng.normal(0, 0.4, (1, 1, 6, 8)))

        def block(training):
            h = tf.nn.depthwise_conv2d(x, dw, strides=[1, 2, 2, 1], padding="SAME")
            h, mean, variance = tf1.nn.fused_batch_norm(
                h, gamma, beta, mean=moving_mean.read_value(), variance=moving_var.read_value(), epsilon=1e-3,
                is_training=training, exponential_avg_factor=0.1 if training else 1.0)
            h = tf.nn.relu6(h)
            return tf.nn.conv2d(h, pw, strides=[1, 1, 1, 1], padding="SAME"), mean, variance

        out, mean, variance = block(True)
        loss = tf.reduce_mean(tf.square(out - target), name="loss")
        params = [dw, gamma, beta, pw]
        grads = tf.gradients(loss, params)
        for p, g in zip(params, grads):
            tf1.identity(g, name="grad_" + p.op.name)
        apply = tf1.train.GradientDescentOptimizer(0.5).apply_gradients(zip(grads, params))
        with tf1.control_dependencies([apply]):
            tf.group(moving_mean.assign(mean), moving_var.assign(variance), name="train")
        infer, _, _ = block(False)
        tf1.identity(infer, name="infer")
        tf1.identity(tf.gradients(tf.reduce_sum(tf.square(infer)), x)[0], name="infer_dx")
        tf1.variables_initializer(tf1.global_variables(), name="init")
    used = {n.op for n in graph.as_graph_def().node}
    want = {"DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter",
            "FusedBatchNormV3", "FusedBatchNormGradV3", "Relu6", "Relu6Grad", "Conv2D", "ResourceApplyGradientDescent"}
    assert want <= used, want - used

    feeds = {"x:0": rng.normal(0, 1, (4, 8, 8, 3)).astype(np.float32),
             "target:0": rng.normal(0, 1, (4, 4, 4, 8)).astype(np.float32)}
    state = [v + "/Read/ReadVariableOp:0" for v in ("depthwise", "gamma", "beta", "pointwise", "moving_mean",
                                                   "moving_variance")]
    grads = ["grad_depthwise:0", "grad_gamma:0", "grad_beta:0", "grad_pointwise:0"]
    steps = [step(targets=["init"]),
             step(["loss:0"] + grads, feeds),
             step(targets=["train"], feeds=feeds),
             step(["loss:0"] + state, feeds),
             step(targets=["train"], feeds=feeds),
             step(["loss:0"] + state + grads, feeds),
             step(["infer:0", "infer_dx:0"], {"x:0": feeds["x:0"]})]
    return graph, steps


def compare(name, steps, expected, got):
    problems = []
    for i, (s, (tf_code, tf_val), (ta_code, ta_val)) in enumerate(zip(steps, expected, got)):
        where = f"{name} step {i} (fetch {s['fetches']} target {s['targets']})"
        if tf_code != ta_code:
            problems.append(f"{where}: TensorFlow {tf_code} ({str(tf_val)[:200]}), tensoract {ta_code} "
                            f"({str(ta_val)[:300]})")
            continue
        if tf_code != "OK":
            continue
        for fetch, want, have in zip(s["fetches"], tf_val, ta_val):
            if not isinstance(have, np.ndarray) or want.shape != have.shape or want.dtype != have.dtype:
                problems.append(f"{where}: {fetch} came back as {have!r:.200}, TensorFlow {want.dtype}{want.shape}")
            elif not np.allclose(have, want, rtol=RTOL, atol=ATOL):
                worst = np.max(np.abs(have - want) / (ATOL + RTOL * np.abs(want)))
                problems.append(f"{where}: {fetch} differs from TensorFlow's ({worst:.1f}x the tolerance): "
                                f"{have.ravel()[:6].tolist()} vs {want.ravel()[:6].tolist()}")
    return problems


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    tool, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    graph, steps = mobilenet_block()
    tf1.train.write_graph(graph.as_graph_def(), work, "mobilenet_block.pb", as_text=False)
    expected = run_tensorflow(graph, steps)
    got = run_tensoract(tool, os.path.join(work, "mobilenet_block.pb"), steps)
    problems = compare("mobilenet_block.pb", steps, expected, got)
    print(f"mobilenet_block.pb: {len(steps)} steps, " +
          (f"tensoract matches TensorFlow {tf.__version__}" if not problems else f"{len(problems)} differences"))
    if problems:
        print("\n".join(problems))
        sys.exit(1)


if __name__ == "__main__":
    main()
