// Optionals: a variant holding a tuple of tensors or nothing. TensorFlow's If gradient
// passes the forward branches' intermediates this way (the taken branch wraps each in
// OptionalFromValue, the other outputs OptionalNone).
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

// TensorFlow's full type of an optional of the components' tensors.
tensorflow::FullTypeDef OptionalType() {
  return FullType(tensorflow::TFT_OPTIONAL,
                  {FullType(tensorflow::TFT_FOR_EACH, {FullType(tensorflow::TFT_PRODUCT),
                                                       FullType(tensorflow::TFT_TENSOR, {FullTypeVar("Toutput_types")}),
                                                       FullTypeVar("Toutput_types")})});
}

}  // namespace
}  // namespace tensoract

REGISTER_OP("OptionalFromValue")
    .Input("components: Toutput_types").Output("optional: variant")
    .Attr("Toutput_types: list(type) >= 1")
    .SetOutputFullType("optional", tensoract::OptionalType())
    .SetShapeFn(tensoract::shape_inference::ScalarShape)
    .Doc("An optional holding the components.");

REGISTER_OP("OptionalNone")
    .Output("optional: variant")
    .SetShapeFn(tensoract::shape_inference::ScalarShape)
    .Doc("An optional holding nothing.");

REGISTER_OP("OptionalGetValue")
    .Input("optional: variant").Output("components: output_types")
    .Attr("output_types: list(type) >= 1").Attr("output_shapes: list(shape) >= 1")
    .SetShapeFn(tensoract::shape_inference::UnknownShape)
    .Doc("The optional's components; InvalidArgument when it holds nothing.");

REGISTER_OP("OptionalHasValue")
    .Input("optional: variant").Output("has_value: bool")
    .SetShapeFn(tensoract::shape_inference::ScalarShape)
    .Doc("Whether the optional holds a value.");
