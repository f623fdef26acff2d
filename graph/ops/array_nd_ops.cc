// GatherNd, ScatterNd and the TensorScatter ops: slices of a tensor addressed by index tuples
// (the last dimension of `indices`), read out, added into zeros or into a given tensor. TensorFlow's gradient of top_k scatters with
// ScatterNd, and ScatterNd's and GatherNd's gradients are each other. Definitions match
// TensorFlow 2.21's.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

// indices.shape[:-1] + params.shape[indices.shape[-1]:].
Status GatherNdShape(InferenceContext* c) {
  const PartialTensorShape& params = c->input(0);
  PartialTensorShape indices;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1, &indices));
  const int64_t depth = InferenceContext::Dim(indices, -1);
  if (!InferenceContext::RankKnown(params) || depth < 0) return shape_inference::UnknownShape(c);
  if (depth > params.dims()) {
    return errors::InvalidArgument("indices.shape[-1] must be <= params.rank, but saw indices shape: ",
                                   indices.DebugString(), " and params shape: ", params.DebugString());
  }
  PartialTensorShape outer, inner, out;
  TA_RETURN_IF_ERROR(c->Subshape(indices, 0, -1, &outer));
  TA_RETURN_IF_ERROR(c->Subshape(params, depth, &inner));
  TA_RETURN_IF_ERROR(c->Concatenate(outer, inner, &out));
  c->set_output(0, out);
  return Status::OK();
}

// The `shape` input; where the ranks are known, updates must be indices.shape[:-1] +
// shape[indices.shape[-1]:].
Status ScatterNdShape(InferenceContext* c) {
  PartialTensorShape indices, updates, out;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &indices));
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1, &updates));
  TA_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(2, &out));
  const int64_t depth = InferenceContext::Dim(indices, -1);
  if (InferenceContext::RankKnown(indices) && InferenceContext::RankKnown(updates) &&
      InferenceContext::RankKnown(out) && depth >= 0) {
    PartialTensorShape outer, inner, expected;
    TA_RETURN_IF_ERROR(c->Subshape(indices, 0, -1, &outer));
    if (depth > out.dims()) {
      return errors::InvalidArgument("indices.shape[-1] must be <= shape.rank, but saw indices shape: ",
                                     indices.DebugString(), " and shape: ", out.DebugString());
    }
    TA_RETURN_IF_ERROR(c->Subshape(out, depth, &inner));
    TA_RETURN_IF_ERROR(c->Concatenate(outer, inner, &expected));
    PartialTensorShape merged;
    if (!c->Merge(updates, expected, &merged).ok()) {
      return errors::InvalidArgument("updates has shape ", updates.DebugString(), " but indices ",
                                     indices.DebugString(), " into ", out.DebugString(), " need ",
                                     expected.DebugString());
    }
  }
  c->set_output(0, out);
  return Status::OK();
}

// TensorFlow's InferenceContext::NumElements: 0 when a known dimension is 0 (even beside
// unknown ones), the count when every dimension is known, else unknown.
int64_t ElementsOrZero(const PartialTensorShape& s) {
  if (!InferenceContext::RankKnown(s)) return shape_inference::kUnknownDim;
  bool unknown = false;
  int64_t n = 1;
  for (int i = 0; i < s.dims(); ++i) {
    const int64_t d = InferenceContext::Dim(s, i);
    if (d == 0) return 0;
    if (d < 0) unknown = true;
    else n *= d;
  }
  return unknown ? shape_inference::kUnknownDim : n;
}

// TensorFlow's ScatterNdTensorShape (ScatterNdShapeHelper): the tensor's shape, after checking
// what is known of updates = indices.shape[:-1] + tensor.shape[indices.shape[-1]:].
Status TensorScatterShape(InferenceContext* c) {
  PartialTensorShape out, indices, updates;
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &out));
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1, &indices));
  TA_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(2), 1, &updates));
  if (ElementsOrZero(out) == 0 && (ElementsOrZero(indices) > 0 || ElementsOrZero(updates) > 0)) {
    return errors::InvalidArgument("Indices and updates specified for empty input");
  }
  if (InferenceContext::RankKnown(indices) && InferenceContext::RankKnown(updates) && updates.dims() != 0) {
    const int64_t outer = indices.dims() - 1;
    const int64_t depth = InferenceContext::Dim(indices, static_cast<int>(outer));
    if (depth >= 0) {
      PartialTensorShape prefix_indices, prefix_updates, suffix_out, suffix_updates, merged;
      TA_RETURN_IF_ERROR(c->Subshape(indices, 0, outer, &prefix_indices));
      TA_RETURN_IF_ERROR(c->Subshape(updates, 0, outer, &prefix_updates));
      Status s = c->Merge(prefix_indices, prefix_updates, &merged);
      if (!s.ok()) {
        return errors::InvalidArgument("Dimensions [0,", outer, ") of indices[shape=", indices.DebugString(),
                                       "] must match dimensions [0,", outer, ") of updates[shape=",
                                       updates.DebugString(), "]: ", s.message());
      }
      TA_RETURN_IF_ERROR(c->Subshape(out, depth, &suffix_out));
      TA_RETURN_IF_ERROR(c->Subshape(updates, outer, &suffix_updates));
      s = c->Merge(suffix_out, suffix_updates, &merged);
      if (!s.ok()) {
        return errors::InvalidArgument("Dimensions [", depth, ",", InferenceContext::Rank(out), ") of input[shape=",
                                       out.DebugString(), "] must match dimensions [", outer, ",", updates.dims(),
                                       ") of updates[shape=", updates.DebugString(), "]: ", s.message());
      }
    }
  }
  c->set_output(0, out);
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

#define TA_TENSOR_SCATTER_OP(NAME, INDEX_TYPES, DOC)                                            \
  REGISTER_OP(NAME)                                                                            \
      .Input("tensor: T").Input("indices: Tindices").Input("updates: T").Output("output: T")  \
      .Attr("T: type").Attr("Tindices: {" INDEX_TYPES "}").Attr("bad_indices_policy: string = \"\"") \
      .SetShapeFn(tensoract::TensorScatterShape)                                               \
      .Doc(DOC)
TA_TENSOR_SCATTER_OP("TensorScatterUpdate", "int16, int32, int64, uint16",
                     "tensor with the slices at indices' tuples replaced by updates (a repeated tuple: the last).");
TA_TENSOR_SCATTER_OP("TensorScatterAdd", "int32, int64", "tensor with updates added at indices' tuples.");
TA_TENSOR_SCATTER_OP("TensorScatterSub", "int32, int64", "tensor with updates subtracted at indices' tuples.");
TA_TENSOR_SCATTER_OP("TensorScatterMax", "int32, int64",
                     "tensor with the larger of each element and its updates at indices' tuples.");
TA_TENSOR_SCATTER_OP("TensorScatterMin", "int32, int64",
                     "tensor with the smaller of each element and its updates at indices' tuples.");
#undef TA_TENSOR_SCATTER_OP

REGISTER_OP("GatherNd")
    .Input("params: Tparams").Input("indices: Tindices").Output("output: Tparams")
    .Attr("Tparams: type").Attr("Tindices: {int16, int32, int64}").Attr("bad_indices_policy: string = \"\"")
    .SetShapeFn(tensoract::GatherNdShape)
    .Doc("The slices of params at the index tuples in indices' last dimension.");

REGISTER_OP("ScatterNd")
    .Input("indices: Tindices").Input("updates: T").Input("shape: Tindices").Output("output: T")
    .Attr("T: type").Attr("Tindices: {int16, int32, int64}").Attr("bad_indices_policy: string = \"\"")
    .SetShapeFn(tensoract::ScatterNdShape)
    .Doc("Zeros of `shape` with each update added at its index tuple (repeated tuples add up).");

REGISTER_OP("SparseToDense")
    .Input("sparse_indices: Tindices").Input("output_shape: Tindices").Input("sparse_values: T")
    .Input("default_value: T").Output("dense: T")
    .Attr("validate_indices: bool = true").Attr("T: type").Attr("Tindices: {int32, int64}")
    .SetShapeFn([](tensoract::shape_inference::InferenceContext* c) {
      tensoract::PartialTensorShape out;
      TA_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &out));
      c->set_output(0, out);
      return tensoract::Status::OK();
    })
    .Doc("A tensor of output_shape holding default_value but at sparse_indices (rows of index tuples), "
         "which hold sparse_values (or the one scalar value); validate_indices asks the indices to be in "
         "range, sorted and distinct.");
