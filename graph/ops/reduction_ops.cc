// Reductions over axes (Sum, Mean, Max, EuclideanNorm, ...) and the index reductions ArgMax/ArgMin.
// Definitions and shape functions follow TensorFlow's math_ops.cc.
#include <set>

#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

// TensorFlow's ReductionShape: with constant axes and a known input rank, the reduced
// dimensions are dropped (or become 1 with keep_dims); otherwise as much as can be told.
Status ReductionShape(InferenceContext* c) {
  PartialTensorShape indices;
  // Graphs before version 21 could pass axes as [[1,2]]; TensorFlow accepted them.
  if (c->graph_def_version() >= 21) TA_RETURN_IF_ERROR(c->WithRankAtMost(c->input(1), 1, &indices));
  bool keep_dims = false;
  TA_RETURN_IF_ERROR(c->GetAttr("keep_dims", &keep_dims));
  const PartialTensorShape& input = c->input(0);
  std::vector<int64_t> axes;
  bool known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(1, &axes, &known));
  if (!known || !InferenceContext::RankKnown(input)) {
    if (keep_dims && InferenceContext::RankKnown(input)) {
      c->set_output(0, InferenceContext::UnknownShapeOfRank(input.dims()));
      return Status::OK();
    }
    return shape_inference::UnknownShape(c);
  }
  const int64_t rank = input.dims();
  std::set<int64_t> reduced;
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank) {
      return errors::InvalidArgument("Invalid reduction dimension ", axis, " for input with ", rank, " dimensions.");
    }
    reduced.insert(axis < 0 ? axis + rank : axis);
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < rank; ++i) {
    if (reduced.count(i) == 0) dims.push_back(InferenceContext::Dim(input, static_cast<int>(i)));
    else if (keep_dims) dims.push_back(1);
  }
  c->set_output(0, InferenceContext::MakeShape(std::move(dims)));
  return Status::OK();
}

// TensorFlow's ArgOpShape: the input without the `dimension` axis.
Status ArgOpShape(InferenceContext* c) {
  PartialTensorShape dimension;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &dimension));
  const PartialTensorShape& input = c->input(0);
  if (!InferenceContext::RankKnown(input)) return shape_inference::UnknownShape(c);
  const int64_t rank = input.dims();
  if (rank <= 1) {
    c->set_output(0, InferenceContext::Scalar());
    return Status::OK();
  }
  std::vector<int64_t> values;
  bool known = false;
  TA_RETURN_IF_ERROR(c->GetIntValues(1, &values, &known));
  if (!known || values.size() != 1) {
    c->set_output(0, InferenceContext::UnknownShapeOfRank(static_cast<int>(rank - 1)));
    return Status::OK();
  }
  int64_t axis = values[0];
  if (axis < -rank || axis >= rank) {
    return errors::InvalidArgument("Dimension (", axis, ") must be in the range [", -rank, ", ", rank, "), where ",
                                   rank, " is the number of dimensions in the input.");
  }
  if (axis < 0) axis += rank;
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < rank; ++i) {
    if (i != axis) dims.push_back(InferenceContext::Dim(input, static_cast<int>(i)));
  }
  c->set_output(0, InferenceContext::MakeShape(std::move(dims)));
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

using tensoract::ArgOpShape;
using tensoract::ReductionShape;

#define TA_SUM_TYPES                                                                                 \
  "T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, bfloat16, " \
  "qint16, quint16, uint16, complex128, half, uint32, uint64}"
#define TA_MINMAX_TYPES                                                                          \
  "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64, " \
  "qint8, quint8, qint32, qint16, quint16}"

REGISTER_OP("Sum")
    .Input("input: T").Input("reduction_indices: Tidx").Output("output: T")
    .Attr("keep_dims: bool = false").Attr(TA_SUM_TYPES).Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(ReductionShape)
    .Doc("The sum of the input's elements along the axes in reduction_indices.");

REGISTER_OP("Mean")
    .Input("input: T").Input("reduction_indices: Tidx").Output("output: T")
    .Attr("keep_dims: bool = false").Attr(TA_SUM_TYPES).Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(ReductionShape)
    .Doc("The mean of the input's elements along the axes in reduction_indices.");

REGISTER_OP("Prod")
    .Input("input: T").Input("reduction_indices: Tidx").Output("output: T")
    .Attr("keep_dims: bool = false").Attr(TA_SUM_TYPES).Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(ReductionShape)
    .Doc("The product of the input's elements along the axes in reduction_indices.");

REGISTER_OP("Max")
    .Input("input: T").Input("reduction_indices: Tidx").Output("output: T")
    .Attr("keep_dims: bool = false").Attr(TA_MINMAX_TYPES).Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(ReductionShape)
    .Doc("The maximum of the input's elements along the axes in reduction_indices.");

REGISTER_OP("Min")
    .Input("input: T").Input("reduction_indices: Tidx").Output("output: T")
    .Attr("keep_dims: bool = false").Attr(TA_MINMAX_TYPES).Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(ReductionShape)
    .Doc("The minimum of the input's elements along the axes in reduction_indices.");

REGISTER_OP("All")
    .Input("input: bool").Input("reduction_indices: Tidx").Output("output: bool")
    .Attr("keep_dims: bool = false").Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(ReductionShape)
    .Doc("Logical and of the input's elements along the axes in reduction_indices.");

REGISTER_OP("Any")
    .Input("input: bool").Input("reduction_indices: Tidx").Output("output: bool")
    .Attr("keep_dims: bool = false").Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(ReductionShape)
    .Doc("Logical or of the input's elements along the axes in reduction_indices.");

REGISTER_OP("EuclideanNorm")
    .Input("input: T").Input("reduction_indices: Tidx").Output("output: T")
    .Attr("keep_dims: bool = false").Attr(TA_SUM_TYPES).Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(ReductionShape)
    .Doc("sqrt(sum(x * conj(x))) of the input's elements along the axes in reduction_indices.");

REGISTER_OP("ArgMax")
    .Input("input: T").Input("dimension: Tidx").Output("output: output_type")
    .Attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64, "
          "qint8, quint8, qint32, qint16, quint16, bool}")
    .Attr("Tidx: {int16, int32, int64} = DT_INT32")
    .Attr("output_type: {int16, uint16, int32, int64} = DT_INT64")
    .SetShapeFn(ArgOpShape)
    .Doc("The index of the largest element along `dimension` (the first one on ties).");

REGISTER_OP("ArgMin")
    .Input("input: T").Input("dimension: Tidx").Output("output: output_type")
    .Attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64, "
          "qint8, quint8, qint32, qint16, quint16, bool}")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .Attr("output_type: {int32, int64} = DT_INT64")
    .SetShapeFn(ArgOpShape)
    .Doc("The index of the smallest element along `dimension` (the first one on ties).");

#undef TA_SUM_TYPES
#undef TA_MINMAX_TYPES
