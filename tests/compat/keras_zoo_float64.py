#!/usr/bin/env python3
"""Which of tensoract and TensorFlow is closer to the true outputs of a deep Keras model?

Usage: keras_zoo_float64.py TENSORACT_RUN WORK_DIR --names A,B [--batches 1,32] [--size small|full] [--onednn]

keras_zoo_compat.py compares tensoract's float32 outputs with TensorFlow's float32 outputs;
on the deepest applications (ResNet152, EfficientNetB3/B4) the two part by more than its
tolerance, and neither is the truth. Here each model also runs in float64 (Keras with floatx
float64, the float32 model's weights widened), the reference both are measured against: for
each (model, batch) it prints the largest relative error of TensorFlow's float32 and of
ours against float64 (where the float64 output is above 1e-4). TensorFlow runs with oneDNN
off (keras_zoo_compat.py's reference, Eigen's kernels), or with --onednn on (its default, as
users run it).
"""
import argparse
import os
import shutil
import sys

# Before TensorFlow loads: its own kernels (keras_zoo_compat.py's reference) unless --onednn.
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "1" if "--onednn" in sys.argv else "0"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compat_util import run_saved_model_signature, skip_without  # noqa: E402
with skip_without():
    import numpy as np
    import tensorflow as tf
    import keras
    import keras_zoo


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("run", metavar="TENSORACT_RUN")
    p.add_argument("work", metavar="WORK_DIR")
    p.add_argument("--names", required=True)
    p.add_argument("--batches", default="1,32")
    p.add_argument("--size", default="small", choices=["small", "full"])
    p.add_argument("--onednn", action="store_true", help="TensorFlow with oneDNN on (its default)")
    args = p.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    batches = [int(b) for b in args.batches.split(",")]
    print("model batch: relative error against float64 of TensorFlow float32 | tensoract float32")
    for m in keras_zoo.zoo(args.size, args.names.split(",")):
        keras.config.set_floatx("float32")
        model = m.build()
        model_dir = os.path.join(args.work, m.name)
        keras_zoo.export(model, model_dir, "export")
        key, output_keys = keras_zoo.serving_keys(model_dir)
        serve = tf.saved_model.load(model_dir).signatures["serving_default"]
        wide = keras_zoo.float64_twin(m, model)
        for batch in batches:
            x = keras_zoo.sample_input(m, batch, seed=batch)
            theirs = {k: v.numpy() for k, v in serve(**{key: tf.constant(x)}).items()}
            code, ours = run_saved_model_signature(args.run, model_dir, "serving_default", {key: x}, args.work,
                                                   timeout=600)
            if code != "OK":
                print(f"{m.name} {batch}: tensoract {code}: {ours}")
                continue
            reference = np.asarray(wide(x.astype(np.float64), training=False), np.float64)
            k = output_keys[0]
            print(f"{m.name} {batch}: {keras_zoo.relative_error(theirs[k], reference):.3g} | "
                  f"{keras_zoo.relative_error(ours[k], reference):.3g}", flush=True)
        shutil.rmtree(model_dir, ignore_errors=True)
        tf.keras.backend.clear_session()
    return 0


if __name__ == "__main__":
    sys.exit(main())
