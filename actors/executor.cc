#include "actors/executor.h"

#include <algorithm>
#include <chrono>
#include <map>

#include <caf/all.hpp>

#include "actors/caller_unit.h"
#include "actors/device_actor.h"
#include "actors/executor_frames.h"
#include "actors/executor_report.h"
#include "kernels/denormal.h"
#include "kernels/resource_mgr.h"

namespace tensoract {
namespace {

// The step's call frame: feeds in by _Arg index, fetches out by _Retval index.
class StepCallFrame : public CallFrame {
 public:
  StepCallFrame(std::vector<Tensor> args, int num_retvals, std::vector<int> owned_retvals,
                std::function<void(int, const Tensor&)> on_retval = nullptr)
      : args_(std::move(args)),
        retvals_(num_retvals),
        set_(num_retvals, false),
        owned_(std::move(owned_retvals)),
        on_retval_(std::move(on_retval)) {}
  // A partial run's feed, arriving after the step started.
  void SetArg(int index, Tensor value) {
    if (index >= static_cast<int>(args_.size())) args_.resize(index + 1);
    args_[index] = std::move(value);
  }
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
    if (on_retval_) on_retval_(index, value);
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
  std::function<void(int, const Tensor&)> on_retval_;  // a partial run's
};

// Plans with loops hand control back to the actor after this many nodes, so that an abort
// (the step's deadline) gets in even while a loop never stops.
constexpr int kNodesPerHandler = 2048;
// With kernels in flight, the mailbox is looked at every this many nodes.
constexpr int kNodesPerMailboxCheck = 64;
// Kernels run inline share the scheduler's threads with every other actor of the process:
// the worker that answers heartbeats, the rendezvous, the collectives. A handler that has
// run kernels for this long hands the thread back, so that they get in. A lab node has one
// scheduler thread and a device of one thread, which runs every kernel inline: 16 workers'
// first steps on 2 cores held it for seconds, and the master's heartbeats (3 s) failed. The
// clock is read after an expensive kernel and every kNodesPerClockRead cheap ones (an
// LSTM's step is 25,000 nodes of ~0.3 us).
//
// CAF runs an actor's messages until its mailbox is empty (no throughput limit), so a
// message to itself would be taken at once. The resume comes from CAF's clock instead, after
// kResumeDelay: by then the actor has let its thread go (a message that came sooner, while
// it was still letting go, was taken at once too: seen under load with no delay), and it
// queues behind what came meanwhile. Idle otherwise, a slice costs the delay (0.5%).
constexpr auto kInlineSlice = std::chrono::milliseconds(20);
constexpr auto kResumeDelay = std::chrono::microseconds(100);
constexpr int kNodesPerClockRead = 64;
using resume_atom = caf::atom_constant<caf::atom("cfresume")>;

// The step's bookkeeping (StepFrames: the plan, frames, ready nodes) and the actor's own.
struct ExecutorState : StepFrames {
  caf::actor device;
  std::shared_ptr<Device> device_owner;  // see ExecutorArgs
  int64_t step_id = 0;
  // Every kernel of this step runs in the executor's handler, on its caller's thread
  // (RunOptions::inter_op_thread_pool -1): none is handed to the device's threads.
  bool on_caller_thread = false;
  std::unique_ptr<StepCallFrame> frame;
  // A partial run's step: the _Arg nodes waiting for their feed, by _Arg index.
  bool partial_run = false;
  std::function<void(int, const Tensor&)> on_retval;
  std::map<int, int> held_args;
  NodeInputs scratch;  // the inputs of the node running inline, reused
  KernelDone done;     // its result, reused
  int in_flight = 0;  // kernels on the device's threads or running asynchronously
  std::vector<int> running;  // by node: how many of its kernels are in flight (an observer asks)
  std::chrono::steady_clock::time_point started;  // the step's start here
  std::unique_ptr<StepWatch> watch;  // this step's watched tensors (rarely set)
  int device_threads = 1;  // of the plan's device
  bool finished = false;
  bool resume_sent = false;
  std::shared_ptr<tensorflow::StepStats> stats;  // one DeviceStepStats: this partition's device
  tensorflow::DeviceStepStats* device_stats = nullptr;
  caf::response_promise promise;
  // The step's: a step ending in an error cancels what its asynchronous kernels wait on
  // (queues), so they hold nothing once it is over. A new one per step.
  std::shared_ptr<CancellationManager> cancellation;
  static inline const char* name = "tensoract.executor";
};

using ExecutorSelf = caf::stateful_actor<ExecutorState>;
using NodeItem = ExecutorPlan::NodeItem;

void Finish(ExecutorSelf* self, Status status) {
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
  st.frame = std::make_unique<StepCallFrame>(std::move(args), st.plan->num_retvals, st.plan->retval_indices,
                                             st.partial_run ? st.on_retval : nullptr);
  StartRootFrame(st);
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

// A node's outputs to the step's watches, its run to the step's statistics.
Status Observe(ExecutorState& st, const KernelDone& done, bool inline_run) {
  if (st.watch) TA_RETURN_IF_ERROR(st.watch->OnNodeDone(done.node, done.outputs));
  if (st.collect_stats) {
    auto& names = *st.device_stats->mutable_thread_names();
    if (!names.count(done.thread_id)) {
      // Trace viewers show the kernels run in the executor's handler apart from the pool's.
      names[done.thread_id] = inline_run ? "actor thread (inline kernels)" : "device pool or async completion";
    }
    RecordNodeStats(*st.plan, done, st.scheduled_ns[done.node], st.device_stats);
  }
  return Status::OK();
}

// The Consts the plan ran when it was built (ExecutorPlan::bound_constants), to a step that
// watches or traces, as run when it starts.
Status ObserveBoundConstants(ExecutorState& st) {
  if (!st.watch && !st.collect_stats) return Status::OK();
  KernelDone done;
  done.thread_id = ThisThreadId();
  for (const auto& [node, value] : st.plan->bound_constants) {
    done.node = node;
    done.outputs.assign(1, value);
    done.start_ns = done.end_ns = NowNanos();
    if (st.collect_stats) st.scheduled_ns[node] = done.start_ns;
    TA_RETURN_IF_ERROR(Observe(st, done, /*inline_run=*/true));
  }
  return Status::OK();
}

void Complete(ExecutorSelf* self, KernelDone& done, bool inline_run) {
  auto& st = self->state;
  if (!done.status.ok()) return Finish(self, done.status);
  Status s = Observe(st, done, inline_run);
  if (s.ok()) s = Propagate(st, done);
  if (!s.ok()) Finish(self, s);
}

// A node with a dead input is not run: its outputs are dead.
void SkipDead(ExecutorSelf* self, const TaggedNode& t) {
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

// The bytes of n input tensors from `first` (a node's taken inputs, or its frame slots).
size_t InputBytes(const Tensor* first, int n) {
  size_t bytes = 0;
  for (int i = 0; i < n; ++i) bytes += first[i].TotalBytes();
  return bytes;
}

// Whether node `node`'s kernel runs long enough to pay for a hand-off to the device's
// threads: unknown before its first run (taken to be so, as its inputs' size says), then
// as measured, against twice what a hand-off of this plan's has been measured to wait (the
// way there, and about as long back), within kInlineKernelNanos and kMaxInlineKernelNanos:
// a text CNN's 30 us convolutions at batch 1 went to threads that slept between steps and
// woke ~40 us later (0.25 ms a step against 0.13 all inline), while a training step's
// kernels of that size find the threads awake and keep going to them.
bool LongEnoughForAThread(const ExecutorPlan& plan, int node) {
  const int64_t ns = plan.KernelNanos(node);
  const int64_t inline_below = std::clamp(2 * plan.HandoffNanos(), kInlineKernelNanos, kMaxInlineKernelNanos);
  return ns == ExecutorPlan::kNotYetRun || ns >= inline_below;
}

// Whether a node in the ready queue is one the device's threads should take (Process):
// expensive, measured long enough, with inputs of at least kInlineInputBytes. A long queue is taken to hold one
// (the scan stays short however wide the graph).
bool AnyReadyWorthAThread(const ExecutorState& st) {
  constexpr size_t kScanned = 16;
  if (st.ready.size() > kScanned) return true;
  for (const TaggedNode& t : st.ready) {
    const NodeItem& item = st.plan->nodes[t.node];
    if (!item.is_expensive || item.is_async || t.dead || !LongEnoughForAThread(*st.plan, t.node)) continue;
    if (InputBytes(t.iter->slots.data() + item.input_start, item.num_inputs) >= kInlineInputBytes) return true;
  }
  return false;
}

// Whether an expensive node (a kernel of its own, or a whole loop) waits in the ready queue:
// an asynchronous kernel with long work then leaves this thread to it (a bidirectional
// RNN's two loops run side by side).
bool AnyReadyExpensive(const ExecutorState& st) {
  constexpr size_t kScanned = 16;
  size_t scanned = 0;
  for (const TaggedNode& t : st.ready) {
    if (++scanned > kScanned) break;
    if (st.plan->nodes[t.node].is_expensive && !t.dead) return true;
  }
  return false;
}

void Process(ExecutorSelf* self) {
  auto& st = self->state;
  // Once for the nodes run here rather than per kernel (ExecutorPlan::RunNode relies on it):
  // setting and restoring MXCSR around each was 5% of an LSTM's step.
  ScopedFlushDenormal flush;
  int budget = kNodesPerHandler;
  int until_mailbox_check = kNodesPerMailboxCheck;
  int until_clock_read = kNodesPerClockRead;
  const auto slice_end = std::chrono::steady_clock::now() + kInlineSlice;
  bool slice_over = false;
  while (!st.ready.empty() && !st.finished) {
    // A kernel handed off (or a Recv) may have answered meanwhile: what waits for it (the
    // next hand-off of a chain, a Send another lane waits for) should not wait for a loop's
    // next thousand nodes here.
    bool answered = false;
    if (st.in_flight > 0 && --until_mailbox_check == 0) {
      until_mailbox_check = kNodesPerMailboxCheck;
      answered = !self->mailbox().empty();
    }
    if ((st.plan->has_loops && --budget < 0) || answered || slice_over) {
      // Let the mailbox in (an abort, kernels done); a message to ourselves resumes. After
      // a slice, the thread's other actors too (kInlineSlice).
      if (!st.resume_sent) {
        st.resume_sent = true;
        if (slice_over) self->delayed_send(self, kResumeDelay, resume_atom::value);
        else self->send(self, resume_atom::value);
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
      // Kernels in flight count too: their completion may make the other direction of a
      // bidirectional RNN ready, which a whole loop run here would keep waiting (its loop's
      // input product, moved before the loop, was still running when this one's was done).
      st.scratch.work_waiting = st.device_threads > 1 && (st.in_flight > 0 || AnyReadyExpensive(st));
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
    if (item.is_expensive && !st.on_caller_thread && st.device_threads > 1 && LongEnoughForAThread(*st.plan, t.node) &&
        (st.in_flight > 0 || AnyReadyWorthAThread(st))) {
      const int n = static_cast<int>(st.scratch.values.size());
      if (InputBytes(st.scratch.values.data(), n) >= kInlineInputBytes) {
        ++st.in_flight;
        ++st.running[t.node];
        self->send(st.device, launch_atom::value,
                   KernelLaunch{st.plan, t.node, std::move(st.scratch), st.step_id, st.collect_stats,
                                caf::actor_cast<caf::actor>(self), CallerUnitOf(self),
                                std::chrono::steady_clock::now()});
        continue;
      }
    }
    st.plan->RunNode(t.node, st.scratch, st.frame.get(), st.step_id, st.collect_stats, &st.done);
    // Only a _Send stays dead for having run with a dead input (a recording push does not).
    if (t.dead && !item.is_transfer) st.done.input_dead = false;
    Complete(self, st.done, /*inline_run=*/true);
    // (A step on its caller's thread shares that thread with no actor.)
    if (!st.on_caller_thread && (item.is_expensive || --until_clock_read == 0)) {
      until_clock_read = kNodesPerClockRead;
      slice_over = std::chrono::steady_clock::now() >= slice_end;
    }
  }
  if (st.finished || st.in_flight > 0) return;
  if (!st.held_args.empty()) return;  // a partial run's step, waiting for a feed
  if (st.completed != st.plan->frames[0].num_nodes || !st.root->children.empty()) {
    return Finish(self, Stalled(st, st.step_id));
  }
  int unset = st.frame->FirstUnset();
  if (unset >= 0) {
    // TensorFlow: "Retval[i] does not have value".
    return Finish(self, errors::InvalidArgument("fetch ", unset, " has no value (Retval[", unset,
                                                "] does not have value): it is dead, on a branch of a "
                                                "conditional that was not taken"));
  }
  Finish(self, Status::OK());
}

// Whether `node` is an _Arg a partial run's step holds back for its feed.
bool IsHeldArg(const ExecutorState& st, int node) {
  for (const auto& [index, held] : st.held_args) {
    if (held == node) return true;
  }
  return false;
}

// This executor's part of its node's snapshot (actors/executor_report.h).
std::string Observe(ExecutorSelf* self) {
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

caf::behavior executor_actor(ExecutorSelf* self, ExecutorArgs args) {
  auto& st = self->state;
  st.plan = std::move(args.plan);
  st.device = std::move(args.device);
  st.device_owner = std::move(args.device_owner);
  st.device_threads = st.plan->device->num_threads();
  st.spare.resize(st.plan->frames.size());
  st.partial_run = args.partial_run;
  st.on_retval = std::move(args.on_retval);
  const size_t given_args = args.args.size();
  BeginStep(st, args.step_id, std::move(args.args), args.collect_stats, std::move(args.watch), args.on_caller_thread);
  auto start = [=] {
    auto& st = self->state;
    st.promise = self->make_response_promise();
    st.held_args.clear();
    if (st.partial_run) {
      // The _Args whose feeds the step has not had yet wait for them (partial_feed_atom).
      for (const auto& [node, index] : st.plan->arg_nodes) {
        if (static_cast<size_t>(index) >= given_args) st.held_args[index] = node;
      }
    }
    Status observed = ObserveBoundConstants(st);
    if (!observed.ok()) return Finish(self, observed);
    for (int root : st.plan->roots) {
      if (st.held_args.empty() || !IsHeldArg(st, root)) MakeReady(st, root, st.root, false);
    }
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
      [=](partial_feed_atom, PartialRunValue& feed) {
        auto& st = self->state;
        auto held = st.held_args.find(feed.index);
        if (st.finished || held == st.held_args.end()) return;  // another partition's feed
        const int node = held->second;
        st.held_args.erase(held);
        st.frame->SetArg(feed.index, std::move(feed.value));
        MakeReady(st, node, st.root, false);
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
  if (args.own_thread) return system.spawn<caf::detached>(executor_actor, std::move(args));
  return system.spawn<caf::lazy_init>(executor_actor, std::move(args));
}

}  // namespace tensoract
