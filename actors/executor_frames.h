// The bookkeeping of one step of a partition on its executor (actors/executor.h): the
// inputs waiting in their nodes' slots, which nodes are ready, and the frames and
// iterations of loops. The executor actor keeps a StepFrames per step, takes the ready
// nodes from it, runs their kernels and hands their results back (Propagate).
//
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
#ifndef TENSORACT_ACTORS_EXECUTOR_FRAMES_H_
#define TENSORACT_ACTORS_EXECUTOR_FRAMES_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "actors/executor_plan.h"
#include "actors/messages.h"
#include "base/status.h"
#include "kernels/variable.h"

namespace tensoract {

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

// A step's bookkeeping (the executor actor's state extends it with what the actor needs).
struct StepFrames {
  std::shared_ptr<const ExecutorPlan> plan;
  bool collect_stats = false;         // MakeReady notes when each node became ready
  std::vector<int64_t> scheduled_ns;  // by node, with statistics
  FrameState root_frame;
  IterationState* root = nullptr;  // the root frame's only iteration
  std::deque<TaggedNode> ready;
  int completed = 0;  // root-frame nodes done
  std::vector<std::vector<std::unique_ptr<IterationState>>> spare;  // retired iterations, by frame
};

// Starts a step: a fresh root frame with its one iteration, nothing ready or done. The
// plan and the retired iterations' arrays stay.
void StartRootFrame(StepFrames& st);
void MakeReady(StepFrames& st, int node, IterationState* it, bool dead);
// Hands a finished node's outputs on, then ends its iteration if that was its last node.
Status Propagate(StepFrames& st, KernelDone& done);
// Moves a ready node's inputs out of their slots (see executor_frames.cc).
Status TakeInputs(StepFrames& st, IterationState* it, const ExecutorPlan::NodeItem& item, NodeInputs* in);
// Why step `step_id`, whose ready queue ran dry, did not finish.
Status Stalled(const StepFrames& st, int64_t step_id);

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_EXECUTOR_FRAMES_H_
