/// @file
/// Builder functions for the element-wise math ops (graph/ops/math_ops.cc): each adds one
/// node to the scope's graph and returns its output, with T taken from the inputs, as in
/// TensorFlow's C++ API (see graph/builder/ops.h for the conventions).
#ifndef TENSORACT_GRAPH_BUILDER_MATH_OPS_H_
#define TENSORACT_GRAPH_BUILDER_MATH_OPS_H_

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

// Binary, with NumPy broadcasting.
/// Element-wise x - y, with NumPy broadcasting.
Output Sub(const Scope& scope, const Input& x, const Input& y);
/// Element-wise x / y for floating-point and complex types, with NumPy broadcasting.
Output RealDiv(const Scope& scope, const Input& x, const Input& y);
/// Element-wise x / y, with NumPy broadcasting; integers divide truncating toward zero (as TruncateDiv).
Output Div(const Scope& scope, const Input& x, const Input& y);
/// Element-wise max(x, y), with NumPy broadcasting.
Output Maximum(const Scope& scope, const Input& x, const Input& y);
/// Element-wise min(x, y), with NumPy broadcasting.
Output Minimum(const Scope& scope, const Input& x, const Input& y);
/// Element-wise (x - y) * (x - y), with NumPy broadcasting.
Output SquaredDifference(const Scope& scope, const Input& x, const Input& y);
/// Element-wise floor(x / y), with NumPy broadcasting: division rounded toward negative infinity.
Output FloorDiv(const Scope& scope, const Input& x, const Input& y);
/// Element-wise x - floor(x / y) * y, with NumPy broadcasting: the remainder has y's sign, as Python's `%`.
Output FloorMod(const Scope& scope, const Input& x, const Input& y);
/// Element-wise x to the power y, with NumPy broadcasting.
Output Pow(const Scope& scope, const Input& x, const Input& y);
/// Element-wise x / y, or 0 where y is 0 (even where x is 0, inf or NaN), with NumPy broadcasting.
Output DivNoNan(const Scope& scope, const Input& x, const Input& y);

// Unary.
/// Element-wise -x.
Output Neg(const Scope& scope, const Input& x);
/// Element-wise x * x.
Output Square(const Scope& scope, const Input& x);
/// Element-wise square root of x.
Output Sqrt(const Scope& scope, const Input& x);
/// Element-wise 1 / sqrt(x).
Output Rsqrt(const Scope& scope, const Input& x);
/// Element-wise e to the power x.
Output Exp(const Scope& scope, const Input& x);
/// Element-wise natural logarithm of x.
Output Log(const Scope& scope, const Input& x);
/// Element-wise hyperbolic tangent of x.
Output Tanh(const Scope& scope, const Input& x);
/// Element-wise logistic function 1 / (1 + exp(-x)).
Output Sigmoid(const Scope& scope, const Input& x);
/// Element-wise absolute value of x (signed integer and floating-point types).
Output Abs(const Scope& scope, const Input& x);
/// Element-wise -1, 0 or 1 by the sign of x.
Output Sign(const Scope& scope, const Input& x);
/// Element-wise 1 / x.
Output Reciprocal(const Scope& scope, const Input& x);
/// Element-wise log(1 + x), accurate near 0.
Output Log1p(const Scope& scope, const Input& x);
Output Expm1(const Scope& scope, const Input& x);  ///< Element-wise exp(x) - 1, accurate near 0.
/// Element-wise largest integer not greater than x (floating-point types).
Output Floor(const Scope& scope, const Input& x);
/// Element-wise smallest integer not less than x (floating-point types).
Output Ceil(const Scope& scope, const Input& x);
/// Element-wise x rounded to the nearest integer, halves to even (banker's rounding).
Output Round(const Scope& scope, const Input& x);

// Gradients of unary ops from their output y and the incoming gradient dy.
/// Tanh's gradient from its output y = tanh(x) and the incoming gradient dy: dy * (1 - y * y).
Output TanhGrad(const Scope& scope, const Input& y, const Input& dy);
/// Sigmoid's gradient from its output y = sigmoid(x) and the incoming gradient dy: dy * y * (1 - y).
Output SigmoidGrad(const Scope& scope, const Input& y, const Input& dy);
/// Sqrt's gradient from its output y = sqrt(x) and the incoming gradient dy: dy * 0.5 / y.
Output SqrtGrad(const Scope& scope, const Input& y, const Input& dy);
/// Rsqrt's gradient from its output y = rsqrt(x) and the incoming gradient dy: dy * -0.5 * y * y * y.
Output RsqrtGrad(const Scope& scope, const Input& y, const Input& dy);
/// Reciprocal's gradient from its output y = 1 / x and the incoming gradient dy: -dy * y * y.
Output ReciprocalGrad(const Scope& scope, const Input& y, const Input& dy);

/// Optional attributes of Cast.
struct CastAttrs {
  /// The op's Truncate attr (default false: round to nearest even). When true, a narrowing conversion between
  /// floating-point types (float to half or bfloat16, double to float or half) drops the mantissa bits the
  /// destination lacks instead of rounding.
  bool truncate = false;
};
/// x converted element-wise to `dst_type` (the op's SrcT is x's type): floating point to integer truncates
/// toward zero, anything to bool is x != 0, complex to real keeps the real part.
Output Cast(const Scope& scope, const Input& x, DataType dst_type, CastAttrs attrs = {});
/// The sum of the inputs, which have one shape and type. An empty list is an error recorded in the scope.
Output AddN(const Scope& scope, const InputList& inputs);

// Comparisons (bool outputs), with broadcasting.
/// Element-wise x > y as bool, with NumPy broadcasting.
Output Greater(const Scope& scope, const Input& x, const Input& y);
/// Element-wise x >= y as bool, with NumPy broadcasting.
Output GreaterEqual(const Scope& scope, const Input& x, const Input& y);
/// Element-wise x < y as bool, with NumPy broadcasting.
Output Less(const Scope& scope, const Input& x, const Input& y);
/// Element-wise x <= y as bool, with NumPy broadcasting.
Output LessEqual(const Scope& scope, const Input& x, const Input& y);
/// Optional attributes of Equal and NotEqual.
struct EqualAttrs {
  bool incompatible_shape_error = true;  ///< false: shapes that do not broadcast give a scalar
};
/// Element-wise x == y as bool, with NumPy broadcasting; x and y may be of any one type.
Output Equal(const Scope& scope, const Input& x, const Input& y, EqualAttrs attrs = {});
/// Element-wise x != y as bool, with NumPy broadcasting; x and y may be of any one type.
Output NotEqual(const Scope& scope, const Input& x, const Input& y, EqualAttrs attrs = {});
/// Element-wise logical AND of two bool tensors, with NumPy broadcasting.
Output LogicalAnd(const Scope& scope, const Input& x, const Input& y);
/// Element-wise logical OR of two bool tensors, with NumPy broadcasting.
Output LogicalOr(const Scope& scope, const Input& x, const Input& y);
/// Element-wise logical NOT of a bool tensor.
Output LogicalNot(const Scope& scope, const Input& x);
// t where condition, else e.
/// t where the bool `condition` is true, else e; t and e have one shape, and condition is a scalar,
/// a vector over t's rows (its first dimension), or of t's shape.
Output Select(const Scope& scope, const Input& condition, const Input& t, const Input& e);
/// t where the bool `condition` is true, else e, the three broadcast together (NumPy's `where`).
Output SelectV2(const Scope& scope, const Input& condition, const Input& t, const Input& e);

// Batched matrices.
/// Optional attributes of BatchMatMulV2 (and of BatchMatMul and BatchMatMulV3, batch_matmul_ops.h).
struct BatchMatMulV2Attrs {
  /// Multiply by the adjoint of x's matrices (their conjugate transpose; the transpose, for real types).
  /// Default false.
  bool adj_x = false;
  /// Multiply by the adjoint of y's matrices (their conjugate transpose; the transpose, for real types).
  /// Default false.
  bool adj_y = false;
};
/// The matrix products of x's and y's last two dimensions, [..., m, k] x [..., k, n] giving
/// [..., m, n], with the batch dimensions broadcast.
Output BatchMatMulV2(const Scope& scope, const Input& x, const Input& y, BatchMatMulV2Attrs attrs = {});
/// The inverse of each square matrix in the last two dimensions of `input` [..., n, n] (of its adjoint when
/// `adjoint`); a singular matrix is an error when the op runs.
Output MatrixInverse(const Scope& scope, const Input& input, bool adjoint = false);
/// The determinant of each square matrix in the last two dimensions of `input` [..., n, n]: shape [...].
Output MatrixDeterminant(const Scope& scope, const Input& input);

// Running sums and products along an axis, and the k largest entries of each row.
/// Optional attributes of Cumsum and Cumprod.
struct CumulativeAttrs {
  /// Leave each element out of its own running sum or product, so the first is 0 (Cumsum) or 1 (Cumprod).
  /// Default false.
  bool exclusive = false;
  /// Run from the end of the axis toward its start. Default false.
  bool reverse = false;
};
/// The running sums of x along `axis` (an int32 or int64 scalar; negative counts from the end): exclusive
/// leaves each element out of its own, reverse runs from the end.
Output Cumsum(const Scope& scope, const Input& x, const Input& axis, CumulativeAttrs attrs = {});
/// The running products of x along `axis` (an int32 or int64 scalar; negative counts from the end): exclusive
/// leaves each element out of its own, reverse runs from the end.
Output Cumprod(const Scope& scope, const Input& x, const Input& axis, CumulativeAttrs attrs = {});
/// Optional attributes of TopKV2.
struct TopKV2Attrs {
  /// Return the k entries in descending order (default true); false leaves their order unspecified.
  bool sorted = true;
  /// The type of the indices output: int16, int32 (the default) or int64.
  DataType index_type = tensorflow::DT_INT32;
};
/// The two outputs of TopKV2.
struct TopKV2Outputs {
  /// @var values
  /// The k largest entries of each row: the input's shape with its last dimension replaced by k.
  /// @var indices
  /// Where each of those entries sits in its row (a last-dimension index), of TopKV2Attrs::index_type.
  Output values, indices;
};
/// The k largest entries of each row (last dimension), largest first, and their positions.
/// `k` is a scalar (int16, int32 or int64) no larger than the last dimension; equal entries come in
/// order of position.
TopKV2Outputs TopKV2(const Scope& scope, const Input& input, const Input& k, TopKV2Attrs attrs = {});
/// t clipped to [clip_value_min, clip_value_max] (scalars or of t's shape).
Output ClipByValue(const Scope& scope, const Input& t, const Input& clip_value_min, const Input& clip_value_max);

// Special functions, sine and cosine, the two-argument arctangent and truncating division.
/// Element-wise Gauss error function erf(x) (floating-point types).
Output Erf(const Scope& scope, const Input& x);
/// Element-wise complementary error function 1 - erf(x), computed without the cancellation where erf(x)
/// is near 1.
Output Erfc(const Scope& scope, const Input& x);
/// Element-wise sine of x (radians).
Output Sin(const Scope& scope, const Input& x);
/// Element-wise cosine of x (radians).
Output Cos(const Scope& scope, const Input& x);
/// Element-wise tangent of x (radians).
Output Tan(const Scope& scope, const Input& x);
/// Element-wise arcsine of x, in [-pi/2, pi/2] (NaN outside [-1, 1] for real x).
Output Asin(const Scope& scope, const Input& x);
/// Element-wise arccosine of x, in [0, pi] (NaN outside [-1, 1] for real x).
Output Acos(const Scope& scope, const Input& x);
/// Element-wise arctangent of x, in (-pi/2, pi/2).
Output Atan(const Scope& scope, const Input& x);
/// Element-wise hyperbolic sine of x.
Output Sinh(const Scope& scope, const Input& x);
/// Element-wise hyperbolic cosine of x.
Output Cosh(const Scope& scope, const Input& x);
/// Element-wise inverse hyperbolic sine of x.
Output Asinh(const Scope& scope, const Input& x);
/// Element-wise inverse hyperbolic cosine of x (NaN below 1 for real x).
Output Acosh(const Scope& scope, const Input& x);
/// Element-wise inverse hyperbolic tangent of x (NaN outside [-1, 1] for real x).
Output Atanh(const Scope& scope, const Input& x);
/// Element-wise atan2(y, x), the angle of the point (x, y) from the positive x axis in [-pi, pi]; y comes
/// first, and the two broadcast.
Output Atan2(const Scope& scope, const Input& y, const Input& x);
/// Element-wise x / y rounded toward zero, with NumPy broadcasting.
Output TruncateDiv(const Scope& scope, const Input& x, const Input& y);

// Bitwise ops on integers (the binary ones broadcast).
/// Element-wise bitwise x & y of integers, with NumPy broadcasting.
Output BitwiseAnd(const Scope& scope, const Input& x, const Input& y);
/// Element-wise bitwise x | y of integers, with NumPy broadcasting.
Output BitwiseOr(const Scope& scope, const Input& x, const Input& y);
/// Element-wise bitwise x ^ y (exclusive or) of integers, with NumPy broadcasting.
Output BitwiseXor(const Scope& scope, const Input& x, const Input& y);
/// Element-wise ~x: every bit of the integer x flipped.
Output Invert(const Scope& scope, const Input& x);
/// Element-wise x shifted left by y bits, y clamped to [0, bits - 1], with NumPy broadcasting.
Output LeftShift(const Scope& scope, const Input& x, const Input& y);
/// Element-wise x shifted right by y bits, y clamped to [0, bits - 1], with NumPy broadcasting; a signed x
/// shifts arithmetically (copying its sign bit).
Output RightShift(const Scope& scope, const Input& x, const Input& y);
/// The number of set bits of each element of the integer x (in two's complement), as uint8.
Output PopulationCount(const Scope& scope, const Input& x);

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_MATH_OPS_H_
