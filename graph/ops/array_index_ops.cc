// Ops that compute index sets or place values by index: Where (the coordinates of the
// true elements), v1 Gather, DynamicStitch and its inverse DynamicPartition, ListDiff,
// Unique and ConcatOffset. The last three are
// what TensorFlow's tf.gradients emits for reductions over unknown shapes, reductions by
// product and concatenations. Definitions match TensorFlow 2.21's.
#include <algorithm>
#include <vector>

#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;
using shape_inference::kUnknownDim;

// [number of true elements (unknown), rank of the input]. TensorFlow's shape function
// accepts a scalar (the kernel refuses it).
Status WhereShape(InferenceContext* c) {
  c->set_output(0, InferenceContext::Matrix(kUnknownDim, InferenceContext::Rank(c->input(0))));
  return Status::OK();
}

// v1 Gather: indices.shape + params.shape[1:].
Status GatherShape(InferenceContext* c) {
  PartialTensorShape params, rest, out;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &params));
  TA_RETURN_IF_ERROR(c->Subshape(params, 1, &rest));
  TA_RETURN_IF_ERROR(c->Concatenate(c->input(1), rest, &out));
  c->set_output(0, out);
  return Status::OK();
}

// DynamicStitch: [max index + 1 when every indices input is constant, else unknown] +
// what follows each indices shape in its data shape (all of them merged). Each data shape
// must start with its indices shape.
Status DynamicStitchShape(InferenceContext* c) {
  int64_t n = 0;
  TA_RETURN_IF_ERROR(c->GetAttr("N", &n));
  bool all_constant = true;
  int64_t max_index = -1;
  PartialTensorShape extra = InferenceContext::UnknownShape();
  for (int i = 0; i < n; ++i) {
    std::vector<int64_t> values;
    bool known = false;
    TA_RETURN_IF_ERROR(c->GetIntValues(i, &values, &known));
    if (!known) all_constant = false;
    const PartialTensorShape& indices = c->input(i);
    if (!InferenceContext::RankKnown(indices)) continue;
    const int rank = indices.dims();
    PartialTensorShape data, prefix, rest;
    TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(static_cast<int>(n) + i), rank, &data));
    TA_RETURN_IF_ERROR(c->Subshape(data, 0, rank, &prefix));
    TA_RETURN_IF_ERROR(c->Merge(prefix, indices, &prefix));
    TA_RETURN_IF_ERROR(c->Subshape(data, rank, &rest));
    TA_RETURN_IF_ERROR(c->Merge(extra, rest, &extra));
    for (int64_t v : values) max_index = std::max(max_index, v);
  }
  PartialTensorShape out;
  TA_RETURN_IF_ERROR(c->Concatenate(InferenceContext::Vector(all_constant ? max_index + 1 : kUnknownDim), extra, &out));
  c->set_output(0, out);
  return Status::OK();
}

Status ListDiffShape(InferenceContext* c) {
  PartialTensorShape unused;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &unused));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &unused));
  c->set_output(0, InferenceContext::Vector(kUnknownDim));
  c->set_output(1, InferenceContext::Vector(kUnknownDim));
  return Status::OK();
}

// ConcatOffset: offset i has the shape of shape i (TensorFlow checks nothing more here).
Status ConcatOffsetShape(InferenceContext* c) {
  for (int i = 1; i < c->num_inputs(); ++i) c->set_output(i - 1, c->input(i));
  return Status::OK();
}

// Unique: x a vector; y a vector of unknown length, idx x's shape.
Status UniqueShape(InferenceContext* c) {
  c->set_output(0, InferenceContext::Vector(shape_inference::kUnknownDim));
  c->set_output(1, c->input(0));
  PartialTensorShape unused;
  return c->WithRank(c->input(0), 1, &unused);
}

// UniqueV2: y of x's rank; idx, with the axis known, as long as x along it (TensorFlow's
// UniqueIdxShapeFn, which also checks the axis).
Status UniqueV2Shape(InferenceContext* c) {
  const PartialTensorShape& input = c->input(0);
  const int rank = InferenceContext::Rank(input);
  c->set_output(0, rank < 0 ? InferenceContext::UnknownShape() : InferenceContext::UnknownShapeOfRank(rank));
  std::vector<int64_t> axis;
  bool known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(1, &axis, &known));
  if (!known || rank < 0) {
    c->set_output(1, InferenceContext::Vector(shape_inference::kUnknownDim));
    return Status::OK();
  }
  if (InferenceContext::Rank(c->input(1)) != 1) return errors::InvalidArgument("axis expects a 1D vector.");
  if (axis.empty()) {
    if (rank != 1) return errors::InvalidArgument("x expects a 1D vector.");
    c->set_output(1, input);
    return Status::OK();
  }
  if (axis.size() == 1) {
    int64_t a = axis[0];
    if (a < -rank || a >= rank) {
      return errors::InvalidArgument("axis expects to be in the range [", -rank, ", ", rank, ")");
    }
    if (a < 0) a += rank;
    c->set_output(1, InferenceContext::Vector(InferenceContext::Dim(input, static_cast<int>(a))));
    return Status::OK();
  }
  return errors::InvalidArgument("axis does not support input tensors larger than 1 elements.");
}

// DynamicPartition: data's shape starts with partitions'; each output is [?] + the rest.
Status DynamicPartitionShape(InferenceContext* c) {
  const PartialTensorShape& data = c->input(0);
  const PartialTensorShape& partitions = c->input(1);
  if (!InferenceContext::RankKnown(partitions)) return shape_inference::UnknownShape(c);
  const int rank = partitions.dims();
  PartialTensorShape prefix, rest, out;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(data, rank, &prefix));
  if (InferenceContext::RankKnown(data)) {
    TA_RETURN_IF_ERROR(c->Subshape(data, 0, rank, &prefix));
    TA_RETURN_IF_ERROR(c->Merge(prefix, partitions, &prefix));
  }
  TA_RETURN_IF_ERROR(c->Subshape(data, rank, &rest));
  TA_RETURN_IF_ERROR(c->Concatenate(InferenceContext::Vector(shape_inference::kUnknownDim), rest, &out));
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, out);
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

REGISTER_OP("Where")
    .Input("input: T").Output("index: int64")
    .Attr("T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, bfloat16, "
          "qint16, quint16, uint16, complex128, half, uint32, uint64, bool} = DT_BOOL")
    .SetShapeFn(tensoract::WhereShape)
    .Doc("The coordinates of input's true (non-zero) elements, one row each, in row-major order.");

REGISTER_OP("Gather")
    .Input("params: Tparams").Input("indices: Tindices").Output("output: Tparams")
    .Attr("validate_indices: bool = true").Attr("Tparams: type").Attr("Tindices: {int32, int64}")
    .SetShapeFn(tensoract::GatherShape)
    .Doc("The rows of params at indices (GatherV2 on axis 0; TensorFlow 1's op).");

REGISTER_OP("DynamicStitch")
    .Input("indices: N * int32").Input("data: N * T").Output("merged: T")
    .Attr("N: int >= 1").Attr("T: type")
    .SetShapeFn(tensoract::DynamicStitchShape)
    .Doc("merged[indices[m][i]] = data[m][i]; a later index wins over an earlier one.");

REGISTER_OP("ParallelDynamicStitch")
    .Input("indices: N * int32").Input("data: N * T").Output("merged: T")
    .Attr("N: int >= 1").Attr("T: type")
    .SetShapeFn(tensoract::DynamicStitchShape)
    .Doc("DynamicStitch whose repeated indices may take any of their values.");

REGISTER_OP("ListDiff")
    .Input("x: T").Input("y: T").Output("out: T").Output("idx: out_idx")
    .Attr("T: type").Attr("out_idx: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::ListDiffShape)
    .Doc("The elements of x not in y, in x's order, and their positions in x.");

REGISTER_OP("Unique")
    .Input("x: T").Output("y: T").Output("idx: out_idx")
    .Attr("T: type").Attr("out_idx: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::UniqueShape)
    .Doc("The distinct values of x in order of first appearance, and for each element of x its value's index "
         "in y.");

REGISTER_OP("UniqueV2")
    .Input("x: T").Input("axis: Taxis").Output("y: T").Output("idx: out_idx")
    .Attr("T: type").Attr("Taxis: {int32, int64} = DT_INT64").Attr("out_idx: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::UniqueV2Shape)
    .Doc("Unique along `axis` (a vector of none or one axis): the distinct slices in order of first "
         "appearance, and for each slice of x its index in y.");

REGISTER_OP("DynamicPartition")
    .Input("data: T").Input("partitions: int32").Output("outputs: num_partitions * T")
    .Attr("num_partitions: int >= 1").Attr("T: type")
    .SetShapeFn(tensoract::DynamicPartitionShape)
    .Doc("data's slices split into num_partitions outputs: the slice at each index of `partitions` goes, in "
         "order, to the output that partitions names there.");

REGISTER_OP("ConcatOffset")
    .Input("concat_dim: int32").Input("shape: N * shape_type").Output("offset: N * shape_type")
    .Attr("N: int >= 2").Attr("shape_type: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::ConcatOffsetShape)
    .Doc("Where each input of a concatenation along concat_dim starts in its result.");
