#include "actors/executor_frames.h"

#include <algorithm>

namespace tensoract {
namespace {

using Kind = ExecutorPlan::Kind;
using NodeItem = ExecutorPlan::NodeItem;

std::unique_ptr<IterationState> NewIteration(StepFrames& st, FrameState* frame, int64_t iter) {
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
  if (frame->info == 0) {
    for (const auto& [slot, value] : st.plan->constant_inputs) it->slots[slot] = value;
  }
  it->frame = frame;
  it->iter = iter;
  it->outstanding_ops = 0;
  it->outstanding_frames = 0;
  return it;
}

// A retired iteration's arrays are reused by a later one; values left in its slots (a
// Merge's input that arrived after it ran, say) are dropped now.
void Recycle(StepFrames& st, int frame_info, std::unique_ptr<IterationState> it) {
  for (Tensor& t : it->slots) t = Tensor();
  for (auto& r : it->ref_slots) r.reset();
  it->children.clear();
  st.spare[frame_info].push_back(std::move(it));
}

std::vector<int>& DeadCounts(StepFrames& st, IterationState* it) {
  if (it->dead.empty()) it->dead.assign(st.plan->frames[it->frame->info].num_nodes, 0);
  return it->dead;
}

std::vector<int>& LiveInputs(StepFrames& st, IterationState* it) {
  if (it->live_input.empty()) it->live_input.assign(st.plan->frames[it->frame->info].num_nodes, 0);
  return it->live_input;
}


// The fast path: a node without control flow, all inputs live, whose consumers are in its
// own iteration and are no Merge. Only counts down.
void ActivatePlain(StepFrames& st, const NodeItem& item, IterationState* it, KernelDone& done) {
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
void Activate(StepFrames& st, const NodeItem& item, IterationState* it, std::vector<Tensor>* outputs,
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

FrameState* FindOrCreateChild(StepFrames& st, IterationState* it, int child_info) {
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

void IncrementIteration(StepFrames& st, FrameState* f) {
  ++f->iteration_count;
  f->iterations.push_back(NewIteration(st, f, f->iteration_count));
  ++f->outstanding_iterations;
  IterationState* it = f->iterations.back().get();
  for (SavedOutput& inv : f->invariants) {
    Activate(st, st.plan->nodes[inv.node], it, &inv.values, &inv.refs, inv.dead, inv.dead ? kAllDead : kNoneDead,
             /*may_move=*/false);
  }
}

void CleanupFrameIterations(StepFrames& st, FrameState* f);

// A frame instance has ended: Exits that never passed a live value out pass a dead one,
// the instance is freed, and its parent iteration may end in turn.
void FrameDone(StepFrames& st, FrameState* f) {
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
void CleanupFrameIterations(StepFrames& st, FrameState* f) {
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
Status PropagateControlFlow(StepFrames& st, const NodeItem& item, IterationState* it, KernelDone& done) {
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

}  // namespace

void MakeReady(StepFrames& st, int node, IterationState* it, bool dead) {
  st.ready.push_back({node, it, dead});
  if (it != st.root) ++it->outstanding_ops;
  if (st.collect_stats) st.scheduled_ns[node] = NowNanos();
}

void StartRootFrame(StepFrames& st) {
  if (st.root != nullptr) Recycle(st, 0, std::move(st.root_frame.iterations.front()));
  st.root_frame = FrameState();
  st.root_frame.outstanding_iterations = 1;
  st.root_frame.iterations.push_back(NewIteration(st, &st.root_frame, 0));
  st.root = st.root_frame.iterations.front().get();
  st.ready.clear();
  st.completed = static_cast<int>(st.plan->bound_constants.size());  // done before the step starts
}

Status Propagate(StepFrames& st, KernelDone& done) {
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
Status TakeInputs(StepFrames& st, IterationState* it, const NodeItem& item, NodeInputs* in) {
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

// Why a step whose ready queue ran dry did not finish: nodes still waiting, or a loop
// that never ended.
Status Stalled(const StepFrames& st, int64_t step_id) {
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
  return errors::Internal("step ", step_id, " stalled: ", st.plan->frames[0].num_nodes - st.completed,
                          " nodes never became ready", waiting.empty() ? "" : " (waiting: " + waiting + ")",
                          loops.empty() ? "" : "; loops that never ended: " + loops);
}

}  // namespace tensoract
