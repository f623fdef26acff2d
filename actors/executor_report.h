// What an executor tells about its step, apart from running it: a node's statistics for a
// traced step (TensorFlow's NodeExecStats) and the executor's part of an observer's
// snapshot (messages/observer.proto). Pure functions of what the executor hands them.
#ifndef TENSORACT_ACTORS_EXECUTOR_REPORT_H_
#define TENSORACT_ACTORS_EXECUTOR_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "actors/executor_plan.h"
#include "actors/messages.h"
#include "messages/step_stats.pb.h"

namespace tensoract {

// One NodeExecStats as TensorFlow fills it, appended to `stats`: absolute start, times
// relative to it, the outputs, and their bytes as the node's memory (TensorFlow counts
// temporaries too, which its allocator tracks per step; TensorBoard's graph view shows it).
void RecordNodeStats(const ExecutorPlan& plan, const KernelDone& done, int64_t scheduled_ns,
                     tensorflow::DeviceStepStats* stats);

// An executor's state as ObserveExecutor needs it.
struct ExecutorView {
  const ExecutorPlan* plan = nullptr;
  int64_t step_id = 0;
  double age_s = 0;
  int completed = 0;  // root-frame nodes done
  int in_flight = 0;
  bool finished = false;
  int64_t mailbox = 0;
  std::vector<int> ready;                       // nodes, in order
  const std::vector<int>* running = nullptr;    // by node: kernels in flight
  const std::vector<int>* root_pending = nullptr;  // by pending id: inputs not yet arrived
};

// A serialized observe::NodeSnapshot with the executor's actor and its step: running,
// ready and waiting root-frame nodes, each waiting one with the inputs it waits for (those
// still running or waiting themselves), every unsent _Send by its key.
std::string ObserveExecutor(const ExecutorView& view);

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_EXECUTOR_REPORT_H_
