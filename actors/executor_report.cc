#include "actors/executor_report.h"

#include "messages/observer.pb.h"

namespace tensoract {

void RecordNodeStats(const ExecutorPlan& plan, const KernelDone& done, int64_t scheduled_ns,
                     tensorflow::DeviceStepStats* stats) {
  const ExecutorPlan::NodeItem& item = plan.nodes[done.node];
  tensorflow::NodeExecStats* ns = stats->add_node_stats();
  ns->set_node_name(item.kernel->name());
  ns->set_timeline_label(item.timeline_label);
  ns->set_all_start_nanos(done.start_ns);
  ns->set_all_start_micros(done.start_ns / 1000);
  ns->set_op_start_rel_nanos(0);
  ns->set_op_end_rel_nanos(done.end_ns - done.start_ns);
  ns->set_all_end_rel_nanos(done.end_ns - done.start_ns);
  ns->set_op_end_rel_micros((done.end_ns - done.start_ns) / 1000);
  ns->set_all_end_rel_micros((done.end_ns - done.start_ns) / 1000);
  ns->set_scheduled_nanos(scheduled_ns);
  ns->set_scheduled_micros(scheduled_ns / 1000);
  ns->set_thread_id(done.thread_id);
  const std::string allocator = plan.device->allocator()->Name();
  int64_t output_bytes = 0;
  for (size_t i = 0; i < done.outputs.size(); ++i) {
    const Tensor& t = done.outputs[i];
    if (!done.output_refs.empty() && done.output_refs[i]) continue;  // a reference allocates nothing
    if (OutputDead(done.dead_outputs, i)) continue;                   // a dead output
    tensorflow::NodeOutput* out = ns->add_output();
    out->set_slot(static_cast<int>(i));
    tensorflow::TensorDescription* d = out->mutable_tensor_description();
    d->set_dtype(t.dtype());
    t.shape().AsProto(d->mutable_shape());
    d->mutable_allocation_description()->set_requested_bytes(static_cast<int64_t>(t.TotalBytes()));
    d->mutable_allocation_description()->set_allocator_name(allocator);
    output_bytes += static_cast<int64_t>(t.TotalBytes());
  }
  if (output_bytes > 0) {
    tensorflow::AllocatorMemoryUsed* memory = ns->add_memory();
    memory->set_allocator_name(allocator);
    memory->set_total_bytes(output_bytes);
    memory->set_peak_bytes(output_bytes);
  }
}

std::string ObserveExecutor(const ExecutorView& view) {
  const ExecutorPlan& plan = *view.plan;
  const int total = plan.frames[0].num_nodes;
  observe::NodeSnapshot part;
  observe::Executor* e = part.add_executors();
  e->set_step_id(view.step_id);
  e->set_device(plan.device->name());
  e->set_age_s(view.age_s);
  e->set_done(view.completed);
  e->set_total(total);
  observe::Actor* actor = part.add_actors();
  actor->set_name(StrCat("executor of step ", view.step_id, " on ", plan.device->name()));
  actor->set_kind("executor");
  actor->set_mailbox(view.mailbox);
  actor->set_doing(view.finished ? "idle"
                                 : StrCat(view.completed, " of ", total, " nodes done, ", view.ready.size(), " ready, ",
                                          view.in_flight, " in flight"));
  if (view.finished) return part.SerializeAsString();
  for (int n : view.ready) e->add_ready(plan.nodes[n].kernel->name());
  const std::vector<int>& running = *view.running;
  const auto waiting = [&](int n) {
    const ExecutorPlan::NodeItem& item = plan.nodes[n];
    return item.frame == 0 && (*view.root_pending)[item.pending_id] > 0;
  };
  const std::vector<std::vector<ExecutorPlan::Producer>> producers = plan.ProducersByNode();
  for (size_t n = 0; n < plan.nodes.size(); ++n) {
    const ExecutorPlan::NodeItem& item = plan.nodes[n];
    if (running[n] > 0) {
      observe::RunningNode* r = e->add_running();
      r->set_name(item.kernel->name());
      r->set_op(item.kernel->type_string());
      if (item.kernel->type_string() == "_Recv") r->set_recv_key(item.transfer_key);
    }
    if (!waiting(static_cast<int>(n))) continue;
    const bool send = item.kernel->type_string() == "_Send";
    if (!send && e->pending_size() >= 50) continue;  // enough to see what a step waits on
    observe::PendingNode* p = send ? e->add_pending_sends() : e->add_pending();
    p->set_name(send ? item.transfer_key : item.kernel->name());
    p->set_op(item.kernel->type_string());
    p->set_missing_inputs((*view.root_pending)[item.pending_id]);
    for (const ExecutorPlan::Producer& in : producers[n]) {
      if (running[in.node] > 0 || waiting(in.node)) p->add_blocked_on(plan.nodes[in.node].kernel->name());
    }
  }
  return part.SerializeAsString();
}

}  // namespace tensoract
