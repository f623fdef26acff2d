// The main job's input pipeline alone (`fashion_mnist --input pipeline` without the model):
// Debian's gzipped IDX files through FixedLengthRecordReaders, DecodeRaw, the shuffling
// queue, the conversion to [0, 1] floats and the prefetch queue, as
// examples/fashion_mnist/input_pipeline.cc builds them, drained batch by batch for `epochs`
// passes. It prints the rate and the CPU time per example (the process's, all threads):
// what the pipeline takes from the cores a training step shares with it. CPU time varies
// far less than the rate on a noisy VM, so compare builds by it.
//
//   fashion_mnist_input DATA_DIR [BATCH] [EPOCHS]
//   -> "fashion_mnist input: batch 64: 150000 examples/s, 9.8 us of CPU per example (120000 examples in 0.80 s)"
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "client/monitored_session.h"
#include "client/session.h"
#include "examples/fashion_mnist/input_pipeline.h"

using namespace tensoract;

namespace {

double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto secs = [](const timeval& t) { return t.tv_sec + t.tv_usec * 1e-6; };
  return secs(usage.ru_utime) + secs(usage.ru_stime);
}

Status Main(const std::string& data_dir, int64_t batch_size, int64_t epochs) {
  Scope root = Scope::NewRootScope();
  fashion_mnist::PipelineOptions options;
  options.data_dir = data_dir;
  options.epochs = epochs;
  options.batch_size = batch_size;
  TA_ASSIGN_OR_RETURN(fashion_mnist::TrainingInput input, fashion_mnist::BuildInputPipeline(root, options));
  Node* local_init = PipelineLocalInit(root.WithOpName("local_init"), input.pipeline);
  tensorflow::GraphDef graph;
  TA_RETURN_IF_ERROR(root.ToGraphDef(&graph));

  TA_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::New(SessionOptions()));
  TA_RETURN_IF_ERROR(session->Create(graph));
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = CpuSeconds();
  MonitoredSessionOptions monitored;
  monitored.scaffold.local_init_op = local_init->name();
  monitored.queue_runners = input.pipeline.queue_runners;
  TA_ASSIGN_OR_RETURN(std::unique_ptr<MonitoredSession> batches, MonitoredSession::New(session.get(), monitored));
  int64_t examples = 0;
  std::vector<Tensor> out;
  const std::vector<std::string> fetches = {input.images.name(), input.labels.name()};
  while (!batches->ShouldStop()) {
    Status s = batches->Run({}, fetches, {}, &out);
    if (s.code() == error::OUT_OF_RANGE) break;
    TA_RETURN_IF_ERROR(s);
    examples += out[0].dim_size(0);
  }
  TA_RETURN_IF_ERROR(batches->Close());
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cpu = CpuSeconds() - cpu_start;
  std::printf("fashion_mnist input: batch %lld: %.0f examples/s, %.2f us of CPU per example (%lld examples in %.2f s)\n",
              static_cast<long long>(batch_size), examples / secs, cpu * 1e6 / examples,
              static_cast<long long>(examples), secs);
  return Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: fashion_mnist_input DATA_DIR [BATCH] [EPOCHS]\n");
    return 2;
  }
  Status s = Main(argv[1], argc > 2 ? std::atoll(argv[2]) : 64, argc > 3 ? std::atoll(argv[3]) : 2);
  if (!s.ok()) {
    std::fprintf(stderr, "fashion_mnist_input: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
