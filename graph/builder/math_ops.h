// Builder functions for the element-wise math ops (graph/ops/math_ops.cc): each adds one
// node to the scope's graph and returns its output, with T taken from the inputs, as in
// TensorFlow's C++ API (see graph/builder/ops.h for the conventions).
#ifndef TENSORACT_GRAPH_BUILDER_MATH_OPS_H_
#define TENSORACT_GRAPH_BUILDER_MATH_OPS_H_

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

// Binary, with NumPy broadcasting.
Output Sub(const Scope& scope, const Input& x, const Input& y);
Output RealDiv(const Scope& scope, const Input& x, const Input& y);
Output Div(const Scope& scope, const Input& x, const Input& y);
Output Maximum(const Scope& scope, const Input& x, const Input& y);
Output Minimum(const Scope& scope, const Input& x, const Input& y);
Output SquaredDifference(const Scope& scope, const Input& x, const Input& y);
Output FloorDiv(const Scope& scope, const Input& x, const Input& y);
Output FloorMod(const Scope& scope, const Input& x, const Input& y);
Output Pow(const Scope& scope, const Input& x, const Input& y);
Output DivNoNan(const Scope& scope, const Input& x, const Input& y);

// Unary.
Output Neg(const Scope& scope, const Input& x);
Output Square(const Scope& scope, const Input& x);
Output Sqrt(const Scope& scope, const Input& x);
Output Rsqrt(const Scope& scope, const Input& x);
Output Exp(const Scope& scope, const Input& x);
Output Log(const Scope& scope, const Input& x);
Output Tanh(const Scope& scope, const Input& x);
Output Sigmoid(const Scope& scope, const Input& x);
Output Abs(const Scope& scope, const Input& x);
Output Sign(const Scope& scope, const Input& x);
Output Reciprocal(const Scope& scope, const Input& x);
Output Log1p(const Scope& scope, const Input& x);
Output Expm1(const Scope& scope, const Input& x);  // exp(x) - 1, accurate near 0
Output Floor(const Scope& scope, const Input& x);
Output Ceil(const Scope& scope, const Input& x);
Output Round(const Scope& scope, const Input& x);

// Gradients of unary ops from their output y and the incoming gradient dy.
Output TanhGrad(const Scope& scope, const Input& y, const Input& dy);
Output SigmoidGrad(const Scope& scope, const Input& y, const Input& dy);
Output SqrtGrad(const Scope& scope, const Input& y, const Input& dy);
Output RsqrtGrad(const Scope& scope, const Input& y, const Input& dy);
Output ReciprocalGrad(const Scope& scope, const Input& y, const Input& dy);

struct CastAttrs {
  bool truncate = false;
};
Output Cast(const Scope& scope, const Input& x, DataType dst_type, CastAttrs attrs = {});
// The sum of the inputs, which have one shape and type.
Output AddN(const Scope& scope, const InputList& inputs);

// Comparisons (bool outputs), with broadcasting.
Output Greater(const Scope& scope, const Input& x, const Input& y);
Output GreaterEqual(const Scope& scope, const Input& x, const Input& y);
Output Less(const Scope& scope, const Input& x, const Input& y);
Output LessEqual(const Scope& scope, const Input& x, const Input& y);
struct EqualAttrs {
  bool incompatible_shape_error = true;  // false: shapes that do not broadcast give a scalar
};
Output Equal(const Scope& scope, const Input& x, const Input& y, EqualAttrs attrs = {});
Output NotEqual(const Scope& scope, const Input& x, const Input& y, EqualAttrs attrs = {});
Output LogicalAnd(const Scope& scope, const Input& x, const Input& y);
Output LogicalOr(const Scope& scope, const Input& x, const Input& y);
Output LogicalNot(const Scope& scope, const Input& x);
// t where condition, else e: Select (condition a scalar, a vector over t's rows, or of t's
// shape) and SelectV2 (the three broadcast).
Output Select(const Scope& scope, const Input& condition, const Input& t, const Input& e);
Output SelectV2(const Scope& scope, const Input& condition, const Input& t, const Input& e);

// Batched matrices: [..., m, k] x [..., k, n] with the batch dimensions broadcast; adj_x
// and adj_y take a side's adjoint (its transpose, for real types).
struct BatchMatMulV2Attrs {
  bool adj_x = false;
  bool adj_y = false;
};
Output BatchMatMulV2(const Scope& scope, const Input& x, const Input& y, BatchMatMulV2Attrs attrs = {});
Output MatrixInverse(const Scope& scope, const Input& input, bool adjoint = false);
Output MatrixDeterminant(const Scope& scope, const Input& input);

// Running sums and products along `axis` (a scalar): exclusive leaves each element out of
// its own, reverse runs from the end.
struct CumulativeAttrs {
  bool exclusive = false;
  bool reverse = false;
};
Output Cumsum(const Scope& scope, const Input& x, const Input& axis, CumulativeAttrs attrs = {});
Output Cumprod(const Scope& scope, const Input& x, const Input& axis, CumulativeAttrs attrs = {});
// The k largest entries of each row (last dimension), largest first, and their positions.
struct TopKV2Attrs {
  bool sorted = true;
  DataType index_type = tensorflow::DT_INT32;
};
struct TopKV2Outputs {
  Output values, indices;
};
TopKV2Outputs TopKV2(const Scope& scope, const Input& input, const Input& k, TopKV2Attrs attrs = {});
// t clipped to [clip_value_min, clip_value_max] (scalars or of t's shape).
Output ClipByValue(const Scope& scope, const Input& t, const Input& clip_value_min, const Input& clip_value_max);

// The error function and its complement (1 - erf(x), without the cancellation), sine and cosine; atan2(y, x) (y first, broadcasting); x / y rounded
// toward zero (broadcasting).
Output Erf(const Scope& scope, const Input& x);
Output Erfc(const Scope& scope, const Input& x);
Output Sin(const Scope& scope, const Input& x);
Output Cos(const Scope& scope, const Input& x);
Output Atan2(const Scope& scope, const Input& y, const Input& x);
Output TruncateDiv(const Scope& scope, const Input& x, const Input& y);

// Bitwise ops on integers (the binary ones broadcast): x & y, x | y, x ^ y, ~x; x shifted
// left or right by y bits, y clamped to [0, bits - 1] (a signed right shift copies the
// sign bit); the number of set bits of each element, as uint8.
Output BitwiseAnd(const Scope& scope, const Input& x, const Input& y);
Output BitwiseOr(const Scope& scope, const Input& x, const Input& y);
Output BitwiseXor(const Scope& scope, const Input& x, const Input& y);
Output Invert(const Scope& scope, const Input& x);
Output LeftShift(const Scope& scope, const Input& x, const Input& y);
Output RightShift(const Scope& scope, const Input& x, const Input& y);
Output PopulationCount(const Scope& scope, const Input& x);

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_MATH_OPS_H_
