#!/usr/bin/env python3
"""GraphDefs written by real TensorFlow run in tensoract with TensorFlow's results.

Usage: tf_graph_compat.py TENSORACT_RUN WORK_DIR

Each case builds a graph with tf.compat.v1 in graph mode (constants, placeholders,
MatMul, Add, Mul, Identity, ref variables, resource variables, constant initialisers,
assign_add/assign_sub, unused nodes that pruning must drop, and TensorFlow 2 functions
calling functions: a function library), writes it as a binary
.pb and as a text .pbtxt (with TF 1.x's `_output_shapes`), and runs a SEQUENCE of steps
in one tf.compat.v1.Session: steps before the initialiser (which must fail with
FAILED_PRECONDITION naming the variable), the initialiser, fetches with feeds, updates,
fetches again. tensoract-run then runs the same steps on one tensoract session for each
file, and every step must give the same error code, or the same dtypes, shapes and
values: exactly, except where a case marks a fetch whose arithmetic order may differ
(MatMul's sums), which may differ by 1e-6 relative.

The hand-written TF 1.x graphs of tests/data (tf1_*.pbtxt, which tests/actors runs without
TensorFlow) go through the same comparison, imported by TensorFlow itself; among them a
tf.cond and a tf.while_loop. TF 1.x control flow built by TensorFlow (case_control_flow:
conditionals and loops, nested either way, shape invariants) is compared too, and so are
the gradient graphs tf.gradients writes for reductions, concatenations and gathers over
shapes known only at run time (DynamicStitch, ListDiff, ConcatOffset, Cumprod, ...).

Exits 77 (ctest: skipped) when TensorFlow cannot be imported.
"""
import json
import os
import re
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
try:
    import numpy as np
    import tensorflow as tf
except ImportError as e:
    print(f"SKIPPED: tensorflow cannot be imported ({e}); bootstrap/install-deps.sh installs tensorflow-cpu")
    sys.exit(77)

tf1 = tf.compat.v1
DTYPE_NAMES = {np.dtype(np.float32): "float", np.dtype(np.float64): "double", np.dtype(np.int32): "int32",
               np.dtype(np.int64): "int64", np.dtype(np.bool_): "bool"}
CODE_NAMES = {getattr(tf.errors, n): n for n in (
    "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
    "PERMISSION_DENIED", "UNAUTHENTICATED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
    "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS")}


def step(fetches=(), feeds=None, targets=(), names_in_error=()):
    """One Session.run: fetches (tensor names), feeds {tensor name: array}, targets (op names).
    names_in_error: when the step fails, its message must name one of these."""
    return {"fetches": list(fetches), "feeds": feeds or {}, "targets": list(targets),
            "names_in_error": list(names_in_error)}


# Each case returns (graph, steps, approx): approx names fetches that may differ by rounding.

def case_constants():
    graph = tf.Graph()
    with graph.as_default():
        w = tf1.constant([[1.0, -2.0, 0.5], [3.0, 4.0, -1.5]], name="W")
        b = tf1.constant([0.25, -0.75, 2.0], name="b")
        x = tf1.placeholder(tf.float32, shape=[None, 2], name="x")
        y = tf1.add(tf1.matmul(x, w), b, name="y")
        tf1.identity(y, name="y_copy")
        tf1.multiply(w, 3.0, name="unused")  # not needed by the fetch: pruned
    feed = np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, 3.0]], dtype=np.float32)
    steps = [step(["y_copy:0"], {"x:0": feed}),
             step(["y:0", "MatMul:0"], {"x:0": feed[:1] * 0.1})]
    return graph, steps, {"y_copy:0", "y:0", "MatMul:0"}


def case_ref_variables():
    """tf.compat.v1.Variable(use_resource=False): VariableV2, Assign, Identity w/read."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, shape=[None, 2], name="x")
        weights = tf1.Variable([[1.0, -2.0, 0.5], [3.0, 4.0, -1.5]], use_resource=False, name="weights")
        bias = tf1.Variable(tf1.zeros([3]), use_resource=False, name="bias")
        scale = tf1.Variable(tf1.ones([]), use_resource=False, name="scale")
        product = tf1.matmul(x, weights, name="product")
        logits = tf.raw_ops.Add(x=product, y=bias, name="logits")  # Add, not AddV2
        scaled = tf1.multiply(logits, scale, name="scaled")
        out = tf1.identity(scaled, name="out")
        inc_w = tf1.assign_add(weights, tf1.constant([[0.5, 0.5, 0.5], [1.0, 1.0, 1.0]]), name="inc_weights")
        dec_b = tf1.assign_sub(bias, tf1.constant([0.25, -0.5, 1.0]), name="dec_bias")
        twice = tf1.assign(scale, 2.0, name="set_scale")
        init = tf1.global_variables_initializer()
        is_init = tf1.is_variable_initialized(weights)
        # Unused: a variable no initialiser covers, its read, and a Mul of an unfed
        # placeholder; each would fail if it ran, so pruning must drop them.
        ghost = tf1.Variable([7.0], use_resource=False, collections=[], name="ghost")
        tf1.multiply(ghost, 2.0, name="unused_ghost")
        tf1.multiply(tf1.placeholder(tf.float32, name="unfed"), 3.0, name="unused_unfed")
    feed = np.array([[1.0, 2.0], [-1.0, 0.5]], dtype=np.float32)
    w_read, b_read = weights.value().name, bias.value().name
    steps = [
        step([out.name], {x.name: feed}, names_in_error=["weights", "bias", "scale"]),
        step([w_read], names_in_error=["weights"]),
        step([is_init.name]),
        step(targets=[init.name]),
        step([is_init.name, w_read, "weights:0", b_read, "scale:0"]),
        step([out.name, logits.name], {x.name: feed}),
        step(targets=[inc_w.op.name]),
        step([out.name, w_read], {x.name: feed}),
        step([inc_w.name, dec_b.name]),        # fetching an assign returns the new value
        step([twice.name]),
        step([out.name], {x.name: feed}),
        step([out.name], {product.name: np.array([[1.0, 2.0, 3.0]], dtype=np.float32)}),  # fed: x unneeded
        step([w_read, b_read, "scale:0"]),
    ]
    return graph, steps, {out.name, logits.name, scaled.name}


def case_resource_variables():
    """use_resource=True: VarHandleOp, AssignVariableOp, ReadVariableOp."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, shape=[None, 2], name="x")
        kernel = tf1.get_variable("kernel", shape=[2, 2], use_resource=True,
                                  initializer=tf1.constant_initializer([[1.0, 2.0], [-3.0, 0.5]]))
        offset = tf1.get_variable("offset", shape=[2], use_resource=True, initializer=tf1.ones_initializer())
        gain = tf1.get_variable("gain", shape=[], use_resource=True, initializer=tf1.zeros_initializer())
        dense = tf1.add(tf1.matmul(x, kernel), offset, name="dense")   # AddV2
        out = tf1.multiply(tf1.identity(dense, name="dense_copy"), tf1.add(gain, 1.0), name="out")
        inc_kernel = kernel.assign_add(tf1.constant([[1.0, 1.0], [1.0, 1.0]]), read_value=False, name="inc_kernel")
        dec_offset = offset.assign_sub(tf1.constant([0.5, 2.0]), read_value=False, name="dec_offset")
        set_gain = gain.assign(3.0, read_value=False, name="set_gain")
        init = tf1.global_variables_initializer()
        kernel_now, offset_now, gain_now = kernel.read_value(), offset.read_value(), gain.read_value()
        inited = tf1.is_variable_initialized(kernel)
        unused = tf1.multiply(kernel_now, 4.0, name="unused_scaled")  # pruned
    feed = np.array([[1.0, 1.0], [2.0, -1.0], [0.0, 0.5]], dtype=np.float32)
    del unused
    steps = [
        step([kernel_now.name], names_in_error=["kernel"]),
        step([inited.name]),
        step(targets=[init.name]),
        step([inited.name, kernel_now.name, offset_now.name, gain_now.name]),
        step([out.name, dense.name], {x.name: feed}),
        step(targets=[inc_kernel.name, dec_offset.name]),
        step([out.name, kernel_now.name, offset_now.name], {x.name: feed}),
        step(targets=[inc_kernel.name, set_gain.name]),
        step([out.name, kernel_now.name, gain_now.name], {x.name: feed}),
        step([out.name], {dense.name: np.array([[1.5, -2.0]], dtype=np.float32)}),
    ]
    return graph, steps, {out.name, dense.name}


def case_functions():
    """TensorFlow 2 functions in a graph: tf.function calling tf.function (a library, a
    StatefulPartitionedCall calling a PartitionedCall), a captured resource variable that
    the outer function updates, two results of which one feeds another op."""
    graph = tf.Graph()
    with graph.as_default():
        @tf.function
        def inner(x, w):
            return tf.matmul(x, w) + 1.0

        @tf.function
        def outer(x, w, v):
            y = inner(x, w)
            v.assign_add(tf.reduce_sum(y))
            return y * 2.0, tf.reduce_sum(y)

        x = tf1.placeholder(tf.float32, [None, 2], name="x")
        w = tf1.constant([[1.0, 2.0], [3.0, -4.0]], name="w")
        v = tf.Variable(0.5, name="v")
        scaled, total = outer(x, w, v)
        a = tf1.identity(scaled, name="a")
        s = tf1.multiply(total, 3.0, name="s")
        init = tf1.variables_initializer([v], name="init")
        value = v.read_value()
    feed = np.array([[1.0, 1.0], [0.0, 1.0], [2.0, -0.5]], dtype=np.float32)
    steps = [
        step(targets=[init.name]),
        step([a.name, s.name], {x.name: feed}),
        step([value.name]),
        step([s.name], {x.name: feed[:1]}),
        step([value.name]),
    ]
    return graph, steps, {a.name, s.name}


def case_dtypes():
    """int32, int64 and double feeds and variables, scalars."""
    graph = tf.Graph()
    with graph.as_default():
        n = tf1.placeholder(tf.int32, shape=[], name="n")
        m = tf1.placeholder(tf.int32, shape=[3], name="m")
        d = tf1.placeholder(tf.float64, shape=[2, 2], name="d")
        big = tf1.placeholder(tf.int64, shape=[None], name="big")
        counter = tf1.Variable(tf1.constant(5, tf.int64), use_resource=False, name="counter")
        total = tf1.get_variable("total", shape=[2], dtype=tf.float64, use_resource=True,
                                 initializer=tf1.constant_initializer([0.1, 0.2]))
        tf1.multiply(tf1.add(m, n), 3, name="ints")
        tf1.add(big, counter, name="int64s")
        dd = tf1.matmul(d, d, name="dd")
        tf1.add(tf1.multiply(d, 1.0 / 3.0), total.read_value(), name="doubles")
        bump = tf1.assign_add(counter, tf1.constant(1 << 40, tf.int64), name="bump")
        grow = total.assign_add(tf1.constant([0.7, -0.3], tf.float64), read_value=False, name="grow")
        init = tf1.global_variables_initializer()
        total_now = total.read_value()
    feeds = {"n:0": np.int32(-7), "m:0": np.array([1, 2, 21474830], np.int32),
             "d:0": np.array([[0.1, 0.2], [1e-300, 3.0]], np.float64),
             "big:0": np.array([1 << 62, -(1 << 62)], np.int64)}
    steps = [
        step(["ints:0"], {k: feeds[k] for k in ("n:0", "m:0")}),
        step(targets=[init.name]),
        step(["ints:0", "int64s:0", "doubles:0", dd.name, "counter:0", total_now.name], feeds),
        step([bump.name]),
        step(targets=[grow.name]),
        step(["int64s:0", "doubles:0", total_now.name], feeds),
    ]
    return graph, steps, {dd.name, "doubles:0"}


def case_control_flow():
    """TF 1.x control flow (tf.compat.v1's, not v2's functional ops): tf.cond, a
    tf.while_loop with loop invariants, a loop nested in a loop, a loop in a cond, a cond in
    a loop, and a loop whose vector grows (shape invariant)."""
    tf1.disable_control_flow_v2()
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [2], name="x")
        p = tf1.placeholder(tf.bool, [], name="p")
        n = tf1.placeholder(tf.int32, [], name="n")
        y = tf1.cond(p, lambda: x * 2.0 + 1.0, lambda: tf1.square(x) - 1.0, name="cond")
        tf1.identity(y, name="y")
        i, a = tf1.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, a * x + 1.0),
                              [tf1.constant(0), tf1.constant([1.0, 1.0])], name="loop")
        tf1.identity(a, name="a")

        def outer_body(i, t):
            _, s = tf1.while_loop(lambda j, s: j < i, lambda j, s: (j + 1, s + tf1.cast(j, tf.float32) * x),
                                  [tf1.constant(0), t], name="inner")
            return i + 1, s
        tf1.while_loop(lambda i, t: i < n, outer_body, [tf1.constant(0), tf1.zeros([2])], name="outer")
        tf1.cond(p, lambda: tf1.while_loop(lambda k: k < n, lambda k: k * 2 + 1, [tf1.constant(0)]),
                 lambda: tf1.constant(-1), name="loop_in_cond")

        def cond_in_body(k, acc):
            term = tf1.cond(tf1.equal(k % 3, 0), lambda: tf1.reduce_sum(x), lambda: tf1.cast(k, tf.float32))
            return k + 1, acc + term
        tf1.while_loop(lambda k, acc: k < n, cond_in_body, [tf1.constant(0), tf1.constant(0.0)], name="cond_in_loop")
        tf1.while_loop(lambda k, v: k < n, lambda k, v: (k + 1, tf1.concat([v, tf1.reshape(tf1.cast(k, tf.float32), [1])], 0)),
                       [tf1.constant(0), tf1.zeros([1])],
                       shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])], name="grow")
    xv = np.array([0.5, -2.0], np.float32)
    names = ["y:0", "cond/Merge:1", "a:0", "loop/Exit:0", "outer/Exit_1:0", "loop_in_cond/Merge:0",
             "cond_in_loop/Exit_1:0", "grow/Exit_1:0"]
    t, f = np.bool_(True), np.bool_(False)
    steps = [step(names, {"x:0": xv, "p:0": t, "n:0": np.int32(5)}),
             step(names, {"x:0": xv, "p:0": f, "n:0": np.int32(0)}),
             step(names, {"x:0": xv, "p:0": f, "n:0": np.int32(12)}),
             step(["a:0"], {"x:0": xv, "n:0": np.int32(10000)})]
    return graph, steps, {"a:0", "outer/Exit_1:0", "cond_in_loop/Exit_1:0"}


def case_tensor_arrays():
    """TF 1.x TensorArrays (TensorArrayV3 and its ops), as tf.compat.v1's control flow builds
    them: a dynamic_rnn-style loop (the sequence unstacked into an array, each step read,
    each output written, the outputs stacked) and its gradients, a resizeable array grown by
    a loop, concat and split of elements of different lengths, its size, and the errors of an
    index out of range and of a second read of a cleared element."""
    tf1.disable_control_flow_v2()
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [None, 3], name="x")
        n = tf1.placeholder(tf.int32, [], name="n")
        k = tf1.placeholder(tf.int32, [], name="k")
        steps_n = tf1.shape(x)[0]
        inputs = tf1.TensorArray(tf.float32, size=steps_n, clear_after_read=True).unstack(x)
        outputs = tf1.TensorArray(tf.float32, size=steps_n)

        w = tf1.placeholder(tf.float32, [3], name="w")

        def rnn_step(t, h, outputs):
            h = tf1.tanh(h * w + inputs.read(t))
            return t + 1, h, outputs.write(t, h)
        _, h, outputs = tf1.while_loop(lambda t, h, o: t < steps_n, rnn_step, [0, tf1.zeros([3]), outputs],
                                       name="rnn")
        stacked = tf1.identity(outputs.stack(), name="stacked")
        tf1.identity(h, name="h")
        # The gradients go back through the arrays (TensorArrayGradV3: writes to a gradient
        # array add up; what nothing wrote reads as zeros).
        loss = tf1.reduce_sum(stacked * stacked) + tf1.reduce_sum(h)
        gx, gw = tf1.gradients(loss, [x, w])
        tf1.identity(gx, name="gx")
        tf1.identity(gw, name="gw")
        grown = tf1.TensorArray(tf.int32, size=0, dynamic_size=True)
        _, grown = tf1.while_loop(lambda i, g: i < n, lambda i, g: (i + 1, g.write(i, i * i)), [0, grown],
                                  name="grow")
        tf1.identity(grown.stack(), name="grown")
        tf1.identity(grown.size(), name="grown_size")
        pieces = tf1.TensorArray(tf.float32, size=3, infer_shape=False).split(
            tf1.reshape(x, [-1]), tf1.constant([2, 0, 1], tf.int64) * tf1.cast(steps_n, tf.int64))
        tf1.identity(pieces.concat(), name="joined")
        tf1.identity(pieces.read(2), name="third")
        small = tf1.TensorArray(tf.float32, size=2, element_shape=[3])
        tf1.identity(small.write(k, x[0]).read(k), name="written")
        tf1.identity(small.read(1), name="unwritten")
        once = tf1.TensorArray(tf.float32, size=1).write(0, x[0])
        tf1.identity(once.read(0) + once.read(0), name="read_twice")
    xv = np.array([[0.5, -2.0, 1.0], [0.25, 3.0, -1.5], [1.0, 0.0, 2.0]], np.float32)
    wv = np.array([0.5, -0.25, 1.5], np.float32)
    feeds = {"x:0": xv, "w:0": wv, "n:0": np.int32(4), "k:0": np.int32(0)}
    steps = [step(["stacked:0", "h:0", "grown:0", "grown_size:0", "joined:0", "third:0", "written:0",
                   "unwritten:0", "gx:0", "gw:0"], feeds),
             step(["grown_size:0"], {"n:0": np.int32(0)}),
             step(["written:0"], {"x:0": xv, "k:0": np.int32(2)}),
             step(["read_twice:0"], {"x:0": xv})]
    return graph, steps, {"stacked:0", "h:0", "gx:0", "gw:0"}


DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")


def imported(name):
    """A hand-written TF 1.x graph from tests/data, as TensorFlow itself imports it."""
    from google.protobuf import text_format
    graph_def = tf1.GraphDef()
    with open(os.path.join(DATA, name)) as f:
        text_format.Parse(f.read(), graph_def)
    graph = tf.Graph()
    with graph.as_default():
        tf1.import_graph_def(graph_def, name="")
    return graph


def case_hand_written_ref_variables():
    """tests/data/tf1_variables.pbtxt (the C++ test's graph): TensorFlow vouches for it."""
    x = np.array([[1.0, 1.0], [2.0, 0.0]], np.float32)
    steps = [
        step(["w/read:0"], names_in_error=["w"]),
        step(["y:0"], {"x:0": x}, names_in_error=["w", "b"]),
        step(["IsVariableInitialized:0"]),
        step(["y:0", "z:0"], {"MatMul:0": x[:1] * 0.5, "b/read:0": np.array([10.0, 20.0], np.float32)}),
        step(targets=["init"]),
        step(["IsVariableInitialized:0", "w/read:0", "b/read:0", "w:0", "y:0", "z:0", "MatMul:0"], {"x:0": x}),
        step(["inc:0"]),
        step(["inc:0"]),
        step(["w:0", "y:0"], {"x:0": x}),
        step(["dec:0"]),
        step(["unused_ghost:0"], names_in_error=["ghost"]),
        step(targets=["unused_unfed"], names_in_error=["unfed"]),
        step(["y:0", "z:0"], {"y:0": np.array([[9.0, 9.0]], np.float32)}),
        step(targets=["init"]),
        step(["w/read:0", "b/read:0"]),
    ]
    return imported(HAND_WRITTEN["hand_written_ref_variables"]), steps, set()


def case_hand_written_resource_variables():
    x = np.array([[1.0, 1.0], [2.0, 0.0]], np.float32)
    steps = [
        step(["y:0"], {"x:0": x}, names_in_error=["v"]),
        step(["v/IsInitialized/VarIsInitializedOp:0"]),
        step(["y:0"], {"x:0": x, "y/ReadVariableOp:0": np.eye(2, dtype=np.float32)}),
        step(targets=["init"]),
        step(["v/IsInitialized/VarIsInitializedOp:0", "v/Read/ReadVariableOp:0", "y:0",
              "count/Read/ReadVariableOp:0"], {"x:0": x}),
        step(targets=["inc"]),
        step(targets=["inc", "tick"]),
        step(targets=["tick"]),
        step(["v/Read/ReadVariableOp:0", "y:0", "count/Read/ReadVariableOp:0"], {"x:0": x}),
        step(["ReadVariableOp:0"]),
        step(["v/Read/ReadVariableOp:0"]),
        step(["unused_ghost:0"], names_in_error=["ghost"]),
    ]
    return imported(HAND_WRITTEN["hand_written_resource_variables"]), steps, set()


def case_hand_written_cond():
    """tests/data/tf1_cond.pbtxt: a tf.cond written by hand in TF 1.x's format."""
    x = np.array([1.5, -2.0], np.float32)
    steps = [
        step(["y:0", "cond/Merge:1", "two/Merge:0", "two/Merge:1"], {"x:0": x, "p:0": np.bool_(True)}),
        step(["y:0", "cond/Merge:1", "two/Merge:0", "two/Merge:1"], {"x:0": x, "p:0": np.bool_(False)}),
        step(["cond/add:0"], {"x:0": x, "p:0": np.bool_(False)}),
        step(["cond/sub:0", "cond/mul:0"], {"x:0": x, "p:0": np.bool_(False), "cond/mul:0": x}),
        step(["y:0"], {"x:0": x, "p:0": np.bool_(True), "cond/switch_t:0": np.bool_(False)}),
    ]
    return imported(HAND_WRITTEN["hand_written_cond"]), steps, set()


def case_hand_written_while_loop():
    """tests/data/tf1_while_loop.pbtxt: a tf.while_loop written by hand in TF 1.x's format."""
    x = np.array([0.5, -2.0], np.float32)
    steps = [step(["count:0", "result:0"], {"x:0": x, "n:0": np.int32(k)}) for k in (0, 1, 3, 10, 1000)]
    steps += [step(["count:0"], {"i:0": np.int32(5), "n:0": np.int32(8)}),
              step(["result:0"], {"x:0": x, "n:0": np.int32(3), "while/Exit:0": np.int32(7)})]
    return imported(HAND_WRITTEN["hand_written_while_loop"]), steps, set()


HAND_WRITTEN = {"hand_written_ref_variables": "tf1_variables.pbtxt",
                "hand_written_resource_variables": "tf1_resource_variables.pbtxt",
                "hand_written_cond": "tf1_cond.pbtxt",
                "hand_written_while_loop": "tf1_while_loop.pbtxt"}
def case_parse_example():
    """tf.Examples parsed by tf.io.parse_example (ParseExampleV2), the TF 1 ParseExample op
    and tf.io.parse_single_example: dense float, int64 and defaulted features, a
    variable-length (sparse) feature, and a required feature missing (an error)."""
    def example(pixels, label, tags=None, with_label=True):
        feature = {"pixels": tf.train.Feature(float_list=tf.train.FloatList(value=pixels))}
        if with_label:
            feature["label"] = tf.train.Feature(int64_list=tf.train.Int64List(value=[label]))
        if tags is not None:
            feature["tags"] = tf.train.Feature(int64_list=tf.train.Int64List(value=tags))
        return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()

    good = [example([0.5, -1.0, 2.0], 3, [7, 8]), example([1e-3, 0.0, -0.25], -2), example([4, 5, 6], 1 << 40, [9])]
    spec = {"pixels": tf.io.FixedLenFeature([3], tf.float32), "label": tf.io.FixedLenFeature([], tf.int64),
            "weight": tf.io.FixedLenFeature([1], tf.float32, default_value=[0.5]),
            "tags": tf.io.VarLenFeature(tf.int64)}
    graph = tf.Graph()
    with graph.as_default():
        batch = tf1.constant(good, name="good")
        parsed = tf.io.parse_example(batch, spec)
        tf.identity(parsed["pixels"], name="pixels")
        tf.identity(parsed["label"], name="label")
        tf.identity(parsed["weight"], name="weight")
        tf.identity(parsed["tags"].indices, name="tag_indices")
        tf.identity(parsed["tags"].values, name="tag_values")
        tf.identity(parsed["tags"].dense_shape, name="tag_shape")
        v1 = tf.raw_ops.ParseExample(serialized=batch, names=[], sparse_keys=["tags"], dense_keys=["label"],
                                     dense_defaults=[tf.constant([], tf.int64)], sparse_types=[tf.int64],
                                     dense_shapes=[[]])
        tf.identity(v1[3][0], name="v1_label")
        tf.identity(v1[1][0], name="v1_tag_values")
        single = tf.io.parse_single_example(tf1.constant(good[0]), spec)
        tf.identity(single["pixels"], name="single_pixels")
        tf.identity(single["tags"].indices, name="single_tag_indices")
        missing = tf.io.parse_example(tf1.constant([good[1], example([1, 2, 3], 0, with_label=False)]), spec)
        tf.identity(missing["label"], name="missing_label")
    steps = [
        step(["pixels:0", "label:0", "weight:0", "tag_indices:0", "tag_values:0", "tag_shape:0"]),
        step(["v1_label:0", "v1_tag_values:0", "single_pixels:0", "single_tag_indices:0"]),
        step(["missing_label:0"], names_in_error=["label"]),
    ]
    return graph, steps, set()


def case_gradient_ops():
    """tf.gradients over shapes known only when the graph runs: TensorFlow's gradient graph of
    a reduction over a fed axis has DynamicStitch (its reduced shape), reduce_prod's has
    ListDiff and Cumprod, tf.concat's has ConcatOffset and Slice, gathers UnsortedSegmentSum;
    a TensorFlow 1 Gather (tf.raw_ops.Gather) too."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [None, None], name="x")
        y = tf1.placeholder(tf.float32, [None, None], name="y")
        a = tf1.placeholder(tf.int32, [], name="axis")
        terms = [tf.reduce_sum(tf.reduce_sum(x * x, axis=a)),
                 tf.reduce_sum(tf.square(tf.concat([x, y * 2.0], axis=1))),
                 tf.reduce_sum(tf.square(tf.gather(x, [1, 0, 1], axis=0))),
                 tf.reduce_sum(tf.gather(x, [2, 0], axis=1)),
                 tf.reduce_sum(tf.reduce_prod(x, axis=a)),
                 tf.reduce_mean(tf.reduce_max(x, axis=0)),
                 tf.reduce_sum(tf.raw_ops.Gather(params=y, indices=[[0, 1], [1, 1]]) * 3.0)]
        loss = tf.add_n(terms, name="loss")
        dx, dy = tf.gradients(loss, [x, y])
        tf1.identity(dx, name="dx")
        tf1.identity(dy, name="dy")
    used = {n.op for n in graph.as_graph_def().node}
    assert {"DynamicStitch", "ListDiff", "ConcatOffset", "Cumprod", "Gather"} <= used, used
    xv = np.array([[1.5, -2.0, 0.5], [3.0, 0.25, -1.0]], np.float32)
    yv = np.array([[0.5, 1.0], [-1.5, 2.0]], np.float32)
    fetches = ["loss:0", "dx:0", "dy:0"]
    steps = [step(fetches, {"x:0": xv, "y:0": yv, "axis:0": np.int32(k)}) for k in (0, 1, -1, -2)]
    steps += [step(fetches, {"x:0": xv[:, :2] * 0.5, "y:0": yv, "axis:0": np.int32(1)}),
              step(fetches, {"x:0": xv, "y:0": yv[:1], "axis:0": np.int32(0)}),  # concat rows differ
              step(fetches, {"x:0": xv, "y:0": yv, "axis:0": np.int32(2)})]       # no axis 2
    return graph, steps, set(fetches)


def case_index_and_scan_ops():
    """The ops TensorFlow programs use directly: tf.where and tf.boolean_mask (Where), tf.reverse,
    tf.math.top_k, tf.cumsum and tf.math.cumprod, tf.pad in REFLECT and SYMMETRIC modes
    (MirrorPad) and ClipByValue, with their gradients (MirrorPadGrad, ScatterNd, ...); and
    tf.gather_nd / tf.scatter_nd with theirs."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [None, 4], name="x")
        lo = tf1.placeholder(tf.float32, [], name="lo")
        tf1.identity(tf.where(x > 0.0), name="coords")
        tf1.identity(tf.boolean_mask(x, x[:, 0] > 0.0), name="masked")
        rev = tf.reverse(x, [0, 1])
        top = tf.math.top_k(x * 1.0, k=3)
        tf1.identity(top.indices, name="top_indices")
        sums = tf.cumsum(x, axis=1, exclusive=True, reverse=True)
        prods = tf.math.cumprod(x, axis=0)
        reflect = tf.pad(x, [[1, 1], [2, 3]], mode="REFLECT")
        symmetric = tf.pad(x, [[1, 0], [0, 4]], mode="SYMMETRIC")
        # tf.clip_by_value writes Minimum and Maximum; the ClipByValue op itself, with its gradient:
        clipped = tf.raw_ops.ClipByValue(t=x, clip_value_min=lo, clip_value_max=tf.fill(tf.shape(x), 1.5))
        # top_k's gradient in TensorFlow's graph scatters with ScatterNd.
        outs = {"rev": rev, "top": top.values, "sums": sums, "prods": prods, "reflect": reflect,
                "symmetric": symmetric, "clipped": clipped}
        for name, t in outs.items():
            tf1.identity(t, name=name)
        loss = tf.add_n([tf.reduce_sum(tf.square(t)) for t in outs.values()], name="loss")
        dx, dlo = tf.gradients(loss, [x, lo])
        tf1.identity(dx, name="dx")
        tf1.identity(dlo, name="dlo")
        tf1.identity(tf.gradients(tf.reduce_sum(reflect[1:, :8] * symmetric), x)[0], name="dx2")
        picked = tf.gather_nd(x, [[1, 2], [0, 0], [1, 2]])
        spread = tf.scatter_nd([[3], [0]], x[:2] * 2.0, [5, 4])
        tf1.identity(picked, name="picked")
        tf1.identity(spread, name="spread")
        tf1.identity(tf.gradients(tf.reduce_sum(picked * picked) + tf.reduce_sum(spread * spread), x)[0], name="dx3")
    xv = np.array([[1.5, -2.0, 0.5, 4.0], [3.0, 0.25, -1.0, 2.5], [-0.5, 2.0, 1.0, -3.0]], np.float32)
    fetches = ["coords:0", "masked:0", "top_indices:0", "rev:0", "top:0", "sums:0", "prods:0", "reflect:0",
               "symmetric:0", "clipped:0", "loss:0", "dx:0", "dlo:0", "dx2:0", "picked:0", "spread:0", "dx3:0"]
    steps = [step(fetches, {"x:0": xv, "lo:0": np.float32(-1.25)}),
             step(fetches, {"x:0": xv[1:] * -1.0, "lo:0": np.float32(0.0)}),
             step(["reflect:0"], {"x:0": xv[:1]}),  # REFLECT needs 2 rows: refused
             step(["picked:0"], {"x:0": xv[:1]})]   # no row 1: refused
    return graph, steps, {"loss:0", "dx:0", "dlo:0", "dx2:0", "prods:0", "dx3:0"}


def case_functional_control_flow():
    """TensorFlow 2's control flow in a tf.function: tf.cond (StatelessIf; If where a branch
    updates a variable) and tf.while_loop (StatelessWhile), nested either way, with a
    captured value. The runtime lowers them to Switch/Merge and loop frames. (Their
    gradients: case_functional_control_flow_gradients.)"""
    tf1.enable_control_flow_v2()  # case_control_flow turns v2 off; tf.function uses v2 anyway
    graph = tf.Graph()
    with graph.as_default():
        v = tf.Variable(1.0, name="v")

        @tf.function
        def f(x, n, p):
            y = tf.cond(n > 2, lambda: x * 2.0, lambda: x - 1.0)
            _, a = tf.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, a * 0.5 + y), [0, x])

            def outer_body(i, t):
                _, s = tf.while_loop(lambda j, s: j < i, lambda j, s: (j + 1, s + tf.cast(j, tf.float32) * x),
                                     [0, t])
                return i + 1, s
            _, nested = tf.while_loop(lambda i, t: i < n, outer_body, [0, tf.zeros([2])])
            in_loop = tf.while_loop(
                lambda k, acc: k < n,
                lambda k, acc: (k + 1, acc + tf.cond(tf.equal(k % 3, 0), lambda: tf.reduce_sum(x), lambda: tf.cast(k, tf.float32))),
                [0, 0.0])[1]
            in_cond = tf.cond(p, lambda: tf.while_loop(lambda k: k < n, lambda k: k * 2 + 1, [0])[0], lambda: -1)
            return a, nested, in_loop, in_cond

        @tf.function
        def bump(p):
            return tf.cond(p, lambda: v.assign_add(2.0), lambda: v.read_value())

        @tf.function
        def smooth(x, p):
            return tf.cond(p, lambda: tf.tanh(x) * x, lambda: tf.exp(x * 0.5))

        x = tf1.placeholder(tf.float32, [2], name="x")
        n = tf1.placeholder(tf.int32, [], name="n")
        p = tf1.placeholder(tf.bool, [], name="p")
        for name, t in zip(["a", "nested", "in_loop", "in_cond"], f(x, n, p)):
            tf1.identity(t, name=name)
        tf1.identity(bump(p), name="bumped")
        tf1.identity(smooth(x, p), name="s")
        init = tf1.variables_initializer([v], name="init")
        value = tf1.identity(v.read_value(), name="value")
    used = {n.op for n in graph.as_graph_def().node} | {
        n.op for f in graph.as_graph_def().library.function for n in f.node_def}
    assert {"StatelessIf", "If", "StatelessWhile"} <= used, used
    xv = np.array([0.5, -2.0], np.float32)
    fetches = ["a:0", "nested:0", "in_loop:0", "in_cond:0", "s:0"]
    t, f_ = np.bool_(True), np.bool_(False)
    steps = [step(targets=[init.name]),
             step(fetches, {"x:0": xv, "n:0": np.int32(5), "p:0": t}),
             step(fetches, {"x:0": xv, "n:0": np.int32(0), "p:0": f_}),
             step(fetches, {"x:0": xv * 3.0, "n:0": np.int32(12), "p:0": f_}),
             step(["bumped:0"], {"p:0": t}),
             step(["bumped:0"], {"p:0": f_}),
             step(["bumped:0", "value:0"], {"p:0": t}),
             step(["value:0"])]
    return graph, steps, {"a:0", "nested:0", "in_loop:0", "s:0"}


def case_functional_control_flow_gradients():
    """tf.gradients through TensorFlow 2's control flow, as TensorFlow writes them: the
    forward If rewritten to output its branches' intermediates as Optionals (OptionalFromValue
    in the taken branch, OptionalNone in the other) for a gradient If that unwraps them; the
    forward While given TensorList accumulators (EmptyTensorList, TensorListPushBack) that a
    gradient While pops in reverse; a TensorArray (TensorListReserve, FromTensor, GetItem,
    SetItem, Stack) read and written in a loop, an RNN's shape, whose gradients add lists
    (AddN and ZerosLike of variants). Also a TensorArray read out of its bounds, refused."""
    tf1.enable_control_flow_v2()
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [2], name="x")
        n = tf1.placeholder(tf.int32, [], name="n")
        p = tf1.placeholder(tf.bool, [], name="p")
        y = tf.cond(n > 2, lambda: tf.sin(x) * x, lambda: tf.exp(x))
        _, a = tf.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, tf.tanh(a) * x + y), [0, x])
        nested = tf.while_loop(
            lambda k, acc: k < n,
            lambda k, acc: (k + 1, acc + tf.cond(p, lambda: tf.reduce_sum(x * acc), lambda: tf.reduce_prod(x) * 0.5)),
            [0, tf.constant(0.25)])[1]
        loss = tf.reduce_sum(a * a) + nested
        tf1.identity(tf.gradients(loss, [x])[0], name="dx")
        tf1.identity(tf.gradients(tf.cond(p, lambda: tf.square(x), lambda: tf.sqrt(tf.abs(x) + 1.0)), [x])[0],
                     name="dcond")

        xs = tf1.placeholder(tf.float32, [5, 3], name="xs")
        w = tf1.placeholder(tf.float32, [3, 3], name="w")
        inputs = tf.TensorArray(tf.float32, size=5).unstack(xs)
        outs = tf.TensorArray(tf.float32, size=5)

        def rnn_step(t, h, outs):
            h = tf.tanh(tf.linalg.matvec(w, h) + inputs.read(t))
            return t + 1, h, outs.write(t, h)
        _, h, outs = tf.while_loop(lambda t, h, o: t < 5, rnn_step, [0, tf.zeros([3]), outs])
        ys = tf1.identity(outs.stack(), name="ys")
        dxs, dw = tf.gradients(tf.reduce_sum(ys * ys) + tf.reduce_sum(h), [xs, w])
        tf1.identity(dxs, name="dxs")
        tf1.identity(dw, name="dw")
        tf1.identity(inputs.read(n), name="row_n")
    used = {nd.op for nd in graph.as_graph_def().node} | {
        nd.op for f in graph.as_graph_def().library.function for nd in f.node_def}
    assert {"OptionalFromValue", "OptionalNone", "OptionalGetValue", "TensorListPushBack", "TensorListPopBack",
            "TensorListSetItem", "TensorListGetItem", "TensorListStack"} <= used, used
    xv = np.array([0.5, -0.3], np.float32)
    xsv = (np.arange(15, dtype=np.float32).reshape(5, 3) - 7.0) / 10.0
    wv = np.array([[0.5, -0.2, 0.1], [0.3, 0.4, -0.6], [-0.1, 0.2, 0.7]], np.float32)
    t, f_ = np.bool_(True), np.bool_(False)
    steps = [step(["dx:0", "dcond:0"], {"x:0": xv, "n:0": np.int32(4), "p:0": t}),
             step(["dx:0", "dcond:0"], {"x:0": xv, "n:0": np.int32(1), "p:0": f_}),
             step(["dx:0", "dcond:0"], {"x:0": xv * 2.0, "n:0": np.int32(0), "p:0": t}),
             step(["ys:0", "dxs:0", "dw:0"], {"xs:0": xsv, "w:0": wv}),
             step(["row_n:0"], {"xs:0": xsv, "n:0": np.int32(3)}),
             step(["row_n:0"], {"xs:0": xsv, "n:0": np.int32(7)})]
    return graph, steps, {"dx:0", "dcond:0", "ys:0", "dxs:0", "dw:0"}


def case_conditional_accumulator():
    """tf.compat.v1.ConditionalAccumulator, as SyncReplicasOptimizer uses it: gradients
    applied for a local step, stale ones (below the global step) dropped, the mean (or, with
    reduction_type SUM, the sum) taken once enough are held, the global step advanced by a
    take and set by hand; a gradient of the wrong shape and num_required 0 fail."""
    graph = tf.Graph()
    with graph.as_default():
        mean = tf1.ConditionalAccumulator(tf.float32, shape=[2], shared_name="grad_accum")
        total = tf1.ConditionalAccumulator(tf.float64, shape=None, reduction_type="SUM", name="total")
        grad = tf1.placeholder(tf.float32, name="grad")
        grad64 = tf1.placeholder(tf.float64, name="grad64")
        local_step = tf1.placeholder(tf.int64, shape=[], name="local_step")
        required = tf1.placeholder(tf.int32, shape=[], name="required")
        global_step = tf1.placeholder(tf.int64, shape=[], name="global_step")
        apply = mean.apply_grad(grad, local_step=local_step, name="apply")
        apply64 = total.apply_grad(grad64, local_step=local_step, name="apply64")
        count = mean.num_accumulated(name="count")
        count64 = total.num_accumulated(name="count64")
        take = mean.take_grad(required, name="take")
        take64 = total.take_grad(required, name="take64")
        set_step = mean.set_global_step(global_step, name="set_step")

    def g(*v):
        return np.array(v, dtype=np.float32)

    def apply_at(values, at):
        return step(targets=[apply.name], feeds={grad.name: g(*values), local_step.name: np.int64(at)})
    steps = [
        apply_at([1.0, 2.0], 0), apply_at([3.0, 4.5], 0), step([count.name]),
        step([take.name], {required.name: np.int32(2)}), step([count.name]),
        apply_at([1.0, 1.0], 0), step([count.name]),               # stale: the take advanced to 1
        apply_at([5.0, 5.0], 1), step([count.name]),
        step(targets=[set_step.name], feeds={global_step.name: np.int64(5)}),
        apply_at([7.0, 7.0], 3), apply_at([7.0, -7.25], 6), step([count.name]),
        step([take.name], {required.name: np.int32(1)}),
        step([take.name], {required.name: np.int32(0)}, names_in_error=["take"]),
        apply_at([1.0, 2.0, 3.0], 10),
        step(targets=[set_step.name], feeds={global_step.name: np.int64(2)}),  # back down
        apply_at([0.5, 0.25], 3), step([count.name]),
        step(targets=[apply64.name], feeds={grad64.name: np.array([[1.5, 2.0]]), local_step.name: np.int64(0)}),
        step(targets=[apply64.name], feeds={grad64.name: np.array([[1.0, 2.0, 3.0]]),
                                           local_step.name: np.int64(0)}),
        step(targets=[apply64.name], feeds={grad64.name: np.array([[0.25, -1.0]]), local_step.name: np.int64(0)}),
        step([count64.name]), step([take64.name], {required.name: np.int32(2)}),
        step([take.name], {required.name: np.int32(1)}),
    ]
    return graph, steps, set()


CASES = [case_constants, case_ref_variables, case_resource_variables, case_functions, case_dtypes,
         case_hand_written_ref_variables, case_hand_written_resource_variables, case_control_flow,
         case_hand_written_cond, case_hand_written_while_loop, case_parse_example, case_gradient_ops,
         case_index_and_scan_ops, case_functional_control_flow, case_functional_control_flow_gradients,
         case_conditional_accumulator, case_tensor_arrays]


def run_tensorflow(graph, steps):
    """Each step's result: ("OK", [arrays]) or (code name, message)."""
    results = []
    with tf1.Session(graph=graph) as sess:
        for s in steps:
            ops = [graph.get_operation_by_name(t) for t in s["targets"]]
            try:
                values = sess.run(s["fetches"] + ops, feed_dict=s["feeds"])
                results.append(("OK", [np.asarray(v) for v in values[:len(s["fetches"])]]))
            except tf.errors.OpError as e:
                results.append((CODE_NAMES.get(e.error_code, str(e.error_code)), e.message))
    return results


def feed_arg(name, value):
    value = np.asarray(value)
    dtype = DTYPE_NAMES[value.dtype]
    # repr() of a Python float round-trips, so float32 and double values arrive exactly.
    def text(v):
        if dtype in ("float", "double"):
            return repr(v.item())
        return str(v.item()).lower() if dtype == "bool" else str(v.item())
    flat = ",".join(text(v) for v in value.flatten())
    return f"feed={name}={dtype}:{flat}@{'x'.join(str(d) for d in value.shape)}"


def run_tensoract(tool, path, steps):
    cmd = [tool, "--graph", path, "--json", "--keep-going"]
    for s in steps:
        items = [feed_arg(k, v) for k, v in s["feeds"].items()]
        if s["fetches"]:
            items.append("fetch=" + ",".join(s["fetches"]))
        if s["targets"]:
            items.append("target=" + ",".join(s["targets"]))
        cmd += ["--run", " ".join(items)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    lines = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    if len(lines) != len(steps):
        sys.exit(f"tensoract-run gave {len(lines)} of {len(steps)} steps on {path} (exit {out.returncode}):\n"
                 f"{out.stdout}{out.stderr}\ncommand: {cmd}")
    results = []
    for line in lines:
        if line["code"] != "OK":
            results.append((line["code"], line["message"]))
            continue
        arrays = []
        for f in line["fetches"]:
            if f["values"] is None:
                arrays.append(f)
                continue
            dtype = {v: k for k, v in DTYPE_NAMES.items()}.get(f["dtype"], np.dtype(object))
            arrays.append(np.array(f["values"], dtype=dtype).reshape(f["shape"]))
        results.append(("OK", arrays))
    return results


def compare(name, steps, expected, got, approx):
    """A list of differences between TensorFlow's results and tensoract's."""
    problems = []
    for i, (s, (tf_code, tf_val), (ta_code, ta_val)) in enumerate(zip(steps, expected, got)):
        where = f"{name} step {i} (fetch {s['fetches']} target {s['targets']})"
        if tf_code != ta_code:
            problems.append(f"{where}: TensorFlow {tf_code} ({str(tf_val)[:200]}), tensoract {ta_code} "
                            f"({str(ta_val)[:300]})")
            continue
        if tf_code != "OK":
            # Named as a whole name: "v" in "... variable v." but not in "v/Read" or "value".
            if s["names_in_error"] and not any(re.search(rf"(?<![\w/]){re.escape(v)}(?![\w/])", ta_val)
                                               for v in s["names_in_error"]):
                problems.append(f"{where}: the error names none of {s['names_in_error']}: {ta_val}")
            continue
        for fetch, want, have in zip(s["fetches"], tf_val, ta_val):
            if not isinstance(have, np.ndarray):
                problems.append(f"{where}: {fetch} came back as {have}")
            elif want.dtype != have.dtype or want.shape != have.shape:
                problems.append(f"{where}: {fetch} is {have.dtype}{list(have.shape)}, "
                                f"TensorFlow gives {want.dtype}{list(want.shape)}")
            elif np.array_equal(want, have, equal_nan=want.dtype.kind == "f"):
                continue
            elif fetch in approx and np.allclose(want, have, rtol=1e-6, atol=1e-6):
                continue
            else:
                problems.append(f"{where}: {fetch} is {have.tolist()}, TensorFlow gives {want.tolist()}")
    return problems


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    tool, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    problems = []
    for case in CASES:
        name = case.__name__[len("case_"):]
        graph, steps, approx = case()
        tf1.train.write_graph(graph.as_graph_def(), work, f"{name}.pb", as_text=False)
        tf1.train.write_graph(graph.as_graph_def(add_shapes=True), work, f"{name}.pbtxt", as_text=True)
        expected = run_tensorflow(graph, steps)
        files = [os.path.join(work, f"{name}.pb"), os.path.join(work, f"{name}.pbtxt")]
        if name in HAND_WRITTEN:
            files.append(os.path.join(DATA, HAND_WRITTEN[name]))  # the file itself, as written
        for path in files:
            file = os.path.basename(path)
            got = run_tensoract(tool, path, steps)
            found = compare(file, steps, expected, got, approx)
            problems += found
            print(f"{file}: {len(steps)} steps, " +
                  ("tensoract matches TensorFlow " + tf.__version__ if not found else f"{len(found)} differences"))
    if problems:
        print("\n".join(problems))
        sys.exit(1)


if __name__ == "__main__":
    main()
