// Gradients of Cumsum, Cumprod, TopKV2 and ClipByValue (graph/ops/math_extra_ops.cc), built
// as TensorFlow's math_grad.py, nn_grad.py and clip_ops.py build them. TopKV2's scatters
// with UnsortedSegmentSum where TensorFlow uses ScatterNd: the indices of one row are
// distinct, so the two agree.
#include "graph/gradients/grad_helpers.h"

namespace tensoract {
namespace grad {
namespace {

using tensorflow::DT_INT64;

Status ReadCumulativeAttrs(const Node& op, ops::CumulativeAttrs* a) {
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "exclusive", &a->exclusive));
  return GetNodeAttr(op.def(), "reverse", &a->reverse);
}

// A running sum's gradient is the running sum of dy the other way round.
Status CumsumGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  ops::CumulativeAttrs a;
  TA_RETURN_IF_ERROR(ReadCumulativeAttrs(op, &a));
  a.reverse = !a.reverse;
  (*dx)[0] = ops::Cumsum(s, dy[0], InputOf(op, 1), a);
  return Status::OK();
}
REGISTER_GRADIENT_OP("Cumsum", CumsumGrad);

// TensorFlow's: cumsum(cumprod(x) * dy, the other way) / x, with 0 where x is 0 (DivNoNan),
// which is wrong at zeros of x as TensorFlow's is.
Status CumprodGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  ops::CumulativeAttrs a;
  TA_RETURN_IF_ERROR(ReadCumulativeAttrs(op, &a));
  Output x = InputOf(op, 0), axis = InputOf(op, 1);
  Output prod = ops::Cumprod(s, x, axis, a);
  ops::CumulativeAttrs back = a;
  back.reverse = !a.reverse;
  (*dx)[0] = ops::DivNoNan(s, ops::Cumsum(s, ops::Mul(s, prod, dy[0]), axis, back), x);
  return Status::OK();
}
REGISTER_GRADIENT_OP("Cumprod", CumprodGrad);

// TopKV2: each value's gradient goes back to the input element it came from. The indices
// of row r, offset by r * columns, address the flattened input.
Status TopKV2Grad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output input = InputOf(op, 0), indices = OpOutput(op, 1);
  Output idx = indices.type() == DT_INT64 ? indices : ops::Cast(s, indices, DT_INT64);
  Output in_shape = ops::Shape(s, input, DT_INT64);
  Output last = ops::Sub(s, ops::Rank(s, input), 1);
  Output cols = ops::GatherV2(s, in_shape, last, 0);
  Output k = ops::GatherV2(s, ops::Shape(s, idx, DT_INT64), last, 0);
  Output idx_2d = ops::Reshape(s, idx, ops::Stack(s, {Input(int64_t{-1}), k}));
  Output rows = ops::GatherV2(s, ops::Shape(s, idx_2d, DT_INT64), 0, 0);
  Output offsets = ops::ExpandDims(s, ops::Range(s, int64_t{0}, ops::Mul(s, rows, cols), cols), -1);
  Output flat = ops::Reshape(s, ops::Add(s, idx_2d, offsets), {-1});
  Output size = ops::Prod(s, in_shape, 0);
  Output scattered = ops::UnsortedSegmentSum(s, ops::Reshape(s, dy[0], {-1}), flat, size);
  (*dx)[0] = ops::Reshape(s, scattered, in_shape);
  return Status::OK();
}
REGISTER_GRADIENT_OP("TopKV2", TopKV2Grad);

// ClipByValue: dy where t was inside the range; below it the gradient goes to the minimum,
// above it to the maximum, each summed to its bound's shape.
Status ClipByValueGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output x = InputOf(op, 0), lo = InputOf(op, 1), hi = InputOf(op, 2);
  Output zeros = ops::ZerosLike(s, dy[0]);
  Output below = ops::Less(s, x, lo), above = ops::Greater(s, x, hi);
  (*dx)[0] = ops::SelectV2(s, ops::LogicalOr(s, below, above), zeros, dy[0]);
  (*dx)[1] = SumToShapeOf(s, ops::SelectV2(s, below, dy[0], zeros), lo);
  (*dx)[2] = SumToShapeOf(s, ops::SelectV2(s, above, dy[0], zeros), hi);
  return Status::OK();
}
REGISTER_GRADIENT_OP("ClipByValue", ClipByValueGrad);

}  // namespace
}  // namespace grad
}  // namespace tensoract
