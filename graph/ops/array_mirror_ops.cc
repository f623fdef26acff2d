// Ops that mirror or rotate tensors: ReverseV2 (reverse along axes) and TensorFlow 1's
// Reverse (a bool per dimension), ReverseSequence (each batch entry's prefix reversed), Roll
// (elements rotated along axes), and MirrorPad (pad with a reflection of the edges), with
// MirrorPad's gradient MirrorPadGrad. Definitions match TensorFlow 2.21's.
#include <vector>

#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;
using shape_inference::kUnknownDim;

// The input's shape; TensorFlow's checks of the axes (a vector; with a constant value,
// each in range and none twice) and of the rank (at most 8, its kernel's limit).
Status ReverseV2Shape(InferenceContext* c) {
  const PartialTensorShape& input = c->input(0);
  PartialTensorShape axis_shape;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &axis_shape));
  const int rank = InferenceContext::Rank(input);
  if (rank > 8) return errors::InvalidArgument("reverse does not work on tensors with more than 8 dimensions");
  std::vector<int64_t> axes;
  bool known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(1, &axes, &known));
  if (known && rank >= 0) {
    std::vector<bool> seen(rank, false);
    for (size_t i = 0; i < axes.size(); ++i) {
      const int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
      // TensorFlow's message, its missing bracket included.
      if (axis < 0 || axis >= rank) {
        return errors::InvalidArgument("'axis'[", i, "] = ", axes[i], " is out of valid range [0, ", rank - 1);
      }
      if (seen[axis]) return errors::InvalidArgument("axis ", axis, " specified more than once.");
      seen[axis] = true;
    }
  }
  c->set_output(0, input);
  return Status::OK();
}

// Reverse (v1): dims a vector with one bool per input dimension; rank at most 8.
Status ReverseV1Shape(InferenceContext* c) {
  PartialTensorShape input = c->input(0), dims;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &dims));
  const int64_t n = InferenceContext::Dim(dims, 0);
  if (InferenceContext::ValueKnown(n)) TA_RETURN_IF_ERROR(c->WithRank(input, static_cast<int>(n), &input));
  if (InferenceContext::Rank(input) > 8) {
    return errors::InvalidArgument("reverse does not work on tensors with more than 8 dimensions");
  }
  c->set_output(0, input);
  return Status::OK();
}

// ReverseSequence: seq_lengths a vector as long as the batch dimension; batch_dim and
// seq_dim below the rank, batch_dim not negative (TensorFlow checks no more of seq_dim here).
Status ReverseSequenceShape(InferenceContext* c) {
  PartialTensorShape lengths;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &lengths));
  int64_t seq_dim = 0, batch_dim = 0;
  TA_RETURN_IF_ERROR(c->GetAttr("seq_dim", &seq_dim));
  TA_RETURN_IF_ERROR(c->GetAttr("batch_dim", &batch_dim));
  const PartialTensorShape& input = c->input(0);
  if (!InferenceContext::RankKnown(input)) return shape_inference::UnknownShape(c);
  const int rank = InferenceContext::Rank(input);
  if (batch_dim >= rank) return errors::InvalidArgument("batch_dim must be < input rank: ", batch_dim, " vs. ", rank);
  if (seq_dim >= rank) return errors::InvalidArgument("seq_dim must be < input rank: ", seq_dim, " vs. ", rank);
  if (batch_dim < 0) return errors::InvalidArgument("batch_dim must be >=0, got ", batch_dim);
  int64_t batch = 0;
  TA_RETURN_IF_ERROR(c->MergeDim(InferenceContext::Dim(input, static_cast<int>(batch_dim)),
                                 InferenceContext::Dim(lengths, 0), &batch));
  PartialTensorShape out;
  TA_RETURN_IF_ERROR(c->ReplaceDim(input, static_cast<int>(batch_dim), batch, &out));
  c->set_output(0, out);
  return Status::OK();
}

// Roll: input of rank 1 or more; shift and axis scalars or vectors of one shape.
Status RollShape(InferenceContext* c) {
  PartialTensorShape unused;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &unused));
  TA_RETURN_IF_ERROR(c->WithRankAtMost(c->input(1), 1, &unused));
  TA_RETURN_IF_ERROR(c->WithRankAtMost(c->input(2), 1, &unused));
  TA_RETURN_IF_ERROR(c->Merge(c->input(1), c->input(2), &unused));
  c->set_output(0, c->input(0));
  return Status::OK();
}

// MirrorPad (sign +1) and MirrorPadGrad (sign -1): each dimension plus or minus its two
// paddings. The rank comes from the paddings' first dimension when it is known.
Status MirrorPadCommonShape(InferenceContext* c, int sign) {
  PartialTensorShape paddings_shape;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &paddings_shape));
  int64_t unused;
  TA_RETURN_IF_ERROR(c->WithValue(InferenceContext::Dim(paddings_shape, 1), 2, &unused));
  PartialTensorShape input = c->input(0);
  const int64_t n = InferenceContext::Dim(paddings_shape, 0);
  if (n >= 0) {
    TA_RETURN_IF_ERROR(c->WithRank(input, static_cast<int>(n), &input));
  } else if (sign < 0 || !InferenceContext::RankKnown(input)) {
    return shape_inference::UnknownShape(c);
  }
  const int rank = input.dims();
  std::vector<int64_t> paddings;
  bool known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(1, &paddings, &known));
  if (!known || paddings.size() != static_cast<size_t>(2 * rank)) {
    c->set_output(0, InferenceContext::UnknownShapeOfRank(rank));
    return Status::OK();
  }
  std::vector<int64_t> dims(rank, kUnknownDim);
  for (int i = 0; i < rank; ++i) {
    const int64_t before = paddings[2 * i], after = paddings[2 * i + 1];
    if (before < 0 || after < 0) return errors::InvalidArgument("Paddings must be non-negative");
    const int64_t dim = InferenceContext::Dim(input, i);
    if (dim < 0) continue;
    if (sign > 0) {
      dims[i] = dim + before + after;
    } else if (dim < before + after) {
      return errors::InvalidArgument("Negative dimension size caused by subtracting ", before + after, " from ", dim);
    } else {
      dims[i] = dim - before - after;
    }
  }
  c->set_output(0, InferenceContext::MakeShape(std::move(dims)));
  return Status::OK();
}

Status MirrorPadShape(InferenceContext* c) { return MirrorPadCommonShape(c, +1); }
Status MirrorPadGradShape(InferenceContext* c) { return MirrorPadCommonShape(c, -1); }

}  // namespace
}  // namespace tensoract

REGISTER_OP("ReverseV2")
    .Input("tensor: T").Input("axis: Tidx").Output("output: T")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .Attr("T: {uint8, int8, uint16, int16, int32, uint32, int64, uint64, bool, bfloat16, half, float, double, "
          "complex64, complex128, string}")
    .SetShapeFn(tensoract::ReverseV2Shape)
    .Doc("The tensor with the order of its elements reversed along each of `axis`.");

REGISTER_OP("Reverse")
    .Input("tensor: T").Input("dims: bool").Output("output: T")
    .Attr("T: {uint8, int8, uint16, int16, uint32, int32, uint64, int64, bool, bfloat16, half, float, double, "
          "complex64, complex128, string}")
    .SetShapeFn(tensoract::ReverseV1Shape)
    .Doc("TensorFlow 1's ReverseV2: the tensor reversed along each dimension whose `dims` entry is true.");

REGISTER_OP("ReverseSequence")
    .Input("input: T").Input("seq_lengths: Tlen").Output("output: T")
    .Attr("seq_dim: int").Attr("batch_dim: int = 0").Attr("T: type").Attr("Tlen: {int32, int64} = DT_INT64")
    .SetShapeFn(tensoract::ReverseSequenceShape)
    .Doc("For each index i along batch_dim, the first seq_lengths[i] elements along seq_dim reversed, the "
         "rest as they are.");

REGISTER_OP("Roll")
    .Input("input: T").Input("shift: Tshift").Input("axis: Taxis").Output("output: T")
    .Attr("T: type").Attr("Tshift: {int32, int64}").Attr("Taxis: {int32, int64}")
    .SetShapeFn(tensoract::RollShape)
    .Doc("The elements rotated by shift[i] positions along axis[i] (towards higher indices when positive); "
         "shifts of one axis add up.");

REGISTER_OP("MirrorPad")
    .Input("input: T").Input("paddings: Tpaddings").Output("output: T")
    .Attr("T: type").Attr("Tpaddings: {int32, int64} = DT_INT32").Attr("mode: {'REFLECT', 'SYMMETRIC'}")
    .SetShapeFn(tensoract::MirrorPadShape)
    .Doc("input padded with its own mirror image: REFLECT leaves the edge out of the copy, SYMMETRIC repeats it.");

REGISTER_OP("MirrorPadGrad")
    .Input("input: T").Input("paddings: Tpaddings").Output("output: T")
    .Attr("T: type").Attr("Tpaddings: {int32, int64} = DT_INT32").Attr("mode: {'REFLECT', 'SYMMETRIC'}")
    .SetShapeFn(tensoract::MirrorPadGradShape)
    .Doc("MirrorPad's gradient: each padded element's gradient added back to the element it copies.");
