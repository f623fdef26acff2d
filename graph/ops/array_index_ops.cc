// Ops that compute index sets or place values by index: Where (the coordinates of the
// true elements), v1 Gather, DynamicStitch, ListDiff and ConcatOffset. The last three are
// what TensorFlow's tf.gradients emits for reductions over unknown shapes, reductions by
// product and concatenations. Definitions match TensorFlow 2.21's.
#include <algorithm>

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

REGISTER_OP("ConcatOffset")
    .Input("concat_dim: int32").Input("shape: N * shape_type").Output("offset: N * shape_type")
    .Attr("N: int >= 2").Attr("shape_type: {int32, int64} = DT_INT32")
    .SetShapeFn(tensoract::ConcatOffsetShape)
    .Doc("Where each input of a concatenation along concat_dim starts in its result.");
