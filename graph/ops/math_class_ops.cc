// The classification of floating-point values: IsNan, IsInf, IsFinite (bool outputs of the
// input's shape). Definitions match TensorFlow 2.21's.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

using tensoract::shape_inference::UnchangedShape;

REGISTER_OP("IsNan")
    .Input("x: T").Output("y: bool")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(UnchangedShape)
    .Doc("True where x is NaN.");

REGISTER_OP("IsInf")
    .Input("x: T").Output("y: bool")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(UnchangedShape)
    .Doc("True where x is +inf or -inf.");

REGISTER_OP("IsFinite")
    .Input("x: T").Output("y: bool")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(UnchangedShape)
    .Doc("True where x is neither NaN nor infinite.");
