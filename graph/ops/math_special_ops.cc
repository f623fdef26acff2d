// Element-wise functions beyond the basic arithmetic: the error function and its complement, the
// normal distribution function's inverse, the gamma function's logarithm and derivatives, the
// trigonometric and hyperbolic functions and their inverses, the two-argument arctangent and
// division truncated toward zero. Definitions match TensorFlow
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

// The rest of TensorFlow's trigonometric and hyperbolic functions (UNARY_COMPLEX in its math_ops.cc).
REGISTER_OP("Tan")
    .Input("x: T").Output("y: T")
    .Attr("T: {bfloat16, half, float, double, complex64, complex128}")
    .SetShapeFn(UnchangedShape)
    .Doc("The tangent of x (radians).");

REGISTER_OP("Asin")
    .Input("x: T").Output("y: T")
    .Attr("T: {bfloat16, half, float, double, complex64, complex128}")
    .SetShapeFn(UnchangedShape)
    .Doc("The arcsine of x, in [-pi/2, pi/2]; NaN outside [-1, 1] for real x.");

REGISTER_OP("Acos")
    .Input("x: T").Output("y: T")
    .Attr("T: {bfloat16, half, float, double, complex64, complex128}")
    .SetShapeFn(UnchangedShape)
    .Doc("The arccosine of x, in [0, pi]; NaN outside [-1, 1] for real x.");

REGISTER_OP("Atan")
    .Input("x: T").Output("y: T")
    .Attr("T: {bfloat16, half, float, double, complex64, complex128}")
    .SetShapeFn(UnchangedShape)
    .Doc("The arctangent of x, in (-pi/2, pi/2).");

REGISTER_OP("Sinh")
    .Input("x: T").Output("y: T")
    .Attr("T: {bfloat16, half, float, double, complex64, complex128}")
    .SetShapeFn(UnchangedShape)
    .Doc("The hyperbolic sine of x.");

REGISTER_OP("Cosh")
    .Input("x: T").Output("y: T")
    .Attr("T: {bfloat16, half, float, double, complex64, complex128}")
    .SetShapeFn(UnchangedShape)
    .Doc("The hyperbolic cosine of x.");

REGISTER_OP("Asinh")
    .Input("x: T").Output("y: T")
    .Attr("T: {bfloat16, half, float, double, complex64, complex128}")
    .SetShapeFn(UnchangedShape)
    .Doc("The inverse hyperbolic sine of x.");

REGISTER_OP("Acosh")
    .Input("x: T").Output("y: T")
    .Attr("T: {bfloat16, half, float, double, complex64, complex128}")
    .SetShapeFn(UnchangedShape)
    .Doc("The inverse hyperbolic cosine of x; NaN below 1 for real x.");

REGISTER_OP("Atanh")
    .Input("x: T").Output("y: T")
    .Attr("T: {bfloat16, half, float, double, complex64, complex128}")
    .SetShapeFn(UnchangedShape)
    .Doc("The inverse hyperbolic tangent of x; NaN outside [-1, 1] for real x, +-inf at +-1.");

// The normal distribution's and the gamma function's special functions (Eigen's Cephes
// ports on both sides). TensorFlow's CPU kernels take float and double for Ndtri, Erfinv,
// Polygamma and Zeta, and half too for Lgamma and Digamma.
REGISTER_OP("Ndtri")
    .Input("x: T").Output("y: T")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(UnchangedShape)
    .Doc("The inverse of the standard normal distribution function: ndtri(p) is the x with P(N(0, 1) < x) = p; "
         "-inf at 0, inf at 1, NaN outside [0, 1].");

REGISTER_OP("Erfinv")
    .Input("x: T").Output("y: T")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(UnchangedShape)
    .Doc("The inverse of the error function: ndtri((x + 1) / 2) / sqrt(2); -inf at -1, inf at 1, NaN outside.");

REGISTER_OP("Lgamma")
    .Input("x: T").Output("y: T")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(UnchangedShape)
    .Doc("The natural logarithm of the absolute value of the gamma function of x.");

REGISTER_OP("Digamma")
    .Input("x: T").Output("y: T")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(UnchangedShape)
    .Doc("The derivative of Lgamma: psi(x).");

REGISTER_OP("Polygamma")
    .Input("a: T").Input("x: T").Output("z: T")
    .Attr("T: {float, double}")
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("The a-th derivative of digamma at x (a a non-negative integer value), element-wise with broadcasting.");

REGISTER_OP("Zeta")
    .Input("x: T").Input("q: T").Output("z: T")
    .Attr("T: {float, double}")
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("The Hurwitz zeta function: the sum over n >= 0 of (n + q)^-x, element-wise with broadcasting.");
