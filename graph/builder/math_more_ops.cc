#include "graph/builder/math_more_ops.h"

#include "graph/builder/attr_util.h"

namespace tensoract {
namespace ops {
namespace {

bool IsComplexType(DataType t) { return t == tensorflow::DT_COMPLEX64 || t == tensorflow::DT_COMPLEX128; }

// Real's and Imag's Tout: the part type of complex `t`.
DataType PartTypeOf(DataType t) {
  return t == tensorflow::DT_COMPLEX128 ? tensorflow::DT_DOUBLE : tensorflow::DT_FLOAT;
}

Output ComplexPart(const Scope& s, const char* op, const Input& input) {
  const DataType t = TypeOf(input);
  return Output(s.AddOp(op, op, {input}, {{"T", TypeAttr(t)}, {"Tout", TypeAttr(PartTypeOf(t))}}), 0);
}

}  // namespace

Output Complex(const Scope& s, const Input& real, const Input& imag) {
  const DataType t = TypeOf(real);
  const DataType out = t == tensorflow::DT_DOUBLE ? tensorflow::DT_COMPLEX128 : tensorflow::DT_COMPLEX64;
  return Output(s.AddOp("Complex", "Complex", {real, imag}, {{"T", TypeAttr(t)}, {"Tout", TypeAttr(out)}}), 0);
}

Output Real(const Scope& s, const Input& input) { return ComplexPart(s, "Real", input); }
Output Imag(const Scope& s, const Input& input) { return ComplexPart(s, "Imag", input); }
Output Conj(const Scope& s, const Input& input) { return TypedOp(s, "Conj", {input}); }

Output ConjIfComplex(const Scope& s, const Output& x) { return IsComplexType(x.type()) ? Conj(s, x) : x; }

Output Mod(const Scope& s, const Input& x, const Input& y) { return TypedOp(s, "Mod", {x, y}); }
Output TruncateMod(const Scope& s, const Input& x, const Input& y) { return TypedOp(s, "TruncateMod", {x, y}); }

Output ApproximateEqual(const Scope& s, const Input& x, const Input& y, float tolerance) {
  return TypedOp(s, "ApproximateEqual", {x, y}, {{"tolerance", FloatAttr(tolerance)}});
}

Output CheckNumerics(const Scope& s, const Input& tensor, const std::string& message) {
  return TypedOp(s, "CheckNumerics", {tensor}, {{"message", StringAttr(message)}});
}
Output CheckNumericsV2(const Scope& s, const Input& tensor, const std::string& message) {
  return TypedOp(s, "CheckNumericsV2", {tensor}, {{"message", StringAttr(message)}});
}

Output EuclideanNorm(const Scope& s, const Input& input, const Input& axis, ReductionAttrs attrs) {
  return Output(s.AddOp("EuclideanNorm", "EuclideanNorm", {input, axis},
                        {{"T", TypeAttr(TypeOf(input))},
                         {"Tidx", TypeAttr(TypeOf(axis))},
                         {"keep_dims", BoolAttr(attrs.keep_dims)}}),
                0);
}

}  // namespace ops
}  // namespace tensoract
