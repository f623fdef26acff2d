#include "actors/executor.h"

#include <deque>

#include <caf/all.hpp>

#include "actors/device_actor.h"
#include "kernels/variable.h"

namespace tensoract {
namespace {

// The step's call frame: feeds in by _Arg index, fetches out by _Retval index.
class StepCallFrame : public CallFrame {
 public:
  StepCallFrame(std::vector<Tensor> args, int num_retvals, std::vector<int> owned_retvals)
      : args_(std::move(args)), retvals_(num_retvals), set_(num_retvals, false), owned_(std::move(owned_retvals)) {}
  Status GetArg(int index, Tensor* value) const override {
    if (index < 0 || index >= static_cast<int>(args_.size())) {
      return errors::InvalidArgument("the step has ", args_.size(), " feeds but the graph asks for feed ", index);
    }
    *value = args_[index];
    return Status::OK();
  }
  Status SetRetval(int index, const Tensor& value) override {
    if (index < 0 || index >= static_cast<int>(retvals_.size())) {
      return errors::Internal("fetch ", index, " is out of range");
    }
    retvals_[index] = value;
    set_[index] = true;
    return Status::OK();
  }
  std::vector<Tensor> TakeRetvals() { return std::move(retvals_); }
  // Every fetch this partition produces is set (other partitions produce the rest).
  bool AllSet() const {
    for (int i : owned_) if (!set_[i]) return false;
    return true;
  }

 private:
  std::vector<Tensor> args_;
  std::vector<Tensor> retvals_;
  std::vector<bool> set_;
  std::vector<int> owned_;
};

// The values in flight for one iteration of one frame. A step without control flow has
// exactly one (the root frame's iteration 0); the control-flow issue adds frames and
// iterations as more of these, keyed by (frame, iteration), with the same slot layout.
struct IterationState {
  std::vector<Tensor> slots;                   // every node's inputs, flat
  std::vector<std::shared_ptr<Var>> ref_slots;  // variables on ref edges (only if the plan has any)
  std::vector<int> pending;                    // per node: inputs not yet arrived
};

struct ExecutorState {
  std::shared_ptr<const ExecutorPlan> plan;
  caf::actor device;
  int64_t step_id = 0;
  bool collect_stats = false;
  std::unique_ptr<StepCallFrame> frame;
  IterationState root;
  std::deque<int> ready;
  NodeInputs scratch;  // the inputs of the node running inline, reused
  KernelDone done;     // its result, reused
  int completed = 0;
  int in_flight = 0;  // kernels on the device's threads or running asynchronously
  bool finished = false;
  std::shared_ptr<tensorflow::StepStats> stats;  // one DeviceStepStats: this partition's device
  tensorflow::DeviceStepStats* device_stats = nullptr;
  std::vector<int64_t> scheduled_ns;  // when each node became ready (with statistics)
  caf::response_promise promise;
  static inline const char* name = "tensoract.executor";
};

using Self = caf::stateful_actor<ExecutorState>;

void Finish(Self* self, Status status) {
  auto& st = self->state;
  if (st.finished) return;
  st.finished = true;
  RunGraphResponse response;
  response.status = std::move(status);
  if (response.status.ok()) response.retvals = st.frame->TakeRetvals();
  response.step_stats = std::move(st.stats);
  st.promise.deliver(std::move(response));
  self->quit();
}

void MakeReady(ExecutorState& st, int node) {
  st.ready.push_back(node);
  if (st.collect_stats) st.scheduled_ns[node] = NowNanos();
}

// One NodeExecStats as TensorFlow fills it: absolute start, times relative to it, outputs.
// `inline_run`: the kernel ran in the executor's handler (an actor-system thread), not on
// the device's pool; trace viewers show the two kinds of thread apart.
void RecordStats(ExecutorState& st, const KernelDone& done, bool inline_run) {
  auto& names = *st.device_stats->mutable_thread_names();
  if (!names.count(done.thread_id)) {
    names[done.thread_id] = inline_run ? "actor thread (inline kernels)" : "device pool or async completion";
  }
  const ExecutorPlan::NodeItem& item = st.plan->nodes[done.node];
  tensorflow::NodeExecStats* ns = st.device_stats->add_node_stats();
  ns->set_node_name(item.kernel->name());
  ns->set_timeline_label(item.timeline_label);
  ns->set_all_start_nanos(done.start_ns);
  ns->set_all_start_micros(done.start_ns / 1000);
  ns->set_op_start_rel_nanos(0);
  ns->set_op_end_rel_nanos(done.end_ns - done.start_ns);
  ns->set_all_end_rel_nanos(done.end_ns - done.start_ns);
  ns->set_op_end_rel_micros((done.end_ns - done.start_ns) / 1000);
  ns->set_all_end_rel_micros((done.end_ns - done.start_ns) / 1000);
  ns->set_scheduled_nanos(st.scheduled_ns[done.node]);
  ns->set_scheduled_micros(st.scheduled_ns[done.node] / 1000);
  ns->set_thread_id(done.thread_id);
  for (size_t i = 0; i < done.outputs.size(); ++i) {
    const Tensor& t = done.outputs[i];
    if (!done.output_refs.empty() && done.output_refs[i]) continue;  // a reference allocates nothing
    tensorflow::NodeOutput* out = ns->add_output();
    out->set_slot(static_cast<int>(i));
    tensorflow::TensorDescription* d = out->mutable_tensor_description();
    d->set_dtype(t.dtype());
    t.shape().AsProto(d->mutable_shape());
    d->mutable_allocation_description()->set_requested_bytes(static_cast<int64_t>(t.TotalBytes()));
    d->mutable_allocation_description()->set_allocator_name(st.plan->device->allocator()->Name());
  }
}

// Hands a finished node's outputs to its consumers and makes them ready as they complete.
void Propagate(Self* self, KernelDone& done) {
  auto& st = self->state;
  IterationState& it = st.root;
  const ExecutorPlan::NodeItem& item = st.plan->nodes[done.node];
  for (size_t port = 0; port < item.consumers.size(); ++port) {
    const auto& consumers = item.consumers[port];
    const std::shared_ptr<Var>* ref = done.output_refs.empty() || !done.output_refs[port] ? nullptr
                                                                                           : &done.output_refs[port];
    for (size_t k = 0; k < consumers.size(); ++k) {
      const ExecutorPlan::Consumer& c = consumers[k];
      if (ref != nullptr) {
        it.ref_slots[c.slot] = *ref;
      } else if (k + 1 == consumers.size()) {
        it.slots[c.slot] = std::move(done.outputs[port]);  // the last consumer takes the value
      } else {
        it.slots[c.slot] = done.outputs[port];
      }
      if (--it.pending[c.node] == 0) MakeReady(st, c.node);
    }
  }
  for (int c : item.control_consumers) {
    if (--it.pending[c] == 0) MakeReady(st, c);
  }
  ++st.completed;
}

// Moves a ready node's inputs out of their slots. A ref edge into a value input is read
// now, under the variable's lock: TensorFlow reads a ref when its consumer runs.
Status TakeInputs(ExecutorState& st, const ExecutorPlan::NodeItem& item, NodeInputs* in) {
  IterationState& it = st.root;
  in->values.clear();
  in->refs.clear();
  for (int i = 0; i < item.num_inputs; ++i) in->values.push_back(std::move(it.slots[item.input_start + i]));
  if (!st.plan->has_ref_edges) return Status::OK();
  if (item.has_ref_input) in->refs.resize(item.num_inputs);
  for (int i = 0; i < item.num_inputs; ++i) {
    std::shared_ptr<Var>& ref = it.ref_slots[item.input_start + i];
    if (ref == nullptr) continue;
    if (IsRefType(item.kernel->input_types()[i])) {
      in->refs[i] = std::move(ref);
    } else {
      auto value = ref->Read();
      ref.reset();
      if (!value.ok()) {
        return value.status().WithContext(StrCat("node '", item.kernel->name(), "' reading input ", i));
      }
      in->values[i] = std::move(value).value();
    }
  }
  return Status::OK();
}

void Complete(Self* self, KernelDone& done, bool inline_run) {
  auto& st = self->state;
  if (!done.status.ok()) return Finish(self, done.status);
  if (st.collect_stats) RecordStats(st, done, inline_run);
  Propagate(self, done);
}

void Process(Self* self) {
  auto& st = self->state;
  while (!st.ready.empty() && !st.finished) {
    int node = st.ready.front();
    st.ready.pop_front();
    const ExecutorPlan::NodeItem& item = st.plan->nodes[node];
    Status taken = TakeInputs(st, item, &st.scratch);
    if (!taken.ok()) return Finish(self, taken);
    if (item.is_async) {
      ++st.in_flight;
      caf::actor me = caf::actor_cast<caf::actor>(self);
      st.plan->RunNodeAsync(node, std::move(st.scratch), st.step_id, st.collect_stats, [me](KernelDone done) {
        caf::anon_send(me, kernel_done_atom::value, std::move(done));
      });
      continue;
    }
    if (item.is_expensive) {
      size_t input_bytes = 0;
      for (const Tensor& t : st.scratch.values) input_bytes += t.TotalBytes();
      if (input_bytes >= kInlineInputBytes) {
        ++st.in_flight;
        self->send(st.device, launch_atom::value,
                   KernelLaunch{st.plan, node, std::move(st.scratch), st.step_id, st.collect_stats,
                                caf::actor_cast<caf::actor>(self)});
        continue;
      }
    }
    st.plan->RunNode(node, st.scratch, st.frame.get(), st.step_id, st.collect_stats, &st.done);
    Complete(self, st.done, /*inline_run=*/true);
  }
  if (st.finished || st.in_flight > 0) return;
  if (st.completed == static_cast<int>(st.plan->nodes.size())) {
    if (!st.frame->AllSet()) return Finish(self, errors::Internal("the step ended without producing every fetch"));
    return Finish(self, Status::OK());
  }
  Finish(self, errors::Internal("step ", st.step_id, " stalled: ", st.plan->nodes.size() - st.completed,
                                " nodes never became ready"));
}

caf::behavior executor_actor(Self* self, ExecutorArgs args) {
  auto& st = self->state;
  st.plan = std::move(args.plan);
  st.device = std::move(args.device);
  st.step_id = args.step_id;
  st.collect_stats = args.collect_stats;
  st.frame = std::make_unique<StepCallFrame>(std::move(args.args), st.plan->num_retvals,
                                             st.plan->retval_indices);
  st.root.slots.resize(st.plan->num_input_slots);
  if (st.plan->has_ref_edges) st.root.ref_slots.resize(st.plan->num_input_slots);
  st.root.pending.reserve(st.plan->nodes.size());
  for (const auto& item : st.plan->nodes) st.root.pending.push_back(item.initial_pending);
  if (st.collect_stats) {
    st.stats = std::make_shared<tensorflow::StepStats>();
    st.device_stats = st.stats->add_dev_stats();
    st.device_stats->set_device(st.plan->device->name());
    st.scheduled_ns.assign(st.plan->nodes.size(), 0);
  }
  return {
      [=](start_atom) {
        auto& st = self->state;
        st.promise = self->make_response_promise();
        for (int root : st.plan->roots) MakeReady(st, root);
        Process(self);  // may already deliver the promise
      },
      [=](kernel_done_atom, KernelDone& done) {
        auto& st = self->state;
        --st.in_flight;
        if (st.finished) return;
        Complete(self, done, /*inline_run=*/false);
        Process(self);
      },
      [=](abort_atom, const Status& status) { Finish(self, status); },
      [=](inspect_atom) -> std::string {
        auto& st = self->state;
        std::string out = StrCat("executor of step ", st.step_id, ": ", st.completed, "/", st.plan->nodes.size(),
                                 " nodes done, ", st.ready.size(), " ready, ", st.in_flight, " in flight");
        // The nodes still waiting, and for how many inputs: what a stuck step is stuck on.
        int shown = 0;
        for (size_t n = 0; n < st.plan->nodes.size() && shown < 20; ++n) {
          if (st.root.pending[n] > 0) {
            out += StrCat("\n  waiting: ", st.plan->nodes[n].kernel->name(), " (", st.root.pending[n], " inputs)");
            ++shown;
          }
        }
        return out;
      },
  };
}

}  // namespace

caf::actor SpawnExecutor(caf::actor_system& system, ExecutorArgs args) {
  return system.spawn(executor_actor, std::move(args));
}

}  // namespace tensoract
