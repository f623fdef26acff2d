#include "examples/fashion_mnist/input_pipeline.h"

#include <fstream>

#include "graph/builder/array_ops.h"
#include "graph/builder/io_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"

namespace tensoract {
namespace fashion_mnist {
namespace {

// The epochs of one file, in order (the shuffling is the queue's).
Output FileQueue(const Scope& scope, const std::string& name, const std::string& path, const PipelineOptions& options,
                 InputPipeline* pipeline) {
  StringInputProducerOptions producer;
  producer.num_epochs = options.epochs;
  producer.shuffle = false;
  producer.name = name;
  return StringInputProducer(scope, ops::StringVector({path}), producer, pipeline);
}

// Raw pixels [n, 784] uint8 and labels [n] (any integer type) of each read, shuffled and
// batched; the batch becomes [0, 1] floats shaped for the model and int32 class ids after
// the dequeue (the queue holds bytes: a quarter of the floats' memory and copying), in a
// runner of their own that keeps two such batches ready (PrefetchQueue).
StatusOr<TrainingInput> ShuffleAndBatch(const Scope& scope, const Output& pixels, const Output& labels,
                                        int enqueue_threads, const PipelineOptions& options, TrainingInput in) {
  BatchOptions batch;
  batch.batch_size = options.batch_size;
  batch.enqueue_many = true;
  batch.num_threads = enqueue_threads;
  batch.capacity = options.capacity;
  batch.min_after_dequeue = options.min_after_dequeue;
  batch.seed = options.seed;
  batch.allow_smaller_final_batch = true;  // every example of the last epoch trains
  batch.shapes = {PartialTensorShape(std::vector<int64_t>{784}), PartialTensorShape(std::vector<int64_t>{})};
  OutputList out = ShuffleBatch(scope, {pixels, labels}, batch, &in.pipeline);
  if (!scope.ok()) return scope.status();
  Output scaled = ops::Mul(scope, ops::Cast(scope, out[0], tensorflow::DT_FLOAT), ops::Const(scope, 1.f / 255.f));
  Output images = options.flatten ? scaled : ops::Reshape(scope, scaled, {-1, 28, 28, 1});
  Output ids = ops::Cast(scope, out[1], tensorflow::DT_INT32);
  // Batches made (gathered from the shuffling queue and converted) while the previous step
  // trains: a step starts from a finished batch, as a fed one does.
  OutputList ready = PrefetchQueue(scope, {images, ids}, PrefetchOptions(), &in.pipeline);
  if (!scope.ok()) return scope.status();
  in.images = ready[0];
  in.labels = ready[1];
  return in;
}

// An IDX file of the data directory: the plain one where there is one (nothing to inflate
// every epoch), else Debian's gzipped one.
struct IdxFile {
  std::string path, encoding;
};
IdxFile FindIdxFile(const std::string& dir, const std::string& stem) {
  const std::string plain = dir + "/" + stem;
  if (std::ifstream(plain).good()) return {plain, ""};
  return {plain + ".gz", "GZIP"};
}

StatusOr<TrainingInput> BuildIdxPipeline(const Scope& scope, const PipelineOptions& options) {
  TrainingInput in;
  const IdxFile image_file = FindIdxFile(options.data_dir, "train-images-idx3-ubyte");
  const IdxFile label_file = FindIdxFile(options.data_dir, "train-labels-idx1-ubyte");
  Output image_files = FileQueue(scope, "image_files", image_file.path, options, &in.pipeline);
  Output label_files = FileQueue(scope, "label_files", label_file.path, options, &in.pipeline);
  auto reader = [&](const std::string& name, int64_t header, int64_t record, const std::string& encoding) {
    ops::FixedLengthRecordReaderAttrs attrs;
    attrs.header_bytes = header;
    attrs.record_bytes = record;
    attrs.encoding = encoding;
    return ops::FixedLengthRecordReader(scope.WithOpName(name), attrs);
  };
  Output n = ops::Const(scope.WithOpName("read_batch"), options.read_batch);
  ops::ReaderOutputs images = ops::ReaderReadUpTo(scope.WithOpName("read_images"),
                                                  reader("image_reader", 16, 784, image_file.encoding), image_files, n);
  ops::ReaderOutputs labels = ops::ReaderReadUpTo(scope.WithOpName("read_labels"),
                                                  reader("label_reader", 8, 1, label_file.encoding), label_files, n);
  Output pixels = ops::Reshape(scope, ops::DecodeRaw(scope, images.value, tensorflow::DT_UINT8), {-1, 784});
  Output ids = ops::Reshape(scope, ops::DecodeRaw(scope, labels.value, tensorflow::DT_UINT8), {-1});
  // One reading thread keeps each image with its label (see the header).
  return ShuffleAndBatch(scope, pixels, ids, 1, options, std::move(in));
}

StatusOr<TrainingInput> BuildTFRecordPipeline(const Scope& scope, const PipelineOptions& options) {
  TrainingInput in;
  Output files = FileQueue(scope, "files", options.tfrecord, options, &in.pipeline);
  Output reader = ops::TFRecordReader(scope.WithOpName("reader"));
  ops::ReaderOutputs records =
      ops::ReaderReadUpTo(scope.WithOpName("read"), reader, files, ops::Const(scope, options.read_batch));
  OutputList parsed = ops::ParseExample(
      scope, records.value,
      {{"image_raw", tensorflow::DT_STRING, PartialTensorShape(std::vector<int64_t>{}), std::nullopt},
       {"label", tensorflow::DT_INT64, PartialTensorShape(std::vector<int64_t>{}), std::nullopt}});
  if (!scope.ok()) return scope.status();
  Output pixels = ops::Reshape(scope, ops::DecodeRaw(scope, parsed[0], tensorflow::DT_UINT8), {-1, 784});
  // Each record is whole: two threads may read and parse side by side.
  return ShuffleAndBatch(scope, pixels, parsed[1], 2, options, std::move(in));
}

}  // namespace

StatusOr<TrainingInput> BuildInputPipeline(const Scope& root, const PipelineOptions& options) {
  Scope scope = root.NewSubScope("input");
  return options.tfrecord.empty() ? BuildIdxPipeline(scope, options) : BuildTFRecordPipeline(scope, options);
}

}  // namespace fashion_mnist
}  // namespace tensoract
