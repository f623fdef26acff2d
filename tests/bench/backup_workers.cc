// Backup workers against a straggler, on the cluster lab (run_backup_workers.sh): a ps and
// N workers, each worker a replica with its own client session (between-graph
// replication, SyncReplicasOptimizer), the chief's sync op applying the mean of the first
// `aggregate` gradients of each global step. With aggregate = N every step waits for the
// slowest worker; with aggregate < N the slowest are backups whose late gradients are
// dropped. Prints global steps/s.
//
//   backup_workers --target tensoract://10.77.3.2:2222 --token-file F --workers N
//                  --aggregate K [--hidden 1024] [--batch 64] [--steps 30] [--label TEXT]
//                  [--data-dir /usr/share/datasets/fashion-mnist]
// The lab must have job ps (task 0) and job worker (tasks 0..N-1): cluster-lab.sh --ps 1.
#include <cstdio>
#include <fstream>
#include <string>

#include "client/session.h"
#include "data/fashion_mnist.h"
#include "examples/distributed_fashion_mnist/mlp_graphs.h"
#include "examples/distributed_fashion_mnist/runner.h"

namespace tensoract {
namespace {

int Main(int argc, char** argv) {
  std::string target, token_file, label, data_dir = "/usr/share/datasets/fashion-mnist";
  int workers = 2, aggregate = 2, hidden = 1024, batch = 64, steps = 30;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--target") target = value;
    else if (flag == "--token-file") token_file = value;
    else if (flag == "--workers") workers = std::stoi(value);
    else if (flag == "--aggregate") aggregate = std::stoi(value);
    else if (flag == "--hidden") hidden = std::stoi(value);
    else if (flag == "--batch") batch = std::stoi(value);
    else if (flag == "--steps") steps = std::stoi(value);
    else if (flag == "--label") label = value;
    else if (flag == "--data-dir") data_dir = value;
    else {
      std::fprintf(stderr, "backup_workers: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  auto fail = [](const Status& s) {
    std::fprintf(stderr, "backup_workers: %s\n", s.ToString().c_str());
    return 1;
  };
  auto train = LoadFashionMnist(data_dir, "train");
  if (!train.ok()) return fail(train.status());
  distributed_mnist::MlpOptions options;
  options.hidden = hidden;
  options.learning_rate = 0.05;
  // Each run its own names on the ps: variables, accumulators and tokens.
  options.prefix = StrCat("backup_", aggregate, "_of_", workers, label.empty() ? "" : "_", label);
  std::vector<distributed_mnist::MlpGraph> graphs;
  std::vector<std::unique_ptr<Session>> sessions;
  std::vector<Session*> replicas;
  SessionOptions session_options;
  session_options.target = target;
  std::getline(std::ifstream(token_file), session_options.cluster_token);
  session_options.step_timeout_ms = 600000;
  for (int r = 0; r <= workers; ++r) {  // the last one is the chief's
    auto session = Session::New(session_options);
    if (!session.ok()) return fail(session.status());
    sessions.push_back(std::move(session).value());
    if (r == workers) break;
    auto graph = distributed_mnist::BuildBackupReplica(options, r, aggregate, workers);
    if (!graph.ok()) return fail(graph.status());
    graphs.push_back(std::move(graph).value());
    replicas.push_back(sessions.back().get());
  }
  distributed_mnist::BackupStats stats;
  if (Status s = distributed_mnist::TrainBackup(replicas, *sessions.back(), graphs, train.value(), batch, 42, steps,
                                                &stats);
      !s.ok()) {
    return fail(s);
  }
  int64_t computed = 0;
  std::string per_replica;
  for (int64_t e : stats.examples) computed += e, per_replica += StrCat(per_replica.empty() ? "" : "/", e / batch);
  std::printf("backup %d of %d%s%s: %.2f global steps/s (%.1f ms a step); replica steps %s\n", aggregate, workers,
              label.empty() ? "" : " ", label.c_str(), steps / stats.seconds, 1e3 * stats.seconds / steps,
              per_replica.c_str());
  return 0;
}

}  // namespace
}  // namespace tensoract

int main(int argc, char** argv) { return tensoract::Main(argc, argv); }
