#include "actors/executor.h"

#include <algorithm>
#include <deque>

#include <caf/all.hpp>

#include "actors/caller_unit.h"
#include "actors/device_actor.h"
#include "actors/executor_report.h"
#include "kernels/resource_mgr.h"
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
  // The first fetch this partition produces (others produce the rest) that is not set,
  // or -1.
  int FirstUnset() const {
    for (int i : owned_) if (!set_[i]) return i;
    return -1;
  }

 private:
  std::vector<Tensor> args_;
  std::vector<Tensor> retvals_;
  std::vector<bool> set_;
  std::vector<int> owned_;
};

// Control flow (graph/control_flow.h) makes the executor a tagged-token machine, as the
// whitepaper's section 4.4 says: every value carries the frame instance (one run of a
// loop) and the iteration it belongs to, and each iteration of each frame instance has
// its own copy of its nodes' input slots and pending counts. A graph without loops has
// one frame instance, the root, with one iteration, and a node without control flow on
// it takes a fast path that only counts down pending inputs, as a DAG executor does.
//
// Dead values: Switch leaves its untaken output unset (dead). A node with a dead input is
// not run and its outputs are dead, except a Merge (ready on its first live input, dead
// only when all are), a ControlTrigger (always live), and _Send/_Recv (which carry the
// deadness to the other device). Dead values stop at a NextIteration; an Exit that never
// saw a live value outputs dead when its frame instance ends, so a loop on an untaken
// branch ends dead.
//
// Frames: an Enter makes (or finds) the child frame instance of its iteration and feeds
// the child's iteration 0, or every iteration if it is a constant (loop invariant).
// NextIteration feeds the next iteration, starting it; at most parallel_iterations of
// them are alive at once, and a NextIteration beyond that waits until the oldest one
// ends. Iterations end in order: one is done when nothing of it is ready or running, no
// inner loop it started is alive, and (iteration 0) every Enter of the frame has run. A
// frame instance is done with its last iteration; it is then freed and its parent
// iteration may end in turn.

struct FrameState;

struct IterationState {
  FrameState* frame = nullptr;
  int64_t iter = 0;
  std::vector<Tensor> slots;                    // every node's inputs, flat, by the frame's numbering
  std::vector<std::shared_ptr<Var>> ref_slots;  // variables on ref edges (only if the plan has any)
  std::vector<int> pending;                     // per node: inputs not yet arrived (a Merge: see Activate)
  std::vector<int> dead;                        // per node: dead inputs; empty until the first one
  std::vector<int> live_input;                  // per Merge: which input is its live one; lazily sized
  int outstanding_ops = 0;     // nodes of it ready or running (not counted for the root)
  int outstanding_frames = 0;  // loops it entered that are still running
  std::vector<std::unique_ptr<FrameState>> children;
};

// Values kept for later: a constant Enter's (for every new iteration) or a NextIteration's
// waiting for room under parallel_iterations.
struct SavedOutput {
  int node = 0;
  bool dead = false;
  std::vector<Tensor> values;                  // one
  std::vector<std::shared_ptr<Var>> refs;      // one, or empty
};

struct FrameState {
  int info = 0;            // index into ExecutorPlan::frames
  std::string instance;    // unique: parent's instance;parent iteration;frame name
  int64_t id = 0;          // hash of `instance`: the frame part of rendezvous keys
  IterationState* parent_iter = nullptr;
  int pending_enters = 0;  // Enter nodes into it that have not run yet
  int max_iterations = 1;  // parallel_iterations
  int64_t iteration_count = 0;  // the newest iteration
  int64_t base_iter = 0;        // the oldest iteration still alive
  int outstanding_iterations = 0;
  std::deque<std::unique_ptr<IterationState>> iterations;  // base_iter .. iteration_count
  std::vector<SavedOutput> next_iter_roots;
  std::vector<SavedOutput> invariants;
  std::vector<int> live_exits;  // Exit nodes that have passed a live value out
  IterationState* Iteration(int64_t i) { return iterations[i - base_iter].get(); }
};

struct TaggedNode {
  int node;
  IterationState* iter;
  bool dead;  // some input is dead
};

// Plans with loops hand control back to the actor after this many nodes, so that an abort
// (the step's deadline) gets in even while a loop never stops.
constexpr int kNodesPerHandler = 2048;
using resume_atom = caf::atom_constant<caf::atom("cfresume")>;

struct ExecutorState {
  std::shared_ptr<const ExecutorPlan> plan;
  caf::actor device;
  std::shared_ptr<Device> device_owner;  // see ExecutorArgs
  int64_t step_id = 0;
  bool collect_stats = false;
  // Every kernel of this step runs in the executor's handler, on its caller's thread
  // (RunOptions::inter_op_thread_pool -1): none is handed to the device's threads.
  bool on_caller_thread = false;
  std::unique_ptr<StepCallFrame> frame;
  FrameState root_frame;
  IterationState* root = nullptr;  // the root frame's only iteration
  std::deque<TaggedNode> ready;
  NodeInputs scratch;  // the inputs of the node running inline, reused
  KernelDone done;     // its result, reused
  int completed = 0;   // root-frame nodes done
  int in_flight = 0;  // kernels on the device's threads or running asynchronously
  std::vector<int> running;  // by node: how many of its kernels are in flight (an observer asks)
  std::chrono::steady_clock::time_point started;  // the step's start here
  std::unique_ptr<StepWatch> watch;  // this step's watched tensors (rarely set)
  int device_threads = 1;  // of the plan's device
  bool finished = false;
  bool resume_sent = false;
  std::vector<std::vector<std::unique_ptr<IterationState>>> spare;  // retired iterations, by frame
  std::shared_ptr<tensorflow::StepStats> stats;  // one DeviceStepStats: this partition's device
  tensorflow::DeviceStepStats* device_stats = nullptr;
  std::vector<int64_t> scheduled_ns;  // when each node became ready (with statistics)
  caf::response_promise promise;
  // The step's: a step ending in an error cancels what its asynchronous kernels wait on
  // (queues), so they hold nothing once it is over. A new one per step.
  std::shared_ptr<CancellationManager> cancellation;
  static inline const char* name = "tensoract.executor";
};

using Self = caf::stateful_actor<ExecutorState>;
using Kind = ExecutorPlan::Kind;
using NodeItem = ExecutorPlan::NodeItem;

std::unique_ptr<IterationState> NewIteration(ExecutorState& st, FrameState* frame, int64_t iter);
void Recycle(ExecutorState& st, int frame_info, std::unique_ptr<IterationState> it);

void Finish(Self* self, Status status) {
  auto& st = self->state;
  if (st.finished) return;
  st.finished = true;
  if (!status.ok() && st.cancellation) st.cancellation->StartCancel();
  if (st.plan->has_step_resources) {
    st.plan->device->resource_manager()->Cleanup(StepContainerName(st.step_id)).IgnoreError();
  }
  RunGraphResponse response;
  response.status = std::move(status);
  if (response.status.ok()) {
    response.retvals = st.frame->TakeRetvals();
    response.produced = st.plan->retval_indices;  // all set: Process checked FirstUnset
  }
  response.step_stats = std::move(st.stats);
  // Nothing of the step left running: the executor may serve the partition's next step
  // (the worker keeps it), sparing a spawn and a teardown per step. Kernels still in
  // flight (an abandoned step) would answer into the next step: then it quits.
  response.executor_idle = st.in_flight == 0;
  const bool idle = response.executor_idle;
  st.promise.deliver(std::move(response));
  if (!idle) self->quit();
}

// Sets the executor up for step `step_id` (its first, or a later one once idle): what a
// step owns starts afresh; the plan, the device and the retired iterations' arrays stay.
void BeginStep(ExecutorState& st, int64_t step_id, std::vector<Tensor> args, bool collect_stats,
               std::shared_ptr<const WatchSpec> watch, bool on_caller_thread) {
  st.step_id = step_id;
  st.watch = watch ? std::make_unique<StepWatch>(std::move(watch), st.plan.get(), step_id) : nullptr;
  st.collect_stats = collect_stats;
  st.on_caller_thread = on_caller_thread;
  st.frame = std::make_unique<StepCallFrame>(std::move(args), st.plan->num_retvals, st.plan->retval_indices);
  if (st.root != nullptr) Recycle(st, 0, std::move(st.root_frame.iterations.front()));
  st.root_frame = FrameState();
  st.root_frame.outstanding_iterations = 1;
  st.root_frame.iterations.push_back(NewIteration(st, &st.root_frame, 0));
  st.root = st.root_frame.iterations.front().get();
  st.ready.clear();
  st.completed = 0;
  st.in_flight = 0;
  st.running.assign(st.plan->nodes.size(), 0);
  st.started = std::chrono::steady_clock::now();
  st.finished = false;
  st.resume_sent = false;
  st.stats.reset();
  st.device_stats = nullptr;
  st.scheduled_ns.clear();
  if (st.plan->has_cancellable_kernels) st.cancellation = std::make_shared<CancellationManager>();
  if (st.collect_stats) {
    st.stats = std::make_shared<tensorflow::StepStats>();
    st.device_stats = st.stats->add_dev_stats();
    st.device_stats->set_device(st.plan->device->name());
    st.scheduled_ns.assign(st.plan->nodes.size(), 0);
  }
}

void MakeReady(ExecutorState& st, int node, IterationState* it, bool dead) {
  st.ready.push_back({node, it, dead});
  if (it != st.root) ++it->outstanding_ops;
  if (st.collect_stats) st.scheduled_ns[node] = NowNanos();
}

std::unique_ptr<IterationState> NewIteration(ExecutorState& st, FrameState* frame, int64_t iter) {
  const ExecutorPlan::Frame& info = st.plan->frames[frame->info];
  std::unique_ptr<IterationState> it;
  auto& spare = st.spare[frame->info];
  if (!spare.empty()) {
    it = std::move(spare.back());
    spare.pop_back();
    std::copy(info.initial_pending.begin(), info.initial_pending.end(), it->pending.begin());
    if (!it->dead.empty()) std::fill(it->dead.begin(), it->dead.end(), 0);
  } else {
    it = std::make_unique<IterationState>();
    it->slots.resize(info.num_input_slots);
    if (st.plan->has_ref_edges) it->ref_slots.resize(info.num_input_slots);
    it->pending = info.initial_pending;
  }
  it->frame = frame;
  it->iter = iter;
  it->outstanding_ops = 0;
  it->outstanding_frames = 0;
  return it;
}

// A retired iteration's arrays are reused by a later one; values left in its slots (a
// Merge's input that arrived after it ran, say) are dropped now.
void Recycle(ExecutorState& st, int frame_info, std::unique_ptr<IterationState> it) {
  for (Tensor& t : it->slots) t = Tensor();
  for (auto& r : it->ref_slots) r.reset();
  it->children.clear();
  st.spare[frame_info].push_back(std::move(it));
}

std::vector<int>& DeadCounts(ExecutorState& st, IterationState* it) {
  if (it->dead.empty()) it->dead.assign(st.plan->frames[it->frame->info].num_nodes, 0);
  return it->dead;
}

std::vector<int>& LiveInputs(ExecutorState& st, IterationState* it) {
  if (it->live_input.empty()) it->live_input.assign(st.plan->frames[it->frame->info].num_nodes, 0);
  return it->live_input;
}


// The fast path: a node without control flow, all inputs live, whose consumers are in its
// own iteration and are no Merge. Only counts down.
void ActivatePlain(ExecutorState& st, const NodeItem& item, IterationState* it, KernelDone& done) {
  for (size_t port = 0; port < item.consumers.size(); ++port) {
    const auto& consumers = item.consumers[port];
    const std::shared_ptr<Var>* ref = done.output_refs.empty() || !done.output_refs[port] ? nullptr
                                                                                           : &done.output_refs[port];
    for (size_t k = 0; k < consumers.size(); ++k) {
      const ExecutorPlan::Consumer& c = consumers[k];
      if (ref != nullptr) {
        it->ref_slots[c.slot] = *ref;
      } else if (k + 1 == consumers.size()) {
        it->slots[c.slot] = std::move(done.outputs[port]);  // the last consumer takes the value
      } else {
        it->slots[c.slot] = done.outputs[port];
      }
      if (--it->pending[c.pending] == 0) MakeReady(st, c.node, it, !it->dead.empty() && it->dead[c.pending] > 0);
    }
  }
  for (const ExecutorPlan::Consumer& c : item.control_consumers) {
    if (--it->pending[c.pending] == 0) MakeReady(st, c.node, it, !it->dead.empty() && it->dead[c.pending] > 0);
  }
}

// The general path: hands `item`'s outputs to its consumers in iteration `it`.
// `node_dead`: the node itself is dead (all outputs, and its control edges, carry that);
// `dead_outputs`: which outputs are dead (bit per port). `may_move`: the values may be
// moved into the last consumer's slot.
void Activate(ExecutorState& st, const NodeItem& item, IterationState* it, std::vector<Tensor>* outputs,
              std::vector<std::shared_ptr<Var>>* refs, bool node_dead, uint32_t dead_outputs, bool may_move) {
  auto ready = [&](const ExecutorPlan::Consumer& c, bool dead) {
    if (st.plan->nodes[c.node].kind == Kind::kControlTrigger) dead = false;
    MakeReady(st, c.node, it, dead);
  };
  bool control_dead = node_dead;
  for (size_t port = 0; port < item.consumers.size(); ++port) {
    const bool dead = node_dead || OutputDead(dead_outputs, port);
    // A _Recv that received a dead value is dead, as TensorFlow's Identity after a
    // control _Recv makes it: its control edges carry the deadness.
    if (item.is_transfer && dead) control_dead = true;
    const auto& consumers = item.consumers[port];
    const std::shared_ptr<Var>* ref = dead || refs == nullptr || refs->size() <= port || !(*refs)[port]
                                          ? nullptr
                                          : &(*refs)[port];
    for (size_t k = 0; k < consumers.size(); ++k) {
      const ExecutorPlan::Consumer& c = consumers[k];
      const NodeItem& dst = st.plan->nodes[c.node];
      auto store = [&] {
        if (ref != nullptr) {
          it->ref_slots[c.slot] = *ref;
        } else if (may_move && k + 1 == consumers.size()) {
          it->slots[c.slot] = std::move((*outputs)[port]);
        } else {
          it->slots[c.slot] = (*outputs)[port];
        }
      };
      int& pending = it->pending[c.pending];
      if (dst.kind == Kind::kMerge) {
        // A Merge's count is 2 per control input plus 1 while it waits for a live input:
        // the first live input clears that bit (and is the one stored); later ones are
        // dropped. With all data inputs dead (or a dead Enter: a loop on an untaken branch)
        // and only the bit left, it is ready, dead.
        if (dead) {
          const int d = ++DeadCounts(st, it)[c.pending];
          if (pending == 1 && (d == dst.num_inputs || item.kind == Kind::kEnter)) ready(c, true);
        } else if (pending & 1) {
          store();
          LiveInputs(st, it)[c.pending] = c.slot - dst.input_start;
          if (--pending == 0) ready(c, false);
        }
        continue;
      }
      if (dead) {
        ++DeadCounts(st, it)[c.pending];
      } else {
        store();
      }
      if (--pending == 0) ready(c, !it->dead.empty() && it->dead[c.pending] > 0);
    }
  }
  for (const ExecutorPlan::Consumer& c : item.control_consumers) {
    const NodeItem& dst = st.plan->nodes[c.node];
    int& pending = it->pending[c.pending];
    if (dst.kind == Kind::kMerge) {
      pending -= 2;
      const bool all_dead = !it->dead.empty() && it->dead[c.pending] == dst.num_inputs;
      if (pending == 0) {
        ready(c, false);
      } else if (pending == 1 && all_dead) {
        ready(c, true);
      }
      continue;
    }
    if (control_dead) ++DeadCounts(st, it)[c.pending];
    if (--pending == 0) ready(c, !it->dead.empty() && it->dead[c.pending] > 0);
  }
}

uint64_t Fingerprint(const std::string& s) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

FrameState* FindOrCreateChild(ExecutorState& st, IterationState* it, int child_info) {
  for (auto& child : it->children) {
    if (child->info == child_info) return child.get();
  }
  const ExecutorPlan::Frame& info = st.plan->frames[child_info];
  auto f = std::make_unique<FrameState>();
  f->info = child_info;
  f->parent_iter = it;
  // Every partition names a frame instance the same way, so its _Send/_Recv keys meet.
  f->instance = StrCat(it->frame->instance, ";", it->iter, ";", info.name);
  f->id = static_cast<int64_t>(Fingerprint(f->instance) & 0x7fffffffffffffffull);
  if (f->id == 0) f->id = 1;
  f->pending_enters = info.num_enters;
  f->max_iterations = info.parallel_iterations;
  f->iterations.push_back(NewIteration(st, f.get(), 0));
  f->outstanding_iterations = 1;
  ++it->outstanding_frames;
  it->children.push_back(std::move(f));
  return it->children.back().get();
}

void IncrementIteration(ExecutorState& st, FrameState* f) {
  ++f->iteration_count;
  f->iterations.push_back(NewIteration(st, f, f->iteration_count));
  ++f->outstanding_iterations;
  IterationState* it = f->iterations.back().get();
  for (SavedOutput& inv : f->invariants) {
    Activate(st, st.plan->nodes[inv.node], it, &inv.values, &inv.refs, inv.dead, inv.dead ? kAllDead : kNoneDead,
             /*may_move=*/false);
  }
}

void CleanupFrameIterations(ExecutorState& st, FrameState* f);

// A frame instance has ended: Exits that never passed a live value out pass a dead one,
// the instance is freed, and its parent iteration may end in turn.
void FrameDone(ExecutorState& st, FrameState* f) {
  IterationState* parent = f->parent_iter;
  for (int exit : st.plan->frames[f->info].exits) {
    if (std::find(f->live_exits.begin(), f->live_exits.end(), exit) == f->live_exits.end()) {
      Activate(st, st.plan->nodes[exit], parent, nullptr, nullptr, /*node_dead=*/true, kAllDead, false);
    }
  }
  for (auto& iter : f->iterations) Recycle(st, f->info, std::move(iter));
  auto& children = parent->children;
  for (size_t i = 0; i < children.size(); ++i) {
    if (children[i].get() == f) {
      children.erase(children.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    }
  }
  --parent->outstanding_frames;
  if (parent != st.root && parent->outstanding_ops == 0 && parent->outstanding_frames == 0) {
    CleanupFrameIterations(st, parent->frame);
  }
}

// Retires f's iterations that are done, oldest first, starting deferred ones in their
// place, and ends the frame instance when nothing of it is left.
void CleanupFrameIterations(ExecutorState& st, FrameState* f) {
  while (f->outstanding_iterations > 0) {
    IterationState* base = f->iterations.front().get();
    const bool done = base->outstanding_ops == 0 && base->outstanding_frames == 0 &&
                      (f->base_iter > 0 || f->pending_enters == 0);
    if (!done) break;
    Recycle(st, f->info, std::move(f->iterations.front()));
    f->iterations.pop_front();
    ++f->base_iter;
    --f->outstanding_iterations;
    if (!f->next_iter_roots.empty()) {
      IncrementIteration(st, f);
      IterationState* next = f->iterations.back().get();
      for (SavedOutput& r : f->next_iter_roots) {
        Activate(st, st.plan->nodes[r.node], next, &r.values, &r.refs, false, kNoneDead, /*may_move=*/true);
      }
      f->next_iter_roots.clear();
    }
  }
  if (f->outstanding_iterations == 0 && f->pending_enters == 0) FrameDone(st, f);
}

SavedOutput Save(int node, bool dead, KernelDone& done) {
  SavedOutput s;
  s.node = node;
  s.dead = dead;
  s.values.push_back(done.outputs.empty() ? Tensor() : std::move(done.outputs[0]));
  if (!done.output_refs.empty()) s.refs.push_back(std::move(done.output_refs[0]));
  return s;
}

// Enter, Exit, NextIteration, and nodes that may see or make dead values.
Status PropagateControlFlow(ExecutorState& st, const NodeItem& item, IterationState* it, KernelDone& done) {
  const bool dead = done.input_dead;
  std::vector<Tensor>* outputs = &done.outputs;
  std::vector<std::shared_ptr<Var>>* refs = &done.output_refs;
  switch (item.kind) {
    case Kind::kEnter: {
      FrameState* child = FindOrCreateChild(st, it, item.child_frame);
      if (item.is_constant_enter) {
        // A loop invariant: visible in every iteration there is and will be.
        child->invariants.push_back(Save(done.node, dead, done));
        SavedOutput& inv = child->invariants.back();
        for (int64_t i = child->base_iter; i <= child->iteration_count; ++i) {
          Activate(st, item, child->Iteration(i), &inv.values, &inv.refs, dead, dead ? kAllDead : kNoneDead,
                   /*may_move=*/false);
        }
      } else {
        Activate(st, item, child->Iteration(0), outputs, refs, dead, done.dead_outputs, /*may_move=*/true);
      }
      if (--child->pending_enters == 0) CleanupFrameIterations(st, child);
      return Status::OK();
    }
    case Kind::kExit: {
      if (dead || OutputDead(done.dead_outputs, 0)) return Status::OK();  // dead: when the frame ends
      FrameState* f = it->frame;
      if (std::find(f->live_exits.begin(), f->live_exits.end(), done.node) != f->live_exits.end()) {
        return errors::InvalidArgument("Exit node '", item.kernel->name(), "' passed a second live value out of "
                                       "loop frame '", st.plan->frames[f->info].name,
                                       "': a loop ends once (are its Switch nodes driven by one LoopCond?)");
      }
      f->live_exits.push_back(done.node);
      Activate(st, item, f->parent_iter, outputs, refs, false, kNoneDead, /*may_move=*/true);
      return Status::OK();
    }
    case Kind::kNextIteration: {
      if (dead || OutputDead(done.dead_outputs, 0)) return Status::OK();  // deadness stops here
      FrameState* f = it->frame;
      if (it->iter == f->iteration_count) {
        if (f->outstanding_iterations == f->max_iterations) {
          // parallel_iterations are running: this one starts when the oldest ends.
          f->next_iter_roots.push_back(Save(done.node, false, done));
          return Status::OK();
        }
        IncrementIteration(st, f);
      }
      Activate(st, item, f->Iteration(it->iter + 1), outputs, refs, false, kNoneDead, /*may_move=*/true);
      return Status::OK();
    }
    default:
      Activate(st, item, it, outputs, refs, dead, dead ? kAllDead : done.dead_outputs, /*may_move=*/true);
      return Status::OK();
  }
}

// Hands a finished node's outputs on, then ends its iteration if that was its last node.
Status Propagate(ExecutorState& st, KernelDone& done) {
  const NodeItem& item = st.plan->nodes[done.node];
  auto* it = reinterpret_cast<IterationState*>(done.tag);
  if (!item.needs_control_flow && !done.input_dead) {
    ActivatePlain(st, item, it, done);
  } else {
    TA_RETURN_IF_ERROR(PropagateControlFlow(st, item, it, done));
  }
  if (it == st.root) {
    ++st.completed;
  } else if (--it->outstanding_ops == 0 && it->outstanding_frames == 0) {
    CleanupFrameIterations(st, it->frame);
  }
  return Status::OK();
}

// Moves a ready node's inputs out of their slots. A ref edge into a value input is read
// now, under the variable's lock: TensorFlow reads a ref when its consumer runs.
Status TakeInputs(ExecutorState& st, IterationState* it, const NodeItem& item, NodeInputs* in) {
  in->values.clear();
  in->refs.clear();
  for (int i = 0; i < item.num_inputs; ++i) in->values.push_back(std::move(it->slots[item.input_start + i]));
  in->inputs_present = ~uint64_t{0};
  if (item.kind == Kind::kMerge) {
    const int live = LiveInputs(st, it)[item.pending_id];
    if (live >= 64) return errors::Unimplemented("Merge node '", item.kernel->name(), "' has more than 64 inputs");
    in->inputs_present = uint64_t{1} << live;
  }
  if (!st.plan->has_ref_edges) return Status::OK();
  if (item.has_ref_input) in->refs.resize(item.num_inputs);
  for (int i = 0; i < item.num_inputs; ++i) {
    std::shared_ptr<Var>& ref = it->ref_slots[item.input_start + i];
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
  if (st.watch) {
    Status watched = st.watch->OnNodeDone(done.node, done.outputs);
    if (!watched.ok()) return Finish(self, watched);
  }
  if (st.collect_stats) {
    auto& names = *st.device_stats->mutable_thread_names();
    if (!names.count(done.thread_id)) {
      // Trace viewers show the kernels run in the executor's handler apart from the pool's.
      names[done.thread_id] = inline_run ? "actor thread (inline kernels)" : "device pool or async completion";
    }
    RecordNodeStats(*st.plan, done, st.scheduled_ns[done.node], st.device_stats);
  }
  Status s = Propagate(st, done);
  if (!s.ok()) Finish(self, s);
}

// A node with a dead input is not run: its outputs are dead.
void SkipDead(Self* self, const TaggedNode& t) {
  auto& st = self->state;
  const NodeItem& item = st.plan->nodes[t.node];
  for (int i = 0; i < item.num_inputs; ++i) t.iter->slots[item.input_start + i] = Tensor();
  if (!t.iter->ref_slots.empty()) {
    for (int i = 0; i < item.num_inputs; ++i) t.iter->ref_slots[item.input_start + i].reset();
  }
  KernelDone& done = st.done;
  done.node = t.node;
  done.tag = reinterpret_cast<intptr_t>(t.iter);
  done.input_dead = true;
  done.dead_outputs = kAllDead;
  done.status = Status::OK();
  done.outputs.clear();
  done.outputs.resize(item.kernel->num_outputs());
  done.output_refs.clear();
  Status s = Propagate(st, done);
  if (!s.ok()) Finish(self, s);
}

// Why a step whose ready queue ran dry did not finish: nodes still waiting, or a loop
// that never ended.
Status Stalled(ExecutorState& st) {
  std::string waiting;
  int shown = 0;
  for (size_t n = 0; n < st.plan->nodes.size() && shown < 5; ++n) {
    const NodeItem& item = st.plan->nodes[n];
    if (item.frame == 0 && st.root->pending[item.pending_id] > 0) {
      waiting += StrCat(shown++ ? ", '" : "'", item.kernel->name(), "'");
    }
  }
  std::string loops;
  for (const auto& child : st.root->children) {
    loops += StrCat(loops.empty() ? "" : ", ", "'", st.plan->frames[child->info].name, "' (",
                    child->outstanding_iterations, " iterations alive, ", child->pending_enters,
                    " Enter nodes not run)");
  }
  return errors::Internal("step ", st.step_id, " stalled: ", st.plan->frames[0].num_nodes - st.completed,
                          " nodes never became ready", waiting.empty() ? "" : " (waiting: " + waiting + ")",
                          loops.empty() ? "" : "; loops that never ended: " + loops);
}

// The bytes of n input tensors from `first` (a node's taken inputs, or its frame slots).
size_t InputBytes(const Tensor* first, int n) {
  size_t bytes = 0;
  for (int i = 0; i < n; ++i) bytes += first[i].TotalBytes();
  return bytes;
}

// Whether a node in the ready queue is one the device's threads should take (Process):
// expensive, with inputs of at least kInlineInputBytes. A long queue is taken to hold one
// (the scan stays short however wide the graph).
bool AnyReadyWorthAThread(const ExecutorState& st) {
  constexpr size_t kScanned = 16;
  if (st.ready.size() > kScanned) return true;
  for (const TaggedNode& t : st.ready) {
    const NodeItem& item = st.plan->nodes[t.node];
    if (!item.is_expensive || item.is_async || t.dead) continue;
    if (InputBytes(t.iter->slots.data() + item.input_start, item.num_inputs) >= kInlineInputBytes) return true;
  }
  return false;
}

void Process(Self* self) {
  auto& st = self->state;
  int budget = kNodesPerHandler;
  while (!st.ready.empty() && !st.finished) {
    if (st.plan->has_loops && --budget < 0) {
      // Let the mailbox in (an abort, kernels done); a message to ourselves resumes.
      if (!st.resume_sent) {
        st.resume_sent = true;
        self->send(self, resume_atom::value);
      }
      return;
    }
    const TaggedNode t = st.ready.front();
    st.ready.pop_front();
    const NodeItem& item = st.plan->nodes[t.node];
    if (t.dead && !item.runs_when_dead) {
      SkipDead(self, t);
      continue;
    }
    Status taken = TakeInputs(st, t.iter, item, &st.scratch);
    if (!taken.ok()) return Finish(self, taken);
    st.scratch.is_input_dead = t.dead;
    st.scratch.frame_id = t.iter->frame->id;
    st.scratch.iter_id = t.iter->iter;
    st.scratch.tag = reinterpret_cast<intptr_t>(t.iter);
    st.scratch.on_caller_thread = st.on_caller_thread;
    if (item.is_async) {
      ++st.in_flight;
      ++st.running[t.node];
      caf::actor me = caf::actor_cast<caf::actor>(self);
      st.plan->RunNodeAsync(t.node, std::move(st.scratch), st.step_id, st.collect_stats, st.cancellation,
                            [me, home = CallerUnitOf(self)](KernelDone done) {
        SendVia(home, me, kernel_done_atom::value, std::move(done));
      });
      continue;
    }
    // An expensive kernel goes to the device's threads so that the step's other work
    // (another expensive ready node, kernels in flight and the actor's mailbox) goes on
    // meanwhile; when there is no such work, it runs here, as TensorFlow's executor keeps
    // its last expensive node inline: two thread hand-offs fewer per kernel, which on a
    // shared 2-core VM cost up to half of a small training step. Cheap ready nodes (a
    // fetch's _Retval beside the first layer's MatMul) are no reason to hand the kernel
    // off: they take microseconds here. A device of one thread gets every kernel inline:
    // its pool would run them one at a time all the same, but on another core than the one
    // whose caches hold their inputs (MLP batch 512: the big GEMMs ran 1.4x slower there),
    // after a hand-off each way.
    if (item.is_expensive && !st.on_caller_thread && st.device_threads > 1 &&
        (st.in_flight > 0 || AnyReadyWorthAThread(st))) {
      const int n = static_cast<int>(st.scratch.values.size());
      if (InputBytes(st.scratch.values.data(), n) >= kInlineInputBytes) {
        ++st.in_flight;
        ++st.running[t.node];
        self->send(st.device, launch_atom::value,
                   KernelLaunch{st.plan, t.node, std::move(st.scratch), st.step_id, st.collect_stats,
                                caf::actor_cast<caf::actor>(self), CallerUnitOf(self)});
        continue;
      }
    }
    st.plan->RunNode(t.node, st.scratch, st.frame.get(), st.step_id, st.collect_stats, &st.done);
    // Only a _Send stays dead for having run with a dead input (a recording push does not).
    if (t.dead && !item.is_transfer) st.done.input_dead = false;
    Complete(self, st.done, /*inline_run=*/true);
  }
  if (st.finished || st.in_flight > 0) return;
  if (st.completed != st.plan->frames[0].num_nodes || !st.root->children.empty()) return Finish(self, Stalled(st));
  int unset = st.frame->FirstUnset();
  if (unset >= 0) {
    // TensorFlow: "Retval[i] does not have value".
    return Finish(self, errors::InvalidArgument("fetch ", unset, " has no value (Retval[", unset,
                                                "] does not have value): it is dead, on a branch of a "
                                                "conditional that was not taken"));
  }
  Finish(self, Status::OK());
}

// This executor's part of its node's snapshot (actors/executor_report.h).
std::string Observe(Self* self) {
  auto& st = self->state;
  ExecutorView view;
  view.plan = st.plan.get();
  view.step_id = st.step_id;
  view.age_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - st.started).count();
  view.completed = st.completed;
  view.in_flight = st.in_flight;
  view.finished = st.finished;
  view.mailbox = static_cast<int64_t>(self->mailbox().size());
  for (const TaggedNode& t : st.ready) view.ready.push_back(t.node);
  view.running = &st.running;
  view.root_pending = &st.root->pending;
  return ObserveExecutor(view);
}

caf::behavior executor_actor(Self* self, ExecutorArgs args) {
  auto& st = self->state;
  st.plan = std::move(args.plan);
  st.device = std::move(args.device);
  st.device_owner = std::move(args.device_owner);
  st.device_threads = st.plan->device->num_threads();
  st.spare.resize(st.plan->frames.size());
  BeginStep(st, args.step_id, std::move(args.args), args.collect_stats, std::move(args.watch), args.on_caller_thread);
  auto start = [=] {
    auto& st = self->state;
    st.promise = self->make_response_promise();
    for (int root : st.plan->roots) MakeReady(st, root, st.root, false);
    Process(self);  // may already deliver the promise
  };
  return {
      [=](start_atom) { start(); },
      // A later step, once idle (the worker's pool of executors).
      [=](start_atom, ExecutorStep& next) {
        auto& st = self->state;
        if (!st.finished) {
          RunGraphResponse busy;
          busy.status = errors::Internal("executor of step ", st.step_id, " was asked to start step ", next.step_id,
                                         " while running");
          self->make_response_promise().deliver(std::move(busy));
          return;
        }
        BeginStep(st, next.step_id, std::move(next.args), next.collect_stats, std::move(next.watch),
                  next.on_caller_thread);
        start();  // answers through the promise it makes
      },
      [=](kernel_done_atom, KernelDone& done) {
        auto& st = self->state;
        --st.in_flight;
        if (done.node >= 0 && static_cast<size_t>(done.node) < st.running.size()) --st.running[done.node];
        if (st.finished) return;
        Complete(self, done, /*inline_run=*/false);
        Process(self);
      },
      [=](resume_atom) {
        auto& st = self->state;
        st.resume_sent = false;
        if (!st.finished) Process(self);
      },
      [=](abort_atom, const Status& status) {
        if (!self->state.finished) Finish(self, status);
      },
      [=](inspect_atom) -> std::string {
        auto& st = self->state;
        std::string out = StrCat("executor of step ", st.step_id, ": ", st.completed, "/",
                                 st.plan->frames[0].num_nodes, " nodes of the root frame done, ", st.ready.size(),
                                 " ready, ", st.in_flight, " in flight");
        for (const auto& child : st.root->children) {
          out += StrCat("\n  loop '", st.plan->frames[child->info].name, "': iteration ", child->iteration_count,
                        ", ", child->outstanding_iterations, " iterations alive");
        }
        // The nodes still waiting, and for how many inputs: what a stuck step is stuck on.
        int shown = 0;
        for (size_t n = 0; n < st.plan->nodes.size() && shown < 20; ++n) {
          const NodeItem& item = st.plan->nodes[n];
          if (item.frame == 0 && st.root->pending[item.pending_id] > 0) {
            out += StrCat("\n  waiting: ", item.kernel->name(), " (", st.root->pending[item.pending_id], " inputs)");
            ++shown;
          }
        }
        return out;
      },
      [=](observe_atom) -> std::string { return Observe(self); },
  };
}

}  // namespace

caf::actor SpawnExecutor(caf::actor_system& system, ExecutorArgs args) {
  // lazy_init: the executor is first scheduled by the start message the worker sends it
  // at once, not also for its initialisation (one scheduling round less per step).
  return system.spawn<caf::lazy_init>(executor_actor, std::move(args));
}

}  // namespace tensoract
