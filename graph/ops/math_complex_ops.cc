// The complex number ops: Complex (from real and imaginary parts), Real, Imag and Conj.
// Definitions match TensorFlow 2.21's.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

using tensoract::shape_inference::BroadcastBinaryOpShape;
using tensoract::shape_inference::UnchangedShape;

REGISTER_OP("Complex")
    .Input("real: T").Input("imag: T").Output("out: Tout")
    .Attr("T: {float, double} = DT_FLOAT")
    .Attr("Tout: {complex64, complex128} = DT_COMPLEX64")
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("real + i imag, element-wise with broadcasting (float to complex64, double to complex128).");

REGISTER_OP("Real")
    .Input("input: T").Output("output: Tout")
    .Attr("T: {complex64, complex128} = DT_COMPLEX64")
    .Attr("Tout: {float, double} = DT_FLOAT")
    .SetShapeFn(UnchangedShape)
    .Doc("The real part of each element.");

REGISTER_OP("Imag")
    .Input("input: T").Output("output: Tout")
    .Attr("T: {complex64, complex128} = DT_COMPLEX64")
    .Attr("Tout: {float, double} = DT_FLOAT")
    .SetShapeFn(UnchangedShape)
    .Doc("The imaginary part of each element.");

// variant (TensorFlow's CPU kernel conjugates the tensors a variant holds) has no kernel here.
REGISTER_OP("Conj")
    .Input("input: T").Output("output: T")
    .Attr("T: {complex64, complex128, variant} = DT_COMPLEX64")
    .SetShapeFn(UnchangedShape)
    .Doc("The complex conjugate of each element: a - ib for a + ib.");
