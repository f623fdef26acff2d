// ExecutorPlan: a registered partition, made ready to run many steps.
//
// Built once by the worker when a graph is registered: every node gets its kernel, and the
// graph is flattened into arrays an executor walks without lookups: where each node's
// inputs live in one flat slot array, who consumes each output, and how many inputs each
// node waits for. A plan is immutable once built and shared (shared_ptr) by all the
// executors running steps of it, and by kernels in flight on device threads.
#ifndef TENSORACT_ACTORS_EXECUTOR_PLAN_H_
#define TENSORACT_ACTORS_EXECUTOR_PLAN_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "actors/messages.h"
#include "kernels/cancellation.h"
#include "kernels/op_kernel.h"
#include "kernels/collective.h"
#include "kernels/rendezvous.h"

namespace tensoract {

// The kernels of stateful ops shared by every plan of one session, as TensorFlow's
// OpSegment shares them: a random op keeps drawing new numbers, and any stateful kernel
// keeps its state, across the session's call signatures (each its own registered graph).
// Keyed by device and node name; a node whose NodeDef differs gets a kernel of its own.
// Used only from the worker's handler (no lock); the plans hold the kernels they use.
struct SharedKernels {
  struct Entry {
    NodeDef def;  // the same node only when its NodeDef matches
    std::shared_ptr<OpKernel> kernel;
  };
  std::map<std::string, Entry> by_node;
};

// What one kernel invocation gets: its inputs (values, and the variables behind ref
// inputs), and where it runs: the frame instance and iteration (for _Send/_Recv keys),
// whether an input is dead (only a _Send runs so), and the executor's tag for it, which
// comes back in its KernelDone.
struct NodeInputs {
  std::vector<Tensor> values;
  std::vector<std::shared_ptr<Var>> refs;  // empty unless the node has ref inputs
  bool is_input_dead = false;
  uint64_t inputs_present = ~uint64_t{0};  // a Merge's: only its live input
  int64_t frame_id = 0;
  int64_t iter_id = 0;
  intptr_t tag = 0;
  bool on_caller_thread = false;  // OpKernelContext::Params::on_caller_thread
  bool work_waiting = false;      // OpKernelContext::Params::work_waiting
};

// A plan's nodes are grouped by the frame (loop) they run in (graph/control_flow.h). Each
// frame has its own numbering of its nodes' pending counts and input slots, so one
// iteration of a loop holds only its own nodes' state. Without loops there is one frame,
// the root, holding every node, numbered as the plan's nodes are.
//
// Shared: an async kernel's completion (a Recv answered by another process after the step
// was abandoned and its graph deregistered) keeps the plan, and so the kernel, alive.
struct ExecutorPlan : std::enable_shared_from_this<ExecutorPlan> {
  struct Consumer {
    int node;
    int slot;     // index into the flat input slots of the consumer's frame
    int pending;  // the consumer's pending-count index in its frame
  };
  // What the executor does with a node beyond running its kernel.
  enum class Kind : uint8_t {
    kPlain,
    kMerge,          // ready on the first live input, or when all inputs are dead
    kEnter,          // outputs into a child frame
    kExit,           // outputs into the parent frame, when the loop ends
    kNextIteration,  // outputs into the next iteration
    kControlTrigger, // runs even when its inputs are dead
  };
  struct NodeItem {
    std::shared_ptr<OpKernel> kernel;  // shared with the session's other plans when stateful
    int input_start = 0;  // this node's inputs are slots [input_start, input_start + num_inputs) of its frame
    int num_inputs = 0;
    int pending_id = 0;   // index of its pending count in its frame
    int frame = 0;        // index into ExecutorPlan::frames
    int initial_pending = 0;                       // incoming data and control edges (a Merge: see executor.cc)
    std::vector<std::vector<Consumer>> consumers;  // by output port
    uint64_t outputs_required = ~uint64_t{0};      // bit o: output o has a consumer (OpKernelContext)
    std::vector<Consumer> control_consumers;       // slot unused
    Kind kind = Kind::kPlain;
    // Not kPlain, or may output dead values (Switch, _Recv): the executor's general path.
    bool needs_control_flow = false;
    bool can_output_dead = false;
    bool is_transfer = false;  // _Send or _Recv
    bool runs_when_dead = false;  // runs even with a dead input (OpKernel::RunsWithDeadInputs)
    bool is_constant_enter = false;
    bool is_bound_constant = false;  // its value is in constant_inputs; it never runs
    int child_frame = -1;      // an Enter's frame
    bool has_ref_input = false;
    bool is_async = false;
    bool is_expensive = true;
    std::string timeline_label;  // "name = Op(input, ...)" for step statistics
    // Name, op, device and attrs, hashed (not the inputs): whether a later plan's node may
    // take this kernel (Build's `earlier`). 0 for Consts, which are remade.
    size_t kernel_fingerprint = 0;
    std::string transfer_key;    // a _Send's or _Recv's rendezvous key (root frame, iteration 0)
  };
  struct Frame {
    std::string name;             // "" for the root
    int parent = -1;
    int parallel_iterations = 1;
    int num_enters = 0;           // Enter nodes into it in this partition
    int num_nodes = 0;            // nodes running in it
    int num_input_slots = 0;
    std::vector<int> initial_pending;  // by pending id
    std::vector<int> exits;            // its Exit nodes
  };

  // A node's inputs, backwards from the consumer lists: for the rare observer and NaN
  // search, never the executor's hot path. `index` is the input's position (-1: a control
  // edge).
  struct Producer {
    int node;
    int port;
    int index;
  };
  std::vector<std::vector<Producer>> ProducersByNode() const;

  Device* device = nullptr;
  // Where this partition's _Send and _Recv meet the other partitions' (the worker's).
  std::shared_ptr<Rendezvous> rendezvous;
  // Where its collective ops meet their groups (the worker's); nullptr: they fail.
  std::shared_ptr<CollectiveExecutor> collectives;
  std::vector<NodeItem> nodes;
  std::vector<Frame> frames;  // frames[0] is the root
  std::vector<int> roots;  // nodes with nothing to wait for
  // The values of the root frame's Consts, computed once when the plan is built, by the
  // root-frame input slot each one fills: a step starts with them in place and never runs
  // those Consts (their consumers wait for them no more). A frozen MobileNetV2 reads ~420
  // Consts a step around its 52 convolutions; run, each was a trip through the executor
  // (a context, a kernel call, a count-down) on the thread the step waits for. The plan
  // keeps a reference to each value, so no kernel takes its buffer for an output.
  std::vector<std::pair<int, Tensor>> constant_inputs;
  // Those Consts and their values, by node: done before a step starts, reported then to
  // its statistics and watches as if run.
  std::vector<std::pair<int, Tensor>> bound_constants;
  int num_input_slots = 0;  // of the root frame
  int num_args = 0;  // feeds the graph reads: 1 + its highest _Arg index
  std::vector<std::pair<int, int>> arg_nodes;  // (node, _Arg index) of each _Arg
  int num_retvals = 0;  // 1 + the highest _Retval index (a partition may hold only some)
  std::vector<int> retval_indices;  // the _Retval indices this partition sets
  bool has_ref_edges = false;  // some edge carries a variable reference
  bool has_loops = false;      // more frames than the root
  bool has_step_resources = false;  // some node makes per-step resources (stacks)
  bool has_cancellable_kernels = false;  // some asynchronous kernel other than _Recv (queues)
  bool has_transfers = false;  // some _Send or _Recv: its steps use the worker's rendezvous

  // How long each expensive node's kernel runs: a moving average of its last runs in
  // nanoseconds, kNotYetRun before its first. The executor hands a kernel to the device's
  // threads only when it runs long enough to pay for the hand-off there and back, as
  // TensorFlow's executor learns from its KernelStats which "expensive" kernels are cheap
  // in fact: an LSTM step's MatMul of one token takes a microsecond, not a thread wake-up.
  // Shared by every executor running this plan, written from any thread.
  static constexpr int64_t kNotYetRun = -1;
  int64_t KernelNanos(int node) const { return kernel_ns_[node].load(std::memory_order_relaxed); }

  // How long a kernel handed to the device's threads waited to start there (from the
  // executor's send to the pool thread's start: the device actor's hop and the pool's
  // wake-up), a moving average as KernelNanos's; 0 before the first hand-off. Its threads
  // asleep between the steps of a small model at batch 1, it is tens of microseconds on a
  // VM; busy with a training step's other kernels, a few.
  int64_t HandoffNanos() const { return handoff_ns_.load(std::memory_order_relaxed); }
  void RecordHandoffNanos(int64_t ns) const;

  // Runs node `node` on the calling thread: the one way a synchronous kernel runs, inline
  // in the executor or on a device thread. The result's status names the node; an output
  // of the wrong type is reported rather than passed on. `timed` fills start/end.
  // `done` is overwritten; its vectors are reused, so a caller running many kernels keeps
  // one KernelDone and allocates nothing for it per node.
  void RunNode(int node, const NodeInputs& inputs, CallFrame* call_frame, int64_t step_id, bool timed,
               KernelDone* done) const;

  // Starts an asynchronous kernel; `done` gets its result, from whatever thread the kernel
  // finishes on. The inputs, the kernel's context and `cancellation` (the step's, which
  // the kernel may register with while it waits) live until then.
  void RunNodeAsync(int node, NodeInputs inputs, int64_t step_id, bool timed,
                    std::shared_ptr<CancellationManager> cancellation, std::function<void(KernelDone)> done) const;

  // Imports `graph_def` and makes a kernel for every node on `device`: a stateful op's from
  // `shared` when given (the session's); another's from `earlier` (a plan of the same graph
  // on the same device) when it has a node of that name, op and attrs, which keeps what the
  // kernel prepared in earlier steps (oneDNN's primitives and reordered filters). Errors
  // name the node (unknown op, invalid attrs, no kernel, cycle).
  static StatusOr<std::shared_ptr<const ExecutorPlan>> Build(const tensorflow::GraphDef& graph_def, Device* device,
                                                             std::shared_ptr<Rendezvous> rendezvous = nullptr,
                                                             SharedKernels* shared = nullptr,
                                                             std::shared_ptr<CollectiveExecutor> collectives = nullptr,
                                                             const ExecutorPlan* earlier = nullptr);

 private:
  void RecordKernelNanos(int node, int64_t ns) const;
  mutable std::unique_ptr<std::atomic<int64_t>[]> kernel_ns_;  // by node: KernelNanos
  mutable std::unique_ptr<std::atomic<uint32_t>[]> kernel_runs_;  // by node, to sample the clock
  mutable std::atomic<int64_t> handoff_ns_{0};  // HandoffNanos
};

// Wall-clock nanoseconds, the time base of step statistics.
int64_t NowNanos();
// The calling thread, as step statistics name it (KernelDone::thread_id).
uint32_t ThisThreadId();

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_EXECUTOR_PLAN_H_
