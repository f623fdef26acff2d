#include "examples/fashion_mnist/input_pipeline.h"

#include "graph/builder/array_ops.h"
#include "graph/builder/io_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"

namespace tensoract {
namespace fashion_mnist {

StatusOr<TrainingInput> BuildIdxPipeline(const Scope& root, const PipelineOptions& options) {
  TrainingInput in;
  Scope scope = root.NewSubScope("input");
  // The same epochs of both files, in file order (the shuffling is the queue's).
  auto files = [&](const std::string& name, const std::string& file) {
    StringInputProducerOptions producer;
    producer.num_epochs = options.epochs;
    producer.shuffle = false;
    producer.name = name;
    return StringInputProducer(scope, ops::StringVector({options.data_dir + "/" + file}), producer, &in.pipeline);
  };
  Output image_files = files("image_files", "train-images-idx3-ubyte.gz");
  Output label_files = files("label_files", "train-labels-idx1-ubyte.gz");
  auto reader = [&](const std::string& name, int64_t header, int64_t record) {
    ops::FixedLengthRecordReaderAttrs attrs;
    attrs.header_bytes = header;
    attrs.record_bytes = record;
    attrs.encoding = "GZIP";
    return ops::FixedLengthRecordReader(scope.WithOpName(name), attrs);
  };
  Output n = ops::Const(scope.WithOpName("read_batch"), options.read_batch);
  ops::ReaderOutputs images = ops::ReaderReadUpTo(scope.WithOpName("read_images"),
                                                  reader("image_reader", 16, 784), image_files, n);
  ops::ReaderOutputs labels = ops::ReaderReadUpTo(scope.WithOpName("read_labels"),
                                                  reader("label_reader", 8, 1), label_files, n);
  // The queue holds raw bytes (a quarter of the floats' memory and copying); the batch
  // becomes [0, 1] floats shaped for the model and int32 class ids after the dequeue.
  Output pixels = ops::Reshape(scope, ops::DecodeRaw(scope, images.value, tensorflow::DT_UINT8), {-1, 784});
  Output ids = ops::Reshape(scope, ops::DecodeRaw(scope, labels.value, tensorflow::DT_UINT8), {-1});
  BatchOptions batch;
  batch.batch_size = options.batch_size;
  batch.enqueue_many = true;
  batch.num_threads = 1;  // images and labels stay in lockstep
  batch.capacity = options.capacity;
  batch.min_after_dequeue = options.min_after_dequeue;
  batch.seed = options.seed;
  batch.allow_smaller_final_batch = true;  // every example of the last epoch trains
  batch.shapes = {PartialTensorShape(std::vector<int64_t>{784}), PartialTensorShape(std::vector<int64_t>{})};
  OutputList out = ShuffleBatch(scope, {pixels, ids}, batch, &in.pipeline);
  if (!scope.ok()) return scope.status();
  Output scaled = ops::Mul(scope, ops::Cast(scope, out[0], tensorflow::DT_FLOAT), ops::Const(scope, 1.f / 255.f));
  in.images = options.flatten ? scaled : ops::Reshape(scope, scaled, {-1, 28, 28, 1});
  in.labels = ops::Cast(scope, out[1], tensorflow::DT_INT32);
  TA_RETURN_IF_ERROR(root.status());
  return in;
}

}  // namespace fashion_mnist
}  // namespace tensoract
