// Summaries (whitepaper 9.1): ops that turn values into a serialized Summary protobuf
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

REGISTER_OP("HistogramSummary")
    .Input("tag: string")
    .Input("values: T")
    .Output("summary: string")
    .Attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64} = DT_FLOAT")
    .SetShapeFn(tensoract::shape_inference::ScalarShape)
    .Doc("A Summary with the histogram of values, in TensorFlow's exponential buckets.");

REGISTER_OP("ImageSummary")
    .Input("tag: string")
    .Input("tensor: T")
    .Output("summary: string")
    .Attr("max_images: int >= 1 = 3")
    .Attr("T: {uint8, float, half, double} = DT_FLOAT")
    .Attr(
        "bad_color: tensor = { dtype: DT_UINT8 tensor_shape { dim { size: 4 } } int_val: 255 int_val: 0 int_val: 0 "
        "int_val: 255 }")
    .SetShapeFn(tensoract::shape_inference::ScalarShape)
    .Doc("A Summary with up to max_images PNG images of a [batch, height, width, channels] tensor.");

REGISTER_OP("TensorSummaryV2")
    .Input("tag: string")
    .Input("tensor: T")
    .Input("serialized_summary_metadata: string")
    .Output("summary: string")
    .Attr("T: type")
    .SetShapeFn(tensoract::shape_inference::ScalarShape)
    .Doc("A Summary holding the tensor itself, with the plugin's metadata.");

REGISTER_OP("MergeSummary")
    .Input("inputs: N * string")
    .Output("summary: string")
    .Attr("N: int >= 1")
    .SetShapeFn(tensoract::shape_inference::ScalarShape)
    .Doc("The union of the values of serialized Summary protos; a tag seen twice is an error.");
