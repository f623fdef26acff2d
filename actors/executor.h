// The executor actor: runs one partition for one step.
//
// It counts, for every node, the inputs still missing; a node whose count reaches zero is
// ready. Inexpensive kernels (and any kernel on small inputs) run inline in the actor's
// own handler, so a small step never leaves its thread; expensive ones go to the device
// actor, which runs them on the device's threads and answers with a kernel_done message,
// unless nothing else is ready or in flight: then the kernel runs in the handler too (as
// TensorFlow runs its last ready node inline), sparing two thread hand-offs that cost a
// sequential step more than the concurrency they buy; asynchronous kernels (AsyncOpKernel)
// answer with kernel_done when they finish.
// All of the step's state belongs to this actor: nothing is locked (variables behind ref
// edges have their own locks).
//
// Control flow (graph/control_flow.h): values carry their frame instance and iteration,
// Switch's untaken output and what it feeds are dead, Merge fires on its first live input,
// loops run up to parallel_iterations iterations at once and a finished loop's frame is
// freed (actors/executor_frames.h explains how). A plan with loops hands control back to
// the mailbox every few thousand nodes, so an abort stops even a loop that never ends.
//
// With collect_stats, every node's start, end, thread and outputs go into the reply's
// DeviceStepStats, as TensorFlow's RunMetadata.step_stats reports them.
//
// A partial run's step (ExecutorArgs::partial_run) does not stall for want of a feed: it
// waits for (partial_feed_atom, PartialRunValue).
//
// Protocol: (start_atom) -> RunGraphResponse once every node has run or the first error
// (which abandons the step: kernels still in flight finish, and their results are
// dropped). (abort_atom, Status) ends the step with that status. After replying, an
// executor with nothing in flight stays idle (the reply's executor_idle), and
// (start_atom, ExecutorStep) runs another step of its partition: the worker keeps a few idle ones per partition, sparing a spawn
// and a teardown per step. One with kernels still in flight quits.
#ifndef TENSORACT_ACTORS_EXECUTOR_H_
#define TENSORACT_ACTORS_EXECUTOR_H_

#include <functional>
#include <memory>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "actors/executor_plan.h"
#include "actors/tensor_watch.h"
#include "actors/messages.h"

namespace tensoract {

struct ExecutorArgs {
  std::shared_ptr<const ExecutorPlan> plan;
  caf::actor device;  // runs the expensive kernels
  int64_t step_id = 0;
  std::vector<Tensor> args;  // by _Arg index
  bool collect_stats = false;
  // The plan's device, kept alive while this executor may run kernels on the calling
  // thread (their parallel parts use the device's threads): a session torn down mid-kernel
  // must not free the device under it.
  std::shared_ptr<Device> device_owner;
  std::shared_ptr<const WatchSpec> watch;  // tensors to watch in this step (null: none)
  bool on_caller_thread = false;  // RunGraphRequest::on_caller_thread
  // A detached actor: the executor runs on a thread of its own, never on CAF's shared ones
  // (a lane's, graph/loop_lanes.h).
  bool own_thread = false;
  // A partial run's step (RunGraphRequest::partial_run): an _Arg whose feed `args` lacks
  // waits for (partial_feed_atom, PartialRunValue); each fetch goes to on_retval when set.
  bool partial_run = false;
  std::function<void(int index, const Tensor& value)> on_retval;
};

// A later step for an idle executor (start_atom, ExecutorStep).
struct ExecutorStep {
  int64_t step_id = 0;
  std::vector<Tensor> args;  // by _Arg index
  bool collect_stats = false;
  std::shared_ptr<const WatchSpec> watch;
  bool on_caller_thread = false;
};

// Kernels whose inputs total fewer bytes than this run inline even if expensive: handing
// them to another thread costs more (~20 us to wake one) than computing them.
constexpr size_t kInlineInputBytes = 16 * 1024;
// Nor does a kernel measured to run in less than this (ExecutorPlan::KernelNanos): the
// hand-off there and back would cost as much as running it here.
constexpr int64_t kInlineKernelNanos = 20 * 1000;
// Nor, up to this, one measured to run for less than twice what this plan's hand-offs
// wait (ExecutorPlan::HandoffNanos): a thread's wake-up on a VM is tens of microseconds.
// A longer wait is the queue of a busy pool, not a wake-up; the kernel still goes there.
constexpr int64_t kMaxInlineKernelNanos = 100 * 1000;

caf::actor SpawnExecutor(caf::actor_system& system, ExecutorArgs args);

}  // namespace tensoract

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::ExecutorStep)

#endif  // TENSORACT_ACTORS_EXECUTOR_H_
