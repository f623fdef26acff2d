#!/usr/bin/env python3
"""V2 checkpoints cross between TensorFlow and tensoract, both ways, with equal values.

Usage: tf_checkpoint_compat.py CHECKPOINT_TOOL WORK_DIR

(a) tensoract writes (checkpoint_tool write): a bundle of float, double, int32, int64,
    bool, uint8 and string tensors, scalars and empty ones among them. TensorFlow reads
    every tensor with tf.train.load_checkpoint and with tf.raw_ops.RestoreV2, and gets the
    values tensoract reports.
(b) TensorFlow writes, with tf.raw_ops.SaveV2 (many dtypes and shapes) and with a
    tf.compat.v1.train.Saver in graph mode (ref and resource variables, sharded=False and
    sharded=True, whose MergeV2Checkpoints leaves one bundle); tensoract reads
    (checkpoint_tool read) the values TensorFlow reads.
(c) tensoract's Saver (checkpoint_tool saver) writes two checkpoints and the `checkpoint`
    state file; tf.train.latest_checkpoint and tf.train.get_checkpoint_state read them.

Exits 77 (ctest: skipped) when TensorFlow cannot be imported.
"""
import json
import os
import shutil
import subprocess
import sys

from compat_util import Checks, skip_without  # noqa: E402
with skip_without():
    import numpy as np
    import tensorflow as tf

tf1 = tf.compat.v1


check = Checks()


def tool(*args):
    p = subprocess.run([TOOL, *args], capture_output=True)
    out = p.stdout.decode("utf-8", errors="replace")
    try:
        result = json.loads(out)
    except json.JSONDecodeError:
        raise SystemExit(f"checkpoint_tool {' '.join(args)} printed no JSON (rc {p.returncode}):\n{out}\n"
                         f"{p.stderr.decode(errors='replace')}")
    if p.returncode != 0 or "error" in result:
        raise SystemExit(f"checkpoint_tool {' '.join(args)} failed: {result}")
    return result["tensors"]


def tf_dtype_name(dtype):
    """TensorFlow's dtype as tensoract's DataTypeString names it."""
    dtype = tf.as_dtype(dtype)
    return {tf.float32: "float", tf.float64: "double", tf.float16: "half"}.get(dtype, dtype.name)


def as_json_values(array):
    """A numpy array as checkpoint_tool prints it: flattened, strings as hex."""
    flat = np.asarray(array).reshape(-1)
    if flat.dtype.kind in ("S", "O", "U"):
        return [(v if isinstance(v, bytes) else str(v).encode()).hex() for v in flat.tolist()]
    if flat.dtype == np.bool_:
        return [bool(v) for v in flat.tolist()]
    if flat.dtype.kind == "f":
        return [float(v) for v in flat.tolist()]
    return [int(v) for v in flat.tolist()]


def same(name, ours, dtype, array):
    """ours: checkpoint_tool's JSON of one tensor; dtype/array: what TensorFlow has."""
    array = np.asarray(array)
    check(ours["dtype"] == tf_dtype_name(dtype), f"{name}: dtype {ours['dtype']} vs TF {tf_dtype_name(dtype)}")
    check(list(ours["shape"]) == list(array.shape), f"{name}: shape {ours['shape']} vs TF {list(array.shape)}")
    theirs = as_json_values(array)
    # Exact, floats too: both sides print the exact value (%.17g / float()); no NaNs here.
    check(ours["values"] == theirs, f"{name}: values {ours['values']} vs TF {theirs}")


def case_tensoract_writes_tf_reads():
    prefix = os.path.join(WORK, "ours", "bundle")
    ours = tool("write", prefix)
    check(len(ours) >= 8, "checkpoint_tool wrote too few tensors")
    reader = tf.train.load_checkpoint(prefix)
    dtypes = reader.get_variable_to_dtype_map()
    shapes = reader.get_variable_to_shape_map()
    check(sorted(dtypes) == sorted(ours), f"TF lists {sorted(dtypes)}, tensoract wrote {sorted(ours)}")
    for name, t in ours.items():
        value = reader.get_tensor(name)
        check(list(shapes[name]) == t["shape"], f"{name}: TF's shape map says {shapes[name]}")
        same("(a) load_checkpoint " + name, t, dtypes[name], value)
    names = sorted(ours)
    restored = tf.raw_ops.RestoreV2(prefix=prefix, tensor_names=names, shape_and_slices=[""] * len(names),
                                    dtypes=[dtypes[n] for n in names])
    for name, value in zip(names, restored):
        same("(a) RestoreV2 " + name, ours[name], value.dtype, value.numpy())
    print(f"(a) TensorFlow read {len(ours)} tensors tensoract wrote")


def tf_values():
    return {
        "f32": tf.constant([[1.5, -2.25, 3.0], [0.0, 1e-30, -4e20]], tf.float32),
        "f64": tf.constant([np.pi, -np.e, 1e-300], tf.float64),
        "half": tf.constant([0.5, -2.0, 65504.0], tf.float16),
        "i8": tf.constant([-128, 0, 127], tf.int8),
        "u8": tf.constant([[0, 255]], tf.uint8),
        "i16": tf.constant([-32768, 32767], tf.int16),
        "u16": tf.constant([0, 65535], tf.uint16),
        "i32": tf.constant(-123456, tf.int32),
        "i64": tf.constant([[2 ** 62], [-(2 ** 40)]], tf.int64),
        "flags": tf.constant([True, False, True, True], tf.bool),
        "words": tf.constant([[b"", b"tensor"], [b"a\x00b\xff", b"x" * 300]]),
        "word": tf.constant(b"scalar string"),
        "empty": tf.zeros([0, 5], tf.float32),
        "empty_words": tf.constant([], tf.string),
        "scope/nested/name": tf.constant([7.0]),
    }


def case_tf_savev2_tensoract_reads():
    prefix = os.path.join(WORK, "tf_raw", "bundle")
    values = tf_values()
    names = sorted(values)
    tf.raw_ops.SaveV2(prefix=prefix, tensor_names=names, shape_and_slices=[""] * len(names),
                      tensors=[values[n] for n in names])
    ours = tool("read", prefix)
    check(sorted(ours) == names, f"tensoract lists {sorted(ours)}, TF wrote {names}")
    for n in names:
        if n in ours:
            same("(b) SaveV2 " + n, ours[n], values[n].dtype, values[n].numpy())
    print(f"(b) tensoract read {len(ours)} tensors tf.raw_ops.SaveV2 wrote")


def case_tf_saver_tensoract_reads(sharded):
    ckpt_dir = os.path.join(WORK, "tf_saver_sharded" if sharded else "tf_saver")
    os.makedirs(ckpt_dir)  # a sharded save writes to a temporary directory beside it
    graph = tf.Graph()
    with graph.as_default():
        w = tf1.Variable([[1.0, 2.0], [3.0, 4.0]], name="dense/w", use_resource=False)
        v = tf1.Variable([5, 6, 7], dtype=tf.int64, name="v", use_resource=True)
        s = tf1.Variable(b"label", name="s", use_resource=True)
        step = tf1.train.get_or_create_global_step()
        update = [tf1.assign_add(w, [[0.5, 0.5], [0.5, 0.5]]), v.assign_add([1, 1, 1]), tf1.assign_add(step, 3)]
        saver = tf1.train.Saver(sharded=sharded)
        with tf1.Session(graph=graph) as sess:
            sess.run(tf1.global_variables_initializer())
            sess.run(update)
            path = saver.save(sess, os.path.join(ckpt_dir, "model.ckpt"), global_step=step)
            expected = {var.op.name: (var.dtype.base_dtype, sess.run(var)) for var in tf1.global_variables()}
    check(tf.train.latest_checkpoint(ckpt_dir) == path, f"TF's own latest_checkpoint: {path}")
    ours = tool("read", path)
    check(sorted(ours) == sorted(expected), f"tensoract lists {sorted(ours)}, TF saved {sorted(expected)}")
    for name, (dtype, value) in expected.items():
        if name in ours:
            same(f"(b) Saver(sharded={sharded}) {name}", ours[name], dtype, value)
    print(f"(b) tensoract read the {len(ours)} variables a tf.compat.v1.train.Saver(sharded={sharded}) saved")


def case_tensoract_saver_tf_reads():
    ckpt_dir = os.path.join(WORK, "our_saver")
    ours = tool("saver", ckpt_dir)
    latest = tf.train.latest_checkpoint(ckpt_dir)
    check(latest == os.path.join(ckpt_dir, "model.ckpt-2"), f"tf.train.latest_checkpoint gave {latest}")
    state = tf.train.get_checkpoint_state(ckpt_dir)
    check(state is not None and list(state.all_model_checkpoint_paths) ==
          [os.path.join(ckpt_dir, "model.ckpt-1"), os.path.join(ckpt_dir, "model.ckpt-2")],
          f"tf.train.get_checkpoint_state gave {state}")
    reader = tf.train.load_checkpoint(latest)
    dtypes = reader.get_variable_to_dtype_map()
    check(sorted(dtypes) == ["v", "w"], f"TF lists {sorted(dtypes)} in tensoract's Saver checkpoint")
    for name in ours:
        same("(c) Saver " + name, ours[name], dtypes[name], reader.get_tensor(name))
    w = reader.get_tensor("w")
    check(np.array_equal(w, [[1.5, 2.5], [3.5, 4.5]]), f"(c) w after one increment: {w}")
    print("(c) TensorFlow found and read tensoract's Saver checkpoints")


def main():
    global TOOL, WORK
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    TOOL, WORK = sys.argv[1], sys.argv[2]
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    case_tensoract_writes_tf_reads()
    case_tf_savev2_tensoract_reads()
    case_tf_saver_tensoract_reads(sharded=False)
    case_tf_saver_tensoract_reads(sharded=True)
    case_tensoract_saver_tf_reads()
    return check.summary("all checkpoints match")


if __name__ == "__main__":
    sys.exit(main())
