#include "graph/training/sync_replicas.h"

#include <algorithm>

#include "graph/builder/accumulator_ops.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/data_flow_ops.h"
#include "graph/builder/ops.h"

namespace tensoract {

SyncReplicasOptimizer::SyncReplicasOptimizer(Optimizer* optimizer, int replicas_to_aggregate, int total_num_replicas)
    : optimizer_(optimizer), replicas_to_aggregate_(replicas_to_aggregate), total_num_replicas_(total_num_replicas) {}

SyncReplicasOps SyncReplicasOptimizer::ApplyGradients(const Scope& shared, const Scope& local,
                                                      const std::vector<Variable>& vars,
                                                      const std::vector<Output>& grads, const Variable& global_step) {
  SyncReplicasOps out;
  if (replicas_to_aggregate_ < 1 || total_num_replicas_ < 1) {
    shared.UpdateStatus(errors::InvalidArgument("SyncReplicasOptimizer: replicas_to_aggregate (",
                                                replicas_to_aggregate_, ") and total_num_replicas (",
                                                total_num_replicas_, ") must be positive"));
    return out;
  }
  if (vars.size() != grads.size()) {
    shared.UpdateStatus(errors::InvalidArgument("SyncReplicasOptimizer: ", vars.size(), " variables but ",
                                                grads.size(), " gradients"));
    return out;
  }
  const DataType kStep = tensorflow::DT_INT64;
  Scope sync = shared.NewSubScope("sync_replicas");
  Scope mine = local.NewSubScope("sync_replicas");
  out.local_step = NewVariable(mine, "sync_rep_local_step", [](const Scope& s) { return ops::Const(s, int64_t{0}); });
  out.local_step_init =
      ops::AssignVariableOp(mine.WithOpName("local_step_init"), out.local_step.handle, global_step.Read(sync));

  // One accumulator per variable, shared by every replica's graph through its name.
  std::vector<Output> accumulators;
  std::vector<Output> applies;
  for (size_t i = 0; i < vars.size(); ++i) {
    ops::AccumulatorAttrs attrs;
    attrs.shared_name = vars[i].name() + "/grad_accum";
    Output acc = ops::ConditionalAccumulator(sync, vars[i].dtype, vars[i].shape, attrs);
    accumulators.push_back(acc);
    applies.push_back(Output(ops::AccumulatorApplyGradient(sync, acc, out.local_step.value, grads[i])));
  }

  // The tokens: the global step a replica's next step is for.
  ops::QueueAttrs token_attrs;
  token_attrs.shapes = {PartialTensorShape(std::vector<int64_t>{})};
  // Shared by name, as the accumulators are; named after the global step so that two models
  // on one ps (or two runs of one) never share tokens.
  token_attrs.shared_name = global_step.name() + "/sync_token_q";
  Output tokens = ops::FIFOQueue(sync.WithOpName("sync_token_q"), {kStep}, token_attrs);
  OutputList token = ops::QueueDequeue(sync.WithControlDependencies(applies), tokens, {kStep});
  if (token.empty()) return out;
  out.token = token[0];
  out.train = ops::AssignVariableOp(mine.WithOpName("train"), out.local_step.handle, token[0]);

  // The chief's sync op: the mean of the first replicas_to_aggregate gradients of each
  // variable, applied; then a token per replica for the new global step.
  std::vector<Output> aggregated;
  for (size_t i = 0; i < vars.size(); ++i) {
    aggregated.push_back(ops::AccumulatorTakeGradient(sync, accumulators[i], replicas_to_aggregate_, vars[i].dtype,
                                                      vars[i].shape));
  }
  Node* update = optimizer_->ApplyGradients(sync, vars, aggregated, &global_step);
  if (update == nullptr) return out;
  const int tokens_per_step = std::max(total_num_replicas_, replicas_to_aggregate_);
  Scope after = sync.WithControlDependencies({Output(update)});
  Node* sync_op = ops::QueueEnqueueMany(after.WithOpName("sync_op"), tokens,
                                        {ops::Fill(after, {tokens_per_step}, global_step.Read(after))});
  out.init_tokens = ops::QueueEnqueueMany(
      sync.WithOpName("init_tokens"), tokens, {ops::Fill(sync, {replicas_to_aggregate_}, global_step.Read(sync))});

  std::vector<Output> set_steps;
  for (const Output& acc : accumulators) {
    set_steps.push_back(Output(ops::AccumulatorSetGlobalStep(sync, acc, global_step.Read(sync))));
  }
  out.chief_init = ops::NoOp(sync.WithOpName("chief_init").WithControlDependencies(set_steps));

  // QueueRunner wants a queue to close when its thread ends: a dummy one, as TensorFlow's.
  ops::QueueAttrs dummy_attrs;
  dummy_attrs.capacity = 1;
  dummy_attrs.shared_name = global_step.name() + "/dummy_queue";
  Output dummy = ops::FIFOQueue(sync.WithOpName("dummy_queue"), {tensorflow::DT_INT32}, dummy_attrs);
  Node* close = ops::QueueClose(sync.WithOpName("dummy_queue_close"), dummy);
  Node* cancel = ops::QueueClose(sync.WithOpName("dummy_queue_cancel"), dummy, /*cancel_pending_enqueues=*/true);
  if (sync_op == nullptr || close == nullptr || cancel == nullptr) return out;
  out.chief_queue_runner.queue_name = dummy.node->name();
  out.chief_queue_runner.enqueue_op_names = {sync_op->name()};
  out.chief_queue_runner.close_op_name = close->name();
  out.chief_queue_runner.cancel_op_name = cancel->name();
  return out;
}

}  // namespace tensoract
