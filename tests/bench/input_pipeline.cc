// The input pipeline alone: examples per second from a TFRecord file of Fashion-MNIST
// tf.Examples through TFRecordReader, ParseExample, DecodeRaw, a RandomShuffleQueue
// (min_after_dequeue 10000) fed by `threads` queue runner threads, and dequeue-many of
// `batch`, for `epochs` passes: what tf.data's TFRecordDataset -> map(parse) -> shuffle ->
// batch -> prefetch does in input_pipeline_tf.py (run_input_pipeline_bench.sh runs both).
//
//   input_pipeline FILE.tfrecord BATCH THREADS [EPOCHS]
//   -> "tensoract input pipeline: batch 64, 2 threads: 123456 examples/s (120000 examples in 0.97 s)"
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "client/monitored_session.h"
#include "client/session.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/io_ops.h"
#include "graph/builder/ops.h"
#include "graph/training/input.h"

using namespace tensoract;

namespace {

Status Main(const std::string& file, int64_t batch_size, int threads, int64_t epochs) {
  Scope root = Scope::NewRootScope();
  InputPipeline pipeline;
  StringInputProducerOptions producer;
  producer.num_epochs = epochs;
  producer.shuffle = false;
  Output files = StringInputProducer(root, ops::StringVector({file}), producer, &pipeline);
  ops::ReaderOutputs records =
      ops::ReaderReadUpTo(root, ops::TFRecordReader(root), files, ops::Const(root, int64_t{256}));
  OutputList parsed = ops::ParseExample(
      root, records.value,
      {{"image_raw", tensorflow::DT_STRING, PartialTensorShape(std::vector<int64_t>{}), std::nullopt},
       {"label", tensorflow::DT_INT64, PartialTensorShape(std::vector<int64_t>{}), std::nullopt}});
  TA_RETURN_IF_ERROR(root.status());
  Output pixels = ops::Reshape(root, ops::DecodeRaw(root, parsed[0], tensorflow::DT_UINT8), {-1, 784});
  BatchOptions batch;
  batch.batch_size = batch_size;
  batch.enqueue_many = true;
  batch.num_threads = threads;
  batch.capacity = 10000 + 3 * batch_size;
  batch.min_after_dequeue = 10000;
  batch.allow_smaller_final_batch = true;
  batch.shapes = {PartialTensorShape(std::vector<int64_t>{784}), PartialTensorShape(std::vector<int64_t>{})};
  OutputList out = ShuffleBatch(root, {pixels, parsed[1]}, batch, &pipeline);
  Node* local_init = PipelineLocalInit(root.WithOpName("local_init"), pipeline);
  tensorflow::GraphDef graph;
  TA_RETURN_IF_ERROR(root.ToGraphDef(&graph));

  SessionOptions options;
  options.num_threads = threads;
  TA_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::New(options));
  TA_RETURN_IF_ERROR(session->Create(graph));
  const auto start = std::chrono::steady_clock::now();
  MonitoredSessionOptions monitored;
  monitored.scaffold.local_init_op = local_init->name();
  monitored.queue_runners = pipeline.queue_runners;
  TA_ASSIGN_OR_RETURN(std::unique_ptr<MonitoredSession> input, MonitoredSession::New(session.get(), monitored));
  int64_t examples = 0;
  std::vector<Tensor> batch_out;
  const std::vector<std::string> fetches = {out[0].name(), out[1].name()};
  while (!input->ShouldStop()) {
    Status s = input->Run({}, fetches, {}, &batch_out);
    if (s.code() == error::OUT_OF_RANGE) break;
    TA_RETURN_IF_ERROR(s);
    examples += batch_out[0].dim_size(0);
  }
  TA_RETURN_IF_ERROR(input->Close());
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("tensoract input pipeline: batch %lld, %d threads: %.0f examples/s (%lld examples in %.2f s)\n",
              static_cast<long long>(batch_size), threads, examples / secs, static_cast<long long>(examples), secs);
  return Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: input_pipeline FILE.tfrecord BATCH THREADS [EPOCHS]\n");
    return 2;
  }
  Status s = Main(argv[1], std::atoll(argv[2]), std::atoi(argv[3]), argc > 4 ? std::atoll(argv[4]) : 2);
  if (!s.ok()) {
    std::fprintf(stderr, "input_pipeline: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
