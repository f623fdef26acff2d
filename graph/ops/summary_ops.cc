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

// TensorFlow 2's summary writer: a resource made by SummaryWriter and opened on a log
// directory by CreateSummaryFileWriter; the Write*Summary ops append an event by step.
REGISTER_OP("SummaryWriter")
    .Output("writer: resource")
    .Attr("shared_name: string = ''")
    .Attr("container: string = ''")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::ScalarShape)
    .Doc("A handle to a summary writer (opened by CreateSummaryFileWriter).");

REGISTER_OP("CreateSummaryFileWriter")
    .Input("writer: resource")
    .Input("logdir: string")
    .Input("max_queue: int32")
    .Input("flush_millis: int32")
    .Input("filename_suffix: string")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::NoOutputs)
    .Doc("Opens the writer on a new event file in logdir (once: later calls keep the open one).");

REGISTER_OP("WriteScalarSummary")
    .Input("writer: resource")
    .Input("step: int64")
    .Input("tag: string")
    .Input("value: T")
    .Attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64}")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::NoOutputs)
    .Doc("Writes a scalar summary at step.");

REGISTER_OP("WriteHistogramSummary")
    .Input("writer: resource")
    .Input("step: int64")
    .Input("tag: string")
    .Input("values: T")
    .Attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64, bool} = DT_FLOAT")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::NoOutputs)
    .Doc("Writes a histogram summary at step.");

REGISTER_OP("WriteImageSummary")
    .Input("writer: resource")
    .Input("step: int64")
    .Input("tag: string")
    .Input("tensor: T")
    .Input("bad_color: uint8")
    .Attr("max_images: int >= 1 = 3")
    .Attr("T: {uint8, double, float, half} = DT_FLOAT")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::NoOutputs)
    .Doc("Writes an image summary at step.");

REGISTER_OP("WriteSummary")
    .Input("writer: resource")
    .Input("step: int64")
    .Input("tensor: T")
    .Input("tag: string")
    .Input("summary_metadata: string")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::NoOutputs)
    .Doc("Writes a tensor summary with its plugin's metadata at step (tf.summary.scalar's).");

REGISTER_OP("WriteRawProtoSummary")
    .Input("writer: resource")
    .Input("step: int64")
    .Input("tensor: string")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::NoOutputs)
    .Doc("Writes serialized Summary protos at step.");

REGISTER_OP("FlushSummaryWriter")
    .Input("writer: resource")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::NoOutputs)
    .Doc("Hands what the writer wrote to the operating system.");

REGISTER_OP("CloseSummaryWriter")
    .Input("writer: resource")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::NoOutputs)
    .Doc("Flushes and closes the writer, and deletes its resource.");
