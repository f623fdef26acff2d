// GatherNd and ScatterNd: slices of a tensor addressed by index tuples (the last dimension
// of `indices`), read out or added into zeros. TensorFlow's gradient of top_k scatters with
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

}  // namespace
}  // namespace tensoract

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
