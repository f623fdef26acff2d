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

// The regularized incomplete gamma functions, P(a, x) and Q(a, x) = 1 - P(a, x), and the
// derivatives their gradients and the gamma sampler's reparameterization need (Eigen's
// Cephes-based implementations on both sides); TensorFlow's CPU kernels take float and double.
REGISTER_OP("Igamma")
    .Input("a: T").Input("x: T").Output("z: T")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("The lower regularized incomplete gamma function P(a, x), element-wise with broadcasting.");

REGISTER_OP("Igammac")
    .Input("a: T").Input("x: T").Output("z: T")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("The upper regularized incomplete gamma function Q(a, x) = 1 - P(a, x), element-wise with broadcasting.");

REGISTER_OP("IgammaGradA")
    .Input("a: T").Input("x: T").Output("z: T")
    .Attr("T: {float, double}")
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("d P(a, x) / da, element-wise with broadcasting (Igamma's gradient).");

REGISTER_OP("RandomGammaGrad")
    .Input("alpha: T").Input("sample: T").Output("output: T")
    .Attr("T: {float, double}")
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("d sample / d alpha for a Gamma(alpha, 1) sample: the reparameterization gradient of RandomGamma.");

// The regularized incomplete beta function I_x(a, b). a, b and x have one shape, or are scalars.
REGISTER_OP("Betainc")
    .Input("a: T").Input("b: T").Input("x: T").Output("z: T")
    .Attr("T: {float, double}")
    .SetShapeFn([](tensoract::shape_inference::InferenceContext* c) {
      // The one non-scalar shape: scalars broadcast, an input of unknown rank may be either.
      tensoract::PartialTensorShape merged = c->UnknownShape(), non_scalar;
      int scalars = 0;
      bool have_non_scalar = false;
      for (int i = 0; i < 3; ++i) {
        const tensoract::PartialTensorShape& in = c->input(i);
        if (!c->RankKnown(in)) {
          non_scalar = in;
          have_non_scalar = true;
        } else if (c->Rank(in) == 0) {
          ++scalars;
        } else {
          TA_RETURN_IF_ERROR(c->Merge(merged, in, &merged));
          non_scalar = merged;
          have_non_scalar = true;
        }
      }
      if (scalars == 2 && have_non_scalar) merged = non_scalar;
      if (scalars == 3) merged = c->input(0);
      c->set_output(0, merged);
      return tensoract::Status::OK();
    })
    .Doc("The regularized incomplete beta function I_x(a, b), element-wise; a, b and x have one shape or are "
         "scalars.");
