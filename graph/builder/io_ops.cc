#include "graph/builder/io_ops.h"

#include "graph/builder/attr_util.h"

namespace tensoract {
namespace ops {

Input StringVector(const std::vector<std::string>& values) {
  tensorflow::TensorProto proto;
  proto.set_dtype(tensorflow::DT_STRING);
  proto.mutable_tensor_shape()->add_dim()->set_size(static_cast<int64_t>(values.size()));
  for (const std::string& v : values) proto.add_string_val(v);
  return Input(proto);
}

Node* SaveV2(const Scope& scope, const Input& prefix, const Input& tensor_names, const Input& shape_and_slices,
             const InputList& tensors) {
  tensorflow::AttrValue dtypes;
  dtypes.mutable_list();
  for (const Input& t : tensors) dtypes.mutable_list()->add_type(TypeOf(t));
  std::vector<Input> inputs{prefix, tensor_names, shape_and_slices};
  inputs.insert(inputs.end(), tensors.begin(), tensors.end());
  return scope.AddOp("SaveV2", "SaveV2", inputs, {{"dtypes", dtypes}});
}

OutputList RestoreV2(const Scope& scope, const Input& prefix, const Input& tensor_names,
                     const Input& shape_and_slices, const DataTypeVector& dtypes) {
  tensorflow::AttrValue types;
  types.mutable_list();
  for (DataType t : dtypes) types.mutable_list()->add_type(t);
  return AllOutputs(scope.AddOp("RestoreV2", "RestoreV2", {prefix, tensor_names, shape_and_slices}, {{"dtypes", types}}));
}

Node* MergeV2Checkpoints(const Scope& scope, const Input& checkpoint_prefixes, const Input& destination_prefix,
                         MergeV2CheckpointsAttrs attrs) {
  return scope.AddOp("MergeV2Checkpoints", "MergeV2Checkpoints", {checkpoint_prefixes, destination_prefix},
                     {{"delete_old_dirs", BoolAttr(attrs.delete_old_dirs)},
                      {"allow_missing_files", BoolAttr(attrs.allow_missing_files)}});
}

Output FixedLengthRecordReader(const Scope& scope, const FixedLengthRecordReaderAttrs& attrs) {
  Node* node = scope.AddOp("FixedLengthRecordReaderV2", "FixedLengthRecordReader", {},
                           {{"header_bytes", IntAttr(attrs.header_bytes)},
                            {"record_bytes", IntAttr(attrs.record_bytes)},
                            {"footer_bytes", IntAttr(attrs.footer_bytes)},
                            {"hop_bytes", IntAttr(attrs.hop_bytes)},
                            {"encoding", StringAttr(attrs.encoding)},
                            {"container", StringAttr(attrs.container)},
                            {"shared_name", StringAttr(attrs.shared_name)}});
  return node ? Output(node, 0) : Output();
}

Output TFRecordReader(const Scope& scope, const std::string& compression_type) {
  Node* node = scope.AddOp("TFRecordReaderV2", "TFRecordReader", {}, {{"compression_type", StringAttr(compression_type)}});
  return node ? Output(node, 0) : Output();
}

Output WholeFileReader(const Scope& scope) {
  Node* node = scope.AddOp("WholeFileReaderV2", "WholeFileReader", {}, {});
  return node ? Output(node, 0) : Output();
}

Output TextLineReader(const Scope& scope, int64_t skip_header_lines) {
  Node* node = scope.AddOp("TextLineReaderV2", "TextLineReader", {}, {{"skip_header_lines", IntAttr(skip_header_lines)}});
  return node ? Output(node, 0) : Output();
}

ReaderOutputs ReaderRead(const Scope& scope, const Input& reader, const Input& queue) {
  Node* node = scope.AddOp("ReaderReadV2", "ReaderRead", {reader, queue}, {});
  return node ? ReaderOutputs{Output(node, 0), Output(node, 1)} : ReaderOutputs{};
}

ReaderOutputs ReaderReadUpTo(const Scope& scope, const Input& reader, const Input& queue, const Input& num_records) {
  Node* node = scope.AddOp("ReaderReadUpToV2", "ReaderReadUpTo", {reader, queue, num_records}, {});
  return node ? ReaderOutputs{Output(node, 0), Output(node, 1)} : ReaderOutputs{};
}

Output DecodeRaw(const Scope& scope, const Input& bytes, DataType out_type, bool little_endian) {
  Node* node = scope.AddOp("DecodeRaw", "DecodeRaw", {bytes},
                           {{"out_type", TypeAttr(out_type)}, {"little_endian", BoolAttr(little_endian)}});
  return node ? Output(node, 0) : Output();
}

OutputList ParseExample(const Scope& scope, const Input& serialized, const std::vector<DenseFeature>& features) {
  std::vector<std::string> keys;
  tensorflow::AttrValue types, shapes, empty_types;
  types.mutable_list();
  shapes.mutable_list();
  empty_types.mutable_list();
  for (const DenseFeature& f : features) {
    keys.push_back(f.key);
    types.mutable_list()->add_type(f.dtype);
    f.shape.AsProto(shapes.mutable_list()->add_shape());
  }
  // serialized, names, sparse_keys, dense_keys, ragged_keys, then the defaults.
  std::vector<Input> inputs{serialized, StringVector({}), StringVector({}), StringVector(keys), StringVector({})};
  for (const DenseFeature& f : features) {
    if (f.default_value.has_value()) {
      inputs.push_back(*f.default_value);
      continue;
    }
    tensorflow::TensorProto none;  // an empty default: the feature is required
    none.set_dtype(f.dtype);
    none.mutable_tensor_shape()->add_dim()->set_size(0);
    inputs.push_back(Input(none));
  }
  Node* node = scope.AddOp("ParseExampleV2", "ParseExample", inputs,
                           {{"Tdense", types},
                            {"num_sparse", IntAttr(0)},
                            {"sparse_types", empty_types},
                            {"ragged_value_types", empty_types},
                            {"ragged_split_types", empty_types},
                            {"dense_shapes", shapes}});
  if (node == nullptr) return {};
  return AllOutputs(node);
}

}  // namespace ops
}  // namespace tensoract
