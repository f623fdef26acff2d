// Local response normalization (AlexNet's and GoogLeNet's LRN) and its gradient, with
// TensorFlow 2.21's OpDefs and shape functions: each element divided by
// (bias + alpha * the sum of squares of its depth_radius neighbours on each side along the
// last dimension) ^ beta.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

// LRNGrad: its three 4-D inputs have one shape, which is the output's.
Status LrnGradShape(InferenceContext* c) {
  PartialTensorShape s;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &s));
  for (int i = 1; i < 3; ++i) {
    PartialTensorShape other;
    TA_RETURN_IF_ERROR(c->WithRank(c->input(i), 4, &other));
    TA_RETURN_IF_ERROR(c->Merge(s, other, &s));
  }
  c->set_output(0, s);
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

REGISTER_OP("LRN")
    .Input("input: T").Output("output: T")
    .Attr("depth_radius: int = 5")
    .Attr("bias: float = 1")
    .Attr("alpha: float = 1")
    .Attr("beta: float = 0.5")
    .Attr("T: {half, bfloat16, float} = DT_FLOAT")
    .SetShapeFn([](tensoract::shape_inference::InferenceContext* c) {
      return tensoract::shape_inference::UnchangedShapeWithRank(c, 4);
    })
    .Doc("Local response normalization along the last dimension of a 4-D input.");

REGISTER_OP("LRNGrad")
    .Input("input_grads: T").Input("input_image: T").Input("output_image: T").Output("output: T")
    .Attr("depth_radius: int = 5")
    .Attr("bias: float = 1")
    .Attr("alpha: float = 1")
    .Attr("beta: float = 0.5")
    .Attr("T: {half, bfloat16, float} = DT_FLOAT")
    .SetShapeFn(tensoract::LrnGradShape)
    .Doc("LRN's gradient with respect to its input.");
