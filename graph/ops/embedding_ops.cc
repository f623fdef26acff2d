// The ops of embedding lookups that tensoract's remapper makes: _FusedGatherMean, an
// embedding bag (graph/optimizer/gather_mean_fusion.h). No GraphDef a user or TensorFlow
// writes holds it.
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

// params [rows, depth] and indices [batch, n] give [batch, depth].
Status FusedGatherMeanShape(InferenceContext* c) {
  PartialTensorShape params, indices;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &params));
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &indices));
  c->set_output(0, InferenceContext::Matrix(InferenceContext::Dim(indices, 0), InferenceContext::Dim(params, 1)));
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

// Mean(GatherV2(params, indices), axis 1): each row of indices picks rows of params, averaged
// (Keras' Embedding then GlobalAveragePooling1D), without the gathered [batch, n, depth].
REGISTER_OP("_FusedGatherMean")
    .Input("params: T").Input("indices: Tindices")
    .Output("output: T")
    .Attr("T: {float}")
    .Attr("Tindices: {int32, int64}")
    .SetShapeFn(tensoract::FusedGatherMeanShape)
    .Doc("The mean of the rows of params that each row of indices names.");
