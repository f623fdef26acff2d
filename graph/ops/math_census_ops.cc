// Two counting and scanning ops of TensorFlow's that its op census found missing here:
// CumulativeLogsumexp (the running log(sum(exp(x))) along an axis) and DenseBincount
// (Bincount over a vector or each row of a matrix, with 64-bit indices and a binary mode).
// Definitions and shape functions match TensorFlow 2.21's.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

// TensorFlow's DenseBincount shape function: input of rank <= 2, size a scalar; with size
// known (and not negative) [size] for a vector, [rows, size] for a matrix, else unknown.
Status DenseBincountShape(InferenceContext* c) {
  PartialTensorShape input, unused;
  TA_RETURN_IF_ERROR(c->WithRankAtMost(c->input(0), 2, &input));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  std::vector<int64_t> size;
  bool known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(1, &size, &known));
  if (!known || size.size() != 1) {
    c->set_output(0, InferenceContext::UnknownShape());
    return Status::OK();
  }
  if (size[0] < 0) return errors::InvalidArgument("size (", size[0], ") must be non-negative");
  const int rank = InferenceContext::Rank(input);
  if (rank == 1) {
    c->set_output(0, InferenceContext::Vector(size[0]));
  } else if (rank == 2) {
    c->set_output(0, InferenceContext::Matrix(InferenceContext::Dim(input, 0), size[0]));
  } else {
    c->set_output(0, InferenceContext::UnknownShape());
  }
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

REGISTER_OP("CumulativeLogsumexp")
    .Input("x: T").Input("axis: Tidx").Output("out: T")
    .Attr("exclusive: bool = false").Attr("reverse: bool = false")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::shape_inference::UnchangedShape)
    .Doc("The running log(sum(exp(x))) along axis; exclusive leaves each element out of its own (the first is "
         "-inf), reverse runs from the end.");

REGISTER_OP("DenseBincount")
    .Input("input: Tidx").Input("size: Tidx").Input("weights: T").Output("output: T")
    .Attr("Tidx: {int32, int64}")
    .Attr("T: {int32, int64, float, double}")
    .Attr("binary_output: bool = false")
    .SetShapeFn(tensoract::DenseBincountShape)
    .Doc("For a vector input, how often each value in [0, size) occurs (or the sum of its weights, or 1 where it "
         "occurs at all with binary_output); for a matrix, the same for each row.");
