#!/usr/bin/env python3
"""The op census: which ops and dtypes the graphs TensorFlow 2.21 writes for real models need
that tensoract has no CPU kernel for.

Usage: op_census.py FIDELITY_TOOL [--groups applications,layers,math] [--markdown FILE]

TensorFlow traces (tf.function, concrete graphs, function libraries walked too):
  applications  every keras.applications model (weights=None), its serving forward pass
  layers        Keras layers, each forward and with its gradient (tf.GradientTape) in float32,
                and in mixed precision (float16 compute) where Keras runs them so
  math          a cross-section of tf.math, tf.nn, tf.linalg and tf.signal's framing ops
and each node's op with the values of its type attrs (T, dtype, Tidx, ...) is looked up in
our CPU kernel registry (`fidelity_tool kernels`): an op we do not register, or a combination
of types no kernel of ours takes, is reported with the groups and models that need it.
Functional control flow (If, While, Case and their Stateless forms), function calls,
placeholders and the call frame's nodes have no kernels here by design (the importer lowers
and inlines them) and are not counted.
"""
import argparse
import collections
import json
import os
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402
from tensorflow.core.framework import types_pb2  # noqa: E402

# Lowered, inlined or fed: no kernel of their own here.
NO_KERNEL = {"If", "StatelessIf", "While", "StatelessWhile", "Case", "StatelessCase", "PartitionedCall",
             "StatefulPartitionedCall", "Placeholder", "_Arg", "_Retval", "NoOp"}


def type_attrs(node):
    """The node's type attrs: name -> dtype name as our registry writes it (DT_FLOAT: float)."""
    out = {}
    for name, value in node.attr.items():
        if value.HasField("type"):
            out[name] = types_pb2.DataType.Name(value.type)[3:].lower()
    return out


def collect(graph_def, needs, where):
    def visit(nodes):
        for n in nodes:
            if n.op in NO_KERNEL:
                continue
            key = (n.op, tuple(sorted(type_attrs(n).items())))
            needs[key].add(where)
    visit(graph_def.node)
    for f in graph_def.library.function:
        visit(f.node_def)


def trace(fn, specs, needs, where):
    try:
        cf = tf.function(fn).get_concrete_function(*specs)
        collect(cf.graph.as_graph_def(), needs, where)
        return True
    except Exception as e:  # a model or layer that does not build here: reported, not fatal
        print(f"op_census: {where}: not traced ({type(e).__name__}: {str(e).splitlines()[0][:120]})", file=sys.stderr)
        return False


def applications(needs):
    names = sorted(n for n in dir(keras.applications) if n[0].isupper() and callable(getattr(keras.applications, n)))
    for name in names:
        ctor = getattr(keras.applications, name)
        model = None
        for size in (96, 224):
            try:
                model = ctor(weights=None, input_shape=(size, size, 3))
                break
            except Exception:
                continue
        if model is None:
            print(f"op_census: applications/{name}: not built", file=sys.stderr)
            continue
        spec = tf.TensorSpec([None, *model.input_shape[1:]], tf.float32)
        trace(lambda x, m=model: m(x, training=False), [spec], needs, f"applications/{name}")
        keras.backend.clear_session()


def layer_cases():
    L = keras.layers
    img, seq, vol = (2, 8, 8, 3), (2, 6, 5), (2, 4, 6, 6, 2)
    return [
        ("Dense", lambda: L.Dense(4, activation="relu"), seq),
        ("Conv1D", lambda: L.Conv1D(4, 3, padding="same"), seq),
        ("Conv2D", lambda: L.Conv2D(4, 3, strides=2, padding="same"), img),
        ("Conv3D", lambda: L.Conv3D(3, 3, padding="same"), vol),
        ("Conv2DTranspose", lambda: L.Conv2DTranspose(4, 3, strides=2, padding="same"), img),
        ("Conv1DTranspose", lambda: L.Conv1DTranspose(4, 3, strides=2, padding="same"), seq),
        ("DepthwiseConv2D", lambda: L.DepthwiseConv2D(3, padding="same"), img),
        ("SeparableConv2D", lambda: L.SeparableConv2D(4, 3, padding="same"), img),
        ("SeparableConv1D", lambda: L.SeparableConv1D(4, 3, padding="same"), seq),
        ("MaxPooling1D", lambda: L.MaxPooling1D(2), seq),
        ("MaxPooling2D", lambda: L.MaxPooling2D(2), img),
        ("MaxPooling3D", lambda: L.MaxPooling3D(2), vol),
        ("AveragePooling2D", lambda: L.AveragePooling2D(2), img),
        ("AveragePooling3D", lambda: L.AveragePooling3D(2), vol),
        ("GlobalAveragePooling2D", lambda: L.GlobalAveragePooling2D(), img),
        ("GlobalMaxPooling1D", lambda: L.GlobalMaxPooling1D(), seq),
        ("BatchNormalization", lambda: L.BatchNormalization(), img),
        ("LayerNormalization", lambda: L.LayerNormalization(), seq),
        ("GroupNormalization", lambda: L.GroupNormalization(groups=1), img),
        ("UnitNormalization", lambda: L.UnitNormalization(), seq),
        ("Dropout", lambda: L.Dropout(0.5), seq),
        ("SpatialDropout2D", lambda: L.SpatialDropout2D(0.5), img),
        ("GaussianNoise", lambda: L.GaussianNoise(0.1), seq),
        ("LSTM", lambda: L.LSTM(4, return_sequences=True), seq),
        ("GRU", lambda: L.GRU(4), seq),
        ("SimpleRNN", lambda: L.SimpleRNN(4), seq),
        ("Bidirectional", lambda: L.Bidirectional(L.GRU(3)), seq),
        ("ConvLSTM2D", lambda: L.ConvLSTM2D(2, 3, padding="same"), (2, 3, 6, 6, 2)),
        ("MultiHeadAttention", lambda: _SelfAttention(), seq),
        ("Attention", lambda: _DotAttention(), seq),
        ("Flatten", lambda: L.Flatten(), img),
        ("Reshape", lambda: L.Reshape((-1,)), img),
        ("Permute", lambda: L.Permute((2, 1)), seq),
        ("RepeatVector", lambda: L.RepeatVector(3), (2, 4)),
        ("UpSampling2D bilinear", lambda: L.UpSampling2D(2, interpolation="bilinear"), img),
        ("UpSampling2D nearest", lambda: L.UpSampling2D(2), img),
        ("UpSampling3D", lambda: L.UpSampling3D(2), vol),
        ("ZeroPadding2D", lambda: L.ZeroPadding2D(1), img),
        ("Cropping2D", lambda: L.Cropping2D(1), img),
        ("Softmax", lambda: L.Softmax(), seq),
        ("ReLU", lambda: L.ReLU(max_value=6.0), seq),
        ("LeakyReLU", lambda: L.LeakyReLU(), seq),
        ("PReLU", lambda: L.PReLU(), seq),
        ("ELU", lambda: L.ELU(), seq),
        ("Activation gelu", lambda: L.Activation("gelu"), seq),
        ("Activation selu", lambda: L.Activation("selu"), seq),
        ("Activation softplus", lambda: L.Activation("softplus"), seq),
        ("Activation hard_sigmoid", lambda: L.Activation("hard_sigmoid"), seq),
        ("Activation mish", lambda: L.Activation("mish"), seq),
        ("Resizing", lambda: L.Resizing(5, 5), img),
        ("Rescaling", lambda: L.Rescaling(1 / 255.0), img),
        ("CenterCrop", lambda: L.CenterCrop(4, 4), img),
        ("RandomFlip", lambda: L.RandomFlip(), img),
        ("Embedding", lambda: L.Embedding(10, 4), "tokens"),
    ]


# Named: a class name with a leading underscore makes Keras' default name "__self_attention",
# which TensorFlow refuses as a root name scope when tracing the forward pass.
class _SelfAttention(keras.layers.Layer):
    def __init__(self):
        super().__init__(name="self_attention")
        self.mha = keras.layers.MultiHeadAttention(num_heads=2, key_dim=3)

    def call(self, x, training=None):
        return self.mha(x, x, training=training)


class _DotAttention(keras.layers.Layer):
    def __init__(self):
        super().__init__(name="dot_attention")
        self.att = keras.layers.Attention()

    def call(self, x, training=None):
        return self.att([x, x], training=training)


def layers(needs, policies=("float32", "mixed_float16")):
    for policy in policies:
        keras.mixed_precision.set_global_policy(policy)
        for name, make, shape in layer_cases():
            layer = make()
            if shape == "tokens":
                x = tf.constant(np.random.randint(0, 10, size=(2, 5)), tf.int32)
            else:
                x = tf.constant(np.random.rand(*shape).astype(np.float32))
            where = f"layers/{name}" + ("" if policy == "float32" else f" ({policy})")
            try:
                layer(x)  # builds the weights
            except Exception as e:
                print(f"op_census: {where}: not built ({type(e).__name__})", file=sys.stderr)
                continue
            spec = tf.TensorSpec(x.shape, x.dtype)
            def forward(x, l=layer):
                return l(x, training=False)
            trace(forward, [spec], needs, where)

            def step(x, l=layer):
                with tf.GradientTape() as tape:
                    if x.dtype.is_floating:
                        tape.watch(x)
                    y = tf.cast(l(x, training=True), tf.float32)
                    loss = tf.reduce_sum(y * y)
                sources = l.trainable_weights + ([x] if x.dtype.is_floating else [])
                return [g for g in tape.gradient(loss, sources) if g is not None]
            trace(step, [spec], needs, where + " gradient")
    keras.mixed_precision.set_global_policy("float32")


def math(needs):
    f, m, v = tf.TensorSpec([4, 4], tf.float32), tf.TensorSpec([3, 3], tf.float32), tf.TensorSpec([16], tf.float32)
    cases = {
        "tf.math": (lambda a: [tf.math.reduce_logsumexp(a), tf.math.cumsum(a, 1), tf.math.top_k(a, 2)[0],
                               tf.math.argmax(a), tf.math.bincount(tf.cast(tf.abs(a), tf.int32)), tf.math.erfc(a),
                               tf.math.lgamma(a), tf.math.floormod(a, 3.0), tf.math.reciprocal_no_nan(a),
                               tf.math.segment_sum(a, [0, 0, 1, 1]), tf.math.unsorted_segment_max(a, [0, 1, 0, 1], 2),
                               tf.math.l2_normalize(a), tf.math.is_finite(a), tf.math.count_nonzero(a),
                               tf.math.softplus(a), tf.math.log_sigmoid(a), tf.math.cumulative_logsumexp(a, 1)], [f]),
        "tf.nn": (lambda a: [tf.nn.moments(a, [0])[1], tf.nn.log_softmax(a), tf.nn.l2_loss(a),
                             tf.nn.sigmoid_cross_entropy_with_logits(tf.ones_like(a), a),
                             tf.nn.softmax_cross_entropy_with_logits(tf.ones_like(a), a),
                             tf.nn.sparse_softmax_cross_entropy_with_logits([0, 1, 2, 3], a),
                             tf.nn.relu6(a), tf.nn.silu(a), tf.nn.gelu(a), tf.nn.embedding_lookup(a, [1, 2]),
                             tf.nn.in_top_k([0, 1, 2, 3], a, 2), tf.nn.local_response_normalization(tf.reshape(a, [1, 2, 2, 4]))],
                  [f]),
        "tf.linalg": (lambda a: [tf.linalg.matmul(a, a, transpose_b=True), tf.linalg.inv(a + 4 * tf.eye(3)),
                                 tf.linalg.det(a), tf.linalg.diag_part(a), tf.linalg.band_part(a, 0, -1),
                                 tf.linalg.cholesky(tf.matmul(a, a, transpose_b=True) + tf.eye(3)),
                                 tf.linalg.trace(a), tf.linalg.einsum("ij,jk->ik", a, a), tf.linalg.norm(a),
                                 tf.linalg.triangular_solve(tf.linalg.band_part(a, -1, 0) + tf.eye(3), a),
                                 tf.linalg.qr(a)[0], tf.linalg.svd(a)[0], tf.linalg.eigh(a + tf.transpose(a))[0],
                                 tf.linalg.solve(a + 4 * tf.eye(3), a), tf.linalg.logdet(tf.matmul(a, a, transpose_b=True) + tf.eye(3))],
                      [m]),
        "tf.signal": (lambda a: [tf.signal.frame(a, 4, 2), tf.signal.overlap_and_add(tf.reshape(a, [4, 4]), 2),
                                 tf.signal.hann_window(8)], [v]),
    }
    for where, (fn, specs) in cases.items():
        trace(fn, specs, needs, where)


def matches(combo, types):
    return all(types.get(k) == v for k, v in combo.items())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tool")
    parser.add_argument("--groups", default="applications,layers,math")
    parser.add_argument("--markdown", default="")
    parser.add_argument("--ops-list", default="", help="write the page of supported ops (docs/supported_ops.md)")
    args = parser.parse_args()
    ours = json.loads(subprocess.run([args.tool, "kernels", "--handles"], check=True, capture_output=True,
                                     text=True).stdout)
    needs = collections.defaultdict(set)
    groups = args.groups.split(",")
    if "applications" in groups:
        applications(needs)
    if "layers" in groups:
        layers(needs)
    if "math" in groups:
        math(needs)
    missing_ops = collections.defaultdict(set)      # op -> where
    missing_types = collections.defaultdict(set)    # (op, types) -> where
    for (op, types), where in needs.items():
        types = dict(types)
        if op not in ours:
            missing_ops[op] |= where
        elif not any(matches(c, types) for c in ours[op]):
            missing_types[(op, tuple(sorted(types.items())))] |= where
    total_ops = len({op for op, _ in needs})
    lines = [f"op census: {total_ops} ops in {len(needs)} op/type combinations traced "
             f"({', '.join(groups)}); {len(missing_ops)} ops missing, {len(missing_types)} type combinations missing"]
    for op in sorted(missing_ops):
        w = sorted(missing_ops[op])
        lines.append(f"| {op} | no op | {len(w)}: {', '.join(w[:4])}{' ...' if len(w) > 4 else ''} |")
    for (op, types) in sorted(missing_types):
        w = sorted(missing_types[(op, types)])
        t = ", ".join(f"{k}={v}" for k, v in types)
        lines.append(f"| {op} | no kernel for {t} | {len(w)}: {', '.join(w[:4])}{' ...' if len(w) > 4 else ''} |")
    print("\n".join(lines))
    if args.markdown:
        with open(args.markdown, "w") as out:
            out.write("| op | missing | needed by |\n|---|---|---|\n" + "\n".join(lines[1:]) + "\n")
    if args.ops_list:
        write_ops_list(args.ops_list, ours, needs, lines, groups)
    return 0


def type_summary(combos):
    """An op's kernels' type attrs, each attr's values in one list: "T: float, double"."""
    values = collections.OrderedDict()
    for combo in combos:
        for k, v in combo.items():
            values.setdefault(k, [])
            if v not in values[k]:
                values[k].append(v)
    return "; ".join(f"{k}: {', '.join(v)}" for k, v in values.items()) or "-"


def write_ops_list(path, ours, needs, census_lines, groups):
    """The page of supported ops: every op our CPU kernel registry has with its types, which
    of the traced real-model graphs use it, and the census's missing list."""
    used = collections.defaultdict(set)
    for (op, _), where in needs.items():
        used[op] |= {w.split("/")[0].split(" ")[0] for w in where}
    out = ["# Supported ops (CPU)", "",
           "Written by `python3 tests/compat/op_census.py build/tests/fidelity_tool --ops-list "
           "docs/supported_ops.md` from the CPU kernel registry (`fidelity_tool kernels`) and TensorFlow "
           f"2.21's traces of {', '.join(groups)}: do not edit by hand. An op whose types are `-` has a "
           "kernel with no type attrs; ops the importer lowers or inlines (If, While, Case, function "
           "calls) have none by design. The numerical agreement of each op and type with TensorFlow is "
           "the differential harness's (tests/bench/RESULTS.md, \"Numerical fidelity\").", "",
           "## What the traced graphs need and no kernel here has", ""]
    missing = census_lines[1:]
    out += (["| op | missing | needed by |", "|---|---|---|"] + missing) if missing else ["Nothing."]
    out += ["", f"## The {len(ours)} ops with CPU kernels", "", "| op | types | used by the traced graphs |",
            "|---|---|---|"]
    for op in sorted(ours):
        out.append(f"| {op} | {type_summary(ours[op])} | {', '.join(sorted(used.get(op, []))) or '-'} |")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    sys.exit(main())
