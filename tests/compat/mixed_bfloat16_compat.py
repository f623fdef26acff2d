#!/usr/bin/env python3
"""A Keras model under the mixed_bfloat16 policy runs here with TensorFlow's outputs.

Usage: mixed_bfloat16_compat.py TENSORACT_RUN WORK_DIR

Keras' documented way to use a CPU's bfloat16 units is `keras.mixed_precision.set_global_policy
("mixed_bfloat16")`: the variables stay float32, every layer casts them and computes in
bfloat16, so the exported graph holds Conv2D, DepthwiseConv2dNative, MatMul, batch norms,
Relu6, Sigmoid, Mul, Add and Mean of bfloat16. A small CNN with each of those (a strided
convolution, a depthwise one, a squeeze-and-excitation gate, a residual Add, a Dense head
whose softmax Keras keeps in float32) is exported with model.export and run at batches 1 and
8, in TensorFlow and through `tensoract-run --saved-model`.

Both compute in bfloat16 and round differently (TensorFlow's Eigen kernels round each
partial sum of a convolution to bfloat16; ours and oneDNN's sum in float and round once), so
the outputs agree to bfloat16's precision, not float's: within 3e-2 of the largest output
(bfloat16 keeps 8 bits; a real fault, a wrong padding or a lost gate, moves them by 0.1 or
more). The probabilities are also checked against the same model's float32 twin, on both
sides, to show how far bfloat16 itself moves them.

Exits 77 (ctest: skipped) when TensorFlow cannot be imported.
"""
import os
import sys

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # before TensorFlow loads: its own kernels are the reference
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compat_util import Checks, run_saved_model_signature, skip_without  # noqa: E402
with skip_without():
    import numpy as np
    import tensorflow as tf
    import keras

TOLERANCE = 3e-2  # of the largest |output|


def build(seed):
    keras.utils.set_random_seed(seed)
    x = keras.Input((32, 32, 3))
    h = keras.layers.Conv2D(16, 3, strides=2, padding="same")(x)
    h = keras.layers.BatchNormalization()(h)
    h = keras.layers.ReLU(6.0)(h)
    d = keras.layers.DepthwiseConv2D(3, padding="same")(h)
    d = keras.layers.BatchNormalization()(d)
    d = keras.layers.Activation("swish")(d)
    gate = keras.layers.GlobalAveragePooling2D(keepdims=True)(d)
    gate = keras.layers.Conv2D(16, 1, activation="sigmoid")(gate)
    d = keras.layers.Multiply()([d, gate])
    p = keras.layers.Conv2D(16, 1)(d)
    p = keras.layers.BatchNormalization()(p)
    h = keras.layers.Add()([h, p])
    h = keras.layers.ReLU()(h)
    h = keras.layers.GlobalAveragePooling2D()(h)
    h = keras.layers.Dense(10)(h)
    out = keras.layers.Activation("softmax", dtype="float32")(h)
    model = keras.Model(x, out)
    # Batch norms with statistics of their own, not the identity of a fresh layer.
    for layer in model.layers:
        if isinstance(layer, keras.layers.BatchNormalization):
            n = layer.moving_mean.shape[0]
            layer.moving_mean.assign(np.linspace(-0.5, 0.5, n).astype(np.float32))
            layer.moving_variance.assign(np.linspace(0.5, 2.0, n).astype(np.float32))
    return model


def main():
    run, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    check = Checks()
    keras.mixed_precision.set_global_policy("mixed_bfloat16")
    model = build(seed=7)
    keras.mixed_precision.set_global_policy("float32")
    twin = build(seed=7)
    twin.set_weights(model.get_weights())
    model_dir = os.path.join(work, "mixed_bfloat16_cnn")
    model.export(model_dir, verbose=False)
    serve = tf.saved_model.load(model_dir).signatures["serving_default"]
    key = list(serve.structured_input_signature[1].keys())[0]
    for batch in (1, 8):
        x = np.random.default_rng(batch).uniform(-1, 1, (batch, 32, 32, 3)).astype(np.float32)
        want = {k: v.numpy().astype(np.float64) for k, v in serve(**{key: tf.constant(x)}).items()}
        code, got = run_saved_model_signature(run, model_dir, "serving_default", {key: x}, work)
        what = f"mixed_bfloat16 CNN batch {batch}"
        if code != "OK":
            check(False, f"{what}: {code}: {got}")
            continue
        for k, w in want.items():
            if k not in got:
                check(False, f"{what}: no output '{k}' here (got {sorted(got)})")
                continue
            scale = max(np.abs(w).max(), 1e-30)
            ours = np.abs(got[k] - w).max() / scale
            twin_out = twin(x, training=False).numpy().astype(np.float64)
            bf16_theirs = np.abs(w - twin_out).max() / scale
            bf16_ours = np.abs(got[k] - twin_out).max() / scale
            print(f"{what}: {k} largest difference from TensorFlow {ours:.3g} of the largest output; "
                  f"from float32: TensorFlow's {bf16_theirs:.3g}, ours {bf16_ours:.3g}", flush=True)
            check(got[k].shape == w.shape, f"{what}: shape {got[k].shape} against {w.shape}")
            check(ours <= TOLERANCE, f"{what}: {k} within {TOLERANCE} of the largest output of TensorFlow's ({ours:.3g})")
    sys.exit(check.summary())


if __name__ == "__main__":
    main()
