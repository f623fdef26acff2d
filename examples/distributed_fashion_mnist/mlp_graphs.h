// The Fashion-MNIST classifier of examples/distributed_fashion_mnist (784 -> dense 256
// (ReLU) -> dense 10, mean sparse softmax cross-entropy, gradient descent with optional
// momentum), built once for each way the example runs it. Every graph has the same
// variables, initial values and update rule, so they differ only in where each piece runs:
//
//   local   no device constraints: the local runtime (Session::New()) runs it all.
//   sync    variables and their updates on /job:ps/task:0; tower i (forward and backward
//           on its share of the batch) on /job:worker/task:i; the towers' gradients
//           averaged on the ps and applied once per step (TF 1.x in-graph replication).
//   allreduce  no ps: tower i and its own copy of the variables on /job:worker/task:i;
//           each tower's gradients averaged by the workers themselves (CollectiveReduceV2,
//           ring or recursive doubling between the workers) and applied to its own copy,
//           which so stays equal to the others (MultiWorkerMirroredStrategy's way).
//   async   one graph per replica: variables on the ps, the replica's forward and
//           backward on its worker task; each applies its own gradients to the shared
//           variables, never waiting for the other (between-graph replication).
//   backup  one graph per replica, as async, but synchronous: each replica's gradients go
//           to accumulators on the ps, and the chief applies the mean of the first
//           replicas_to_aggregate of each step, dropping late ones (SyncReplicasOptimizer:
//           the whitepaper's backup workers).
//   model   layer 1 and its variables on /job:worker/task:1; layer 2, the loss and their
//           variables on the master's task (worker 0): activations go to worker 0 and
//           their gradients come back every step.
//
// Placeholders have no device: a remote session's feeds and fetches live on the master's
// task, and the master sends each tower its share.
#ifndef TENSORACT_EXAMPLES_DISTRIBUTED_FASHION_MNIST_MLP_GRAPHS_H_
#define TENSORACT_EXAMPLES_DISTRIBUTED_FASHION_MNIST_MLP_GRAPHS_H_

#include <optional>
#include <string>
#include <vector>

#include "client/saver.h"
#include "base/status.h"
#include "messages/graph.pb.h"

namespace tensoract {
namespace distributed_mnist {

struct MlpOptions {
  int hidden = 256;
  double learning_rate = 0.2;
  double momentum = 0;  // MomentumOptimizer with 0 is plain gradient descent
  int64_t seed = 42;
  // Prefixes every node name. The ps keeps variables across sessions, keyed by name, so
  // the modes of one run use different prefixes and never see each other's weights.
  std::string prefix;
  // Adds a Saver of every variable (weights and optimizer slots) to the graph, for
  // checkpoints (the soak test's TrainingLoop).
  bool with_saver = false;
};

// What a backup-mode replica runs besides training (graph/training/sync_replicas.h).
struct SyncReplicasNames {
  std::string local_init;       // initializes this replica's local step (not the shared state)
  std::string local_step_init;  // local step := global step, after the variables are initialized
  std::string token;            // fetched with train: the global step the next step is for
  std::string chief_init, init_tokens, sync_op;  // the chief's (replica 0's graph)
};

// A graph and the names a training loop feeds, fetches and runs.
struct MlpGraph {
  tensorflow::GraphDef def;
  // One images/labels placeholder pair per tower; a batch is split evenly among them.
  std::vector<std::string> images, labels;
  std::string loss;     // scalar: mean cross-entropy of the whole batch
  std::string correct;  // scalar float: how many of the fed images are classified right
  std::string train;    // one update of every variable
  std::string init;     // initializes every variable (weights and momentum)
  std::optional<Saver> saver;  // with MlpOptions::with_saver
  std::optional<SyncReplicasNames> sync_replicas;  // the backup mode's
};

StatusOr<MlpGraph> BuildLocal(const MlpOptions& options);
StatusOr<MlpGraph> BuildSync(const MlpOptions& options, int towers);
StatusOr<MlpGraph> BuildAllReduce(const MlpOptions& options, int towers);
// Replica `task` of the allreduce mode alone, for its own client on its own worker's master
// (as each MultiWorkerMirroredStrategy worker runs its own graph): the same group.
StatusOr<MlpGraph> BuildAllReduceReplica(const MlpOptions& options, int task, int towers);
// Replica `task` of the async mode; every replica's graph names the same variables.
StatusOr<MlpGraph> BuildAsyncReplica(const MlpOptions& options, int task);
// Replica `task` of the backup mode: `total` replicas, the first `replicas_to_aggregate`
// gradients of each step applied. `init` covers the shared state (run by replica 0 only).
StatusOr<MlpGraph> BuildBackupReplica(const MlpOptions& options, int task, int replicas_to_aggregate, int total);
StatusOr<MlpGraph> BuildModelParallel(const MlpOptions& options);

}  // namespace distributed_mnist
}  // namespace tensoract

#endif  // TENSORACT_EXAMPLES_DISTRIBUTED_FASHION_MNIST_MLP_GRAPHS_H_
