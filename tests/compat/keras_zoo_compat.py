#!/usr/bin/env python3
"""The Keras model zoo of issue 54 (keras_zoo.py) runs here with TensorFlow's outputs.

Usage: keras_zoo_compat.py TENSORACT_RUN WORK_DIR [--all | --quick] [--names A,B] [--size small|full] [--keep]

Each model of the representative set (every model with --all, or those --names names) is
exported both ways (Keras 3's model.export and tf.saved_model.save) at the small size; its
serving_default signature runs in TensorFlow and through `tensoract-run --saved-model` on
random inputs at batches 1 and 32, and every output must agree within 1e-4 relative, 1e-5
absolute (1e-3 and 1e-4 for the deep keras.applications models: see RTOL). One line per
(model, way, batch) says the largest differences, or the error that stopped the model
here: a model that does not load is a failure, its message printed ("op type 'Erfc' is not
registered"). Where an application's outputs part by more than that, the model in float64
decides (see REFEREE_FACTOR).

--quick (the quick test tier of bootstrap/run-tests.sh; CI runs the whole set) leaves out the
three applications that take longest to export (DenseNet121, EfficientNetB0, ConvNeXtTiny:
three minutes of the set's four on 2 cores); ResNet50 and MobileNetV2 stay for the
convolutions, batch norms and fusions they share with them, each exported one way (ResNet50
by model.export, MobileNetV2 by tf.saved_model.save: 10 s of a core each saved), the smaller
models both ways.

The exported models are removed after each model (a ResNet50 takes 300 MB both ways);
--keep leaves them in WORK_DIR.

Exits 77 (ctest: skipped) when TensorFlow cannot be imported.
"""
import argparse
import os
import shutil
import sys
import time

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # before TensorFlow loads: its own kernels are the reference
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compat_util import Checks, run_saved_model_signature, skip_without  # noqa: E402
with skip_without():
    import numpy as np
    import tensorflow as tf
    import keras_zoo

# Float32 throughout, and the sums of every convolution, matmul, batch and layer norm and
# softmax are ordered differently here than in Eigen, with other exp/tanh/erf
# approximations: each op may differ by a few ulps (1e-7 relative). Through the hand-built
# models (two transformer blocks, one recurrent layer) that stays near 1e-6 on the outputs,
# hence 1e-4 relative with room; atol covers probabilities near zero, whose relative error
# means nothing. A real fault (a wrong padding, a swapped gate, a lost mask) moves outputs by
# 1e-2 or more.
RTOL, ATOL = 1e-4, 1e-5
# The applications are 50 to 200 layers deep and amplify those ulps: against the same model
# run in float64 (Keras with floatx float64, the same weights), TensorFlow's own float32
# kernels are off by up to 3e-4 relative on ResNet50's and EfficientNetB0's probabilities
# (Eigen 3.1e-4, oneDNN 4.8e-4 at batch 32) and its two CPU backends differ from each other
# by as much, so 1e-4 against Eigen would fail TensorFlow with oneDNN. 1e-3 leaves the
# ulp-level spread of float32 implementations in and still keeps real faults out.
DEEP_RTOL, DEEP_ATOL = 1e-3, 1e-4
# The deepest (ResNet152, EfficientNetB3 and B4 at batch 32) amplify them further: both
# sides' float32 are up to 1e-2 off the float64 truth, and part from each other by as much.
# Where an application's outputs part by more than the tolerance, the same model in float64
# (keras_zoo.float64_twin) is the referee: ours passes when its largest relative error against
# float64 is within REFEREE_FACTOR of TensorFlow's own float32 error (or within DEEP_RTOL).
# A real fault is 1e-1 off float64 where TensorFlow is 1e-2.
REFEREE_FACTOR = 2.0


def tolerance(m):
    """(rtol, atol) for a ZooModel: looser for the deep keras.applications models."""
    return (DEEP_RTOL, DEEP_ATOL) if m.name in keras_zoo.APPLICATIONS else (RTOL, ATOL)


BATCHES = (1, 32)
QUICK_LEAVES_OUT = ("DenseNet121", "EfficientNetB0", "ConvNeXtTiny")

check = Checks()


def differences(ours, theirs, rtol, atol):
    """(largest absolute difference, largest relative one where TensorFlow's value is above
    atol, both within tolerance)."""
    theirs = np.asarray(theirs, dtype=np.float64)
    if ours.shape != theirs.shape:
        return float("inf"), float("inf"), False
    d = np.abs(ours - theirs)
    big = np.abs(theirs) > atol
    rel = float((d[big] / np.abs(theirs[big])).max()) if big.any() else 0.0
    return float(d.max(initial=0.0)), rel, bool(np.allclose(ours, theirs, rtol=rtol, atol=atol))


class Referee:
    """The float64 outputs of one application, its float64 twin built on first use. Both
    export ways run the same inputs at a batch: each is computed once (a deep model at
    batch 32 takes its float64 twin tens of seconds)."""

    def __init__(self, m, model):
        self.m, self.model, self.wide, self.outputs = m, model, None, {}

    def __call__(self, x):
        key = (x.shape, x.tobytes())
        if key not in self.outputs:
            if self.wide is None:
                self.wide = keras_zoo.float64_twin(self.m, self.model)
            self.outputs[key] = np.asarray(self.wide(x.astype(np.float64), training=False), np.float64)
        return self.outputs[key]


def compare(run, m, how, model_dir, work, referee):
    key, output_keys = keras_zoo.serving_keys(model_dir)
    serve = tf.saved_model.load(model_dir).signatures["serving_default"]
    for batch in BATCHES:
        x = keras_zoo.sample_input(m, batch, seed=batch)
        want = {k: v.numpy() for k, v in serve(**{key: tf.constant(x)}).items()}
        what = f"{m.name} {how} batch {batch}"
        code, got = run_saved_model_signature(run, model_dir, "serving_default", {key: x}, work, timeout=600)
        if code != "OK":
            check(False, f"{what}: {code}: {got}")
            continue
        worst_abs, worst_rel, ok = 0.0, 0.0, True
        for k in output_keys:
            if k not in got:
                check(False, f"{what}: no output '{k}' here (got {sorted(got)})")
                break
            a, r, within = differences(got[k], want[k], *tolerance(m))
            worst_abs, worst_rel, ok = max(worst_abs, a), max(worst_rel, r), ok and within
        else:
            verdict = f"{what}: max abs {worst_abs:.3g} rel {worst_rel:.3g}"
            if not ok and m.name in keras_zoo.APPLICATIONS and len(output_keys) == 1:
                truth = referee(x)
                theirs_err = keras_zoo.relative_error(want[output_keys[0]], truth)
                ours_err = keras_zoo.relative_error(got[output_keys[0]], truth)
                ok = ours_err <= max(REFEREE_FACTOR * theirs_err, DEEP_RTOL)
                verdict += (f"; against float64: TensorFlow {theirs_err:.3g}, tensoract {ours_err:.3g}"
                            f" ({'within' if ok else 'beyond'} {REFEREE_FACTOR:g}x TensorFlow's)")
            check(ok, verdict)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("run", metavar="TENSORACT_RUN")
    p.add_argument("work", metavar="WORK_DIR")
    p.add_argument("--all", action="store_true", help="the whole zoo, not the representative set")
    p.add_argument("--quick", action="store_true", help="the representative set but its three slowest exports")
    p.add_argument("--names", help="these models (comma-separated)")
    p.add_argument("--size", default="small", choices=["small", "full"])
    p.add_argument("--keep", action="store_true", help="leave the exported models in WORK_DIR")
    args = p.parse_args()
    names = args.names.split(",") if args.names else None if args.all else keras_zoo.REPRESENTATIVE
    if args.quick and not args.names and not args.all:
        names = [n for n in names if n not in QUICK_LEAVES_OUT]
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    start = time.perf_counter()
    applications = 0
    for m in keras_zoo.zoo(args.size, names):
        began = time.perf_counter()
        model = m.build()
        referee = Referee(m, model)
        hows = keras_zoo.HOWS
        if args.quick and m.name in keras_zoo.APPLICATIONS:
            hows = [keras_zoo.HOWS[applications % len(keras_zoo.HOWS)]]
            applications += 1
        for how in hows:
            model_dir = os.path.join(args.work, m.name, how)
            keras_zoo.export(model, model_dir, how)
            compare(args.run, m, how, model_dir, args.work, referee)
        if not args.keep:
            shutil.rmtree(os.path.join(args.work, m.name), ignore_errors=True)
        tf.keras.backend.clear_session()  # the next model's layer names and memory start afresh
        print(f"     {m.name}: {time.perf_counter() - began:.1f} s", flush=True)
    print(f"keras zoo: {time.perf_counter() - start:.0f} s in all")
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
