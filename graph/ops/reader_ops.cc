// Readers (whitepaper 4.7): a reader op makes a reader (a resource, kernels/io/readers.h);
// ReaderReadV2 / ReaderReadUpToV2 take records from it, dequeuing file names from a queue
// of strings as it needs them. Definitions are TensorFlow 2.21's.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

Status ReadShape(InferenceContext* c) {
  c->set_output(0, InferenceContext::Scalar());
  c->set_output(1, InferenceContext::Scalar());
  return Status::OK();
}

Status ReadUpToShape(InferenceContext* c) {
  PartialTensorShape n;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &n));
  c->set_output(0, PartialTensorShape(std::vector<int64_t>{-1}));
  c->set_output(1, PartialTensorShape(std::vector<int64_t>{-1}));
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

REGISTER_OP("FixedLengthRecordReaderV2")
    .Output("reader_handle: resource")
    .Attr("header_bytes: int = 0")
    .Attr("record_bytes: int")
    .Attr("footer_bytes: int = 0")
    .Attr("hop_bytes: int = 0")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("encoding: string = ''")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::ScalarShape)
    .Doc("A reader of fixed-length records after a header (e.g. IDX files).");

REGISTER_OP("TFRecordReaderV2")
    .Output("reader_handle: resource")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("compression_type: string = ''")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::ScalarShape)
    .Doc("A reader of TFRecord files.");

REGISTER_OP("WholeFileReaderV2")
    .Output("reader_handle: resource")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::ScalarShape)
    .Doc("A reader giving each file whole, keyed by its name.");

REGISTER_OP("TextLineReaderV2")
    .Output("reader_handle: resource")
    .Attr("skip_header_lines: int = 0")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::ScalarShape)
    .Doc("A reader giving the lines of text files.");

REGISTER_OP("ReaderReadV2")
    .Input("reader_handle: resource")
    .Input("queue_handle: resource")
    .Output("key: string")
    .Output("value: string")
    .SetIsStateful()
    .SetShapeFn(tensoract::ReadShape)
    .Doc("The reader's next record, dequeuing work from the queue as needed.");

REGISTER_OP("ReaderReadUpToV2")
    .Input("reader_handle: resource")
    .Input("queue_handle: resource")
    .Input("num_records: int64")
    .Output("keys: string")
    .Output("values: string")
    .SetIsStateful()
    .SetShapeFn(tensoract::ReadUpToShape)
    .Doc("Up to num_records records (fewer only once the queue is closed and drained).");

REGISTER_OP("ReaderNumRecordsProducedV2")
    .Input("reader_handle: resource")
    .Output("records_produced: int64")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::ScalarShape);

REGISTER_OP("ReaderNumWorkUnitsCompletedV2")
    .Input("reader_handle: resource")
    .Output("units_completed: int64")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::ScalarShape);

REGISTER_OP("ReaderResetV2")
    .Input("reader_handle: resource")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::NoOutputs);
