#!/usr/bin/env python3
"""Writes TensorProtos with TensorFlow, for tests/kernels/tensor_test.cc to read back.

    python3 tests/kernels/write_tf_tensors.py DIR
    TENSORACT_TF_TENSOR_DIR=DIR path/to/tensor_test "[tensorflow]"

For each case NAME, DIR/NAME.pb is a TensorProto that TensorFlow wrote, in one of the
encodings it uses:
  - tf.make_tensor_proto of an array (tensor_content, or a typed field for the dtypes that
    Python keeps out of tensor_content: int4, uint4, int2, uint2, strings);
  - tf.make_tensor_proto of a scalar (a typed field with one value);
  - tf.make_tensor_proto(value, shape=...) (one value for many elements: the reader repeats it);
  - tf.io.serialize_tensor (TensorFlow's C++ AsProtoTensorContent; AsProtoField for strings),
    for the dtypes that op has a kernel for;
  - a constant folded by Grappler, whose C++ writer drops repeated trailing values.
DIR/NAME.expected.pb holds the same elements, written here from numpy as raw bytes in
tensor_content (strings in string_val). DIR/index.txt lists the names. Needs TensorFlow
(2.16 or later for the narrow types; cases its version cannot write are skipped).
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.core.framework import tensor_pb2  # noqa: E402
from tensorflow.python.framework import dtypes  # noqa: E402

FLOATS = [1.5, -2.25, 3.0, -4.5, 0.125, 7.0]
# Per dtype name: six values, all exactly representable, extremes included.
VALUES = {
    "float32": FLOATS,
    "float64": FLOATS,
    "float16": FLOATS,
    "bfloat16": FLOATS,
    "float8_e5m2": FLOATS,
    "float8_e4m3fn": FLOATS,
    "float8_e4m3fnuz": FLOATS,
    "float8_e4m3b11fnuz": FLOATS,
    "float8_e5m2fnuz": FLOATS,
    "float4_e2m1fn": [0.5, -1.0, 1.5, 2.0, -3.0, 6.0],
    "int32": [2**31 - 1, -2**31, 3, -4, 5, -6],
    "uint32": [2**32 - 1, 1, 3, 4, 5, 6],
    "int64": [2**63 - 1, -2**63, 3, -4, 5, -6],
    "uint64": [2**64 - 1, 1, 3, 4, 5, 6],
    "int16": [32767, -32768, 3, -4, 5, -6],
    "uint16": [65535, 1, 3, 4, 5, 6],
    "int8": [127, -128, 3, -4, 5, -6],
    "uint8": [255, 1, 3, 4, 5, 6],
    "bool": [True, False, True, True, False, True],
    "complex64": [1 + 2j, -3.5j, 4, -5 - 6j, 0.25 + 0.5j, 7 + 8j],
    "complex128": [1 + 2j, -3.5j, 4, -5 - 6j, 0.25 + 0.5j, 7 + 8j],
    "qint8": [127, -128, 3, -4, 5, -6],
    "quint8": [255, 1, 3, 4, 5, 6],
    "qint16": [32767, -32768, 3, -4, 5, -6],
    "quint16": [65535, 1, 3, 4, 5, 6],
    "qint32": [2**31 - 1, -2**31, 3, -4, 5, -6],
    "int4": [1, -2, 7, -8, 3, -3],
    "uint4": [1, 2, 15, 8, 3, 14],
    "int2": [1, -2, -1, 1, -2, -1],
    "uint2": [1, 2, 3, 1, 2, 3],
    "string": [b"a", b"", b"bc", b"with\0nul", b"\xff\xfe", b"last"],
}
QUANTIZED_BASE = {"qint8": np.int8, "quint8": np.uint8, "qint16": np.int16,
                  "quint16": np.uint16, "qint32": np.int32}
# Dtypes whose elements tensoract keeps as their integer value sign-extended into a byte
# (which is what TensorFlow's FromProto does with int_val), while numpy's ml_dtypes masks.
SIGN_EXTENDED = {"int4", "int2"}


def as_numpy(name, values):
  if name in QUANTIZED_BASE:
    return np.array(values, dtype=QUANTIZED_BASE[name])
  if name == "string":
    return np.array(values, dtype=object)
  return np.array(values, dtype=dtypes.as_dtype(name).as_numpy_dtype)


def expected_proto(name, array):
  """The elements of `array`, written without TensorFlow's encoders."""
  proto = tensor_pb2.TensorProto(dtype=dtypes.as_dtype(name).as_datatype_enum)
  for d in array.shape:
    proto.tensor_shape.dim.add(size=d)
  if name == "string":
    proto.string_val.extend(array.ravel().tolist())
  elif name in SIGN_EXTENDED:
    proto.tensor_content = array.astype(np.int8).tobytes()
  else:
    proto.tensor_content = np.ascontiguousarray(array).tobytes()
  return proto


def folded_constant(build):
  """Lets Grappler fold what build() makes into a Const; returns its TensorProto."""
  from tensorflow.core.protobuf import config_pb2
  from tensorflow.python.grappler import tf_optimizer
  graph = tf.Graph()
  with graph.as_default():
    out = tf.identity(build(), name="out")
    graph.add_to_collection("train_op", out)
    meta = tf.compat.v1.train.export_meta_graph(graph=graph)
  optimized = tf_optimizer.OptimizeGraph(config_pb2.ConfigProto(), meta)
  for node in optimized.node:
    if node.op == "Const" and list(node.attr["value"].tensor.tensor_shape.dim):
      return node.attr["value"].tensor
  raise RuntimeError("Grappler folded no constant")


def main():
  if len(sys.argv) != 2:
    sys.exit(__doc__)
  out_dir = sys.argv[1]
  os.makedirs(out_dir, exist_ok=True)
  names = []

  def write(case, tf_proto, expected):
    with open(os.path.join(out_dir, case + ".pb"), "wb") as f:
      f.write(tf_proto.SerializeToString())
    with open(os.path.join(out_dir, case + ".expected.pb"), "wb") as f:
      f.write(expected.SerializeToString())
    names.append(case)

  for name, values in VALUES.items():
    try:
      dtype = dtypes.as_dtype(name)
    except TypeError:
      print(f"skipped {name}: this TensorFlow has no such dtype")
      continue
    array = as_numpy(name, values).reshape(2, 3)
    one = array.ravel()[2:3]  # a 1-element array, so that numpy keeps the dtype
    attempts = {
        "array": lambda: (tf.make_tensor_proto(array, dtype=dtype), array),
        "scalar": lambda: (tf.make_tensor_proto(one.reshape(()), dtype=dtype), one.reshape(())),
        "fill": lambda: (tf.make_tensor_proto(one, dtype=dtype, shape=[2, 3]),
                         np.broadcast_to(one, (2, 3))),
        "serialized": lambda: (
            tensor_pb2.TensorProto.FromString(
                tf.io.serialize_tensor(tf.constant(array, dtype=dtype)).numpy()), array),
    }
    for kind, make in attempts.items():
      try:
        tf_proto, want = make()
      except Exception as e:  # pylint: disable=broad-except
        print(f"skipped {name}_{kind}: {type(e).__name__}: {str(e).splitlines()[0][:100]}")
        continue
      write(f"{name}_{kind}", tf_proto, expected_proto(name, np.asarray(want)))

  # Constants folded by Grappler, whose C++ writer drops repeated trailing values (a fill
  # becomes one value; [5, -6, 7, 7, ...] becomes three).
  ramp = np.array([5, -6] + [7] * 10, dtype=np.int32).reshape(3, 4)
  folds = {
      "float32_fill": (lambda: tf.fill([3, 4], 2.5), np.full((3, 4), 2.5, np.float32)),
      "bool_fill": (lambda: tf.fill([3, 4], True), np.full((3, 4), True)),
      "float16_fill": (lambda: tf.fill([3, 4], tf.constant(1.5, tf.float16)),
                       np.full((3, 4), 1.5, np.float16)),
      "int32_tail": (lambda: tf.reshape(tf.pad(tf.constant([5, -6, 7]), [[0, 9]],
                                               constant_values=7), [3, 4]), ramp),
  }
  for case, (build, want) in folds.items():
    name = case.split("_")[0]
    try:
      proto = folded_constant(build)
    except Exception as e:  # pylint: disable=broad-except
      print(f"skipped folded_{case}: {type(e).__name__}: {str(e).splitlines()[0][:100]}")
      continue
    write(f"folded_{case}", proto, expected_proto(name, want))

  with open(os.path.join(out_dir, "index.txt"), "w") as f:
    f.write("\n".join(names) + "\n")
  print(f"wrote {len(names)} cases to {out_dir} with TensorFlow {tf.__version__}")


if __name__ == "__main__":
  main()
