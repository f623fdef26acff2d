#include "actors/executor.h"

#include <deque>

#include <caf/all.hpp>

#include "actors/device_actor.h"

namespace tensoract {
namespace {

// The step's call frame: feeds in by _Arg index, fetches out by _Retval index.
class StepCallFrame : public CallFrame {
 public:
  StepCallFrame(std::vector<Tensor> args, int num_retvals)
      : args_(std::move(args)), retvals_(num_retvals), set_(num_retvals, false) {}
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
  bool AllSet() const {
    for (bool b : set_) if (!b) return false;
    return true;
  }

 private:
  std::vector<Tensor> args_;
  std::vector<Tensor> retvals_;
  std::vector<bool> set_;
};

struct ExecutorState {
  std::shared_ptr<const ExecutorPlan> plan;
  caf::actor device;
  int64_t step_id = 0;
  std::unique_ptr<StepCallFrame> frame;
  std::vector<Tensor> slots;  // every node's inputs, flat
  std::vector<int> pending;   // per node: inputs not yet arrived
  std::deque<int> ready;
  int completed = 0;
  int in_flight = 0;  // kernels on the device's threads
  bool finished = false;
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
  st.promise.deliver(std::move(response));
  self->quit();
}

// Hands a finished node's outputs to its consumers and makes them ready as they complete.
void Propagate(Self* self, int node, std::vector<Tensor>& outputs) {
  auto& st = self->state;
  const ExecutorPlan::NodeItem& item = st.plan->nodes[node];
  for (size_t port = 0; port < item.consumers.size(); ++port) {
    for (const ExecutorPlan::Consumer& c : item.consumers[port]) {
      st.slots[c.slot] = outputs[port];
      if (--st.pending[c.node] == 0) st.ready.push_back(c.node);
    }
  }
  for (int c : item.control_consumers) {
    if (--st.pending[c] == 0) st.ready.push_back(c);
  }
  // This node's inputs are no longer needed: let their buffers go as early as possible.
  for (int i = 0; i < item.num_inputs; ++i) st.slots[item.input_start + i] = Tensor();
  ++st.completed;
}

void Process(Self* self) {
  auto& st = self->state;
  while (!st.ready.empty() && !st.finished) {
    int node = st.ready.front();
    st.ready.pop_front();
    const ExecutorPlan::NodeItem& item = st.plan->nodes[node];
    std::vector<Tensor> inputs(st.slots.begin() + item.input_start,
                               st.slots.begin() + item.input_start + item.num_inputs);
    size_t input_bytes = 0;
    for (const Tensor& t : inputs) input_bytes += t.TotalBytes();
    if (item.kernel->IsExpensive() && input_bytes >= kInlineInputBytes) {
      ++st.in_flight;
      self->send(st.device, launch_atom::value,
                 KernelLaunch{st.plan, node, std::move(inputs), st.step_id, caf::actor_cast<caf::actor>(self)});
      continue;
    }
    KernelDone done = st.plan->RunNode(node, inputs, st.frame.get(), st.step_id);
    if (!done.status.ok()) return Finish(self, done.status);
    Propagate(self, node, done.outputs);
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
  st.frame = std::make_unique<StepCallFrame>(std::move(args.args), st.plan->num_retvals);
  st.slots.resize(st.plan->num_input_slots);
  st.pending.reserve(st.plan->nodes.size());
  for (const auto& item : st.plan->nodes) st.pending.push_back(item.initial_pending);
  return {
      [=](start_atom) {
        auto& st = self->state;
        st.promise = self->make_response_promise();
        st.ready.assign(st.plan->roots.begin(), st.plan->roots.end());
        Process(self);  // may already deliver the promise
      },
      [=](kernel_done_atom, KernelDone& done) {
        auto& st = self->state;
        --st.in_flight;
        if (st.finished) return;
        if (!done.status.ok()) return Finish(self, done.status);
        Propagate(self, done.node, done.outputs);
        Process(self);
      },
      [=](abort_atom, const Status& status) { Finish(self, status); },
      [=](inspect_atom) -> std::string {
        auto& st = self->state;
        return StrCat("executor of step ", st.step_id, ": ", st.completed, "/", st.plan->nodes.size(),
                      " nodes done, ", st.ready.size(), " ready, ", st.in_flight, " on the device");
      },
  };
}

}  // namespace

caf::actor SpawnExecutor(caf::actor_system& system, ExecutorArgs args) {
  return system.spawn(executor_actor, std::move(args));
}

}  // namespace tensoract
