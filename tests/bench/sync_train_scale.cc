// Synchronous data-parallel training against the number of workers, on the cluster lab:
// examples/distributed_fashion_mnist's MLP (784 -> hidden -> 10) with N towers, one per
// worker, in two ways: through the ps (`sync`: the ps holds the weights, averages the
// towers' gradients and applies them: every gradient crosses the ps's link) and without
// one (`allreduce`: each worker keeps its own weights and the workers average their
// gradients with CollectiveReduceV2). One client drives every task through worker 0's
// master; or, with --targets (allreduce), one client per worker, each running its own
// replica's graph through its own worker's master and feeding it there, as each
// MultiWorkerMirroredStrategy worker does; with --replica R as well, this process is
// replica R's client alone (run one in each worker's namespace, where it feeds its worker
// without crossing a link, as each MWMS worker reads its own input). Each tower gets
// `batch` Fashion-MNIST images a step. Prints examples/s.
//
//   sync_train_scale --target tensoract://10.77.3.2:2222 --token-file F --workers N
//                    --mode sync|allreduce [--hidden 4096] [--batch 64] [--steps 20]
//                    [--targets tensoract://A,tensoract://B,... [--replica R]]
//                    [--data-dir /usr/share/datasets/fashion-mnist]
//                    [--master-heartbeat-timeout-ms 3000]
// (The last is SessionOptions::master_heartbeat_timeout_ms: many clients and nodes on 2
// cores, or slow links, may want more than the default.)
// The lab must have job ps (task 0) and job worker (tasks 0..N-1): cluster-lab.sh --ps 1.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "client/session.h"
#include "data/fashion_mnist.h"
#include "examples/distributed_fashion_mnist/mlp_graphs.h"
#include "examples/distributed_fashion_mnist/runner.h"

namespace tensoract {
namespace {

using distributed_mnist::BatchStream;
using distributed_mnist::MlpGraph;
using distributed_mnist::MlpOptions;

// Runs `graph` on a new session with `options`: initialized, 2 warm-up steps (they register
// the graphs, form the group, open connections), then `steps` timed ones into `stats`.
Status WarmThenTime(const SessionOptions& options, const MlpGraph& graph, BatchStream& stream,
                    const std::string& label, int steps, distributed_mnist::TrainStats* stats) {
  TA_ASSIGN_OR_RETURN(auto session, Session::New(options));
  TA_RETURN_IF_ERROR(session->Create(graph.def));
  TA_RETURN_IF_ERROR(session->Run({}, {}, {graph.init}, nullptr));
  distributed_mnist::TrainOptions train;
  train.label = label;
  train.steps = 2;
  distributed_mnist::TrainStats warm;
  TA_RETURN_IF_ERROR(distributed_mnist::Train(*session, graph, stream, train, &warm));
  train.steps = steps;
  return distributed_mnist::Train(*session, graph, stream, train, stats);
}

int Main(int argc, char** argv) {
  std::string target, targets, token_file, mode = "allreduce", data_dir = "/usr/share/datasets/fashion-mnist";
  int workers = 1, hidden = 4096, batch = 64, steps = 20, only_replica = -1;
  int64_t master_heartbeat_timeout_ms = SessionOptions().master_heartbeat_timeout_ms;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--target") target = value;
    else if (flag == "--targets") targets = value;
    else if (flag == "--token-file") token_file = value;
    else if (flag == "--workers") workers = std::stoi(value);
    else if (flag == "--mode") mode = value;
    else if (flag == "--hidden") hidden = std::stoi(value);
    else if (flag == "--batch") batch = std::stoi(value);
    else if (flag == "--steps") steps = std::stoi(value);
    else if (flag == "--replica") only_replica = std::stoi(value);
    else if (flag == "--data-dir") data_dir = value;
    else if (flag == "--master-heartbeat-timeout-ms") master_heartbeat_timeout_ms = std::stoll(value);
    else {
      std::fprintf(stderr, "sync_train_scale: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  auto fail = [](const Status& s) {
    std::fprintf(stderr, "sync_train_scale: %s\n", s.ToString().c_str());
    return 1;
  };
  auto train = LoadFashionMnist(data_dir, "train");
  if (!train.ok()) return fail(train.status());
  MlpOptions options;
  options.hidden = hidden;
  options.learning_rate = 0.05;
  options.prefix = mode;
  SessionOptions session_options;
  session_options.target = target;
  std::getline(std::ifstream(token_file), session_options.cluster_token);
  session_options.step_timeout_ms = 600000;
  session_options.master_heartbeat_timeout_ms = master_heartbeat_timeout_ms;
  distributed_mnist::TrainStats stats;
  if (!targets.empty()) {
    // One client per worker: replica r's graph through worker r's master, fed there.
    if (mode != "allreduce") return fail(errors::InvalidArgument("--targets is for --mode allreduce"));
    std::vector<std::string> masters;
    std::stringstream list(targets);
    for (std::string t; std::getline(list, t, ',');) masters.push_back(t);
    if (static_cast<int>(masters.size()) != workers) {
      return fail(errors::InvalidArgument("--targets names ", masters.size(), " masters for ", workers, " workers"));
    }
    std::vector<distributed_mnist::TrainStats> per(workers);
    std::vector<Status> statuses(workers);
    if (only_replica >= workers) {
      return fail(errors::InvalidArgument("--replica ", only_replica, " of ", workers, " workers"));
    }
    std::vector<std::thread> threads;
    for (int r = 0; r < workers; ++r) {
      if (only_replica >= 0 && r != only_replica) continue;
      threads.emplace_back([&, r] {
        statuses[r] = [&]() -> Status {
          TA_ASSIGN_OR_RETURN(MlpGraph graph, distributed_mnist::BuildAllReduceReplica(options, r, workers));
          SessionOptions mine = session_options;
          mine.target = masters[r];
          // Each replica its own share of the data, as a sharded input pipeline gives it.
          BatchStream stream(&train.value(), batch, 42 + r);
          return WarmThenTime(mine, graph, stream, StrCat(mode, " replica ", r), steps, &per[r]);
        }();
      });
    }
    for (auto& t : threads) t.join();
    for (const Status& s : statuses) {
      if (!s.ok()) return fail(s);
    }
    for (const auto& p : per) {
      if (p.steps == 0) continue;  // another process's replica
      stats.examples += p.examples;
      stats.seconds = std::max(stats.seconds, p.seconds);
      stats.steps = p.steps;
      stats.last_loss = p.last_loss;
    }
  } else {
    auto graph = mode == "sync" ? distributed_mnist::BuildSync(options, workers)
                                : distributed_mnist::BuildAllReduce(options, workers);
    if (!graph.ok()) return fail(graph.status());
    BatchStream stream(&train.value(), static_cast<int64_t>(batch) * workers, 42);
    if (Status s = WarmThenTime(session_options, *graph, stream, mode, steps, &stats); !s.ok()) return fail(s);
  }
  const int64_t params = 784LL * hidden + hidden + hidden * 10LL + 10;
  std::printf("%s workers %d hidden %d params %lld batch/worker %d: %.1f examples/s (%.1f ms a step, loss %.4f)\n",
              mode.c_str(), workers, hidden, static_cast<long long>(params), batch, stats.examples / stats.seconds,
              1e3 * stats.seconds / stats.steps, stats.last_loss);
  return 0;
}

}  // namespace
}  // namespace tensoract

int main(int argc, char** argv) { return tensoract::Main(argc, argv); }
