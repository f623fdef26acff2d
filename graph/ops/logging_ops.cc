// Assert, and summaries (whitepaper 9.1): ops that turn values into a serialized Summary protobuf
// (messages/summary.proto) for event files and TensorBoard. Definitions are TensorFlow
// 2.21's.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

REGISTER_OP("ScalarSummary")
    .Input("tags: string")
    .Input("values: T")
    .Output("summary: string")
    .Attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64}")
    .SetShapeFn(tensoract::shape_inference::ScalarShape)
    .Doc("A Summary with one simple_value per tag (tags and values of the same shape).");

REGISTER_OP("Assert")
    .Input("condition: bool")
    .Input("data: T")
    .SetIsStateful()
    .Attr("T: list(type) >= 1")
    .Attr("summarize: int = 3")
    .SetShapeFn(tensoract::shape_inference::NoOutputs)
    .Doc("Fails the step with InvalidArgument, showing data, when condition is false.");
