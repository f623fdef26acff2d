#!/usr/bin/env python3
"""Training a real network on the CPU (issue 54, item 4): Keras' ResNet50 (weights=None) at
64x64, 50 classes, one SGD step a call, exported so that tensoract runs TensorFlow's own
training graph, and the same step timed in TensorFlow and PyTorch.

Usage:
  resnet_train.py export DIR [--size 64]      writes DIR, a SavedModel whose signature
                                              "train_step" takes images [B, S, S, 3] float32
                                              and labels [B] int32 and returns the loss
  resnet_train.py peers DIR --batch B [--size 64] [--steps N] [--engine tensorflow|pytorch]

The step (tests/compat/keras_train.py): logits = model(images, training=True) (batch
normalization on the batch's own statistics, its moving averages updated), sparse softmax
cross-entropy, gradients of every trainable weight, w -= 0.01 * g. tensoract runs the SavedModel's train_step
(saved_model_latency DIR B --signature train_step); TensorFlow runs the same SavedModel's
signature (oneDNN on, its default); PyTorch the same architecture written with torch.nn
(bottleneck blocks of 3, 4, 6 and 3, each with its 1x1-3x3-1x1 convolutions and batch
norms, the 7x7 stem and max pool; channels last), its own SGD step. Inputs: images uniform
in [0, 1), labels in [0, 50), as saved_model_latency feeds.

Prints one line per engine:
  resnet_train: <engine> batch <B>: median <ms> ms a step over <N> steps
"""
import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "compat"))
CLASSES = 50
CORES = len(os.sched_getaffinity(0))


def export(out, size):
    import keras
    from keras_train import export_train_step
    model = keras.applications.ResNet50(weights=None, input_shape=(size, size, 3), classes=CLASSES,
                                        classifier_activation=None)
    export_train_step(model, out, size)
    print(f"resnet_train: exported ResNet50 at {size}x{size} to {out}", flush=True)


def timed(step, steps, warmup):
    for _ in range(warmup):
        step()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def inputs(batch, size):
    import numpy as np
    rng = np.random.default_rng(1)
    return (rng.random((batch, size, size, 3), dtype=np.float32),
            rng.integers(0, CLASSES, size=batch).astype(np.int32))


def tensorflow_step(model_dir, batch, size):
    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(CORES)
    step = tf.saved_model.load(model_dir).signatures["train_step"]
    x, y = inputs(batch, size)
    x, y = tf.constant(x), tf.constant(y)
    return lambda: step(images=x, labels=y)["loss"].numpy(), f"tensorflow {tf.__version__}"


def pytorch_step(batch, size):
    import torch
    from torch import nn
    torch.set_num_threads(CORES)

    class Bottleneck(nn.Module):
        def __init__(self, cin, width, stride):
            super().__init__()
            cout = 4 * width
            self.body = nn.Sequential(
                nn.Conv2d(cin, width, 1, stride, bias=True), nn.BatchNorm2d(width, eps=1.001e-5), nn.ReLU(),
                nn.Conv2d(width, width, 3, 1, 1, bias=True), nn.BatchNorm2d(width, eps=1.001e-5), nn.ReLU(),
                nn.Conv2d(width, cout, 1, 1, bias=True), nn.BatchNorm2d(cout, eps=1.001e-5))
            self.shortcut = None
            if stride != 1 or cin != cout:
                self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=True),
                                              nn.BatchNorm2d(cout, eps=1.001e-5))

        def forward(self, x):
            s = x if self.shortcut is None else self.shortcut(x)
            return torch.relu(self.body(x) + s)

    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=True), nn.BatchNorm2d(64, eps=1.001e-5), nn.ReLU(),
              nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for i in range(blocks):
            layers.append(Bottleneck(cin, width, stride if i == 0 else 1))
            cin = 4 * width
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, CLASSES)]
    model = nn.Sequential(*layers).to(memory_format=torch.channels_last).train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    x, y = inputs(batch, size)
    x = torch.from_numpy(x).permute(0, 3, 1, 2).contiguous(memory_format=torch.channels_last)
    y = torch.from_numpy(y).long()

    def step():
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss.item()
    return step, f"torch {torch.__version__}"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    e = sub.add_parser("export")
    e.add_argument("dir")
    e.add_argument("--size", type=int, default=64)
    r = sub.add_parser("peers")
    r.add_argument("dir")
    r.add_argument("--batch", type=int, required=True)
    r.add_argument("--size", type=int, default=64)
    r.add_argument("--steps", type=int, default=10)
    r.add_argument("--engine", default="tensorflow", choices=["tensorflow", "pytorch"])
    args = p.parse_args()
    if args.command == "export":
        export(args.dir, args.size)
        return
    # One engine per process, so that neither's thread pools slow the other.
    try:
        if args.engine == "tensorflow":
            step, version = tensorflow_step(args.dir, args.batch, args.size)
        else:
            step, version = pytorch_step(args.batch, args.size)
    except ImportError as err:
        print(f"resnet_train: {args.engine} batch {args.batch}: skipped (not installed: {err})", flush=True)
        return
    ms = timed(step, args.steps, warmup=2)
    print(f"# {version}, {CORES} threads", flush=True)
    print(f"resnet_train: {args.engine} batch {args.batch}: median {ms:.1f} ms a step over {args.steps} steps",
          flush=True)


if __name__ == "__main__":
    sys.exit(main())
