#!/usr/bin/env python3
"""Training a Keras model here follows TensorFlow step by step (issue 54).

Usage: training_compat.py TENSORACT_RUN WORK_DIR [--model small_resnet|resnet50] [--size S]
                          [--batch B] [--steps N]

The model's training step (keras_train.py: forward in training mode, cross-entropy, every
gradient, SGD) is exported as a SavedModel signature, then run for N steps on the same
random batches in TensorFlow (its own kernels, oneDNN off) and here (`tensoract-run
--saved-model DIR --signature train_step --run ...`, one session, so the variables carry
over from step to step). Each step's loss and the size (sum of squares) of every weight's
gradient must agree within RTOL: a wrong gradient (a filter gradient summed over the wrong
pixels, a missing bias gradient, a batch norm that forgot its batch statistics) shows in its
own weight's entry at once, and in the losses of the steps after it.

Default: the small residual CNN at 16x16, batch 8, 4 steps (seconds; ctest's
training_with_tensorflow). --model resnet50 --size 32 is Keras' ResNet50, for by hand.

Exits 77 (ctest: skipped) when TensorFlow cannot be imported.
"""
import argparse
import json
import os
import subprocess
import sys

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # before TensorFlow loads: its own kernels are the reference
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compat_util import Checks, skip_without  # noqa: E402
with skip_without():
    import numpy as np
    import tensorflow as tf
    import keras
    import keras_train

CLASSES = 10
# Float32 sums ordered differently (oneDNN's convolutions and their gradients, our
# reductions) differ by ulps per op; a few SGD steps carry that into the weights at about
# 1e-6 relative and into the loss at 1e-5. A wrong gradient moves either by 1e-3 or more.
RTOL = 1e-4
FLOOR = 1e-9


def batches(steps, batch, size, seed=7):
    rng = np.random.default_rng(seed)
    return [(rng.random((batch, size, size, 3), dtype=np.float32),
             rng.integers(0, CLASSES, size=batch).astype(np.int32)) for _ in range(steps)]


def tensorflow_losses(model_dir, data):
    step = tf.saved_model.load(model_dir).signatures["train_step"]
    out = []
    for images, labels in data:
        r = step(images=tf.constant(images), labels=tf.constant(labels))
        out.append((float(r["loss"].numpy()), r["gradients"].numpy().astype(np.float64)))
    return out


def tensoract_losses(run, model_dir, data, work):
    args = [run, "--saved-model", model_dir, "--signature", "train_step", "--json"]
    for i, (images, labels) in enumerate(data):
        paths = []
        for name, value in (("images", images), ("labels", labels)):
            path = os.path.join(work, f"step{i}_{name}.pb")
            with open(path, "wb") as f:
                f.write(tf.make_tensor_proto(value).SerializeToString())
            paths.append(f"feed-proto={name}={path}")
        args += ["--run", " ".join(paths + ["fetch=loss,gradients"])]
    p = subprocess.run(args, capture_output=True, text=True, timeout=900)
    steps = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    if p.returncode != 0 or len(steps) != len(data):
        return None, f"exit {p.returncode}: {(p.stderr or p.stdout).strip()[-800:]}"
    out = []
    for s in steps:
        if s["code"] != "OK":
            return None, f"step {s['run']}: {s['code']}: {s.get('message', '')}"
        got = {f["name"]: np.array(f["values"], dtype=np.float64) for f in s["fetches"]}
        out.append((float(got["loss"][0]), got["gradients"]))
    return out, ""


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("run")
    p.add_argument("work")
    p.add_argument("--model", default="small_resnet", choices=["small_resnet", "resnet50"])
    p.add_argument("--size", type=int, default=16)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--steps", type=int, default=4)
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)
    keras.utils.set_random_seed(3)
    if args.model == "resnet50":
        model = keras.applications.ResNet50(weights=None, input_shape=(args.size, args.size, 3), classes=CLASSES,
                                            classifier_activation=None)
    else:
        model = keras_train.small_resnet(args.size, CLASSES)
    model_dir = os.path.join(args.work, args.model)
    keras_train.export_train_step(model, model_dir, args.size, report_gradients=True)
    data = batches(args.steps, args.batch, args.size)
    # TensorFlow's run changes the variables in its copy only: both start from the file.
    want = tensorflow_losses(model_dir, data)
    got, error = tensoract_losses(args.run, model_dir, data, args.work)
    checks = Checks()
    what = f"{args.model} {args.size}x{args.size} batch {args.batch}"
    if got is None:
        checks(False, f"{what}: {error}")
        return checks.summary()
    names = [w.path for w in model.trainable_variables]
    for i, ((loss, gradients), (want_loss, want_gradients)) in enumerate(zip(got, want)):
        rel_loss = abs(loss - want_loss) / abs(want_loss)
        # A convolution's bias before a batch norm has no gradient in exact arithmetic (the
        # norm takes the batch mean out): its size is rounding noise, 1e-14 both here and
        # there, compared against a floor tied to the largest gradient.
        floor = FLOOR * np.max(np.abs(want_gradients))
        rel = np.abs(gradients - want_gradients) / (np.abs(want_gradients) + floor / RTOL)
        worst = int(np.argmax(rel))
        checks(rel_loss <= RTOL and rel[worst] <= RTOL,
               f"{what} step {i}: loss {loss:.7g} (TensorFlow {want_loss:.7g}, rel {rel_loss:.2g}); "
               f"{len(names)} gradients' sizes, the farthest {names[worst]} {gradients[worst]:.7g} "
               f"(TensorFlow {want_gradients[worst]:.7g}, rel {rel[worst]:.2g})")
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())
