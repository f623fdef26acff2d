#include "graph/builder/math_ops.h"

#include "graph/builder/attr_util.h"

namespace tensoract {
namespace ops {
namespace {

// An op whose type attr T is input `t_input`'s type.
Output TypedOpFrom(const Scope& scope, const char* op, const std::vector<Input>& inputs, size_t t_input,
                   Attrs attrs = {}) {
  attrs["T"] = TypeAttr(TypeOf(inputs[t_input]));
  return Output(scope.AddOp(op, op, inputs, attrs), 0);
}

}  // namespace

#define TA_BINARY(NAME) \
  Output NAME(const Scope& scope, const Input& x, const Input& y) { return TypedOp(scope, #NAME, {x, y}); }
#define TA_UNARY(NAME) \
  Output NAME(const Scope& scope, const Input& x) { return TypedOp(scope, #NAME, {x}); }
#define TA_GRAD(NAME) \
  Output NAME(const Scope& scope, const Input& y, const Input& dy) { return TypedOp(scope, #NAME, {y, dy}); }

TA_BINARY(Sub)
TA_BINARY(RealDiv)
TA_BINARY(Div)
TA_BINARY(Maximum)
TA_BINARY(Minimum)
TA_BINARY(SquaredDifference)
TA_BINARY(FloorDiv)
TA_BINARY(FloorMod)
TA_BINARY(Pow)
TA_BINARY(DivNoNan)
TA_BINARY(Greater)
TA_BINARY(GreaterEqual)
TA_BINARY(Less)
TA_BINARY(LessEqual)

TA_UNARY(Neg)
TA_UNARY(Square)
TA_UNARY(Sqrt)
TA_UNARY(Rsqrt)
TA_UNARY(Exp)
TA_UNARY(Log)
TA_UNARY(Tanh)
TA_UNARY(Sigmoid)
TA_UNARY(Abs)
TA_UNARY(Sign)
TA_UNARY(Reciprocal)
TA_UNARY(Log1p)
TA_UNARY(Expm1)
TA_UNARY(Floor)
TA_UNARY(Ceil)
TA_UNARY(Round)

TA_GRAD(TanhGrad)
TA_GRAD(SigmoidGrad)
TA_GRAD(SqrtGrad)
TA_GRAD(RsqrtGrad)
TA_GRAD(ReciprocalGrad)

#undef TA_BINARY
#undef TA_UNARY
#undef TA_GRAD

Output Cast(const Scope& scope, const Input& x, DataType dst_type, CastAttrs attrs) {
  return Output(scope.AddOp("Cast", "Cast", {x},
                            {{"SrcT", TypeAttr(TypeOf(x))},
                             {"DstT", TypeAttr(dst_type)},
                             {"Truncate", BoolAttr(attrs.truncate)}}),
                0);
}

Output AddN(const Scope& scope, const InputList& inputs) {
  if (inputs.size() == 0) {
    scope.UpdateStatus(errors::InvalidArgument("ops::AddN needs at least one input"));
    return Output();
  }
  tensorflow::AttrValue n;
  n.set_i(static_cast<int64_t>(inputs.size()));
  return TypedOp(scope, "AddN", inputs.inputs(), {{"N", n}});
}

Output Equal(const Scope& scope, const Input& x, const Input& y, EqualAttrs attrs) {
  return TypedOp(scope, "Equal", {x, y}, {{"incompatible_shape_error", BoolAttr(attrs.incompatible_shape_error)}});
}

Output NotEqual(const Scope& scope, const Input& x, const Input& y, EqualAttrs attrs) {
  return TypedOp(scope, "NotEqual", {x, y}, {{"incompatible_shape_error", BoolAttr(attrs.incompatible_shape_error)}});
}

Output LogicalAnd(const Scope& scope, const Input& x, const Input& y) {
  return Output(scope.AddOp("LogicalAnd", "LogicalAnd", {x, y}, {}), 0);
}
Output LogicalOr(const Scope& scope, const Input& x, const Input& y) {
  return Output(scope.AddOp("LogicalOr", "LogicalOr", {x, y}, {}), 0);
}
Output LogicalNot(const Scope& scope, const Input& x) { return Output(scope.AddOp("LogicalNot", "LogicalNot", {x}, {}), 0); }

Output Select(const Scope& scope, const Input& condition, const Input& t, const Input& e) {
  return TypedOpFrom(scope, "Select", {condition, t, e}, 1);
}
Output SelectV2(const Scope& scope, const Input& condition, const Input& t, const Input& e) {
  return TypedOpFrom(scope, "SelectV2", {condition, t, e}, 1);
}

Output BatchMatMulV2(const Scope& scope, const Input& x, const Input& y, BatchMatMulV2Attrs attrs) {
  return TypedOp(scope, "BatchMatMulV2", {x, y}, {{"adj_x", BoolAttr(attrs.adj_x)}, {"adj_y", BoolAttr(attrs.adj_y)}});
}

Output MatrixInverse(const Scope& scope, const Input& input, bool adjoint) {
  return TypedOp(scope, "MatrixInverse", {input}, {{"adjoint", BoolAttr(adjoint)}});
}

Output MatrixDeterminant(const Scope& scope, const Input& input) { return TypedOp(scope, "MatrixDeterminant", {input}); }

namespace {
Output Cumulative(const Scope& scope, const char* op, const Input& x, const Input& axis, CumulativeAttrs attrs) {
  return TypedOp(scope, op, {x, axis},
                 {{"Tidx", TypeAttr(TypeOf(axis))},
                  {"exclusive", BoolAttr(attrs.exclusive)},
                  {"reverse", BoolAttr(attrs.reverse)}});
}
}  // namespace

Output Cumsum(const Scope& scope, const Input& x, const Input& axis, CumulativeAttrs attrs) {
  return Cumulative(scope, "Cumsum", x, axis, attrs);
}
Output Cumprod(const Scope& scope, const Input& x, const Input& axis, CumulativeAttrs attrs) {
  return Cumulative(scope, "Cumprod", x, axis, attrs);
}

TopKV2Outputs TopKV2(const Scope& scope, const Input& input, const Input& k, TopKV2Attrs attrs) {
  Node* n = scope.AddOp("TopKV2", "TopKV2", {input, k},
                        {{"T", TypeAttr(TypeOf(input))},
                         {"Tk", TypeAttr(TypeOf(k))},
                         {"index_type", TypeAttr(attrs.index_type)},
                         {"sorted", BoolAttr(attrs.sorted)}});
  if (n == nullptr) return {};
  return {Output(n, 0), Output(n, 1)};
}

Output ClipByValue(const Scope& scope, const Input& t, const Input& clip_value_min, const Input& clip_value_max) {
  return TypedOp(scope, "ClipByValue", {t, clip_value_min, clip_value_max});
}

Output Erf(const Scope& scope, const Input& x) { return TypedOp(scope, "Erf", {x}); }
Output Erfc(const Scope& scope, const Input& x) { return TypedOp(scope, "Erfc", {x}); }
Output Sin(const Scope& scope, const Input& x) { return TypedOp(scope, "Sin", {x}); }
Output Cos(const Scope& scope, const Input& x) { return TypedOp(scope, "Cos", {x}); }
Output Tan(const Scope& scope, const Input& x) { return TypedOp(scope, "Tan", {x}); }
Output Asin(const Scope& scope, const Input& x) { return TypedOp(scope, "Asin", {x}); }
Output Acos(const Scope& scope, const Input& x) { return TypedOp(scope, "Acos", {x}); }
Output Atan(const Scope& scope, const Input& x) { return TypedOp(scope, "Atan", {x}); }
Output Sinh(const Scope& scope, const Input& x) { return TypedOp(scope, "Sinh", {x}); }
Output Cosh(const Scope& scope, const Input& x) { return TypedOp(scope, "Cosh", {x}); }
Output Asinh(const Scope& scope, const Input& x) { return TypedOp(scope, "Asinh", {x}); }
Output Acosh(const Scope& scope, const Input& x) { return TypedOp(scope, "Acosh", {x}); }
Output Atanh(const Scope& scope, const Input& x) { return TypedOp(scope, "Atanh", {x}); }
Output Atan2(const Scope& scope, const Input& y, const Input& x) { return TypedOp(scope, "Atan2", {y, x}); }
Output TruncateDiv(const Scope& scope, const Input& x, const Input& y) { return TypedOp(scope, "TruncateDiv", {x, y}); }

Output BitwiseAnd(const Scope& scope, const Input& x, const Input& y) { return TypedOp(scope, "BitwiseAnd", {x, y}); }
Output BitwiseOr(const Scope& scope, const Input& x, const Input& y) { return TypedOp(scope, "BitwiseOr", {x, y}); }
Output BitwiseXor(const Scope& scope, const Input& x, const Input& y) { return TypedOp(scope, "BitwiseXor", {x, y}); }
Output Invert(const Scope& scope, const Input& x) { return TypedOp(scope, "Invert", {x}); }
Output LeftShift(const Scope& scope, const Input& x, const Input& y) { return TypedOp(scope, "LeftShift", {x, y}); }
Output RightShift(const Scope& scope, const Input& x, const Input& y) { return TypedOp(scope, "RightShift", {x, y}); }
Output PopulationCount(const Scope& scope, const Input& x) { return TypedOp(scope, "PopulationCount", {x}); }

}  // namespace ops
}  // namespace tensoract
