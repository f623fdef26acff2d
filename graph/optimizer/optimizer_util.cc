#include "graph/optimizer/optimizer_util.h"

#include <functional>
#include <queue>
#include <set>

#include "graph/control_flow.h"
#include "graph/node_def_util.h"

namespace tensoract {

std::vector<Node*> StableTopologicalOrder(const Graph& graph) {
  std::vector<int> pending(graph.num_node_ids(), 0);
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;  // node ids, lowest first
  // Loops' back edges (NextIteration -> Merge) are left out, as in TopologicalOrder.
  for (Node* n : graph.nodes()) {
    for (const Edge* e : n->in_edges()) {
      if (!e->src->IsOp() || !IsNextIteration(*e->src)) ++pending[n->id()];
    }
    if (pending[n->id()] == 0) ready.push(n->id());
  }
  std::vector<Node*> order;
  while (!ready.empty()) {
    Node* n = graph.FindNodeId(ready.top());
    ready.pop();
    if (n->IsOp()) order.push_back(n);
    if (n->IsOp() && IsNextIteration(*n)) continue;
    for (const Edge* e : n->out_edges()) {
      if (--pending[e->dst->id()] == 0) ready.push(e->dst->id());
    }
  }
  return order;
}

bool IsNeverEvaluatedAhead(const std::string& op) {
  static const std::set<std::string>* const kOps = new std::set<std::string>{
      "_Arg", "_Retval", "Placeholder", "PlaceholderV2", "PlaceholderWithDefault", "NoOp",
      "Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter", "Exit", "RefExit",
      "NextIteration", "RefNextIteration", "LoopCond", "ControlTrigger", "_Send", "_Recv",
      "_HostSend", "_HostRecv", "GetSessionHandle", "GetSessionHandleV2", "GetSessionTensor",
      "DeleteSessionTensor", "FakeParam"};
  return kOps->count(op) > 0;
}

bool HasRefInputOrOutput(const Node& node) {
  for (DataType t : node.input_types()) if (IsRefType(t)) return true;
  for (DataType t : node.output_types()) if (IsRefType(t)) return true;
  // A ref output feeding a value input is read when the node runs, so two such nodes can
  // see two different values (TensorFlow only looks at the declared input types).
  for (const Edge* e : node.in_edges()) {
    if (!e->IsControlEdge() && IsRefType(e->src->output_type(e->src_output))) return true;
  }
  return false;
}

Node* AddConstantEnter(Graph* graph, Node* n, int port, const std::string& frame_name, int64_t parallel_iterations,
                       const std::string& name) {
  NodeDef def;
  def.set_name(name);
  def.set_op("Enter");
  def.set_device(n->requested_device());
  def.add_input(TensorId{n->name(), port}.ToString());
  auto& attrs = *def.mutable_attr();
  attrs["T"].set_type(n->output_type(port));
  attrs["frame_name"].set_s(frame_name);
  attrs["is_constant"].set_b(true);
  attrs["parallel_iterations"].set_i(parallel_iterations);
  Node* enter = graph->AddNode(def).value();  // an Enter of a valid type: cannot fail
  enter->set_output_shape(0, n->output_shape(port));
  graph->AddEdge(n, port, enter, 0);
  return enter;
}

}  // namespace tensoract
