// Element-wise functions beyond the basic arithmetic: the error function and its complement, sine, cosine, the
// two-argument arctangent and division truncated toward zero. Definitions match TensorFlow
// 2.21's (type lists in its order; Atan2 takes y before x).
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

using tensoract::shape_inference::BroadcastBinaryOpShape;
using tensoract::shape_inference::UnchangedShape;

REGISTER_OP("Erf")
    .Input("x: T").Output("y: T")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(UnchangedShape)
    .Doc("The Gauss error function of x.");

REGISTER_OP("Erfc")
    .Input("x: T").Output("y: T")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(UnchangedShape)
    .Doc("The complementary error function of x, 1 - erf(x), accurate where erf(x) is near 1 (Keras' exact GELU).");

REGISTER_OP("Sin")
    .Input("x: T").Output("y: T")
    .Attr("T: {bfloat16, half, float, double, complex64, complex128}")
    .SetShapeFn(UnchangedShape)
    .Doc("The sine of x (radians).");

REGISTER_OP("Cos")
    .Input("x: T").Output("y: T")
    .Attr("T: {bfloat16, half, float, double, complex64, complex128}")
    .SetShapeFn(UnchangedShape)
    .Doc("The cosine of x (radians).");

REGISTER_OP("Atan2")
    .Input("y: T").Input("x: T").Output("z: T")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("The angle of the point (x, y) from the positive x axis, in [-pi, pi], element-wise with broadcasting.");

REGISTER_OP("TruncateDiv")
    .Input("x: T").Input("y: T").Output("z: T")
    .Attr("T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, int64, "
          "complex64, complex128}")
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("x / y rounded toward zero, element-wise with broadcasting.");
