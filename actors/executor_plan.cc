#include "actors/executor_plan.h"

#include "kernels/kernel_registry.h"

namespace tensoract {

KernelDone ExecutorPlan::RunNode(int node, const std::vector<Tensor>& inputs, CallFrame* call_frame,
                                 int64_t step_id) const {
  const NodeItem& item = nodes[node];
  OpKernelContext::Params params;
  params.device = device;
  params.kernel = item.kernel.get();
  params.inputs = &inputs;
  params.call_frame = call_frame;
  params.step_id = step_id;
  OpKernelContext ctx(params);
  item.kernel->Compute(&ctx);
  KernelDone done;
  done.node = node;
  const OpKernel& k = *item.kernel;
  if (!ctx.status().ok()) {
    const std::string& m = ctx.status().message();
    // Most kernel messages already name their node; the rest get it prefixed.
    bool named = m.find("'" + k.name() + "'") != std::string::npos;
    done.status = named ? ctx.status() : ctx.status().WithContext(StrCat("node '", k.name(), "' (op '", k.type_string(), "')"));
    return done;
  }
  for (int i = 0; i < k.num_outputs(); ++i) {
    const Tensor& out = ctx.outputs()[i];
    if (out.dtype() != BaseType(k.output_types()[i]) || !out.IsInitialized()) {
      done.status = errors::Internal("node '", k.name(), "' (op '", k.type_string(), "') produced output ", i, " as ",
                                     DataTypeString(out.dtype()), " but declares ", DataTypeString(k.output_types()[i]));
      return done;
    }
  }
  done.outputs = std::move(ctx.outputs());
  return done;
}

StatusOr<std::shared_ptr<const ExecutorPlan>> ExecutorPlan::Build(const tensorflow::GraphDef& graph_def,
                                                                  Device* device) {
  Graph graph;
  TA_RETURN_IF_ERROR(ImportGraphDef(graph_def, &graph));
  auto plan = std::make_shared<ExecutorPlan>();
  plan->device = device;
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
    plan->num_input_slots += item.num_inputs;
    item.consumers.resize(node->num_outputs());
    if (node->type_string() == "_Arg") ++plan->num_args;
    if (node->type_string() == "_Retval") ++plan->num_retvals;
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
