// Assert: a step that checks a condition. Definitions are TensorFlow 2.21's.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

REGISTER_OP("Assert")
    .Input("condition: bool")
    .Input("data: T")
    .SetIsStateful()
    .Attr("T: list(type) >= 1")
    .Attr("summarize: int = 3")
    .SetShapeFn(tensoract::shape_inference::NoOutputs)
    .Doc("Fails the step with InvalidArgument, showing data, when condition is false.");
