#include "graph/optimizer/constant_folding.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <set>
#include <string>
#include <utility>

#include "graph/optimizer/optimizer_util.h"
#include "graph/shape_inference.h"

namespace tensoract {
namespace {

// A Const can hold neither a resource handle nor a variant, so such outputs are not folded.
bool OutputsCanBeConst(const Node& n) {
  for (DataType t : n.output_types()) {
    if (BaseType(t) == tensorflow::DT_RESOURCE || BaseType(t) == tensorflow::DT_VARIANT) return false;
  }
  return true;
}

// True when shape inference already says an output is larger than `max_bytes`: such a
// node is not evaluated at all (TensorFlow's shape-map check), so folding never holds a
// huge intermediate in memory, and what it feeds stays computed at run time too.
bool KnownToBeTooLarge(const Node& n, int64_t max_bytes) {
  for (int i = 0; i < n.num_outputs(); ++i) {
    const PartialTensorShape& shape = n.output_shape(i);
    if (!shape.IsFullyDefined()) continue;
    int64_t size = DataTypeSize(n.output_type(i));
    for (int d = 0; d < shape.dims() && size > 0; ++d) {
      if (shape.dim_size(d) > 0 && size > max_bytes / shape.dim_size(d)) return true;
      size *= shape.dim_size(d);
    }
    if (size > max_bytes) return true;
  }
  return false;
}

// What the pass knows about one node, by node id.
struct Info {
  bool constant = false;
  // The non-constant nodes a replacement for this node's value must run after: its own
  // control inputs from outside the constant set, and those of every constant node it
  // was computed from. Ordered by id, so the edges are added in the same order every run.
  std::set<int> control_deps;
  const tensorflow::TensorProto* const_value = nullptr;  // a Const's value attr
  std::vector<tensorflow::TensorProto> values;           // an evaluated node's outputs
};

// Decides whether `n` is constant, evaluating it if it is not a Const. `info` holds the
// verdicts of every node before `n` in topological order.
void Consider(const ConstantFoldingOptions& options, const ConstantEvaluator& evaluator, const Node& n,
              std::vector<Info>* info) {
  Info& mine = (*info)[n.id()];
  const bool is_const = n.type_string() == "Const";
  if (!OutputsCanBeConst(n) || HasRefInputOrOutput(n)) return;
  if (is_const) {
    if (!GetNodeAttr(n.def(), "value", &mine.const_value).ok()) return;
  } else {
    if (n.IsStateful() || IsNeverEvaluatedAhead(n.type_string()) || n.num_outputs() == 0) return;
    if (options.consider && !options.consider(&n)) return;
    if (KnownToBeTooLarge(n, options.max_constant_size_in_bytes)) return;
  }
  std::vector<const tensorflow::TensorProto*> inputs(n.num_inputs(), nullptr);
  std::set<int> deps;
  for (const Edge* e : n.in_edges()) {
    const Info& src = (*info)[e->src->id()];
    if (src.constant) {
      deps.insert(src.control_deps.begin(), src.control_deps.end());
    } else if (!e->IsControlEdge()) {
      return;  // a data input that is not constant
    } else if (!e->src->IsSource()) {
      deps.insert(e->src->id());  // runs after Source anyway; any other node is kept as a dep
    }
    if (!e->IsControlEdge() && e->dst_input < n.num_inputs()) {
      inputs[e->dst_input] = src.const_value != nullptr ? src.const_value : &src.values[e->src_output];
    }
  }
  if (!is_const) {
    for (const tensorflow::TensorProto* in : inputs) if (in == nullptr) return;  // an unconnected input
    std::vector<tensorflow::TensorProto> outputs;
    // An error is not the graph's failure: the node stays and reports it if it is real
    // when it runs (TensorFlow logs it and does not fold).
    if (!evaluator.Evaluate(n.def(), n.op_def(), inputs, &outputs).ok()) return;
    if (static_cast<int>(outputs.size()) != n.num_outputs()) return;
    for (int i = 0; i < n.num_outputs(); ++i) {
      if (outputs[i].dtype() != BaseType(n.output_type(i))) return;
    }
    mine.values = std::move(outputs);
  }
  mine.control_deps = std::move(deps);
  mine.constant = true;
}

// "<node>/_<k>__cf__<n>" as TensorFlow names it: k is unique in the graph (here the new
// node's id), n in the process (so constants from different graphs never clash when
// graphs are merged).
std::string ConstantName(const Graph& graph, const std::string& node) {
  static std::atomic<int64_t> next_id{0};
  std::string name;
  do {
    name = StrCat(node, "/_", graph.num_node_ids(), "__cf__", next_id++);
  } while (graph.FindNode(name) != nullptr);
  return name;
}

// Replaces output `port` of `n` with a new Const holding `value`, for every consumer.
// Returns false (and changes nothing) when the Const cannot be made.
bool ReplaceWithConstant(Graph* graph, Node* n, int port, const tensorflow::TensorProto& value,
                         const std::set<int>& control_deps) {
  NodeDef def;
  def.set_name(ConstantName(*graph, n->name()));
  def.set_op("Const");
  def.set_device(n->requested_device());
  (*def.mutable_attr())["dtype"].set_type(BaseType(n->output_type(port)));
  *(*def.mutable_attr())["value"].mutable_tensor() = value;
  StatusOr<Node*> made = graph->AddNode(std::move(def));
  if (!made.ok()) return false;
  Node* constant = *made;
  // The Const's shape is its value's; later passes (placement, partitioning) read it. A
  // failure only leaves the shape unknown, which is what a node a pass adds starts with.
  (void)shape_inference::InferNodeShapes(*graph, constant);
  std::vector<const Edge*> consumers;
  for (const Edge* e : n->out_edges()) if (!e->IsControlEdge() && e->src_output == port) consumers.push_back(e);
  for (const Edge* e : consumers) {
    Node* dst = e->dst;
    int dst_input = e->dst_input;
    graph->RemoveEdge(e);
    graph->AddEdge(constant, 0, dst, dst_input);
  }
  if (control_deps.empty()) graph->AddControlEdge(graph->source_node(), constant);
  for (int id : control_deps) graph->AddControlEdge(graph->FindNodeId(id), constant);
  return true;
}

// Removes the constant nodes that no longer have consumers, starting from `ids` and
// walking up their inputs. A control edge to Sink does not count as a consumer: it only
// records that the node had none when the graph was built, and a constant, non-stateful
// node nobody reads has nothing left to do.
void RemoveDeadConstants(const std::vector<Info>& info, std::vector<int> ids, Graph* graph) {
  while (!ids.empty()) {
    int id = ids.back();
    ids.pop_back();
    Node* n = graph->FindNodeId(id);
    if (n == nullptr || id >= static_cast<int>(info.size()) || !info[id].constant) continue;
    bool used = std::any_of(n->out_edges().begin(), n->out_edges().end(),
                            [](const Edge* e) { return !e->dst->IsSink(); });
    if (used) continue;
    for (const Edge* e : n->in_edges()) if (e->src->IsOp()) ids.push_back(e->src->id());
    graph->RemoveNode(n);
  }
}

}  // namespace

int64_t TensorProtoBytes(const tensorflow::TensorProto& proto) {
  int64_t elements = 1;
  for (const auto& dim : proto.tensor_shape().dim()) {
    if (dim.size() < 0) return -1;
    if (dim.size() > 0 && elements > std::numeric_limits<int64_t>::max() / dim.size()) return -1;
    elements *= dim.size();
  }
  if (proto.tensor_shape().unknown_rank()) return -1;
  if (proto.dtype() == tensorflow::DT_STRING) {
    int64_t bytes = 0;
    for (const std::string& s : proto.string_val()) bytes += static_cast<int64_t>(s.size());
    return bytes;
  }
  int64_t size = DataTypeSize(proto.dtype());
  if (size == 0) return -1;
  if (elements > std::numeric_limits<int64_t>::max() / size) return -1;
  return elements * size;
}

bool ConstantFold(const ConstantFoldingOptions& options, const ConstantEvaluator& evaluator, Graph* graph) {
  std::vector<Node*> order = StableTopologicalOrder(*graph);
  std::vector<Info> info(graph->num_node_ids());
  for (Node* n : order) Consider(options, evaluator, *n, &info);

  bool changed = false;
  std::vector<int> replaced;
  for (Node* n : order) {
    const Info& mine = info[n->id()];
    if (!mine.constant || mine.const_value != nullptr) continue;  // a Const needs no replacing
    for (int port = 0; port < n->num_outputs(); ++port) {
      // Only a value that leaves the constant part of the graph is worth a Const; values
      // consumed by other constant nodes disappear with them.
      bool leaves = false;
      for (const Edge* e : n->out_edges()) {
        if (e->IsControlEdge() || e->src_output != port) continue;
        leaves |= e->dst->id() >= static_cast<int>(info.size()) || !info[e->dst->id()].constant;
      }
      if (!leaves) continue;
      int64_t bytes = TensorProtoBytes(mine.values[port]);
      if (bytes < 0 || bytes > options.max_constant_size_in_bytes) continue;
      if (!ReplaceWithConstant(graph, n, port, mine.values[port], mine.control_deps)) continue;
      replaced.push_back(n->id());
      changed = true;
    }
  }
  if (!changed) return false;
  RemoveDeadConstants(info, std::move(replaced), graph);
  // A node whose only consumer was removed must still lead to Sink, so "all done" holds.
  graph->ConnectToSourceAndSink();
  return true;
}

}  // namespace tensoract
