#include "actors/executor_plan.h"

#include <exception>
#include <algorithm>
#include <chrono>
#include <functional>
#include <set>
#include <thread>

#include <unordered_map>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/message_differencer.h>

#include "graph/control_flow.h"
#include "kernels/denormal.h"
#include "kernels/kernel_registry.h"
#include "kernels/kernel_status.h"

namespace tensoract {
namespace {

OpKernelContext::Params MakeParams(const ExecutorPlan& plan, int node, const NodeInputs& inputs,
                                   CallFrame* call_frame, int64_t step_id) {
  OpKernelContext::Params params;
  params.device = plan.device;
  params.kernel = plan.nodes[node].kernel.get();
  params.inputs = &inputs.values;
  params.input_refs = inputs.refs.empty() ? nullptr : &inputs.refs;
  params.call_frame = call_frame;
  params.step_id = step_id;
  params.rendezvous = plan.rendezvous.get();
  params.collectives = plan.collectives.get();
  params.is_input_dead = inputs.is_input_dead;
  params.inputs_present = inputs.inputs_present;
  params.frame_id = inputs.frame_id;
  params.iter_id = inputs.iter_id;
  params.on_caller_thread = inputs.on_caller_thread;
  params.work_waiting = inputs.work_waiting;
  params.outputs_required = plan.nodes[node].outputs_required;
  return params;
}

// Checks what a kernel left in its context and moves it into `done`.
void CollectOutputs(const OpKernel& k, OpKernelContext& ctx, KernelDone* done) {
  if (!ctx.status().ok()) {
    done->status = NamedKernelStatus(k, ctx.status());
    return;
  }
  // Switch and _Recv leave an output unset to make it dead; the others must set them all.
  const bool may_be_unset = k.CanOutputDead();
  done->dead_outputs = 0;
  for (int i = 0; i < k.num_outputs(); ++i) {
    if (may_be_unset && !ctx.output_set(i)) {
      if (i < 32) done->dead_outputs |= uint32_t{1} << i;
      continue;
    }
    if (IsRefType(k.output_types()[i])) {
      if (ctx.output_refs().empty() || ctx.output_refs()[i] == nullptr) {
        done->status = errors::Internal("node '", k.name(), "' (op '", k.type_string(), "') did not set ref output ", i);
        return;
      }
      continue;
    }
    const Tensor& out = ctx.outputs()[i];
    if (out.dtype() != k.output_types()[i] || !out.IsInitialized()) {
      done->status = errors::Internal("node '", k.name(), "' (op '", k.type_string(), "') produced output ", i, " as ",
                                      out.IsInitialized() ? DataTypeString(out.dtype()) : "nothing", " but declares ",
                                      DataTypeString(k.output_types()[i]));
      return;
    }
  }
  if (&ctx.outputs() != &done->outputs) done->outputs = std::move(ctx.outputs());
  if (!ctx.output_refs().empty()) done->output_refs = std::move(ctx.output_refs());
}

}  // namespace

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

uint32_t ThisThreadId() { return static_cast<uint32_t>(std::hash<std::thread::id>()(std::this_thread::get_id())); }

void ExecutorPlan::RunNode(int node, const NodeInputs& inputs, CallFrame* call_frame, int64_t step_id, bool timed,
                           KernelDone* done) const {
  done->node = node;
  done->tag = inputs.tag;
  done->input_dead = inputs.is_input_dead;
  done->status = Status::OK();
  done->output_refs.clear();
  if (timed) {
    done->start_ns = NowNanos();
    done->thread_id = ThisThreadId();
  }
  OpKernelContext::Params params = MakeParams(*this, node, inputs, call_frame, step_id);
  params.output_storage = &done->outputs;
  OpKernelContext ctx(params);
  // Timed on its first run and then one run in kSampledRuns: reading the clock twice per
  // kernel was 4% of an LSTM's step, whose kernels take a microsecond.
  constexpr uint32_t kSampledRuns = 8;
  bool measured = false;
  if (nodes[node].is_expensive) {
    const uint32_t runs = kernel_runs_[node].load(std::memory_order_relaxed);
    kernel_runs_[node].store(runs + 1, std::memory_order_relaxed);
    measured = runs % kSampledRuns == 0;
  }
  const auto start = measured ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
  {
    // Denormals are flushed already: the executor's handler sets it once for the nodes it
    // runs, the device's threads from their start (reading MXCSR around every kernel was 3%
    // of an LSTM's step).
    // A kernel that throws (a bug: kernels report errors as Status) fails its step with a
    // Status naming it instead of taking down the executor and leaving the step to hang.
    try {
      nodes[node].kernel->Compute(&ctx);
    } catch (const std::exception& e) {
      ctx.SetStatus(errors::Internal("node '", nodes[node].kernel->name(), "' (op '",
                                     nodes[node].kernel->type_string(), "') threw: ", e.what()));
    }
  }
  if (measured) {
    RecordKernelNanos(node, std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
                                .count());
  }
  if (timed) done->end_ns = NowNanos();
  CollectOutputs(*nodes[node].kernel, ctx, done);
}

void ExecutorPlan::RecordKernelNanos(int node, int64_t ns) const {
  // Half the last run, half the runs before it: a kernel whose inputs grow (a longer
  // batch) is seen within a few steps. Racing writers lose an update, which only delays it.
  std::atomic<int64_t>& average = kernel_ns_[node];
  const int64_t before = average.load(std::memory_order_relaxed);
  average.store(before == kNotYetRun ? ns : (before + ns) / 2, std::memory_order_relaxed);
}

void ExecutorPlan::RecordHandoffNanos(int64_t ns) const {
  const int64_t before = handoff_ns_.load(std::memory_order_relaxed);
  handoff_ns_.store(before == 0 ? ns : (before + ns) / 2, std::memory_order_relaxed);
}

void ExecutorPlan::RunNodeAsync(int node, NodeInputs inputs, int64_t step_id, bool timed,
                                std::shared_ptr<CancellationManager> cancellation,
                                std::function<void(KernelDone)> done) const {
  // The context points into `inputs`; both live in one heap block until the kernel is done.
  struct Pending {
    NodeInputs inputs;
    std::shared_ptr<CancellationManager> cancellation;
    std::unique_ptr<OpKernelContext> ctx;
    int64_t start_ns = 0;
  };
  auto pending = std::make_shared<Pending>();
  pending->inputs = std::move(inputs);
  pending->cancellation = std::move(cancellation);
  OpKernelContext::Params params = MakeParams(*this, node, pending->inputs, nullptr, step_id);
  params.cancellation = pending->cancellation.get();
  pending->ctx = std::make_unique<OpKernelContext>(params);
  if (timed) pending->start_ns = NowNanos();
  auto* kernel = static_cast<AsyncOpKernel*>(nodes[node].kernel.get());
  ScopedFlushDenormal flush;
  kernel->ComputeAsync(pending->ctx.get(), [pending, kernel, node, timed, plan = shared_from_this(),
                                            done = std::move(done)] {
    KernelDone result;
    result.node = node;
    result.tag = pending->inputs.tag;
    result.input_dead = pending->inputs.is_input_dead;
    if (timed) {
      result.start_ns = pending->start_ns;
      result.end_ns = NowNanos();
      result.thread_id = ThisThreadId();
    }
    CollectOutputs(*kernel, *pending->ctx, &result);
    done(std::move(result));
  });
}

namespace {

// Whether a node's kernel is shared by the session's plans: stateful ops, as TensorFlow's
// OpSegment::ShouldOwnKernel decides, except function calls (a call's kernel belongs to
// its graph) and the ops that carry a step's values in and out, which hold no state.
bool SharesKernel(const Node& node) {
  if (!node.op_def().is_stateful()) return false;
  static const std::set<std::string> kOwnKernel = {"PartitionedCall", "StatefulPartitionedCall", "_Arg", "_Retval",
                                                   "_Send", "_Recv", "_HostSend", "_HostRecv"};
  return kOwnKernel.count(node.type_string()) == 0;
}

// What makes a kernel: the node without its inputs (a Const's value is its kernel: 0, never
// taken from an earlier plan, so no plan keeps a copy of it to compare).
size_t KernelFingerprint(const NodeDef& def) {
  if (def.op() == "Const") return 0;
  NodeDef without_inputs = def;
  without_inputs.clear_input();
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  without_inputs.SerializeToCodedStream(&coded);
  coded.Trim();
  return std::hash<std::string>()(bytes) | 1;  // never 0
}

// The kernel of `earlier`'s node made from the same NodeDef but for its inputs, or null.
std::shared_ptr<OpKernel> EarlierKernel(const ExecutorPlan* earlier, const std::unordered_map<std::string, int>& by_name,
                                        const Node& node, size_t fingerprint) {
  if (earlier == nullptr || fingerprint == 0) return nullptr;
  auto it = by_name.find(node.name());
  if (it == by_name.end() || earlier->nodes[it->second].kernel_fingerprint != fingerprint) return nullptr;
  return earlier->nodes[it->second].kernel;
}

Status MakeKernel(Device* device, const Node& node, SharedKernels* shared, std::shared_ptr<OpKernel> earlier,
                  std::shared_ptr<OpKernel>* kernel) {
  if (shared == nullptr || !SharesKernel(node)) {
    if (earlier != nullptr) {
      *kernel = std::move(earlier);
      return Status::OK();
    }
    std::unique_ptr<OpKernel> own;
    TA_RETURN_IF_ERROR(CreateOpKernel(device, node.def(), node.op_def(), &own));
    *kernel = std::move(own);
    return Status::OK();
  }
  const std::string key = StrCat(device->name(), "/", node.name());
  auto it = shared->by_node.find(key);
  if (it != shared->by_node.end() && google::protobuf::util::MessageDifferencer::Equals(it->second.def, node.def())) {
    *kernel = it->second.kernel;
    return Status::OK();
  }
  std::unique_ptr<OpKernel> made;
  TA_RETURN_IF_ERROR(CreateOpKernel(device, node.def(), node.op_def(), &made));
  *kernel = std::move(made);
  if (it == shared->by_node.end()) shared->by_node.emplace(key, SharedKernels::Entry{node.def(), *kernel});
  return Status::OK();
}

// Binds the root frame's Consts into ExecutorPlan::constant_inputs: those with no inputs
// whose consumers all run in the root frame and are no Merge (which counts its inputs its
// own way). Each is run once, here. A Const with no inputs is ready when its step starts and
// never dead, so its control consumers need not wait for it either: a frozen variable's
// read whose values all folded away stays only for the control edges a function's inlining
// gave it (MobileNetV2: 260 of them).
void BindConstants(ExecutorPlan& plan, const std::vector<Node*>& ops) {
  using Consumer = ExecutorPlan::Consumer;
  for (size_t i = 0; i < ops.size(); ++i) {
    ExecutorPlan::NodeItem& item = plan.nodes[i];
    if (ops[i]->type_string() != "Const" || item.frame != 0 || item.initial_pending != 0 || item.consumers.size() != 1) {
      continue;
    }
    bool plain_consumers = true;
    for (const auto* list : {&item.consumers[0], &item.control_consumers}) {
      for (const Consumer& c : *list) {
        plain_consumers &= plan.nodes[c.node].frame == 0 && plan.nodes[c.node].kind != ExecutorPlan::Kind::kMerge;
      }
    }
    if (!plain_consumers) continue;
    KernelDone done;
    plan.RunNode(static_cast<int>(i), NodeInputs(), nullptr, /*step_id=*/0, /*timed=*/false, &done);
    // A Const that fails (a value its device cannot hold) runs, and fails, in its step.
    if (!done.status.ok() || done.outputs.size() != 1 || !done.outputs[0].IsInitialized()) continue;
    for (const Consumer& c : item.consumers[0]) {
      plan.constant_inputs.emplace_back(c.slot, done.outputs[0]);
      --plan.nodes[c.node].initial_pending;
    }
    for (const Consumer& c : item.control_consumers) --plan.nodes[c.node].initial_pending;
    item.is_bound_constant = true;
    plan.bound_constants.emplace_back(static_cast<int>(i), std::move(done.outputs[0]));
  }
}

}  // namespace

StatusOr<std::shared_ptr<const ExecutorPlan>> ExecutorPlan::Build(const tensorflow::GraphDef& graph_def,
                                                                  Device* device,
                                                                  std::shared_ptr<Rendezvous> rendezvous,
                                                                  SharedKernels* shared,
                                                                  std::shared_ptr<CollectiveExecutor> collectives,
                                                                  const ExecutorPlan* earlier) {
  Graph graph;
  TA_RETURN_IF_ERROR(ImportGraphDef(graph_def, &graph));
  auto plan = std::make_shared<ExecutorPlan>();
  plan->device = device;
  plan->rendezvous = std::move(rendezvous);
  plan->collectives = std::move(collectives);
  // Op nodes get dense ids 0..n-1 in the plan; Source and Sink are left out.
  std::vector<int> plan_id(graph.num_node_ids(), -1);
  std::vector<Node*> ops = graph.op_nodes();
  for (size_t i = 0; i < ops.size(); ++i) plan_id[ops[i]->id()] = static_cast<int>(i);

  // Frames: only graphs with control flow need the analysis; the others are one frame.
  bool has_control_flow = false;
  for (Node* node : ops) has_control_flow |= IsControlFlow(*node);
  ControlFlowInfo cf;
  if (has_control_flow) TA_RETURN_IF_ERROR(BuildControlFlowInfo(graph, &cf));
  plan->frames.resize(has_control_flow ? cf.frames.size() : 1);
  for (size_t f = 0; has_control_flow && f < cf.frames.size(); ++f) {
    Frame& frame = plan->frames[f];
    frame.name = cf.frames[f].name;
    frame.parent = cf.frames[f].parent;
    frame.parallel_iterations = cf.frames[f].parallel_iterations;
    frame.num_enters = static_cast<int>(cf.frames[f].enters.size());
  }
  plan->has_loops = plan->frames.size() > 1;

  std::unordered_map<std::string, int> earlier_by_name;
  if (earlier != nullptr && earlier->device == device) {
    for (size_t i = 0; i < earlier->nodes.size(); ++i) earlier_by_name[earlier->nodes[i].kernel->name()] = static_cast<int>(i);
  }
  plan->nodes.resize(ops.size());
  plan->kernel_ns_.reset(new std::atomic<int64_t>[ops.size()]);
  plan->kernel_runs_.reset(new std::atomic<uint32_t>[ops.size()]);
  for (size_t i = 0; i < ops.size(); ++i) {
    plan->kernel_ns_[i].store(kNotYetRun, std::memory_order_relaxed);
    plan->kernel_runs_[i].store(0, std::memory_order_relaxed);
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    Node* node = ops[i];
    ExecutorPlan::NodeItem& item = plan->nodes[i];
    item.kernel_fingerprint = KernelFingerprint(node->def());
    TA_RETURN_IF_ERROR(MakeKernel(device, *node, shared,
                                  EarlierKernel(earlier, earlier_by_name, *node, item.kernel_fingerprint), &item.kernel));
    item.frame = has_control_flow ? cf.frame_of[node->id()] : 0;
    Frame& frame = plan->frames[item.frame];
    item.pending_id = frame.num_nodes++;
    item.input_start = frame.num_input_slots;
    item.num_inputs = node->num_inputs();
    frame.num_input_slots += item.num_inputs;
    item.is_async = item.kernel->IsAsync();
    item.is_expensive = item.kernel->IsExpensive();
    item.can_output_dead = item.kernel->CanOutputDead();
    item.is_transfer = node->type_string() == "_Send" || node->type_string() == "_Recv";
    item.runs_when_dead = item.kernel->RunsWithDeadInputs();
    if (IsMerge(*node)) {
      item.kind = Kind::kMerge;
    } else if (IsEnter(*node)) {
      item.kind = Kind::kEnter;
      item.child_frame = cf.OutputFrame(*node);
      TA_RETURN_IF_ERROR(GetNodeAttr(node->def(), "is_constant", &item.is_constant_enter));
    } else if (IsExit(*node)) {
      item.kind = Kind::kExit;
      frame.exits.push_back(static_cast<int>(i));
    } else if (IsNextIteration(*node)) {
      item.kind = Kind::kNextIteration;
    } else if (IsControlTrigger(*node)) {
      item.kind = Kind::kControlTrigger;
    }
    item.needs_control_flow = item.kind != Kind::kPlain || item.can_output_dead;
    plan->has_step_resources |= node->type_string() == "StackV2";
    // A _Recv's wait ends through the rendezvous's abort; other asynchronous kernels
    // (queues, readers) wait on state outside the step and need its cancellation.
    plan->has_cancellable_kernels |= item.is_async && !item.is_transfer;
    plan->has_transfers |= item.is_transfer;
    for (DataType t : node->input_types()) item.has_ref_input |= IsRefType(t);
    for (DataType t : node->output_types()) plan->has_ref_edges |= IsRefType(t);
    item.consumers.resize(node->num_outputs());
    item.timeline_label = StrCat(node->name(), " = ", node->type_string(), "(");
    for (int k = 0; k < node->def().input_size(); ++k) {
      item.timeline_label += StrCat(k ? ", " : "", node->def().input(k));
    }
    item.timeline_label += ")";
    if (item.is_transfer) {
      // Tracing pairs the two ends of a transfer by their key (actors/chrome_trace.h).
      auto key = RendezvousKeyOf(node->def());
      if (key.ok()) {
        item.timeline_label += StrCat(" key=", key.value());
        item.transfer_key = key.value();
      }
    }
    // Pruning may drop the _Arg of a feed nothing needs, so count by the highest index.
    int64_t index = 0;
    if (node->type_string() == "_Arg" && GetNodeAttr(node->def(), "index", &index).ok()) {
      plan->num_args = std::max(plan->num_args, static_cast<int>(index) + 1);
      plan->arg_nodes.emplace_back(static_cast<int>(i), static_cast<int>(index));
    }
    if (node->type_string() == "_Retval" && GetNodeAttr(node->def(), "index", &index).ok()) {
      plan->retval_indices.push_back(static_cast<int>(index));
      plan->num_retvals = std::max(plan->num_retvals, static_cast<int>(index) + 1);
    }
  }
  plan->num_input_slots = plan->frames[0].num_input_slots;
  std::vector<int> control_inputs(ops.size(), 0);
  for (size_t i = 0; i < ops.size(); ++i) {
    ExecutorPlan::NodeItem& item = plan->nodes[i];
    for (const Edge* e : ops[i]->out_edges()) {
      int dst = plan_id[e->dst->id()];
      if (dst < 0) continue;  // the Sink
      ExecutorPlan::NodeItem& consumer = plan->nodes[dst];
      ++consumer.initial_pending;
      if (e->IsControlEdge()) {
        ++control_inputs[dst];
        item.control_consumers.push_back({dst, -1, consumer.pending_id});
      } else {
        item.consumers[e->src_output].push_back({dst, consumer.input_start + e->dst_input, consumer.pending_id});
      }
    }
  }
  // A value into a Merge needs the general path's counting (see executor.cc).
  for (size_t i = 0; i < ops.size(); ++i) {
    ExecutorPlan::NodeItem& item = plan->nodes[i];
    for (size_t o = 0; o < item.consumers.size() && o < 64; ++o) {
      if (item.consumers[o].empty()) item.outputs_required &= ~(uint64_t{1} << o);
    }
    for (const auto& port : item.consumers) {
      for (const Consumer& c : port) item.needs_control_flow |= plan->nodes[c.node].kind == Kind::kMerge;
    }
    for (const Consumer& c : item.control_consumers) item.needs_control_flow |= plan->nodes[c.node].kind == Kind::kMerge;
  }
  BindConstants(*plan, ops);
  for (size_t i = 0; i < ops.size(); ++i) {
    ExecutorPlan::NodeItem& item = plan->nodes[i];
    // A Merge waits for all its control inputs (2 each) and one live data input (the low
    // bit), or for all its data inputs to be dead.
    if (item.kind == Kind::kMerge) item.initial_pending = 2 * control_inputs[i] + 1;
    Frame& frame = plan->frames[item.frame];
    frame.initial_pending.resize(frame.num_nodes);
    frame.initial_pending[item.pending_id] = item.initial_pending;
    if (item.initial_pending == 0 && !item.is_bound_constant) plan->roots.push_back(static_cast<int>(i));
  }
  return std::shared_ptr<const ExecutorPlan>(std::move(plan));
}

std::vector<std::vector<ExecutorPlan::Producer>> ExecutorPlan::ProducersByNode() const {
  std::vector<std::vector<Producer>> producers(nodes.size());
  for (size_t n = 0; n < nodes.size(); ++n) {
    for (size_t port = 0; port < nodes[n].consumers.size(); ++port) {
      for (const Consumer& c : nodes[n].consumers[port]) {
        producers[c.node].push_back({static_cast<int>(n), static_cast<int>(port), c.slot - nodes[c.node].input_start});
      }
    }
    for (const Consumer& c : nodes[n].control_consumers) producers[c.node].push_back({static_cast<int>(n), -1, -1});
  }
  return producers;
}

}  // namespace tensoract
