#include "graph/builder/attr_util.h"

namespace tensoract {
namespace ops {

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

tensorflow::AttrValue IntAttr(int64_t i) {
  tensorflow::AttrValue v;
  v.set_i(i);
  return v;
}

tensorflow::AttrValue FloatAttr(float f) {
  tensorflow::AttrValue v;
  v.set_f(f);
  return v;
}

tensorflow::AttrValue StringAttr(const std::string& s) {
  tensorflow::AttrValue v;
  v.set_s(s);
  return v;
}

tensorflow::AttrValue ShapeAttr(const PartialTensorShape& shape) {
  tensorflow::AttrValue v;
  shape.AsProto(v.mutable_shape());
  return v;
}

tensorflow::AttrValue IntListAttr(const std::vector<int64_t>& values) {
  tensorflow::AttrValue v;
  v.mutable_list();  // an empty list is still a list, not an unset value
  for (int64_t x : values) v.mutable_list()->add_i(x);
  return v;
}

DataType TypeOf(const Input& in) {
  return in.is_constant() ? in.constant().dtype() : BaseType(in.output().type());
}

Output TypedOp(const Scope& scope, const std::string& op, const std::vector<Input>& inputs, Attrs extra) {
  if (extra.empty()) return Output(scope.AddTypedOp(op, inputs, TypeOf(inputs[0])), 0);
  extra["T"] = TypeAttr(TypeOf(inputs[0]));
  return Output(scope.AddOp(op, op, inputs, extra), 0);
}

}  // namespace ops
}  // namespace tensoract
