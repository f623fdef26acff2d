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

}  // namespace ops
}  // namespace tensoract
