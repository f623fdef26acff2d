// Gradients of the array ops: slicing, splitting, stacking, tiling, gathering, padding,
// broadcasting and permuting. Each routes the incoming gradient back to where the op read
// its input, built from other array ops as TensorFlow's array_grad.py does. GatherV2's is
// dense (TensorFlow returns IndexedSlices, which we do not have): an UnsortedSegmentSum.
#include "graph/gradients/grad_helpers.h"
#include "graph/shape_inference.h"

namespace tensoract {
namespace grad {
namespace {

using ops::TypedOp;
using tensorflow::DT_INT32;

REGISTER_NO_GRADIENT_OP("ShapeN");
REGISTER_NO_GRADIENT_OP("OneHot");
REGISTER_NO_GRADIENT_OP("Range");
REGISTER_NO_GRADIENT_OP("LinSpace");
REGISTER_NO_GRADIENT_OP("InvertPermutation");

// An int32 vector constant input.
Input IntVector(const std::vector<int32_t>& values) {
  tensorflow::TensorProto p;
  p.set_dtype(DT_INT32);
  p.mutable_tensor_shape()->add_dim()->set_size(static_cast<int64_t>(values.size()));
  for (int32_t v : values) p.add_int_val(v);
  return Input(p);
}

// `axis` (a scalar of any integer type) as an int32 in [0, rank of x).
Output NormalizedAxis(const Scope& s, const Output& axis, const Output& x) {
  Output a = axis.type() == DT_INT32 ? axis : ops::Cast(s, axis, DT_INT32);
  Output rank = ops::Rank(s, x);
  return ops::FloorMod(s, ops::Add(s, a, rank), rank);
}

Status PlaceholderWithDefaultGrad(const Scope& s, const Node& op, const std::vector<Output>& dy,
                                  std::vector<Output>* dx) {
  (*dx)[0] = dy[0];
  return Status::OK();
}
REGISTER_GRADIENT_OP("PlaceholderWithDefault", PlaceholderWithDefaultGrad);

// Fill: the value's gradient is the sum of all of dy; dims get none.
Status FillGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[1] = ops::Sum(s, dy[0], ops::Range(s, 0, ops::Rank(s, dy[0]), 1));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Fill", FillGrad);

// ConcatV2: dy split along the axis into the inputs' sizes there.
Status ConcatV2Grad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const int n = op.num_inputs() - 1;
  Output axis = NormalizedAxis(s, InputOf(op, n), InputOf(op, 0));
  std::vector<Output> sizes;
  for (int i = 0; i < n; ++i) sizes.push_back(ops::GatherV2(s, ops::Shape(s, InputOf(op, i)), axis, 0));
  OutputList parts = ops::SplitV(s, dy[0], ops::Stack(s, sizes), axis, n);
  if (static_cast<int>(parts.size()) != n) return s.status();
  for (int i = 0; i < n; ++i) (*dx)[i] = parts[i];
  return Status::OK();
}
REGISTER_GRADIENT_OP("ConcatV2", ConcatV2Grad);

// TensorFlow 1's Concat: the same, the axis input first.
Status ConcatV1Grad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const int n = op.num_inputs() - 1;
  Output axis = NormalizedAxis(s, InputOf(op, 0), InputOf(op, 1));
  std::vector<Output> sizes;
  for (int i = 0; i < n; ++i) sizes.push_back(ops::GatherV2(s, ops::Shape(s, InputOf(op, 1 + i)), axis, 0));
  OutputList parts = ops::SplitV(s, dy[0], ops::Stack(s, sizes), axis, n);
  if (static_cast<int>(parts.size()) != n) return s.status();
  for (int i = 0; i < n; ++i) (*dx)[1 + i] = parts[i];
  return Status::OK();
}
REGISTER_GRADIENT_OP("Concat", ConcatV1Grad);

Status PackGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  int64_t axis = 0;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "axis", &axis));
  OutputList parts = ops::Unstack(s, dy[0], op.num_inputs(), axis);
  if (static_cast<int>(parts.size()) != op.num_inputs()) return s.status();
  for (int i = 0; i < op.num_inputs(); ++i) (*dx)[i] = parts[i];
  return Status::OK();
}
REGISTER_GRADIENT_OP("Pack", PackGrad);

Status UnpackGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  int64_t axis = 0;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "axis", &axis));
  (*dx)[0] = ops::Stack(s, dy, axis);
  return Status::OK();
}
REGISTER_GRADIENT_OP("Unpack", UnpackGrad);

// Split (split_dim, value) and SplitV (value, size_splits, split_dim): the pieces joined.
// The pieces' gradients joined again; one piece is its own gradient (ConcatV2 wants two or
// more inputs, and TensorFlow's concat passes a single tensor through).
Output JoinPieces(const Scope& s, const std::vector<Output>& dy, const Output& axis) {
  return dy.size() == 1 ? ops::Identity(s, dy[0]) : ops::Concat(s, dy, axis);
}

Status SplitGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[1] = JoinPieces(s, dy, InputOf(op, 0));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Split", SplitGrad);

Status SplitVGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = JoinPieces(s, dy, InputOf(op, 2));
  return Status::OK();
}
REGISTER_GRADIENT_OP("SplitV", SplitVGrad);

// Slice: dy padded back to x's shape, begin before and the rest after.
Status SliceGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output x = InputOf(op, 0), begin = InputOf(op, 1);
  Output x_shape = ops::Shape(s, x, begin.type());
  Output after = ops::Sub(s, ops::Sub(s, x_shape, ops::Shape(s, OpOutput(op, 0), begin.type())), begin);
  Output paddings = ops::Concat(s, {ops::Reshape(s, begin, {-1, 1}), ops::Reshape(s, after, {-1, 1})}, 1);
  (*dx)[0] = ops::Pad(s, dy[0], paddings);
  return Status::OK();
}
REGISTER_GRADIENT_OP("Slice", SliceGrad);

Status StridedSliceGradFn(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  ops::StridedSliceAttrs a;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "begin_mask", &a.begin_mask));
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "end_mask", &a.end_mask));
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "ellipsis_mask", &a.ellipsis_mask));
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "new_axis_mask", &a.new_axis_mask));
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "shrink_axis_mask", &a.shrink_axis_mask));
  Output begin = InputOf(op, 1);
  (*dx)[0] = ops::StridedSliceGrad(s, ops::Shape(s, InputOf(op, 0), begin.type()), begin, InputOf(op, 2),
                                   InputOf(op, 3), dy[0], a);
  return Status::OK();
}
REGISTER_GRADIENT_OP("StridedSlice", StridedSliceGradFn);

// StridedSliceGrad is linear in dy: its gradient is the StridedSlice of the incoming one.
Status StridedSliceGradGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  ops::StridedSliceAttrs a;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "begin_mask", &a.begin_mask));
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "end_mask", &a.end_mask));
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "ellipsis_mask", &a.ellipsis_mask));
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "new_axis_mask", &a.new_axis_mask));
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "shrink_axis_mask", &a.shrink_axis_mask));
  (*dx)[4] = ops::StridedSlice(s, dy[0], InputOf(op, 1), InputOf(op, 2), InputOf(op, 3), a);
  return Status::OK();
}
REGISTER_GRADIENT_OP("StridedSliceGrad", StridedSliceGradGrad);

// Tile: dy seen as [m0, d0, m1, d1, ...] and summed over the repeats m_i.
Status TileGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output x = InputOf(op, 0), multiples = InputOf(op, 1);
  Output x_shape = ops::Shape(s, x, multiples.type());
  Output split_shape = ops::Reshape(s, ops::Transpose(s, ops::Stack(s, {multiples, x_shape}), {1, 0}), {-1});
  Output axes = ops::Range(s, 0, ops::Size(s, split_shape), 2);
  (*dx)[0] = ops::Reshape(s, ops::Sum(s, ops::Reshape(s, dy[0], split_shape), axes), x_shape);
  return Status::OK();
}
REGISTER_GRADIENT_OP("Tile", TileGrad);

Status TransposeGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::Transpose(s, dy[0], ops::InvertPermutation(s, InputOf(op, 1)));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Transpose", TransposeGrad);

// BroadcastTo: dy summed over the broadcast dimensions.
Status BroadcastToGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = SumToShapeOf(s, dy[0], InputOf(op, 0));
  return Status::OK();
}
REGISTER_GRADIENT_OP("BroadcastTo", BroadcastToGrad);

// Pad and PadV2: the middle box of dy; the constant gets no gradient.
Status PadGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output x = InputOf(op, 0), paddings = InputOf(op, 1);
  Output begin = ops::Reshape(s, ops::Slice(s, paddings, {0, 0}, {-1, 1}), {-1});
  (*dx)[0] = ops::Slice(s, dy[0], begin, ops::Shape(s, x, paddings.type()));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Pad", PadGrad);
REGISTER_GRADIENT_OP("PadV2", PadGrad);

// GatherV2 (batch_dims 0), as TensorFlow's: dy is P[:axis] + I + P[axis+1:]; reshaped to
// P[:axis] + [-1] + P[axis+1:] (the indices flattened), the gathered axis moved to the
// front, its rows added back at their indices with UnsortedSegmentSum, and moved back. The
// axis may be fed and the ranks unknown (the permutations are computed in the graph); a
// constant axis 0 needs no permutations.
Status GatherV2Grad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  int64_t batch_dims = 0;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "batch_dims", &batch_dims));
  if (batch_dims != 0) {
    return errors::Unimplemented("the gradient of '", op.name(), "' (GatherV2) needs batch_dims 0");
  }
  Output params = InputOf(op, 0), indices = InputOf(op, 1), axis_in = InputOf(op, 2);
  Output params_shape = ops::Shape(s, params);
  Output flat_indices = ops::Reshape(s, indices, ops::ExpandDims(s, ops::Size(s, indices), 0));
  std::vector<int64_t> axis_values;
  tensorflow::TensorProto value;
  if (KnownValue(axis_in, &value) && shape_inference::TensorProtoToInt64s(value, &axis_values).ok() &&
      axis_values.size() == 1 && axis_values[0] == 0) {
    Output rows_shape = ops::Concat(s, {ops::ExpandDims(s, ops::Size(s, indices), 0),
                                        ops::StridedSlice(s, params_shape, IntVector({1}), IntVector({0}),
                                                          IntVector({1}), {/*begin_mask=*/0, /*end_mask=*/1})},
                                    0);
    Output rows = ops::StridedSlice(s, params_shape, IntVector({0}), IntVector({1}), IntVector({1}),
                                    {0, 0, 0, 0, /*shrink_axis_mask=*/1});
    (*dx)[0] = ops::UnsortedSegmentSum(s, ops::Reshape(s, dy[0], rows_shape), flat_indices, rows);
    return Status::OK();
  }
  Output axis = axis_in.type() == DT_INT32 ? axis_in : ops::Cast(s, axis_in, DT_INT32);
  Output at = ops::ExpandDims(s, axis, 0);
  Output outer = ops::StridedSlice(s, params_shape, IntVector({0}), at, IntVector({1}), {/*begin_mask=*/1});
  Output tail = ops::StridedSlice(s, params_shape, at, IntVector({0}), IntVector({1}), {0, /*end_mask=*/1});
  Output inner = ops::StridedSlice(s, tail, IntVector({1}), IntVector({0}), IntVector({1}), {0, /*end_mask=*/1});
  Output rows = ops::StridedSlice(s, params_shape, at, IntVector({0}), IntVector({1}),
                                  {0, /*end_mask=*/1, 0, 0, /*shrink_axis_mask=*/1});
  Output values_shape = ops::Concat(s, {outer, IntVector({-1}), inner}, 0);
  Output values_dims = ops::Size(s, values_shape);
  Output axis_dims = ops::Size(s, outer);
  Output after_axis = ops::Add(s, axis_dims, 1);
  Output inner_axes = ops::Range(s, after_axis, values_dims, 1);
  Output to_front = ops::Concat(s, {ops::ExpandDims(s, axis_dims, 0), ops::Range(s, 0, axis_dims, 1), inner_axes}, 0);
  Output moved = ops::Transpose(s, ops::Reshape(s, dy[0], values_shape), to_front);
  Output summed = ops::UnsortedSegmentSum(s, moved, flat_indices, rows);  // P[axis] + P[:axis] + P[axis+1:]
  Output back = ops::Concat(s, {ops::Range(s, 1, after_axis, 1), IntVector({0}), inner_axes}, 0);
  (*dx)[0] = ops::Transpose(s, summed, back);
  return Status::OK();
}
REGISTER_GRADIENT_OP("GatherV2", GatherV2Grad);

}  // namespace
}  // namespace grad
}  // namespace tensoract
