// The activations TensorFlow adds beyond Relu, Relu6, Elu and Softplus (graph/ops/nn_ops.cc):
// LeakyRelu and Selu with their gradient helpers, and L2Loss, half the sum of squares.
// Definitions match TensorFlow 2.21's.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

using tensoract::shape_inference::MergeBothInputsShapeFn;
using tensoract::shape_inference::ScalarShape;
using tensoract::shape_inference::UnchangedShape;

REGISTER_OP("LeakyRelu")
    .Input("features: T").Output("activations: T")
    .Attr("alpha: float = 0.2")
    .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
    .SetShapeFn(UnchangedShape)
    .Doc("features where features > 0, else alpha * features (alpha may exceed 1 or be negative).");

REGISTER_OP("LeakyReluGrad")
    .Input("gradients: T").Input("features: T").Output("backprops: T")
    .Attr("alpha: float = 0.2")
    .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
    .SetShapeFn(MergeBothInputsShapeFn)
    .Doc("gradients where features > 0, else alpha * gradients (features: LeakyRelu's input or output).");

REGISTER_OP("Selu")
    .Input("features: T").Output("activations: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(UnchangedShape)
    .Doc("scale * features where features >= 0, else scale * alpha * (exp(features) - 1), with "
         "alpha = 1.6732632423543772 and scale = 1.0507009873554805.");

REGISTER_OP("SeluGrad")
    .Input("gradients: T").Input("outputs: T").Output("backprops: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(MergeBothInputsShapeFn)
    .Doc("gradients * (outputs + scale * alpha) where outputs < 0, else gradients * scale (outputs: Selu's).");

REGISTER_OP("L2Loss")
    .Input("t: T").Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(ScalarShape)
    .Doc("sum(t * t) / 2, a scalar.");
