#include "actors/executor_plan.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <thread>

#include "kernels/kernel_registry.h"

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
  return params;
}

uint32_t ThisThreadId() { return static_cast<uint32_t>(std::hash<std::thread::id>()(std::this_thread::get_id())); }

// Checks what a kernel left in its context and moves it into `done`.
void CollectOutputs(const OpKernel& k, OpKernelContext& ctx, KernelDone* done) {
  if (!ctx.status().ok()) {
    const std::string& m = ctx.status().message();
    // Most kernel messages already name their node; the rest get it prefixed.
    bool named = m.find("'" + k.name() + "'") != std::string::npos || m.find(" " + k.name()) != std::string::npos;
    done->status = named ? ctx.status()
                         : ctx.status().WithContext(StrCat("node '", k.name(), "' (op '", k.type_string(), "')"));
    return;
  }
  for (int i = 0; i < k.num_outputs(); ++i) {
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

void ExecutorPlan::RunNode(int node, const NodeInputs& inputs, CallFrame* call_frame, int64_t step_id, bool timed,
                           KernelDone* done) const {
  done->node = node;
  done->status = Status::OK();
  done->output_refs.clear();
  if (timed) {
    done->start_ns = NowNanos();
    done->thread_id = ThisThreadId();
  }
  OpKernelContext::Params params = MakeParams(*this, node, inputs, call_frame, step_id);
  params.output_storage = &done->outputs;
  OpKernelContext ctx(params);
  nodes[node].kernel->Compute(&ctx);
  if (timed) done->end_ns = NowNanos();
  CollectOutputs(*nodes[node].kernel, ctx, done);
}

void ExecutorPlan::RunNodeAsync(int node, NodeInputs inputs, int64_t step_id, bool timed,
                                std::function<void(KernelDone)> done) const {
  // The context points into `inputs`; both live in one heap block until the kernel is done.
  struct Pending {
    NodeInputs inputs;
    std::unique_ptr<OpKernelContext> ctx;
    int64_t start_ns = 0;
  };
  auto pending = std::make_shared<Pending>();
  pending->inputs = std::move(inputs);
  pending->ctx = std::make_unique<OpKernelContext>(MakeParams(*this, node, pending->inputs, nullptr, step_id));
  if (timed) pending->start_ns = NowNanos();
  auto* kernel = static_cast<AsyncOpKernel*>(nodes[node].kernel.get());
  kernel->ComputeAsync(pending->ctx.get(), [pending, kernel, node, timed, plan = shared_from_this(),
                                            done = std::move(done)] {
    KernelDone result;
    result.node = node;
    if (timed) {
      result.start_ns = pending->start_ns;
      result.end_ns = NowNanos();
      result.thread_id = ThisThreadId();
    }
    CollectOutputs(*kernel, *pending->ctx, &result);
    done(std::move(result));
  });
}

StatusOr<std::shared_ptr<const ExecutorPlan>> ExecutorPlan::Build(const tensorflow::GraphDef& graph_def,
                                                                  Device* device,
                                                                  std::shared_ptr<Rendezvous> rendezvous) {
  Graph graph;
  TA_RETURN_IF_ERROR(ImportGraphDef(graph_def, &graph));
  auto plan = std::make_shared<ExecutorPlan>();
  plan->device = device;
  plan->rendezvous = std::move(rendezvous);
  // Op nodes get dense ids 0..n-1 in the plan; Source and Sink are left out.
  std::vector<int> plan_id(graph.num_node_ids(), -1);
  std::vector<Node*> ops = graph.op_nodes();
  for (size_t i = 0; i < ops.size(); ++i) plan_id[ops[i]->id()] = static_cast<int>(i);
  plan->nodes.resize(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    Node* node = ops[i];
    ExecutorPlan::NodeItem& item = plan->nodes[i];
    TA_RETURN_IF_ERROR(CreateOpKernel(device, node->def(), node->op_def(), &item.kernel));
    item.input_start = plan->num_input_slots;
    item.num_inputs = node->num_inputs();
    item.is_async = item.kernel->IsAsync();
    item.is_expensive = item.kernel->IsExpensive();
    for (DataType t : node->input_types()) item.has_ref_input |= IsRefType(t);
    for (DataType t : node->output_types()) plan->has_ref_edges |= IsRefType(t);
    plan->num_input_slots += item.num_inputs;
    item.consumers.resize(node->num_outputs());
    item.timeline_label = StrCat(node->name(), " = ", node->type_string(), "(");
    for (int k = 0; k < node->def().input_size(); ++k) {
      item.timeline_label += StrCat(k ? ", " : "", node->def().input(k));
    }
    item.timeline_label += ")";
    if (node->type_string() == "_Send" || node->type_string() == "_Recv") {
      // Tracing pairs the two ends of a transfer by their key (actors/chrome_trace.h).
      auto key = RendezvousKeyOf(node->def());
      if (key.ok()) item.timeline_label += StrCat(" key=", key.value());
    }
    // Pruning may drop the _Arg of a feed nothing needs, so count by the highest index.
    int64_t index = 0;
    if (node->type_string() == "_Arg" && GetNodeAttr(node->def(), "index", &index).ok()) {
      plan->num_args = std::max(plan->num_args, static_cast<int>(index) + 1);
    }
    if (node->type_string() == "_Retval" && GetNodeAttr(node->def(), "index", &index).ok()) {
      plan->retval_indices.push_back(static_cast<int>(index));
      plan->num_retvals = std::max(plan->num_retvals, static_cast<int>(index) + 1);
    }
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    ExecutorPlan::NodeItem& item = plan->nodes[i];
    for (const Edge* e : ops[i]->out_edges()) {
      int dst = plan_id[e->dst->id()];
      if (dst < 0) continue;  // the Sink
      ++plan->nodes[dst].initial_pending;
      if (e->IsControlEdge()) {
        item.control_consumers.push_back(dst);
      } else {
        item.consumers[e->src_output].push_back({dst, plan->nodes[dst].input_start + e->dst_input});
      }
    }
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    if (plan->nodes[i].initial_pending == 0) plan->roots.push_back(static_cast<int>(i));
  }
  return std::shared_ptr<const ExecutorPlan>(std::move(plan));
}

}  // namespace tensoract
