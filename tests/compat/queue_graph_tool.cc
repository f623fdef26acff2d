// queue_graph_tool: trains a TensorFlow 1 graph that reads its input inside the graph
// (queues, readers, shuffle_batch) under a MonitoredSession, as tf.train's
// MonitoredSession would, and prints what tests/compat/tf_input_pipeline_compat.py
// compares with TensorFlow:
//
//   queue_graph_tool GRAPH.pb SPEC
//   -> "steps N", "examples N" and "fetch NAME VALUE" for each fetch after training
//
// SPEC is a text file of lines:
//   runner QUEUE CLOSE_OP CANCEL_OP ENQUEUE_OP...   (a QueueRunnerDef of the graph's collection)
//   init OP | local_init OP | train OP | batch TENSOR (its first dimension counts examples)
//   fetch TENSOR                                    (fetched once training has ended)
#include <cstdio>
#include <fstream>
#include <sstream>

#include "base/proto_io.h"
#include "client/monitored_session.h"
#include "client/session.h"

using namespace tensoract;

namespace {

Status Main(const std::string& graph_path, const std::string& spec_path) {
  tensorflow::GraphDef graph;
  TA_RETURN_IF_ERROR(ReadBinaryProto(graph_path, &graph));
  std::ifstream spec_file(spec_path);
  if (!spec_file) return errors::NotFound("cannot open ", spec_path);
  MonitoredSessionOptions options;
  std::string train, batch;
  std::vector<std::string> fetches;
  for (std::string line; std::getline(spec_file, line);) {
    std::istringstream words(line);
    std::string kind;
    words >> kind;
    if (kind == "runner") {
      QueueRunnerSpec runner;
      words >> runner.queue_name >> runner.close_op_name >> runner.cancel_op_name;
      for (std::string op; words >> op;) runner.enqueue_op_names.push_back(op);
      options.queue_runners.push_back(runner);
    } else if (kind == "init") {
      words >> options.scaffold.init_op;
    } else if (kind == "local_init") {
      words >> options.scaffold.local_init_op;
    } else if (kind == "train") {
      words >> train;
    } else if (kind == "batch") {
      words >> batch;
    } else if (kind == "fetch") {
      fetches.emplace_back();
      words >> fetches.back();
    } else if (!kind.empty()) {
      return errors::InvalidArgument(spec_path, ": unknown line '", line, "'");
    }
  }
  TA_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::New());
  TA_RETURN_IF_ERROR(session->Create(graph));
  TA_ASSIGN_OR_RETURN(std::unique_ptr<MonitoredSession> training, MonitoredSession::New(session.get(), options));
  int64_t steps = 0, examples = 0;
  std::vector<Tensor> out;
  while (!training->ShouldStop()) {
    Status s = training->Run({}, {batch}, {train}, &out);
    if (s.code() == error::OUT_OF_RANGE) break;
    TA_RETURN_IF_ERROR(s);
    ++steps;
    examples += out[0].dim_size(0);
  }
  TA_RETURN_IF_ERROR(training->Close());
  std::printf("steps %lld\nexamples %lld\n", static_cast<long long>(steps), static_cast<long long>(examples));
  TA_RETURN_IF_ERROR(session->Run({}, fetches, {}, &out));
  for (size_t i = 0; i < fetches.size(); ++i) {
    std::printf("fetch %s %.9g\n", fetches[i].c_str(), out[i].base<float>()[0]);
  }
  return Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: queue_graph_tool GRAPH.pb SPEC\n");
    return 2;
  }
  Status s = Main(argv[1], argv[2]);
  if (!s.ok()) {
    std::fprintf(stderr, "queue_graph_tool: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
