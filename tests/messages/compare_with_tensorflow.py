#!/usr/bin/env python3
"""Checks that tensoract's .proto schemas (messages/*.proto) are wire-compatible
with the ones TensorFlow itself is built with.

Usage:
    protoc --include_imports --descriptor_set_out=OURS.pb -I REPO messages/*.proto
    python3 compare_with_tensorflow.py OURS.pb

Three checks:

1. Schema check. For every message and enum in OUR descriptor set whose full
   name TensorFlow also defines, compare field by field (number, name, type,
   label, referenced type, real-oneof membership, presence, packing, proto2
   default) and enum value by value, plus the field numbers TF reserves. What
   TF has and we lack, or any difference, is an error; what we have in
   addition is only a note.

2. Wire check. Build real messages (a GraphDef that uses every attr kind and
   every TensorProto value field, an OpList, a DeviceAttributes) with TF's
   generated classes, serialize them, parse the bytes with classes built from
   OUR descriptor set, and check that nothing lands in unknown fields, that
   our re-serialization is byte-identical to TF's (deterministic mode), that
   both render the same text format, and that TF parses our bytes back into a
   message equal to the original.

   Also: ConfigProto, RunOptions, RunMetadata, CallableOptions, ServerDef,
   ClusterDef and NamedTensorProto with every field we mirror set, and a
   ConfigProto carrying fields we leave out on purpose (OMITTED), which must
   come back equal through our classes (kept as unknown fields).

3. Control-protocol table. pip's TensorFlow has no descriptors for master.proto
   and worker.proto; our messages of those files are compared with
   TF_CONTROL_FIELDS, a table transcribed from TensorFlow's files.

Both sides are inspected through the same protobuf runtime descriptors, so
proto2 vs proto3 (TF's graph_debug_info.proto is proto2) are compared by
their effective semantics, not by how the source spelled them.

Exit status: 0 all match, 1 mismatch, 2 bad usage, 77 TensorFlow not
installed (ctest's SKIP_RETURN_CODE).
"""

import importlib
import importlib.metadata
import importlib.util
import os
import sys
import types

SKIP = 77

# TF's generated modules holding the types we mirror. error_codes moved over
# time (tensorflow/core/lib/core -> core/protobuf -> tsl -> xla/tsl); any one
# of them registers tensorflow.error.Code in the pool.
TF_FRAMEWORK_MODULES = [
    "tensorflow.core.framework.types_pb2",
    "tensorflow.core.framework.tensor_shape_pb2",
    "tensorflow.core.framework.resource_handle_pb2",
    "tensorflow.core.framework.tensor_pb2",
    "tensorflow.core.framework.attr_value_pb2",
    "tensorflow.core.framework.full_type_pb2",
    "tensorflow.core.framework.node_def_pb2",
    "tensorflow.core.framework.versions_pb2",
    "tensorflow.core.framework.op_def_pb2",
    "tensorflow.core.framework.function_pb2",
    "tensorflow.core.framework.graph_pb2",
    "tensorflow.core.framework.device_attributes_pb2",
    "tensorflow.core.framework.allocation_description_pb2",
    "tensorflow.core.framework.tensor_description_pb2",
    "tensorflow.core.framework.step_stats_pb2",
    "tensorflow.core.framework.cost_graph_pb2",
    "tensorflow.core.framework.summary_pb2",
    "tensorflow.core.util.event_pb2",
    "tensorflow.core.example.feature_pb2",
    "tensorflow.core.example.example_pb2",
    # Session configuration and the parts of the control protocol pip ships.
    "tensorflow.core.protobuf.cluster_pb2",
    "tensorflow.core.protobuf.debug_pb2",
    "tensorflow.core.protobuf.named_tensor_pb2",
    "tensorflow.core.protobuf.config_pb2",
    "tensorflow.core.protobuf.tensorflow_server_pb2",
    # MetaGraphs and SavedModels.
    "tensorflow.core.framework.variable_pb2",
    "tensorflow.core.protobuf.saver_pb2",
    "tensorflow.core.protobuf.meta_graph_pb2",
    "tensorflow.core.protobuf.saved_model_pb2",
]
TF_OPTIONAL_MODULES = [
    # GraphDebugInfo lives in core/framework in new TF, core/protobuf before.
    "tensorflow.core.framework.graph_debug_info_pb2",
    "tensorflow.core.protobuf.graph_debug_info_pb2",
    # CheckpointState (the `checkpoint` file), generated with TF's Python.
    "tensorflow.python.training.checkpoint_state_pb2",
    # TensorFlow Serving's API (pip's tensorflow-serving-api), for messages/serving_apis.proto.
    "tensorflow_serving.apis.predict_pb2",
    "tensorflow_serving.apis.classification_pb2",
    "tensorflow_serving.apis.regression_pb2",
    "tensorflow_serving.apis.get_model_metadata_pb2",
    "tensorflow_serving.apis.get_model_status_pb2",
]
TF_ERROR_CODES_MODULES = [
    "tensorflow.core.protobuf.error_codes_pb2",
    "tensorflow.tsl.protobuf.error_codes_pb2",
    "tsl.protobuf.error_codes_pb2",
    "xla.tsl.protobuf.error_codes_pb2",
    "tensorflow.compiler.xla.tsl.protobuf.error_codes_pb2",
    "tensorflow.core.lib.core.error_codes_pb2",
]


# Fields of TF's messages that ours leave out on purpose, by message and number, with
# why. Their numbers stay free in ours (the field-by-field check fails if ours puts
# anything else there), and TF's bytes carrying them parse here into unknown fields,
# which protobuf re-serializes (see the pass-through check). Anything TF has that is
# neither here nor in ours is a mismatch.
_EXPERIMENTAL = "an experimental TF knob tensoract does not read"
OMITTED = {
    "tensorflow.ConfigProto": {
        6: "GPUOptions: no GPU devices yet",
        13: "RPCOptions: control travels over CAF, not gRPC",
        18: "GPUOptions for pluggable devices: none here",
    },
    "tensorflow.ConfigProto.Experimental": {
        n: _EXPERIMENTAL for n in (6, 7, 8, 13, 15, 16, 17, 18, 22, 23, 24, 26,
                                   27, 28, 29, 30, 31, 32, 33, 34, 35, 36)},
    "tensorflow.GraphOptions": {
        10: "RewriterConfig: Grappler's options; tensoract has no Grappler",
    },
    "tensorflow.ServerDef": {
        7: "ClusterDeviceFilters: per-task device filters, not used yet",
    },
    "tensorflow.MetaGraphDef": {
        7: "SavedObjectGraph: the loader restores through the SaverDef instead",
    },
    "tensorflow.TensorInfo": {
        5: "CompositeTensor (TypeSpecProto): signatures of composite tensors are refused",
    },
    "tensorflow.serving.PredictRequest": {
        5: "PredictStreamedOptions: streamed predictions (LLM serving) are not served",
        6: "client_id: for streamed predictions",
        7: "RequestOptions: decoder slots and caches of LLM serving",
    },
}


class Report:
    def __init__(self):
        self.errors = []
        self.notes = []

    def error(self, msg):
        self.errors.append(msg)
        print("MISMATCH: " + msg)

    def note(self, msg):
        self.notes.append(msg)
        print("note: " + msg)


# ---------------------------------------------------------------- loading


def load_tensorflow():
    """Imports TF's generated modules; returns (version, pool) or exits 77."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    spec = importlib.util.find_spec("tensorflow")
    if spec is None:
        print("SKIPPED: tensorflow is not installed "
              "(bootstrap/install-deps.sh installs tensorflow-cpu)")
        sys.exit(SKIP)
    # TF's generated modules without TF's own __init__ (its runtime and every op's wrapper,
    # ~6 s of a core): a bare package of TF's folder stands in for `tensorflow`.
    package = types.ModuleType("tensorflow")
    package.__path__ = list(spec.submodule_search_locations)
    sys.modules["tensorflow"] = package
    try:
        mods = [importlib.import_module(m) for m in TF_FRAMEWORK_MODULES]
    except Exception as e:  # pylint: disable=broad-except
        print("ERROR: tensorflow is installed but its generated protobuf "
              "modules failed to import: %s: %s" % (type(e).__name__, e))
        sys.exit(1)
    for name in TF_OPTIONAL_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    errmod = None
    for name in TF_ERROR_CODES_MODULES:
        try:
            errmod = importlib.import_module(name)
            break
        except ImportError:
            continue
    if errmod is None:
        print("note: none of %s imports; tensorflow.error.Code is not checked"
              % ", ".join(TF_ERROR_CODES_MODULES))
    version = "?"
    for distribution in ("tensorflow-cpu", "tensorflow", "tensorflow-intel"):
        try:
            version = importlib.metadata.version(distribution)
            break
        except importlib.metadata.PackageNotFoundError:
            continue
    return version, mods[0].DESCRIPTOR.pool


def load_ours(path):
    from google.protobuf import descriptor_pb2, descriptor_pool
    fds = descriptor_pb2.FileDescriptorSet()
    with open(path, "rb") as f:
        fds.ParseFromString(f.read())
    if not fds.file:
        print("ERROR: %s holds no files" % path)
        sys.exit(2)
    pool = descriptor_pool.DescriptorPool()
    # --include_imports writes files in dependency order.
    for fdp in fds.file:
        pool.Add(fdp)
    return fds, pool


def get_message_class(pool, full_name):
    from google.protobuf import message_factory
    desc = pool.FindMessageTypeByName(full_name)
    if hasattr(message_factory, "GetMessageClass"):
        return message_factory.GetMessageClass(desc)
    return message_factory.MessageFactory(pool).GetPrototype(desc)


# ------------------------------------------------------- field semantics

_TYPE_NAMES = None


def type_name_of(t):
    global _TYPE_NAMES
    if _TYPE_NAMES is None:
        from google.protobuf.descriptor import FieldDescriptor as FD
        _TYPE_NAMES = {getattr(FD, k): k[5:].lower()
                       for k in dir(FD) if k.startswith("TYPE_")}
    return _TYPE_NAMES.get(t, str(t))


def _syntax(fd):
    desc_file = fd.containing_type.file
    return getattr(desc_file, "syntax", "proto3")


def label_of(fd):
    if hasattr(fd, "is_repeated"):
        if fd.is_repeated:
            return "repeated"
        if getattr(fd, "is_required", False):
            return "required"
        return "optional"
    return {fd.LABEL_OPTIONAL: "optional", fd.LABEL_REPEATED: "repeated",
            fd.LABEL_REQUIRED: "required"}[fd.label]


_PACKABLE = None


def packed_of(fd):
    """Whether repeated scalars go on the wire packed (False for non-repeated)."""
    global _PACKABLE
    if label_of(fd) != "repeated":
        return False
    if hasattr(fd, "is_packed"):
        return bool(fd.is_packed)
    from google.protobuf.descriptor import FieldDescriptor as FD
    if _PACKABLE is None:
        _PACKABLE = {getattr(FD, k) for k in dir(FD) if k.startswith("TYPE_")} - {
            FD.TYPE_STRING, FD.TYPE_BYTES, FD.TYPE_MESSAGE, FD.TYPE_GROUP}
    if fd.type not in _PACKABLE:
        return False
    opts = fd.GetOptions()
    if opts.HasField("packed"):
        return opts.packed
    return _syntax(fd) == "proto3"


def presence_of(fd):
    if hasattr(fd, "has_presence"):
        return bool(fd.has_presence)
    if label_of(fd) == "repeated":
        return False
    return (fd.message_type is not None or fd.containing_oneof is not None
            or _syntax(fd) != "proto3")


def synthetic_fields(desc):
    """Names of fields whose oneof is only the proto3 'optional' wrapper."""
    from google.protobuf import descriptor_pb2
    dp = descriptor_pb2.DescriptorProto()
    desc.CopyToProto(dp)
    return {f.name for f in dp.field if f.proto3_optional}, dp


def real_oneof_of(fd, synthetic):
    if fd.containing_oneof is None or fd.name in synthetic:
        return None
    return fd.containing_oneof.name


def ref_type_of(fd):
    if fd.message_type is not None:
        return fd.message_type.full_name
    if fd.enum_type is not None:
        return fd.enum_type.full_name
    return ""


def describe(fd, synthetic):
    return {
        "name": fd.name,
        "type": type_name_of(fd.type),
        "label": label_of(fd),
        "type_name": ref_type_of(fd),
        "oneof": real_oneof_of(fd, synthetic),
        "presence": presence_of(fd),
        "packed": packed_of(fd),
        "default": (fd.default_value if getattr(fd, "has_default_value", False)
                    and fd.message_type is None and label_of(fd) != "repeated"
                    else None),
    }


def reserved_numbers(dp):
    return [(r.start, r.end) for r in dp.reserved_range]


def covered(ranges, n):
    return any(s <= n < e for s, e in ranges)


# --------------------------------------------------------- schema check


def compare_message(ours, tf, rep, counts):
    if ours.GetOptions().map_entry != tf.GetOptions().map_entry:
        rep.error("message %s: map-entry flag differs (ours %s, TF %s)"
                  % (ours.full_name, ours.GetOptions().map_entry,
                     tf.GetOptions().map_entry))
    if not ours.GetOptions().map_entry:
        counts["messages"] += 1
    syn_ours, dp_ours = synthetic_fields(ours)
    syn_tf, dp_tf = synthetic_fields(tf)
    ours_by_num = {f.number: f for f in ours.fields}
    for tf_field in tf.fields:
        where = "%s field %d (%s)" % (tf.full_name, tf_field.number, tf_field.name)
        our_field = ours_by_num.get(tf_field.number)
        if our_field is None:
            reason = OMITTED.get(tf.full_name, {}).get(tf_field.number)
            if reason:
                rep.note("%s: left out on purpose (%s)" % (where, reason))
                counts["omitted"] += 1
            else:
                rep.error("%s: missing in ours" % where)
            continue
        a = describe(our_field, syn_ours)
        b = describe(tf_field, syn_tf)
        keys = ["name", "type", "label", "type_name", "oneof", "presence",
                "packed", "default"]
        if tf.GetOptions().map_entry:
            # Map entries always carry key and value on the wire; proto2 and
            # proto3 merely report their "presence" differently.
            keys.remove("presence")
        for key in keys:
            if a[key] != b[key]:
                rep.error("%s: %s is %r in ours, %r in TF"
                          % (where, key, a[key], b[key]))
        counts["fields"] += 1
    tf_nums = {f.number for f in tf.fields}
    tf_reserved = reserved_numbers(dp_tf)
    for f in ours.fields:
        if f.number not in tf_nums:
            if covered(tf_reserved, f.number):
                rep.error("%s field %d (%s): TF reserves this number"
                          % (ours.full_name, f.number, f.name))
            else:
                rep.note("%s field %d (%s) is ours only"
                         % (ours.full_name, f.number, f.name))
    our_reserved = reserved_numbers(dp_ours)
    for start, end in tf_reserved:
        for n in range(start, min(end, start + 64)):
            if not covered(our_reserved, n) and n not in ours_by_num:
                rep.error("%s: TF reserves field number %d, ours does not"
                          % (tf.full_name, n))
    for name in dp_tf.reserved_name:
        if name not in dp_ours.reserved_name:
            rep.note("%s: TF reserves field name %r, ours does not"
                     % (tf.full_name, name))
    # Nested types and enums are compared through compare_scope.
    compare_scope(ours, tf, rep, counts)


def compare_enum(ours, tf, rep, counts):
    counts["enums"] += 1
    ours_vals = {v.name: v.number for v in ours.values}
    for v in tf.values:
        if v.name not in ours_vals:
            rep.error("enum %s: value %s = %d missing in ours"
                      % (tf.full_name, v.name, v.number))
        elif ours_vals[v.name] != v.number:
            rep.error("enum %s: value %s is %d in ours, %d in TF"
                      % (tf.full_name, v.name, ours_vals[v.name], v.number))
        else:
            counts["enum_values"] += 1
    tf_vals = {v.name for v in tf.values}
    tf_nums = {v.number: v.name for v in tf.values}
    for v in ours.values:
        if v.name not in tf_vals:
            if v.number in tf_nums:
                rep.error("enum %s: ours names %d %s, TF names it %s"
                          % (tf.full_name, v.number, v.name, tf_nums[v.number]))
            else:
                rep.note("enum %s: value %s = %d is ours only"
                         % (ours.full_name, v.name, v.number))


def compare_scope(ours_scope, tf_scope, rep, counts):
    """Compares the nested messages/enums of two messages (or two files)."""
    tf_nested = {m.name: m for m in tf_scope.nested_types}
    for m in ours_scope.nested_types:
        if m.name in tf_nested:
            compare_message(m, tf_nested[m.name], rep, counts)
        else:
            rep.note("message %s is ours only" % m.full_name)
    ours_nested = {m.name for m in ours_scope.nested_types}
    for m in tf_scope.nested_types:
        if m.name not in ours_nested:
            rep.note("TF message %s has no counterpart in ours" % m.full_name)
    tf_enums = {e.name: e for e in tf_scope.enum_types}
    for e in ours_scope.enum_types:
        if e.name in tf_enums:
            compare_enum(e, tf_enums[e.name], rep, counts)
        else:
            rep.note("enum %s is ours only" % e.full_name)


def schema_check(fds, our_pool, tf_pool, rep):
    counts = {"messages": 0, "enums": 0, "fields": 0, "enum_values": 0,
              "omitted": 0}
    tf_files = set()
    for fdp in fds.file:
        if fdp.name.startswith("google/protobuf/"):
            continue  # well-known types pulled in by --include_imports
        prefix = (fdp.package + ".") if fdp.package else ""
        for mp in fdp.message_type:
            full = prefix + mp.name
            ours = our_pool.FindMessageTypeByName(full)
            try:
                tf = tf_pool.FindMessageTypeByName(full)
            except KeyError:
                rep.note("message %s (%s) does not exist in TF" % (full, fdp.name))
                continue
            tf_files.add(tf.file.name)
            compare_message(ours, tf, rep, counts)
        for ep in fdp.enum_type:
            full = prefix + ep.name
            ours = our_pool.FindEnumTypeByName(full)
            try:
                tf = tf_pool.FindEnumTypeByName(full)
            except KeyError:
                rep.note("enum %s (%s) does not exist in TF" % (full, fdp.name))
                continue
            tf_files.add(tf.file.name)
            compare_enum(ours, tf, rep, counts)
    # Top-level types TF defines in the files we mirror but we do not.
    for fname in sorted(tf_files):
        tf_file = tf_pool.FindFileByName(fname)
        for name, m in tf_file.message_types_by_name.items():
            try:
                our_pool.FindMessageTypeByName(m.full_name)
            except KeyError:
                rep.note("TF message %s (%s) has no counterpart in ours"
                         % (m.full_name, fname))
        for name, e in tf_file.enum_types_by_name.items():
            try:
                our_pool.FindEnumTypeByName(e.full_name)
            except KeyError:
                rep.note("TF enum %s (%s) has no counterpart in ours"
                         % (e.full_name, fname))
    return counts


# ----------------------------------------------------------- wire check


def build_tf_samples():
    """Returns [(full_name, TF message)] exercising every field we mirror."""
    from tensorflow.core.framework import (attr_value_pb2, device_attributes_pb2,
                                           full_type_pb2, function_pb2, graph_pb2,
                                           op_def_pb2, resource_handle_pb2,
                                           tensor_pb2, tensor_shape_pb2, types_pb2)
    import struct

    def shape(*dims, unknown_rank=False):
        s = tensor_shape_pb2.TensorShapeProto(unknown_rank=unknown_rank)
        for d in dims:
            if isinstance(d, tuple):
                s.dim.add(size=d[0], name=d[1])
            else:
                s.dim.add(size=d)
        return s

    dt = types_pb2

    # A float constant stored as raw bytes.
    content = struct.pack("<6f", 1.0, -2.5, 3.25, 0.0, 1e30, -7.0)
    const_t = tensor_pb2.TensorProto(dtype=dt.DT_FLOAT, tensor_shape=shape(2, 3),
                                     tensor_content=content)

    rh = resource_handle_pb2.ResourceHandleProto(
        device="/job:localhost/replica:0/task:0/device:CPU:0",
        container="c", name="v", hash_code=0xFEDCBA9876543210,
        maybe_type_name="tensorflow::Var")
    rh.dtypes_and_shapes.add(dtype=dt.DT_FLOAT, shape=shape(-1, (4, "feat")))

    # One tensor per typed value field.
    typed = [
        tensor_pb2.TensorProto(dtype=dt.DT_HALF, tensor_shape=shape(3),
                               half_val=[0x3C00, 0xC000, 0x7BFF]),
        tensor_pb2.TensorProto(dtype=dt.DT_FLOAT, tensor_shape=shape(2),
                               float_val=[1.5, -0.25]),
        tensor_pb2.TensorProto(dtype=dt.DT_DOUBLE, tensor_shape=shape(2),
                               double_val=[3.141592653589793, -1e300]),
        tensor_pb2.TensorProto(dtype=dt.DT_INT32, tensor_shape=shape(3),
                               int_val=[-1, 0, 2147483647]),
        tensor_pb2.TensorProto(dtype=dt.DT_STRING, tensor_shape=shape(2),
                               string_val=[b"hello", b"\x00\xff bytes"]),
        tensor_pb2.TensorProto(dtype=dt.DT_COMPLEX64, tensor_shape=shape(1),
                               scomplex_val=[1.0, -1.0]),
        tensor_pb2.TensorProto(dtype=dt.DT_INT64, tensor_shape=shape(2),
                               int64_val=[-(2 ** 63), 2 ** 63 - 1]),
        tensor_pb2.TensorProto(dtype=dt.DT_BOOL, tensor_shape=shape(2),
                               bool_val=[True, False]),
        tensor_pb2.TensorProto(dtype=dt.DT_COMPLEX128, tensor_shape=shape(1),
                               dcomplex_val=[2.0, 0.5]),
        tensor_pb2.TensorProto(dtype=dt.DT_RESOURCE, tensor_shape=shape(),
                               resource_handle_val=[rh]),
        tensor_pb2.TensorProto(dtype=dt.DT_UINT32, tensor_shape=shape(2),
                               uint32_val=[0, 4294967295]),
        tensor_pb2.TensorProto(dtype=dt.DT_UINT64, tensor_shape=shape(2),
                               uint64_val=[1, 18446744073709551615]),
        tensor_pb2.TensorProto(dtype=dt.DT_BFLOAT16, tensor_shape=shape(1),
                               half_val=[0x3F80], version_number=0),
    ]
    variant = tensor_pb2.TensorProto(dtype=dt.DT_VARIANT, tensor_shape=shape())
    v = variant.variant_val.add(type_name="tensorflow::TensorList",
                                metadata=b"\x01\x02meta")
    v.tensors.add().CopyFrom(typed[1])
    typed.append(variant)
    if hasattr(dt, "DT_FLOAT8_E5M2") and "float8_val" in \
            tensor_pb2.TensorProto.DESCRIPTOR.fields_by_name:
        typed.append(tensor_pb2.TensorProto(dtype=dt.DT_FLOAT8_E5M2,
                                            tensor_shape=shape(3),
                                            float8_val=b"\x3c\x00\xfb"))

    ftype = full_type_pb2.FullTypeDef(type_id=full_type_pb2.TFT_PRODUCT)
    t = ftype.args.add(type_id=full_type_pb2.TFT_TENSOR)
    t.args.add(type_id=full_type_pb2.TFT_FLOAT)
    ftype.args.add(type_id=full_type_pb2.TFT_VAR, s="T")
    ftype.args.add(type_id=full_type_pb2.TFT_LITERAL, i=-3)

    func = attr_value_pb2.NameAttrList(name="my_fn")
    func.attr["T"].type = dt.DT_INT64
    func.attr["n"].i = 3

    g = graph_pb2.GraphDef()
    g.versions.producer = 1882
    g.versions.min_consumer = 12
    g.versions.bad_consumers.extend([3, 7])
    g.version = 17  # the deprecated field; still has to travel

    n = g.node.add(name="c", op="Const",
                   device="/job:localhost/replica:0/task:0/device:CPU:0")
    n.attr["dtype"].type = dt.DT_FLOAT
    n.attr["value"].tensor.CopyFrom(const_t)

    n = g.node.add(name="every_attr", op="Fancy", input=["c", "c:0", "^init"])
    n.attr["s"].s = b"SAME"
    n.attr["i"].i = -(2 ** 40)
    n.attr["f"].f = 0.5
    n.attr["b"].b = True
    n.attr["type"].type = dt.DT_BFLOAT16
    n.attr["shape"].shape.CopyFrom(shape(-1, (3, "c")))
    n.attr["unknown_shape"].shape.CopyFrom(shape(unknown_rank=True))
    n.attr["tensor"].tensor.CopyFrom(typed[4])
    n.attr["func"].func.CopyFrom(func)
    n.attr["placeholder"].placeholder = "outer_T"
    n.attr["empty_list"].list.SetInParent()
    lst = n.attr["list"].list
    lst.s.extend([b"a", b"bc"])
    lst.i.extend([1, -2, 2 ** 50])
    lst.f.extend([0.25, -8.0])
    lst.b.extend([False, True])
    lst.type.extend([dt.DT_INT32, dt.DT_FLOAT_REF, dt.DT_VARIANT])
    lst.shape.extend([shape(1, 2), shape()])
    lst.tensor.extend(typed)
    lst.func.extend([func, attr_value_pb2.NameAttrList(name="other")])
    n.experimental_debug_info.original_node_names.extend(["orig_a", "orig_b"])
    n.experimental_debug_info.original_func_names.extend(["f1"])
    n.experimental_type.CopyFrom(ftype)

    g.node.add(name="init", op="NoOp")

    # Function library.
    fdef = g.library.function.add()
    sig = fdef.signature
    sig.name = "my_fn"
    sig.input_arg.add(name="x", description="in", type_attr="T")
    a = sig.input_arg.add(name="h", type=dt.DT_RESOURCE)
    a.handle_data.add(dtype=dt.DT_FLOAT, shape=shape(2))
    a.experimental_full_type.CopyFrom(ftype)
    sig.input_arg.add(name="xs", number_attr="N", type=dt.DT_INT32)
    sig.input_arg.add(name="ys", type_list_attr="Tlist")
    sig.input_arg.add(name="r", type=dt.DT_FLOAT_REF, is_ref=True)
    sig.output_arg.add(name="y", type_attr="T")
    sig.control_output.append("side_effect")
    ad = sig.attr.add(name="T", type="type", description="elem type")
    ad.default_value.type = dt.DT_FLOAT
    ad.allowed_values.list.type.extend([dt.DT_FLOAT, dt.DT_INT64])
    sig.attr.add(name="N", type="int", has_minimum=True, minimum=1)
    sig.attr.add(name="Tlist", type="list(type)")
    sig.deprecation.version = 9
    sig.deprecation.explanation = "use other_fn"
    sig.summary = "One line."
    sig.description = "Longer text."
    sig.is_commutative = True
    sig.is_aggregate = True
    sig.is_stateful = True
    sig.allows_uninitialized_input = True
    if "is_distributed_communication" in sig.DESCRIPTOR.fields_by_name:
        sig.is_distributed_communication = True
    fdef.attr["_noinline"].b = True
    fdef.arg_attr[1].attr["_output_shapes"].list.shape.add().CopyFrom(shape(2))
    fdef.resource_arg_unique_id[1] = 0
    fdef.resource_arg_unique_id[4] = 1
    body = fdef.node_def.add(name="id", op="Identity", input=["x"])
    body.attr["T"].placeholder = "T"
    fdef.ret["y"] = "id:output:0"
    fdef.control_ret["side_effect"] = "id"
    g.library.gradient.add(function_name="my_fn", gradient_func="my_fn_grad")
    if "registered_gradients" in g.library.DESCRIPTOR.fields_by_name:
        g.library.registered_gradients.add(gradient_func="g",
                                           registered_op_type="Fancy")

    if "debug_info" in g.DESCRIPTOR.fields_by_name:
        di = g.debug_info
        di.files.extend(["a.py", "b.py"])
        # Explicit zeros: TF's FileLineCol has presence, so these must survive.
        fl = di.frames_by_id[11]
        fl.file_index = 0
        fl.line = 0
        fl.col = 4
        fl.func = "f"
        fl.code = "x = 1"
        di.frames_by_id[12].file_index = 1
        di.traces_by_id[21].frame_id.extend([11, 12])
        st = di.traces["every_attr"]
        st.file_line_cols.add(file_index=1, line=10, col=2, func="g", code="")
        di.name_to_trace_id["every_attr"] = 21
        di.name_to_trace_id["c@my_fn"] = 0xFFFFFFFFFFFFFFFF

    ops = op_def_pb2.OpList()
    ops.op.add().CopyFrom(sig)
    ops.op.add(name="NoOp")

    dev = device_attributes_pb2.DeviceAttributes(
        name="/job:worker/replica:0/task:1/device:GPU:0", device_type="GPU",
        memory_limit=16 * 2 ** 30, incarnation=0xDEADBEEFCAFEF00D,
        physical_device_desc="device: 0, name: X", xla_global_id=-1)
    dev.locality.bus_id = 1
    dev.locality.numa_node = 0
    dev.locality.links.link.add(device_id=1, type="StreamExecutor", strength=1)

    return [("tensorflow.GraphDef", g), ("tensorflow.OpList", ops),
            ("tensorflow.DeviceAttributes", dev)] + build_tf_session_samples(
                g, typed[1], shape)


def build_tf_session_samples(graph, tensor, shape):
    """Session configuration as a TF client sends it, every field we mirror set."""
    from tensorflow.core.framework import (cost_graph_pb2, step_stats_pb2,
                                           types_pb2 as dt)
    from tensorflow.core.protobuf import (cluster_pb2, config_pb2, debug_pb2,
                                          named_tensor_pb2, tensorflow_server_pb2)

    cluster = cluster_pb2.ClusterDef()
    cluster.job.add(name="worker", tasks={0: "localhost:2222", 3: "host-b:2222"})
    cluster.job.add(name="ps", tasks={1: "[::1]:2223"})

    c = config_pb2.ConfigProto()
    c.device_count["CPU"] = 4
    c.device_count["GPU"] = 0  # an explicit zero entry must survive
    c.intra_op_parallelism_threads = 2
    c.inter_op_parallelism_threads = -1
    c.use_per_session_threads = True
    c.session_inter_op_thread_pool.add(num_threads=3, global_name="shared")
    c.session_inter_op_thread_pool.add(num_threads=1)
    c.placement_period = 10
    c.device_filters.extend(["/job:ps", "/job:worker/task:3"])
    c.allow_soft_placement = True
    c.log_device_placement = True
    go = c.graph_options
    go.enable_recv_scheduling = True
    go.optimizer_options.do_common_subexpression_elimination = True
    go.optimizer_options.do_constant_folding = True
    go.optimizer_options.max_folded_constant_in_bytes = 1 << 20
    go.optimizer_options.do_function_inlining = True
    go.optimizer_options.opt_level = config_pb2.OptimizerOptions.L0  # -1 on the wire
    go.optimizer_options.global_jit_level = config_pb2.OptimizerOptions.OFF
    go.optimizer_options.cpu_global_jit = True
    go.build_cost_model = 5
    go.build_cost_model_after = 2
    go.infer_shapes = True
    go.place_pruned_graph = True
    go.enable_bfloat16_sendrecv = True
    go.timeline_step = 7
    c.operation_timeout_in_ms = 60000
    c.cluster_def.CopyFrom(cluster)
    c.isolate_session_state = True
    c.share_cluster_devices_in_session = True
    x = c.experimental
    x.collective_group_leader = "/job:worker/replica:0/task:0"
    x.executor_type = "DEFAULT"
    x.recv_buf_max_chunk = 4096
    x.use_numa_affinity = True
    x.disable_thread_spinning = True
    x.share_cluster_devices_in_session = True
    x.session_metadata.name = "model"
    x.session_metadata.version = 9
    x.optimize_for_static_graph = True
    x.disable_output_partition_graphs = True
    x.disable_functional_ops_lowering = True

    dbg = debug_pb2.DebugOptions(global_step=12, reset_disk_byte_usage=True)
    dbg.debug_tensor_watch_opts.add(node_name="w", output_slot=1,
                                    debug_ops=["DebugIdentity", "DebugNanCount"],
                                    debug_urls=["file:///tmp/dbg"],
                                    tolerate_debug_op_creation_failures=True)

    ro = config_pb2.RunOptions(trace_level=config_pb2.RunOptions.FULL_TRACE,
                               timeout_in_ms=1500, inter_op_thread_pool=1,
                               output_partition_graphs=True,
                               report_tensor_allocations_upon_oom=True)
    ro.debug_options.CopyFrom(dbg)
    ro.experimental.collective_graph_key = 77
    ro.experimental.use_run_handler_pool = True
    ro.experimental.run_handler_pool_options.priority = -2

    stats = step_stats_pb2.StepStats()
    ds = stats.dev_stats.add(device="/job:worker/replica:0/task:0/device:CPU:0")
    ds.node_stats.add(node_name="c", all_start_micros=100, op_end_rel_micros=3,
                      timeline_label="c = Const()")
    cost = cost_graph_pb2.CostGraphDef()
    n = cost.node.add(name="c", device="/device:CPU:0", id=1,
                      temporary_memory_size=8, persistent_memory_size=16,
                      host_temp_memory_size=1, device_temp_memory_size=2,
                      device_persistent_memory_size=3, compute_cost=4,
                      compute_time=5, memory_time=6, is_final=True,
                      control_input=[0, 2], inaccurate=True)
    n.input_info.add(preceding_node=0, preceding_port=1)
    n.output_info.add(size=24, alias_input_port=-1, shape=shape(2, 3),
                      dtype=dt.DT_FLOAT)
    cost.cost.add(cost=1.5, dimension="flops")
    md = config_pb2.RunMetadata()
    md.step_stats.CopyFrom(stats)
    md.cost_graph.CopyFrom(cost)
    md.partition_graphs.add().CopyFrom(graph)
    md.partition_graphs.add()
    fg = md.function_graphs.add()
    fg.partition_graphs.add().CopyFrom(graph)
    fg.pre_optimization_graph.CopyFrom(graph)
    fg.post_optimization_graph.node.add(name="only", op="NoOp")
    md.session_metadata.name = "model"
    md.session_metadata.version = 9

    co = config_pb2.CallableOptions(feed=["x:0"], fetch=["y:0", "z"],
                                    target=["train"], fetch_skip_sync=True)
    co.run_options.CopyFrom(ro)
    co.tensor_connection.add(from_tensor="a:0", to_tensor="x:0")
    co.feed_devices["x:0"] = "/job:worker/replica:0/task:0/device:CPU:0"
    co.fetch_devices["y:0"] = "/job:worker/replica:0/task:0/device:CPU:1"

    server = tensorflow_server_pb2.ServerDef(job_name="worker", replica=0,
                                             task_index=3, protocol="caf",
                                             port=2222)
    server.cluster.CopyFrom(cluster)
    server.default_session_config.CopyFrom(c)

    named = named_tensor_pb2.NamedTensorProto(name="x:0")
    named.tensor.CopyFrom(tensor)

    return [("tensorflow.ConfigProto", c), ("tensorflow.RunOptions", ro),
            ("tensorflow.RunMetadata", md), ("tensorflow.CallableOptions", co),
            ("tensorflow.ServerDef", server), ("tensorflow.ClusterDef", cluster),
            ("tensorflow.NamedTensorProto", named)]


def pass_through_check(our_pool, rep):
    """TF fields ours leave out (OMITTED) survive a trip through our classes.

    A ConfigProto from a TF client with GPU options, RPC options and Grappler's
    rewriter config set parses with our schema (into unknown fields), and what we
    re-serialize parses in TF into the same message: a master forwarding a config to
    its workers loses nothing.
    """
    from tensorflow.core.protobuf import config_pb2
    c = config_pb2.ConfigProto(intra_op_parallelism_threads=2)
    c.gpu_options.allow_growth = True
    c.gpu_options.visible_device_list = "0,1"
    c.rpc_options.compression_algorithm = "gzip"
    c.graph_options.enable_recv_scheduling = True
    c.graph_options.rewrite_options.memory_optimization = 1
    c.experimental.use_tfrt = True
    c.experimental.executor_type = "DEFAULT"
    cls = get_message_class(our_pool, "tensorflow.ConfigProto")
    ours = cls()
    ours.ParseFromString(c.SerializeToString())
    if not ours.graph_options.enable_recv_scheduling or \
            ours.experimental.executor_type != "DEFAULT":
        rep.error("pass-through: known fields beside unknown ones were lost")
    back = config_pb2.ConfigProto()
    back.ParseFromString(ours.SerializeToString())
    if back != c:
        rep.error("pass-through: a ConfigProto with fields ours leave out does "
                  "not come back equal through our classes")
        return None
    return "tensorflow.ConfigProto with left-out fields (%d bytes)" % c.ByteSize()


def wire_check(our_pool, rep):
    from google.protobuf import text_format
    checked = []
    for full_name, tf_msg in build_tf_samples():
        try:
            cls = get_message_class(our_pool, full_name)
        except KeyError:
            rep.error("wire: %s is not in our descriptor set" % full_name)
            continue
        tf_bytes = tf_msg.SerializeToString(deterministic=True)
        ours = cls()
        ours.ParseFromString(tf_bytes)

        # Anything our schema did not recognise is kept as unknown fields and
        # would make the round trip pass vacuously; find it.
        stripped = cls()
        stripped.CopyFrom(ours)
        stripped.DiscardUnknownFields()
        ours_bytes = ours.SerializeToString(deterministic=True)
        stripped_bytes = stripped.SerializeToString(deterministic=True)
        if stripped_bytes != ours_bytes:
            rep.error("wire: %s: parsing TF's bytes with our schema left "
                      "unknown fields (%d of %d bytes)"
                      % (full_name, len(ours_bytes) - len(stripped_bytes),
                         len(ours_bytes)))
        if stripped_bytes != tf_bytes:
            rep.error("wire: %s: our re-serialization differs from TF's "
                      "(%d vs %d bytes)"
                      % (full_name, len(stripped_bytes), len(tf_bytes)))
        ours_text = text_format.MessageToString(stripped)
        tf_text = text_format.MessageToString(tf_msg)
        if ours_text != tf_text:
            rep.error("wire: %s: text format differs after parsing with our "
                      "schema" % full_name)
            for line_no, (a, b) in enumerate(zip(ours_text.splitlines(),
                                                  tf_text.splitlines()), 1):
                if a != b:
                    print("    first difference at line %d:\n      ours: %s\n"
                          "      TF:   %s" % (line_no, a.strip(), b.strip()))
                    break
        back = type(tf_msg)()
        back.ParseFromString(stripped_bytes)
        if back != tf_msg:
            rep.error("wire: %s: TF parses our re-serialization into a "
                      "different message" % full_name)
        checked.append("%s (%d bytes)" % (full_name, len(tf_bytes)))
    return checked


# ------------------------------------------------- control protocol table
#
# pip's tensorflow ships no descriptors for master.proto and worker.proto (they are
# compiled into its C++ runtime only), so their fields are checked against this table,
# transcribed by hand from tensorflow/core/protobuf/{master,worker}.proto (TF 2.x).
# "N [repeated] TYPE name": TYPE is a scalar type or a message/enum's full name.
# Every message listed must exist in ours with exactly these fields; messages of
# those files ours does not define are listed in CONTROL_NOT_DEFINED.

TF_CONTROL_FIELDS = {
    # master.proto
    "CreateSessionRequest": ["1 .tensorflow.GraphDef graph_def",
                             "2 .tensorflow.ConfigProto config", "3 string target"],
    "CreateSessionResponse": ["1 string session_handle", "2 int64 graph_version"],
    "ExtendSessionRequest": ["1 string session_handle", "2 .tensorflow.GraphDef graph_def",
                             "3 int64 current_graph_version"],
    "ExtendSessionResponse": ["4 int64 new_graph_version"],
    "RunStepRequest": ["1 string session_handle",
                       "2 repeated .tensorflow.NamedTensorProto feed",
                       "3 repeated string fetch", "4 repeated string target",
                       "5 .tensorflow.RunOptions options", "6 string partial_run_handle",
                       "7 bool store_errors_in_response_body", "8 int64 request_id"],
    "RunStepResponse": ["1 repeated .tensorflow.NamedTensorProto tensor",
                        "2 .tensorflow.RunMetadata metadata",
                        "3 .tensorflow.error.Code status_code",
                        "4 string status_error_message"],
    "PartialRunSetupRequest": ["1 string session_handle", "2 repeated string feed",
                               "3 repeated string fetch", "4 repeated string target",
                               "5 int64 request_id"],
    "PartialRunSetupResponse": ["1 string partial_run_handle"],
    "CloseSessionRequest": ["1 string session_handle"],
    "CloseSessionResponse": [],
    "ResetRequest": ["1 repeated string container", "2 repeated string device_filters"],
    "ResetResponse": [],
    "ListDevicesRequest": ["1 string session_handle"],
    "ListDevicesResponse": ["1 repeated .tensorflow.DeviceAttributes local_device",
                            "2 repeated .tensorflow.DeviceAttributes remote_device"],
    "MakeCallableRequest": ["1 string session_handle",
                            "2 .tensorflow.CallableOptions options", "3 int64 request_id"],
    "MakeCallableResponse": ["1 int64 handle"],
    "RunCallableRequest": ["1 string session_handle", "2 int64 handle",
                           "3 repeated .tensorflow.TensorProto feed", "4 int64 request_id"],
    "RunCallableResponse": ["1 repeated .tensorflow.TensorProto fetch",
                            "2 .tensorflow.RunMetadata metadata"],
    "ReleaseCallableRequest": ["1 string session_handle", "2 int64 handle"],
    "ReleaseCallableResponse": [],
    # worker.proto
    "GetStatusRequest": [],
    "GetStatusResponse": ["1 repeated .tensorflow.DeviceAttributes device_attributes"],
    "CreateWorkerSessionRequest": [
        "1 string session_handle", "2 .tensorflow.ServerDef server_def",
        "3 bool isolate_session_state",
        "4 repeated .tensorflow.DeviceAttributes cluster_device_attributes"],
    "CreateWorkerSessionResponse": [],
    "DeleteWorkerSessionRequest": ["1 string session_handle"],
    "DeleteWorkerSessionResponse": [],
    "RegisterGraphRequest": ["1 string session_handle",
                             "6 bool create_worker_session_called",
                             "2 .tensorflow.GraphDef graph_def", "3 bool has_control_flow",
                             "4 .tensorflow.GraphOptions graph_options",
                             "5 .tensorflow.DebugOptions debug_options",
                             "7 int64 collective_graph_key",
                             "8 .tensorflow.ConfigProto config_proto"],
    "RegisterGraphResponse": ["1 string graph_handle"],
    "DeregisterGraphRequest": ["2 string session_handle",
                               "3 bool create_worker_session_called",
                               "1 string graph_handle"],
    "DeregisterGraphResponse": [],
    "CleanupAllRequest": ["1 repeated string container"],
    "CleanupAllResponse": [],
    "ExecutorOpts": ["1 bool record_costs", "3 bool record_timeline",
                     "4 bool record_partition_graphs",
                     "5 bool report_tensor_allocations_upon_oom"],
    "RunGraphRequest": ["8 string session_handle", "10 bool create_worker_session_called",
                        "1 string graph_handle", "2 int64 step_id",
                        "5 .tensorflow.ExecutorOpts exec_opts",
                        "3 repeated .tensorflow.NamedTensorProto send",
                        "4 repeated string recv_key", "6 bool is_partial",
                        "7 bool is_last_partial_run",
                        "9 bool store_errors_in_response_body", "11 int64 request_id"],
    "RunGraphResponse": ["1 repeated .tensorflow.NamedTensorProto recv",
                         "2 .tensorflow.StepStats step_stats",
                         "3 .tensorflow.CostGraphDef cost_graph",
                         "4 repeated .tensorflow.GraphDef partition_graph",
                         "5 .tensorflow.error.Code status_code",
                         "6 string status_error_message"],
    "CleanupGraphRequest": ["1 int64 step_id"],
    "CleanupGraphResponse": [],
    "RecvTensorRequest": ["1 int64 step_id", "2 string rendezvous_key", "3 bool dma_ok",
                          "4 .tensorflow.DeviceLocality client_locality",
                          "5 .tensorflow.DeviceLocality server_locality",
                          "6 .google.protobuf.Any transport_options", "7 int64 request_id"],
    "RecvTensorResponse": ["1 .tensorflow.TensorProto tensor", "2 bool is_dead",
                           "3 int64 send_start_micros",
                           "4 .google.protobuf.Any transport_options", "5 bool require_ack"],
    "MarkRecvFinishedRequest": ["1 int64 request_id"],
    "MarkRecvFinishedResponse": [],
}

# Messages of TF's master.proto / worker.proto that tensoract does not define (yet).
CONTROL_NOT_DEFINED = [
    "LoggingRequest", "LabeledStepStats", "LoggingResponse", "TraceOpts",
    "TracingRequest", "TracingResponse", "RecvBufRequest", "RecvBufResponse",
    "CompleteGroupRequest", "CompleteGroupResponse", "CompleteInstanceRequest",
    "CompleteInstanceResponse", "GetStepSequenceRequest", "StepSequence",
    "GetStepSequenceResponse",
]


def control_table_check(our_pool, tf_pool, rep):
    """Our master/worker messages against TF_CONTROL_FIELDS; returns the count."""
    checked = 0
    for name, rows in sorted(TF_CONTROL_FIELDS.items()):
        full = "tensorflow." + name
        try:
            ours = our_pool.FindMessageTypeByName(full)
        except KeyError:
            rep.error("control: %s is not in our descriptor set" % full)
            continue
        want = {}
        for row in rows:
            parts = row.split()
            number, name_ = int(parts[0]), parts[-1]
            label = "repeated" if "repeated" in parts else "optional"
            want[number] = (name_, label, parts[-2])
        got = {}
        for f in ours.fields:
            ref = ref_type_of(f)
            got[f.number] = (f.name, label_of(f),
                             ("." + ref) if ref else type_name_of(f.type))
        for number in sorted(set(want) | set(got)):
            if want.get(number) != got.get(number):
                rep.error("control: %s field %d is %s in ours, %s in TF"
                          % (full, number, got.get(number), want.get(number)))
        if ours.oneofs and any(o.name for o in ours.oneofs
                               if not o.name.startswith("_")):
            rep.error("control: %s has a oneof, TF's has none" % full)
        checked += 1
    for name in CONTROL_NOT_DEFINED:
        try:
            our_pool.FindMessageTypeByName("tensorflow." + name)
            rep.error("control: %s is defined in ours but not in the table; "
                      "add its fields to TF_CONTROL_FIELDS" % name)
        except KeyError:
            pass
    return checked


# ------------------------------------------------------------------ main


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print("usage: %s OUR_DESCRIPTOR_SET.pb\n(made by protoc --include_imports "
              "--descriptor_set_out=OUR_DESCRIPTOR_SET.pb -I REPO "
              "messages/*.proto)" % os.path.basename(argv[0]))
        return 2
    if not os.path.isfile(argv[1]):
        print("ERROR: no such descriptor set: %s" % argv[1])
        return 2
    version, tf_pool = load_tensorflow()
    fds, our_pool = load_ours(argv[1])
    rep = Report()
    counts = schema_check(fds, our_pool, tf_pool, rep)
    checked = wire_check(our_pool, rep)
    passed = pass_through_check(our_pool, rep)
    if passed:
        checked.append(passed)
    control = control_table_check(our_pool, tf_pool, rep)
    if rep.errors:
        print("FAILED: %d mismatch(es) against TensorFlow %s"
              % (len(rep.errors), version))
        return 1
    if counts["messages"] == 0 and counts["enums"] == 0:
        print("FAILED: no message or enum of ours exists in TensorFlow %s "
              "(wrong descriptor set?)" % version)
        return 1
    print("wire round trip OK: " + ", ".join(checked))
    print("%d master/worker messages match the table of TF's master.proto and "
          "worker.proto" % control)
    print("%d messages, %d enums match TensorFlow %s (%d fields, %d enum values; "
          "%d note(s))" % (counts["messages"], counts["enums"], version,
                          counts["fields"], counts["enum_values"],
                          len(rep.notes)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
