// SyncReplicasOptimizer: synchronous data-parallel training through a parameter server,
// with backup workers (whitepaper section 7; TensorFlow 1.x's
// tf.compat.v1.train.SyncReplicasOptimizer, built the same way).
//
// Between-graph replication: each of total_num_replicas workers builds its own graph with
// the same names on the ps and runs its own training loop. A replica's step applies its
// gradients to a conditional accumulator per variable (on the ps, shared by name), tagged
// with its local step, then waits for a token from the ps's token queue and takes the
// token's global step as its next local step. The chief also runs the sync op in a loop
// (its queue runner): take replicas_to_aggregate gradients from every accumulator (their
// mean), apply them with the wrapped optimizer, advance the global step, and put one token
// per replica into the queue. With more replicas than replicas_to_aggregate, the slowest
// are backups: the step goes on with the first k gradients, and a late gradient (its local
// step now below the global step) is dropped by its accumulator, so a straggler or a
// frozen worker does not hold the others back.
//
//   SyncReplicasOptimizer sync(&momentum, /*replicas_to_aggregate=*/2, /*total_num_replicas=*/3);
//   SyncReplicasOps ops = sync.ApplyGradients(ps, worker, vars, grads, global_step);
//   every replica: init variables (the chief), run ops.local_step_init, then ops.train per batch;
//   the chief, after init: ops.chief_init, ops.init_tokens, then QueueRunner::Start with
//   ops.chief_queue_runner.
#ifndef TENSORACT_GRAPH_TRAINING_SYNC_REPLICAS_H_
#define TENSORACT_GRAPH_TRAINING_SYNC_REPLICAS_H_

#include <vector>

#include "graph/training/input.h"
#include "graph/training/optimizers.h"
#include "graph/training/variables.h"

namespace tensoract {

struct SyncReplicasOps {
  Node* train = nullptr;            // the replica's step: apply, wait for a token, take its step
  Output token;                     // (fetched with train) the global step the next step is for
  Node* local_step_init = nullptr;  // local_step := global_step; each replica, after init
  Node* chief_init = nullptr;       // every accumulator's global step := global_step
  Node* init_tokens = nullptr;      // replicas_to_aggregate tokens: the first step may start
  QueueRunnerSpec chief_queue_runner;  // the sync op, again and again, on the chief
  Variable local_step;              // the replica's own (a local variable: never checkpointed)
};

class SyncReplicasOptimizer {
 public:
  // `optimizer` applies the aggregated gradients (its state lives with the variables).
  SyncReplicasOptimizer(Optimizer* optimizer, int replicas_to_aggregate, int total_num_replicas);

  // Builds one replica's ops: the accumulators, token queue and sync op in `shared` (the
  // device of the variables and of `global_step`, an int64 scalar), the local step in
  // `local` (the replica's device). grads[i] is vars[i]'s gradient. Errors go to the
  // scopes' status.
  SyncReplicasOps ApplyGradients(const Scope& shared, const Scope& local, const std::vector<Variable>& vars,
                                 const std::vector<Output>& grads, const Variable& global_step);

 private:
  Optimizer* const optimizer_;
  const int replicas_to_aggregate_, total_num_replicas_;
};

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_TRAINING_SYNC_REPLICAS_H_
