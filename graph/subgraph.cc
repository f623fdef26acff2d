#include "graph/subgraph.h"

#include <map>
#include <set>

#include "graph/node_names.h"

namespace tensoract {
namespace {

StatusOr<std::pair<Node*, int>> FindTensor(const Graph& graph, const std::string& name, const char* role) {
  TensorId id;
  Status s = ParseTensorName(name, &id);
  if (!s.ok() || id.IsControl()) {
    return errors::InvalidArgument(role, " '", name, "' is not a tensor name like 'node' or 'node:1'");
  }
  Node* node = graph.FindNode(id.node);
  if (node == nullptr || !node->IsOp()) {
    return errors::NotFound(role, " '", name, "' names node '", id.node, "', which is not in the graph");
  }
  if (id.index >= node->num_outputs()) {
    return errors::InvalidArgument(role, " '", name, "': node '", id.node, "' (op '", node->type_string(),
                                   "') has only ", node->num_outputs(), " output(s)");
  }
  return std::make_pair(node, id.index);
}

StatusOr<Node*> AddCallNode(Graph* graph, const char* op, const std::string& name, DataType type, int index,
                            const PartialTensorShape& shape = PartialTensorShape()) {
  NodeDef def;
  def.set_name(name);
  def.set_op(op);
  (*def.mutable_attr())["T"].set_type(BaseType(type));
  (*def.mutable_attr())["index"].set_i(index);
  // A fed Placeholder's declared shape stays known to shape inference (ArgShape reads it):
  // feeds are checked against it, and ops whose shape function needs an input's rank (a
  // SpaceToBatchND's block_shape) are built against it, as TensorFlow built them.
  if (!shape.unknown_rank()) shape.AsProto((*def.mutable_attr())["_output_shapes"].mutable_list()->add_shape());
  if (std::string(op) == "_Retval") def.add_input("unused");  // connected by an edge below
  return graph->AddNode(def);
}

std::string Flatten(const std::string& tensor) {
  std::string out = tensor;
  for (char& c : out) if (c == ':' || c == '/') c = '_';
  return out;
}

}  // namespace

Status RewriteForCall(Graph* graph, CallSignature* sig) {
  sig->feed_types.clear();
  sig->feed_shapes.clear();
  sig->fetch_types.clear();
  // Fed tensors, by (node id, port), to the _Arg that now stands for them.
  std::map<std::pair<int, int>, Node*> fed;
  for (size_t i = 0; i < sig->feeds.size(); ++i) {
    TA_ASSIGN_OR_RETURN(auto tensor, FindTensor(*graph, sig->feeds[i], "feed"));
    auto [node, port] = tensor;
    if (fed.count({node->id(), port})) {
      return errors::InvalidArgument("feed '", sig->feeds[i], "' is given twice");
    }
    DataType type = BaseType(node->output_type(port));
    PartialTensorShape shape;
    if (node->type_string() == "Placeholder") TA_RETURN_IF_ERROR(GetNodeAttr(node->def(), "shape", &shape));
    TA_ASSIGN_OR_RETURN(Node * arg, AddCallNode(graph, "_Arg", UnusedNodeName(*graph, "_arg_" + Flatten(sig->feeds[i])),
                                                type, static_cast<int>(i), shape));
    std::vector<const Edge*> consumers;
    // As TensorFlow does, a fed Placeholder's control edges move to its replacement too:
    // whatever had to wait for it now waits for the feed, and it need not run.
    const bool placeholder = node->type_string() == "Placeholder" || node->type_string() == "PlaceholderV2";
    for (const Edge* e : node->out_edges()) {
      if (e->src_output == port || (placeholder && e->IsControlEdge())) consumers.push_back(e);
    }
    for (const Edge* e : consumers) {
      Node* dst = e->dst;
      int dst_input = e->dst_input;
      const bool control = e->IsControlEdge();
      graph->RemoveEdge(e);
      if (control) {
        if (dst->IsOp()) graph->AddControlEdge(arg, dst);
      } else {
        graph->AddEdge(arg, 0, dst, dst_input);
      }
    }
    graph->AddControlEdge(graph->source_node(), arg);
    fed[{node->id(), port}] = arg;
    sig->feed_types.push_back(type);
    sig->feed_shapes.push_back(shape);
  }
  for (size_t i = 0; i < sig->fetches.size(); ++i) {
    TA_ASSIGN_OR_RETURN(auto tensor, FindTensor(*graph, sig->fetches[i], "fetch"));
    auto [node, port] = tensor;
    DataType type = BaseType(node->output_type(port));
    if (auto it = fed.find({node->id(), port}); it != fed.end()) {
      node = it->second;  // fetching a fed tensor returns the fed value
      port = 0;
    }
    TA_ASSIGN_OR_RETURN(Node * ret, AddCallNode(graph, "_Retval",
                                                UnusedNodeName(*graph, "_retval_" + Flatten(sig->fetches[i])), type,
                                                static_cast<int>(i)));
    graph->AddEdge(node, port, ret, 0);
    graph->AddControlEdge(ret, graph->sink_node());
    sig->fetch_types.push_back(type);
  }
  for (const std::string& target : sig->targets) {
    Node* node = graph->FindNode(target);
    if (node == nullptr || !node->IsOp()) {
      return errors::NotFound("target '", target, "' is not a node in the graph");
    }
  }
  return Status::OK();
}

void PruneForTargets(Graph* graph, const std::vector<std::string>& targets) {
  std::vector<Node*> stack;
  for (Node* n : graph->op_nodes()) if (n->type_string() == "_Retval") stack.push_back(n);
  for (const std::string& t : targets) if (Node* n = graph->FindNode(t)) stack.push_back(n);
  std::vector<bool> needed(graph->num_node_ids(), false);
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    if (needed[n->id()]) continue;
    needed[n->id()] = true;
    for (const Edge* e : n->in_edges()) stack.push_back(e->src);
  }
  for (Node* n : graph->op_nodes()) if (!needed[n->id()]) graph->RemoveNode(n);
  graph->ConnectToSourceAndSink();
}

}  // namespace tensoract
