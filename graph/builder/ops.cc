#include "graph/builder/ops.h"

namespace tensoract {
namespace ops {
namespace {

using Attrs = std::map<std::string, tensorflow::AttrValue>;

tensorflow::AttrValue TypeAttr(DataType t) {
  tensorflow::AttrValue v;
  v.set_type(t);
  return v;
}

tensorflow::AttrValue BoolAttr(bool b) {
  tensorflow::AttrValue v;
  v.set_b(b);
  return v;
}

// The element type of an input, before it exists as a node.
DataType TypeOf(const Input& in) {
  return in.is_constant() ? in.constant().dtype() : BaseType(in.output().type());
}

// An op whose inputs all have the type attr T.
Output TypedOp(const Scope& scope, const char* op, std::vector<Input> inputs) {
  Attrs attrs{{"T", TypeAttr(TypeOf(inputs[0]))}};
  return Output(scope.AddOp(op, op, inputs, attrs), 0);
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
  tensorflow::AttrValue s;
  shape.AsProto(s.mutable_shape());
  return Output(scope.AddOp("Placeholder", "Placeholder", {}, {{"dtype", TypeAttr(dtype)}, {"shape", s}}), 0);
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

}  // namespace ops
}  // namespace tensoract
