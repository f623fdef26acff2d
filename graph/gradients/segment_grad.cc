// Gradients of the segment reductions and of Expm1, built from other ops as TensorFlow's
// math_grad.py builds them (the same graph, so the same numbers): each data row gets its
// segment's gradient gathered back; Max/Min split it evenly among the rows equal to the
// result; Prod multiplies by the product of the other rows (dividing by the row where that is
// safe, the product of the non-zero rows for a segment's single zero, nothing for two zeros).
// The ids and num_segments get no gradient.
#include "graph/builder/math_more_ops.h"
#include "graph/builder/segment_ops.h"
#include "graph/gradients/grad_helpers.h"

namespace tensoract {
namespace grad {
namespace {

using tensorflow::DT_BOOL;
using tensorflow::DT_INT32;

// tf.gather: GatherV2 on axis 0 (the v1 Gather op takes no int16 ids).
Output Gather0(const Scope& s, const Input& params, const Input& indices) {
  return ops::GatherV2(s, params, indices, 0);
}

// TensorFlow's _GatherDropNegatives: params' rows at max(ids, 0), zeros where an id is
// negative. `clipped` and `positive` (the ids >= 0, broadcast to the result's shape) are
// made when null and returned for reuse.
Output GatherDropNegatives(const Scope& s, const Output& params, const Output& ids, Output* clipped, Output* positive) {
  if (clipped->node == nullptr) *clipped = ops::Maximum(s, ids, ops::ZerosLike(s, ids));
  Output gathered = Gather0(s, params, *clipped);
  if (positive->node == nullptr) {
    Output is_positive = ops::GreaterEqual(s, ids, ops::ZerosLike(s, ids));
    Output extra = ops::Sub(s, ops::Rank(s, gathered), ops::Rank(s, is_positive));
    Output shape = ops::Concat(s, {ops::Shape(s, is_positive), ops::Fill(s, ops::Stack(s, {extra}), 1)}, 0);
    *positive = ops::LogicalAnd(s, ops::Reshape(s, is_positive, shape), ops::Fill(s, ops::Shape(s, gathered), true));
  }
  return ops::SelectV2(s, *positive, gathered, ops::ZerosLike(s, gathered));
}

Status SegmentSumGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = Gather0(s, dy[0], InputOf(op, 1));
  return Status::OK();
}
REGISTER_GRADIENT_OP("SegmentSum", SegmentSumGrad);

Status SegmentMeanGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output data = InputOf(op, 0), ids = InputOf(op, 1);
  Output ids_shape = ops::Shape(s, ids);
  Output rest = ops::Fill(s, ops::ExpandDims(s, ops::Sub(s, ops::Rank(s, data), 1), 0), 1);
  Output ones = ops::Fill(s, ops::Concat(s, {ids_shape, rest}, 0), ops::Cast(s, 1, dy[0].type()));
  Output scaled = ops::Div(s, dy[0], ops::SegmentSum(s, ones, ids));
  (*dx)[0] = Gather0(s, scaled, ids);
  return Status::OK();
}
REGISTER_GRADIENT_OP("SegmentMean", SegmentMeanGrad);

Status SegmentMinOrMaxGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output data = InputOf(op, 0), ids = InputOf(op, 1);
  Output zeros = ops::ZerosLike(s, data);
  Output selected = ops::Equal(s, data, Gather0(s, OpOutput(op, 0), ids));
  Output count = ops::SegmentSum(s, ops::Cast(s, selected, dy[0].type()), ids);
  Output weighted = ops::Div(s, dy[0], count);
  (*dx)[0] = ops::SelectV2(s, selected, Gather0(s, weighted, ids), zeros);
  return Status::OK();
}
REGISTER_GRADIENT_OP("SegmentMax", SegmentMinOrMaxGrad);
REGISTER_GRADIENT_OP("SegmentMin", SegmentMinOrMaxGrad);

Status SegmentProdGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output data = InputOf(op, 0), ids = InputOf(op, 1);
  Output is_zero = ops::Equal(s, data, ops::ZerosLike(s, data));
  Output zeros_per_segment = ops::SegmentSum(s, ops::Cast(s, is_zero, DT_INT32), ids);
  Output g = ops::SelectV2(s, ops::Greater(s, zeros_per_segment, 1), ops::ZerosLike(s, dy[0]), dy[0]);
  Output non_zero = ops::SelectV2(s, is_zero, ops::OnesLike(s, data), data);
  Output non_zero_prod = ops::SegmentProd(s, non_zero, ids);
  Output prod_over_x = ops::RealDiv(s, Gather0(s, OpOutput(op, 0), ids), non_zero);
  Output partial = ops::SelectV2(s, is_zero, Gather0(s, non_zero_prod, ids), prod_over_x);
  (*dx)[0] = ops::Mul(s, Gather0(s, g, ids), partial);
  return Status::OK();
}
REGISTER_GRADIENT_OP("SegmentProd", SegmentProdGrad);

Status UnsortedSegmentSumGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output clipped, positive;
  (*dx)[0] = GatherDropNegatives(s, dy[0], InputOf(op, 1), &clipped, &positive);
  return Status::OK();
}
REGISTER_GRADIENT_OP("UnsortedSegmentSum", UnsortedSegmentSumGrad);

Status UnsortedSegmentMinOrMaxGrad(const Scope& s, const Node& op, const std::vector<Output>& dy,
                                   std::vector<Output>* dx) {
  Output data = InputOf(op, 0), ids = InputOf(op, 1), num = InputOf(op, 2);
  Output clipped, positive;
  Output gathered_outputs = GatherDropNegatives(s, OpOutput(op, 0), ids, &clipped, &positive);
  Output selected = ops::LogicalAnd(s, ops::Equal(s, data, gathered_outputs), positive);
  Output count = ops::UnsortedSegmentSum(s, ops::Cast(s, selected, dy[0].type()), ids, num);
  Output weighted = ops::Div(s, dy[0], count);
  Output gathered = GatherDropNegatives(s, weighted, ids, &clipped, &positive);
  (*dx)[0] = ops::SelectV2(s, selected, gathered, ops::ZerosLike(s, gathered));
  return Status::OK();
}
REGISTER_GRADIENT_OP("UnsortedSegmentMax", UnsortedSegmentMinOrMaxGrad);
REGISTER_GRADIENT_OP("UnsortedSegmentMin", UnsortedSegmentMinOrMaxGrad);

Status UnsortedSegmentProdGrad(const Scope& s, const Node& op, const std::vector<Output>& dy,
                               std::vector<Output>* dx) {
  Output data = InputOf(op, 0), ids = InputOf(op, 1), num = InputOf(op, 2);
  Output is_zero = ops::Equal(s, data, ops::ZerosLike(s, data));
  Output zeros_per_segment = ops::UnsortedSegmentSum(s, ops::Cast(s, is_zero, DT_INT32), ids, num);
  Output g = ops::SelectV2(s, ops::Greater(s, zeros_per_segment, 1), ops::ZerosLike(s, dy[0]), dy[0]);
  Output non_zero = ops::SelectV2(s, is_zero, ops::OnesLike(s, data), data);
  Output non_zero_prod = ops::UnsortedSegmentProd(s, non_zero, ids, num);
  Output clipped = ops::Maximum(s, ids, ops::ZerosLike(s, ids));
  // TensorFlow divides by the data itself here (inf or NaN where it is zero, not selected).
  Output prod_over_x = ops::RealDiv(s, Gather0(s, OpOutput(op, 0), clipped), data);
  Output partial = ops::SelectV2(s, is_zero, Gather0(s, non_zero_prod, clipped), prod_over_x);
  Output positive;
  (*dx)[0] = ops::Mul(s, GatherDropNegatives(s, g, ids, &clipped, &positive), partial);
  return Status::OK();
}
REGISTER_GRADIENT_OP("UnsortedSegmentProd", UnsortedSegmentProdGrad);

// dy * exp(conj(x)), as TensorFlow's (a complex x conjugated first).
Status Expm1Grad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::Mul(s, dy[0], ops::Exp(s, ops::ConjIfComplex(s, InputOf(op, 0))));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Expm1", Expm1Grad);

}  // namespace
}  // namespace grad
}  // namespace tensoract
