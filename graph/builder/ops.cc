#include "graph/builder/ops.h"

#include "graph/builder/attr_util.h"

namespace tensoract {
namespace ops {
namespace {

Output VariableOp(const Scope& scope, const char* op, const char* name, const PartialTensorShape& shape,
                  DataType dtype, const VariableAttrs& attrs) {
  return Output(scope.AddOp(op, name, {},
                            {{"shape", ShapeAttr(shape)},
                             {"dtype", TypeAttr(dtype)},
                             {"container", StringAttr(attrs.container)},
                             {"shared_name", StringAttr(attrs.shared_name)}}),
                0);
}

// AssignAdd and AssignSub: T from the value, as the ref's base type must equal it.
Output AssignUpdate(const Scope& scope, const char* op, const Input& ref, const Input& value,
                    const AssignUpdateAttrs& attrs) {
  return Output(scope.AddOp(op, op, {ref, value},
                            {{"T", TypeAttr(TypeOf(value))}, {"use_locking", BoolAttr(attrs.use_locking)}}),
                0);
}

// The resource-variable updates: dtype from the value.
Node* ResourceUpdate(const Scope& scope, const char* op, const Input& resource, const Input& value, Attrs attrs = {}) {
  attrs["dtype"] = TypeAttr(TypeOf(value));
  return scope.AddOp(op, op, {resource, value}, attrs);
}

}  // namespace

Output Const(const Scope& scope, const Input& value) {
  if (!value.is_constant()) {
    scope.UpdateStatus(errors::InvalidArgument("ops::Const needs a constant value, not the output '",
                                               value.output().name(), "'"));
    return Output();
  }
  if (value.constant().dtype() == tensorflow::DT_INVALID) {
    scope.UpdateStatus(errors::InvalidArgument("an inline constant has rows of different lengths"));
    return Output();
  }
  tensorflow::AttrValue v;
  *v.mutable_tensor() = value.constant();
  return Output(scope.AddOp("Const", "Const", {}, {{"value", v}, {"dtype", TypeAttr(value.constant().dtype())}}), 0);
}

Output Placeholder(const Scope& scope, DataType dtype, const PartialTensorShape& shape) {
  return Output(scope.AddOp("Placeholder", "Placeholder", {}, {{"dtype", TypeAttr(dtype)}, {"shape", ShapeAttr(shape)}}),
                0);
}

Output Identity(const Scope& scope, const Input& input) { return TypedOp(scope, "Identity", {input}); }
Output Add(const Scope& scope, const Input& x, const Input& y) { return TypedOp(scope, "Add", {x, y}); }
Output AddV2(const Scope& scope, const Input& x, const Input& y) { return TypedOp(scope, "AddV2", {x, y}); }
Output Mul(const Scope& scope, const Input& x, const Input& y) { return TypedOp(scope, "Mul", {x, y}); }

Output MatMul(const Scope& scope, const Input& a, const Input& b, MatMulAttrs attrs) {
  Attrs a_attrs{{"T", TypeAttr(TypeOf(a))},
                {"transpose_a", BoolAttr(attrs.transpose_a)},
                {"transpose_b", BoolAttr(attrs.transpose_b)}};
  return Output(scope.AddOp("MatMul", "MatMul", {a, b}, a_attrs), 0);
}

Node* NoOp(const Scope& scope) { return scope.AddOp("NoOp", "NoOp", {}, {}); }

Output Arg(const Scope& scope, DataType type, int64_t index) {
  return Output(scope.AddOp("_Arg", "_Arg", {}, {{"T", TypeAttr(type)}, {"index", IntAttr(index)}}), 0);
}

Node* Retval(const Scope& scope, const Input& input, int64_t index) {
  return scope.AddOp("_Retval", "_Retval", {input}, {{"T", TypeAttr(TypeOf(input))}, {"index", IntAttr(index)}});
}

Output Variable(const Scope& scope, const PartialTensorShape& shape, DataType dtype, VariableAttrs attrs) {
  return VariableOp(scope, "VariableV2", "Variable", shape, dtype, attrs);
}

Output VariableV2(const Scope& scope, const PartialTensorShape& shape, DataType dtype, VariableAttrs attrs) {
  return VariableOp(scope, "VariableV2", "VariableV2", shape, dtype, attrs);
}

Output VariableV1(const Scope& scope, const PartialTensorShape& shape, DataType dtype, VariableAttrs attrs) {
  return VariableOp(scope, "Variable", "Variable", shape, dtype, attrs);
}

Output Assign(const Scope& scope, const Input& ref, const Input& value, AssignAttrs attrs) {
  return Output(scope.AddOp("Assign", "Assign", {ref, value},
                            {{"T", TypeAttr(TypeOf(value))},
                             {"validate_shape", BoolAttr(attrs.validate_shape)},
                             {"use_locking", BoolAttr(attrs.use_locking)}}),
                0);
}

Output AssignAdd(const Scope& scope, const Input& ref, const Input& value, AssignUpdateAttrs attrs) {
  return AssignUpdate(scope, "AssignAdd", ref, value, attrs);
}

Output AssignSub(const Scope& scope, const Input& ref, const Input& value, AssignUpdateAttrs attrs) {
  return AssignUpdate(scope, "AssignSub", ref, value, attrs);
}

Output IsVariableInitialized(const Scope& scope, const Input& ref) {
  return Output(scope.AddOp("IsVariableInitialized", "IsVariableInitialized", {ref}, {{"dtype", TypeAttr(TypeOf(ref))}}),
                0);
}

Output VarHandleOp(const Scope& scope, DataType dtype, const PartialTensorShape& shape, VarHandleOpAttrs attrs) {
  tensorflow::AttrValue devices;
  devices.mutable_list();  // an empty list is still a list
  for (const std::string& d : attrs.allowed_devices) devices.mutable_list()->add_s(d);
  Node* node = scope.AddOp("VarHandleOp", "VarHandleOp", {},
                           {{"container", StringAttr(attrs.container)},
                            {"shared_name", StringAttr(attrs.shared_name)},
                            {"debug_name", StringAttr(attrs.debug_name)},
                            {"dtype", TypeAttr(dtype)},
                            {"shape", ShapeAttr(shape)},
                            {"allowed_devices", devices}});
  // A graph variable is shared under its node's name, as TensorFlow's Python writes it:
  // TensorFlow's kernel takes an empty shared_name literally, so every unnamed VarHandleOp
  // of a graph would be one variable there (ours falls back to the node name either way).
  if (node != nullptr && !scope.is_eager() && attrs.shared_name.empty()) {
    (*node->mutable_def()->mutable_attr())["shared_name"] = StringAttr(node->name());
  }
  return Output(node, 0);
}

Output ReadVariableOp(const Scope& scope, const Input& resource, DataType dtype) {
  return Output(scope.AddOp("ReadVariableOp", "ReadVariableOp", {resource}, {{"dtype", TypeAttr(dtype)}}), 0);
}

Node* AssignVariableOp(const Scope& scope, const Input& resource, const Input& value, AssignVariableOpAttrs attrs) {
  return ResourceUpdate(scope, "AssignVariableOp", resource, value, {{"validate_shape", BoolAttr(attrs.validate_shape)}});
}

Node* AssignAddVariableOp(const Scope& scope, const Input& resource, const Input& value) {
  return ResourceUpdate(scope, "AssignAddVariableOp", resource, value);
}

Node* AssignSubVariableOp(const Scope& scope, const Input& resource, const Input& value) {
  return ResourceUpdate(scope, "AssignSubVariableOp", resource, value);
}

Output VarIsInitializedOp(const Scope& scope, const Input& resource) {
  return Output(scope.AddOp("VarIsInitializedOp", "VarIsInitializedOp", {resource}, {}), 0);
}

Node* DestroyResourceOp(const Scope& scope, const Input& resource, DestroyResourceOpAttrs attrs) {
  return scope.AddOp("DestroyResourceOp", "DestroyResourceOp", {resource},
                     {{"ignore_lookup_error", BoolAttr(attrs.ignore_lookup_error)}});
}

}  // namespace ops
}  // namespace tensoract
