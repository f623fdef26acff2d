// ExecutorPlan: a registered partition, made ready to run many steps.
//
// Built once by the worker when a graph is registered: every node gets its kernel, and the
// graph is flattened into arrays an executor walks without lookups: where each node's
// inputs live in one flat slot array, who consumes each output, and how many inputs each
// node waits for. A plan is immutable once built and shared (shared_ptr) by all the
// executors running steps of it, and by kernels in flight on device threads.
#ifndef TENSORACT_ACTORS_EXECUTOR_PLAN_H_
#define TENSORACT_ACTORS_EXECUTOR_PLAN_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "actors/messages.h"
#include "kernels/op_kernel.h"
#include "kernels/rendezvous.h"

namespace tensoract {

// What one kernel invocation gets: its inputs (values, and the variables behind ref
// inputs), the step's call frame and id, and whether to time it.
struct NodeInputs {
  std::vector<Tensor> values;
  std::vector<std::shared_ptr<Var>> refs;  // empty unless the node has ref inputs
};

// Shared: an async kernel's completion (a Recv answered by another process after the step
// was abandoned and its graph deregistered) keeps the plan, and so the kernel, alive.
struct ExecutorPlan : std::enable_shared_from_this<ExecutorPlan> {
  struct Consumer {
    int node;
    int slot;  // index into the flat input slots
  };
  struct NodeItem {
    std::unique_ptr<OpKernel> kernel;
    int input_start = 0;  // this node's inputs are slots [input_start, input_start + num_inputs)
    int num_inputs = 0;
    int initial_pending = 0;                       // incoming data and control edges
    std::vector<std::vector<Consumer>> consumers;  // by output port
    std::vector<int> control_consumers;
    bool has_ref_input = false;
    bool is_async = false;
    bool is_expensive = true;
    std::string timeline_label;  // "name = Op(input, ...)" for step statistics
  };

  Device* device = nullptr;
  // Where this partition's _Send and _Recv meet the other partitions' (the worker's).
  std::shared_ptr<Rendezvous> rendezvous;
  std::vector<NodeItem> nodes;
  std::vector<int> roots;  // nodes with nothing to wait for
  int num_input_slots = 0;
  int num_args = 0;  // feeds the graph reads: 1 + its highest _Arg index
  int num_retvals = 0;  // 1 + the highest _Retval index (a partition may hold only some)
  std::vector<int> retval_indices;  // the _Retval indices this partition sets
  bool has_ref_edges = false;  // some edge carries a variable reference

  // Runs node `node` on the calling thread: the one way a synchronous kernel runs, inline
  // in the executor or on a device thread. The result's status names the node; an output
  // of the wrong type is reported rather than passed on. `timed` fills start/end.
  // `done` is overwritten; its vectors are reused, so a caller running many kernels keeps
  // one KernelDone and allocates nothing for it per node.
  void RunNode(int node, const NodeInputs& inputs, CallFrame* call_frame, int64_t step_id, bool timed,
               KernelDone* done) const;

  // Starts an asynchronous kernel; `done` gets its result, from whatever thread the kernel
  // finishes on. The inputs and the kernel's context live until then.
  void RunNodeAsync(int node, NodeInputs inputs, int64_t step_id, bool timed,
                    std::function<void(KernelDone)> done) const;

  // Imports `graph_def` and makes a kernel for every node on `device`. Errors name the
  // node (unknown op, invalid attrs, no kernel, cycle).
  static StatusOr<std::shared_ptr<const ExecutorPlan>> Build(const tensorflow::GraphDef& graph_def, Device* device,
                                                             std::shared_ptr<Rendezvous> rendezvous = nullptr);
};

// Wall-clock nanoseconds, the time base of step statistics.
int64_t NowNanos();

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_EXECUTOR_PLAN_H_
