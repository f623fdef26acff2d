#!/usr/bin/env python3
"""SavedModels written by TensorFlow 2.21 run here with TensorFlow's outputs, and
SavedModels written here run in TensorFlow with ours.

Usage: tf_saved_model_compat.py TENSORACT_RUN SAVED_MODEL_TOOL WORK_DIR

TensorFlow writes, tensoract-run --saved-model runs every signature (inputs as TensorProto
files) and each output must equal TensorFlow's (1e-5 relative; MatMul and convolution
sums may be ordered differently):
  - a Keras MLP and a Keras CNN, exported for serving (`model.export`),
  - a Keras MLP saved with tf.saved_model.save (its serving function reads the Keras
    variables, which only the object graph ties to the checkpoint's keys),
  - a tf.Module with two signatures (one returning a dict) sharing a variable,
  - a TensorFlow 1 graph (tf.compat.v1.saved_model.Builder: the sharded Saver, reference
    variables, ParseExampleV2 over serialized tf.Examples) with predict, classify and
    regress signatures, and the same SavedModel rewritten with the legacy `Variable` op of
    older TensorFlow versions,
  - a TensorFlow 1 model with an asset file (its path fed to the init op on load).
Bad input is a clear error, never a crash: a truncated saved_model.pb, a missing
variables file, an unknown tag set, an unknown signature, a wrong dtype.

MetaGraphs beside checkpoints, both ways: tensoract's Saver writes model.ckpt-3.meta, which
TensorFlow's tf.compat.v1.train.import_meta_graph reads, restores and trains on from its
"train_op" collection; TensorFlow's Saver writes one that tensoract's ImportMetaGraph reads
and trains on the same way. One step from the restored values must agree.

tensoract writes (saved_model_tool export DIR): a graph with variables and a Saver, and a
traced Function; TensorFlow loads both with tf.saved_model.load and
tf.compat.v1.saved_model.load, and its outputs must equal what saved_model_tool printed.

Exits 77 (ctest: skipped) when TensorFlow cannot be imported.
"""
import json
import os
import shutil
import subprocess
import sys

from compat_util import Checks, run_saved_model_signature, skip_without  # noqa: E402
with skip_without():
    import numpy as np
    import tensorflow as tf

tf1 = tf.compat.v1
RUN, TOOL, WORK = sys.argv[1], sys.argv[2], sys.argv[3]


check = Checks()


def run_signature(model_dir, signature, inputs, tag_set="serve"):
    """Runs one signature here; inputs {key: np.ndarray or list of bytes}. Returns
    (code, {key: np.ndarray} or message)."""
    return run_saved_model_signature(RUN, model_dir, signature, inputs, WORK, tag_set)


def same(ours, theirs, rtol=1e-5, atol=1e-6):
    theirs = np.asarray(theirs)
    if theirs.dtype == object or theirs.dtype.kind in "SU":
        return ours.shape == theirs.shape and all(
            (a.decode() if isinstance(a, bytes) else a) == (b.decode() if isinstance(b, bytes) else b)
            for a, b in zip(ours.flat, theirs.flat))
    return ours.shape == theirs.shape and np.allclose(ours, theirs.astype(np.float64), rtol=rtol, atol=atol)


def compare_signature(model_dir, signature, inputs, expected, what):
    code, out = run_signature(model_dir, signature, inputs)
    if code != "OK":
        check(False, f"{what}: {signature} ran here ({code}: {out})")
        return
    for key, want in expected.items():
        want = want.numpy() if hasattr(want, "numpy") else want
        check(key in out and same(out[key], want), f"{what}: {signature} output '{key}' equals TensorFlow's")


def tf2_outputs(model_dir, signature, inputs):
    loaded = tf.saved_model.load(model_dir)
    fn = loaded.signatures[signature]
    return {k: v.numpy() for k, v in fn(**{k: tf.constant(v) for k, v in inputs.items()}).items()}


rng = np.random.default_rng(7)


# ------------------------------------------------------------------ TensorFlow writes

def keras_models():
    images = rng.random((5, 28, 28, 1), dtype=np.float32)
    mlp = tf.keras.Sequential([tf.keras.Input((784,)), tf.keras.layers.Dense(64, activation="relu"),
                               tf.keras.layers.Dense(10, activation="softmax")])
    cnn = tf.keras.Sequential([
        tf.keras.Input((28, 28, 1)),
        tf.keras.layers.Conv2D(8, 5, padding="same", activation="relu"), tf.keras.layers.MaxPooling2D(2),
        tf.keras.layers.Conv2D(16, 3, activation="relu"), tf.keras.layers.AveragePooling2D(2),
        tf.keras.layers.Flatten(), tf.keras.layers.Dense(32, activation="relu"),
        tf.keras.layers.Dense(10), tf.keras.layers.Softmax()])
    for name, model, x in (("keras_mlp", mlp, images.reshape(5, 784)), ("keras_cnn", cnn, images)):
        d = os.path.join(WORK, name)
        model.export(d, verbose=False)
        sig = tf.saved_model.load(d).signatures["serving_default"]
        (key,) = sig.structured_input_signature[1].keys()
        compare_signature(d, "serving_default", {key: x}, tf2_outputs(d, "serving_default", {key: x}),
                          f"{name} (model.export)")
    d = os.path.join(WORK, "keras_mlp_saved")
    tf.saved_model.save(mlp, d)
    x = images.reshape(5, 784)
    sig = tf.saved_model.load(d).signatures["serving_default"]
    (key,) = sig.structured_input_signature[1].keys()
    compare_signature(d, "serving_default", {key: x}, tf2_outputs(d, "serving_default", {key: x}),
                      "keras_mlp (tf.saved_model.save)")


class Scaler(tf.Module):
    def __init__(self):
        super().__init__()
        self.scale = tf.Variable(2.5)
        self.offset = tf.Variable([1.0, -1.0, 0.5])

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def transform(self, x):
        return {"scaled": x * self.scale + self.offset, "total": tf.reduce_sum(x, axis=1)}

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def add(self, x):
        return x + self.scale


def module_model():
    d = os.path.join(WORK, "module")
    m = Scaler()
    m.scale.assign(3.0)  # a value that differs from the initial one: it must come from the checkpoint
    tf.saved_model.save(m, d, signatures={"transform": m.transform, "add": m.add})
    x = rng.standard_normal((4, 3)).astype(np.float32)
    compare_signature(d, "transform", {"x": x}, tf2_outputs(d, "transform", {"x": x}), "tf.Module")
    compare_signature(d, "add", {"x": np.float32(1.5)}, tf2_outputs(d, "add", {"x": np.float32(1.5)}), "tf.Module")
    return d


def example(x, k=None):
    feature = {"x": tf.train.Feature(float_list=tf.train.FloatList(value=x))}
    if k is not None:
        feature["k"] = tf.train.Feature(int64_list=tf.train.Int64List(value=[k]))
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


def tf1_model():
    """TensorFlow 1's SavedModelBuilder: a sharded Saver, VariableV2, ParseExampleV2."""
    d = os.path.join(WORK, "tf1")
    graph = tf.Graph()
    with graph.as_default():
        serialized = tf1.placeholder(tf.string, [None], name="tf_example")
        feats = tf1.io.parse_example(serialized, {"x": tf1.io.FixedLenFeature([4], tf.float32),
                                                  "k": tf1.io.FixedLenFeature([], tf.int64, default_value=1)})
        w = tf1.Variable(rng.standard_normal((4, 3)).astype(np.float32), name="W", use_resource=False)
        b = tf1.Variable([0.1, 0.2, 0.3], name="b", use_resource=False)
        logits = tf1.matmul(feats["x"], w) + b * tf1.cast(tf1.expand_dims(feats["k"], 1), tf.float32)
        scores = tf1.nn.softmax(logits, name="scores")
        classes = tf1.tile(tf1.constant([["cat", "dog", "emu"]]), [tf1.shape(scores)[0], 1])
        total = tf1.reduce_sum(logits, axis=1, keepdims=True)
        sigs = tf1.saved_model.signature_def_utils
        with tf1.Session() as s:
            s.run(tf1.global_variables_initializer())
            builder = tf1.saved_model.Builder(d)
            builder.add_meta_graph_and_variables(
                s, ["serve"], main_op=tf1.tables_initializer(),
                signature_def_map={
                    "serving_default": sigs.predict_signature_def({"examples": serialized},
                                                                  {"scores": scores, "logits": logits}),
                    "classify": sigs.classification_signature_def(serialized, classes, scores),
                    "regress": sigs.regression_signature_def(serialized, total)})
            builder.save()
    batch = [example([1, 2, 3, 4]), example([0.5, -1, 2, 0], k=3), example([0, 0, 0, 1], k=-2)]
    expected = {}
    with tf.Graph().as_default(), tf1.Session() as s:
        meta = tf1.saved_model.load(s, ["serve"], d)
        for key, sig in meta.signature_def.items():
            if key.startswith("__"):
                continue
            (inp,) = sig.inputs.values()
            names = sorted(sig.outputs)
            values = s.run([sig.outputs[n].name for n in names], {inp.name: batch})
            expected[key] = ((list(sig.inputs)[0]), dict(zip(names, values)))
    for key, (inp, outs) in expected.items():
        compare_signature(d, key, {inp: batch}, outs, "TF1 SavedModelBuilder")

    # Older TensorFlow wrote the legacy `Variable` op; the same model with it loads too.
    old = os.path.join(WORK, "tf1_legacy_variable")
    shutil.copytree(d, old)
    from tensorflow.core.protobuf import saved_model_pb2
    sm = saved_model_pb2.SavedModel()
    with open(os.path.join(old, "saved_model.pb"), "rb") as f:
        sm.ParseFromString(f.read())
    n = 0
    for node in sm.meta_graphs[0].graph_def.node:
        if node.op == "VariableV2":
            node.op = "Variable"
            n += 1
    with open(os.path.join(old, "saved_model.pb"), "wb") as f:
        f.write(sm.SerializeToString())
    check(n == 2, "legacy Variable rewrite touched both variables")
    inp, outs = expected["serving_default"]
    compare_signature(old, "serving_default", {inp: batch}, outs, "TF1 SavedModel with legacy Variable ops")
    return d


def asset_model():
    """TensorFlow 1's assets: a file copied into assets/, its path fed to the init op on
    load (as a vocabulary table's initializer reads it; here ReadFile into a variable)."""
    d = os.path.join(WORK, "assets_model")
    src = os.path.join(WORK, "vocab.txt")
    with open(src, "w") as f:
        f.write("cat\ndog\nemu\n")
    with tf.Graph().as_default():
        x = tf1.placeholder(tf.float32, [None], name="x")
        path = tf1.constant(src, name="vocab_path")
        tf1.add_to_collection(tf1.GraphKeys.ASSET_FILEPATHS, path)
        vocab = tf1.Variable("", name="vocab", use_resource=False, trainable=False)
        load_vocab = tf1.group(tf1.assign(vocab, tf1.io.read_file(path)), name="load_vocab")
        with tf1.Session() as s:
            s.run(tf1.global_variables_initializer())
            builder = tf1.saved_model.Builder(d)
            builder.add_meta_graph_and_variables(
                s, ["serve"], assets_collection=tf1.get_collection(tf1.GraphKeys.ASSET_FILEPATHS),
                main_op=load_vocab,
                signature_def_map={"serving_default": tf1.saved_model.signature_def_utils.predict_signature_def(
                    {"x": x}, {"vocab": tf1.identity(vocab), "double": x * 2})})
            builder.save()
    os.remove(src)  # only the copy in assets/ is left: the loader must feed its path
    code, out = run_signature(d, "serving_default", {"x": np.array([1.5], np.float32)})
    check(code == "OK" and out["vocab"].reshape(-1)[0] in (b"cat\ndog\nemu\n", "cat\ndog\nemu\n"),
          f"an asset's path is fed to the init op on load: it reads assets/vocab.txt ({code}: {str(out)[:120]})")


def bad_input(module_dir, tf1_dir):
    x = {"x": np.float32(1.0)}
    truncated = os.path.join(WORK, "truncated")
    shutil.copytree(module_dir, truncated)
    path = os.path.join(truncated, "saved_model.pb")
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(data[: len(data) // 2])
    code, msg = run_signature(truncated, "add", x)
    check(code == "DATA_LOSS" and "saved_model.pb" in msg, f"truncated saved_model.pb: {code}: {msg[:120]}")

    no_vars = os.path.join(WORK, "no_variables")
    shutil.copytree(tf1_dir, no_vars)
    for f in os.listdir(os.path.join(no_vars, "variables")):
        if f.startswith("variables.data"):
            os.remove(os.path.join(no_vars, "variables", f))
    code, msg = run_signature(no_vars, "regress", {"inputs": [example([1, 2, 3, 4])]})
    check(code in ("NOT_FOUND", "DATA_LOSS") and "variables.data" in msg,
          f"missing variables data file: {code}: {msg[:160]}")
    no_index = os.path.join(WORK, "no_index")
    shutil.copytree(tf1_dir, no_index)
    os.remove(os.path.join(no_index, "variables", "variables.index"))
    code, msg = run_signature(no_index, "regress", {"inputs": [example([1, 2, 3, 4])]})
    check(code == "NOT_FOUND" and "variables.index" in msg, f"missing variables index: {code}: {msg[:160]}")

    code, msg = run_signature(module_dir, "add", x, tag_set="train")
    check(code == "NOT_FOUND" and "train" in msg and "serve" in msg, f"unknown tag set: {code}: {msg[:160]}")
    code, msg = run_signature(module_dir, "nope", x)
    check(code == "NOT_FOUND" and "'nope'" in msg and "add" in msg, f"unknown signature: {code}: {msg[:160]}")
    code, msg = run_signature(module_dir, "add", {"x": np.int32(1)})
    check(code == "INVALID_ARGUMENT" and "float" in msg and "int32" in msg, f"wrong dtype: {code}: {msg[:160]}")
    code, msg = run_signature(module_dir, "transform", {"x": np.zeros((2, 4), np.float32)})
    check(code == "INVALID_ARGUMENT" and "[2,4]" in msg, f"wrong shape: {code}: {msg[:160]}")
    code, msg = run_signature(os.path.join(WORK, "does_not_exist"), "add", x)
    check(code == "NOT_FOUND", f"no SavedModel there: {code}: {msg[:160]}")


# ------------------------------------------------------------------ tensoract writes

def exported_here():
    d = os.path.join(WORK, "ours")
    p = subprocess.run([TOOL, "export", d], capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, f"saved_model_tool export ({p.stderr[-300:]})")
    if p.returncode != 0:
        return
    # The tool prints one JSON line per (model, signature): its inputs and our outputs.
    for line in p.stdout.splitlines():
        case = json.loads(line)
        model_dir, key = case["dir"], case["signature"]
        inputs = {k: np.array(v["values"], dtype=v["dtype"]).reshape(v["shape"]) for k, v in case["inputs"].items()}
        ours = {k: np.array(v["values"]).reshape(v["shape"]) for k, v in case["outputs"].items()}
        theirs = tf2_outputs(model_dir, key, inputs)
        for k, v in ours.items():
            check(k in theirs and same(v, theirs[k]), f"{case['what']}: tf.saved_model.load gives our '{k}'")
        with tf.Graph().as_default(), tf1.Session() as s:
            meta = tf1.saved_model.load(s, ["serve"], model_dir)
            sig = meta.signature_def[key]
            names = sorted(sig.outputs)
            values = s.run([sig.outputs[n].name for n in names],
                           {sig.inputs[k].name: v for k, v in inputs.items()})
            for n, v in zip(names, values):
                check(same(ours[n], v), f"{case['what']}: tf.compat.v1 loader gives our '{n}'")


def tool_json(*args):
    p = subprocess.run([TOOL, *args], capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, f"saved_model_tool {args[0]} ({p.stderr[-300:]})")
    out = {}
    for line in p.stdout.splitlines():
        for k, v in json.loads(line).items():
            out[k] = np.array(v["values"]).reshape(v["shape"])
    return out


def tf_resume(meta, ckpt, fetch, variables=None):
    with tf.Graph().as_default(), tf1.Session() as s:
        saver = tf1.train.import_meta_graph(meta)
        if variables is not None:  # the variable objects import_meta_graph rebuilt
            names = sorted(v.op.name for v in tf1.trainable_variables())
            check(names == variables, f"TensorFlow rebuilds the trainable variables {variables} ({names})")
            check(sorted(v.op.name for v in tf1.global_variables()) == variables, "... and the global ones")
        saver.restore(s, ckpt)
        restored = s.run(fetch)
        s.run(tf1.get_collection("train_op")[0])
        return restored, s.run(fetch)


def meta_graphs():
    # Ours -> TensorFlow.
    d = os.path.join(WORK, "meta_ours")
    os.makedirs(d)
    trained = tool_json("train-meta", d)
    meta, ckpt = os.path.join(d, "model.ckpt-3.meta"), os.path.join(d, "model.ckpt-3")
    check(os.path.exists(meta), "our Saver wrote model.ckpt-3.meta")
    ours = tool_json("resume-meta", meta, ckpt, "w/Read/ReadVariableOp:0")
    restored, after = tf_resume(meta, ckpt, "w/Read/ReadVariableOp:0", variables=["w"])
    check(same(ours["restored"], restored) and same(trained["w"], restored),
          "TensorFlow's import_meta_graph restores our checkpoint through our .meta")
    check(same(ours["trained"], after), "TensorFlow trains on from our .meta's train_op as we do")

    # TensorFlow -> ours.
    d = os.path.join(WORK, "meta_tf")
    with tf.Graph().as_default(), tf1.Session() as s:
        w = tf1.Variable([1.0, -2.0, 3.0], name="w", use_resource=False)
        loss = tf1.reduce_sum(tf1.square(w - 0.5))
        train = tf1.train.GradientDescentOptimizer(0.1).minimize(loss)
        tf1.add_to_collection("train_op", train)
        s.run(tf1.global_variables_initializer())
        for _ in range(3):
            s.run(train)
        path = tf1.train.Saver().save(s, os.path.join(d, "model.ckpt"), global_step=3)
    restored, after = tf_resume(path + ".meta", path, "w:0")
    ours = tool_json("resume-meta", path + ".meta", path, "w:0")
    check(same(ours["restored"], restored), "our ImportMetaGraph restores TensorFlow's checkpoint through its .meta")
    check(same(ours["trained"], after), "we train on from TensorFlow's .meta's train_op as it does")


if __name__ == "__main__":
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    keras_models()
    module_dir = module_model()
    tf1_dir = tf1_model()
    asset_model()
    bad_input(module_dir, tf1_dir)
    exported_here()
    meta_graphs()
    sys.exit(check.summary())
