#include "graph/graph.h"

#include <algorithm>

#include "graph/control_flow.h"
#include "graph/function_library.h"

namespace tensoract {
namespace {

// Source and Sink have no op in the registry; they share this empty OpDef.
const tensorflow::OpDef& NoOpDef() {
  static const tensorflow::OpDef* const kDef = [] {
    auto* d = new tensorflow::OpDef;
    d->set_name("NoOp");
    return d;
  }();
  return *kDef;
}

}  // namespace

const PartialTensorShape& Node::output_shape(int i) const {
  static const PartialTensorShape* const kUnknown = new PartialTensorShape;
  return i >= 0 && i < static_cast<int>(output_shapes_.size()) ? output_shapes_[i] : *kUnknown;
}

const shape_inference::ShapeAndType* Node::output_handle_data(int i) const {
  if (i < 0 || i >= static_cast<int>(output_handle_data_.size())) return nullptr;
  const auto& data = output_handle_data_[i];
  return data.dtype == tensorflow::DT_INVALID ? nullptr : &data;
}

void Node::set_output_shape(int i, PartialTensorShape shape) {
  if (i >= 0 && i < static_cast<int>(output_shapes_.size())) output_shapes_[i] = std::move(shape);
}

void Node::set_output_handle_data(int i, shape_inference::ShapeAndType data) {
  if (i >= 0 && i < static_cast<int>(output_handle_data_.size())) output_handle_data_[i] = std::move(data);
}

const Edge* Node::input_edge(int i) const {
  for (const Edge* e : in_edges_) if (e->dst_input == i) return e;
  return nullptr;
}

Graph::Graph(const OpRegistry* registry) : registry_(registry) {
  NodeDef source, sink;
  source.set_name("_SOURCE");
  source.set_op("NoOp");
  sink.set_name("_SINK");
  sink.set_op("NoOp");
  AllocateNode(std::move(source), &NoOpDef());
  AllocateNode(std::move(sink), &NoOpDef());
  AddControlEdge(source_node(), sink_node());
  num_op_nodes_ = 0;
  versions_.set_producer(1);
}

Graph::~Graph() = default;

Node* Graph::AllocateNode(NodeDef def, const tensorflow::OpDef* op_def) {
  auto node = std::make_unique<Node>();
  node->id_ = static_cast<int>(nodes_.size());
  node->def_ = std::move(def);
  node->op_def_ = op_def;
  Node* raw = node.get();
  nodes_.push_back(raw);
  node_storage_.push_back(std::move(node));
  by_name_[raw->name()] = raw;
  ++num_op_nodes_;
  return raw;
}

StatusOr<Node*> Graph::AddNode(NodeDef def) {
  if (def.name().empty()) return errors::InvalidArgument("a node of op '", def.op(), "' has no name");
  if (by_name_.count(def.name())) {
    return errors::InvalidArgument("two nodes are named '", def.name(), "'");
  }
  auto reg = registry_->LookUpOpData(def.op());
  if (!reg.ok()) return reg.status().WithContext(StrCat("node '", def.name(), "'"));
  const tensorflow::OpDef& op_def = (*reg)->op_def;
  if (def.op() != op_def.name()) def.set_op(op_def.name());  // an alias: "Leave" is an Exit
  AddDefaultsToNodeDef(op_def, &def);
  TA_RETURN_IF_ERROR(ValidateNodeDef(def, op_def));
  DataTypeVector inputs, outputs;
  TA_RETURN_IF_ERROR(InOutTypesForNode(def, op_def, &inputs, &outputs));
  Node* node = AllocateNode(std::move(def), &op_def);
  if ((*reg)->shape_inference_fn) node->shape_fn_ = &(*reg)->shape_inference_fn;
  node->input_types_ = std::move(inputs);
  node->output_types_ = std::move(outputs);
  node->output_shapes_.resize(node->output_types_.size());
  node->output_handle_data_.resize(node->output_types_.size());
  return node;
}

void Graph::RemoveNode(Node* node) {
  while (!node->in_edges_.empty()) RemoveEdge(node->in_edges_.back());
  while (!node->out_edges_.empty()) RemoveEdge(node->out_edges_.back());
  by_name_.erase(node->name());
  nodes_[node->id_] = nullptr;
  --num_op_nodes_;
}

const Edge* Graph::AddEdge(Node* src, int src_output, Node* dst, int dst_input) {
  auto edge = std::make_unique<Edge>(Edge{static_cast<int>(edges_.size()), src, src_output, dst, dst_input});
  const Edge* raw = edge.get();
  src->out_edges_.push_back(raw);
  dst->in_edges_.push_back(raw);
  edges_.push_back(std::move(edge));
  return raw;
}

const Edge* Graph::AddControlEdge(Node* src, Node* dst) {
  for (const Edge* e : dst->in_edges_) if (e->IsControlEdge() && e->src == src) return e;
  return AddEdge(src, Edge::kControlSlot, dst, Edge::kControlSlot);
}

void Graph::RemoveEdge(const Edge* edge) {
  auto erase = [&](std::vector<const Edge*>& v) { v.erase(std::find(v.begin(), v.end(), edge)); };
  erase(edge->src->out_edges_);
  erase(edge->dst->in_edges_);
  edges_[edge->id].reset();
}

Node* Graph::FindNode(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::vector<Node*> Graph::nodes() const {
  std::vector<Node*> out;
  for (Node* n : nodes_) if (n != nullptr) out.push_back(n);
  return out;
}

std::vector<Node*> Graph::op_nodes() const {
  std::vector<Node*> out;
  for (Node* n : nodes_) if (n != nullptr && n->IsOp()) out.push_back(n);
  return out;
}

void Graph::ToGraphDef(tensorflow::GraphDef* graph_def) const {
  graph_def->Clear();
  *graph_def->mutable_versions() = versions_;
  if (library_.function_size() > 0) *graph_def->mutable_library() = library_;
  for (Node* node : op_nodes()) {
    NodeDef* def = graph_def->add_node();
    *def = node->def();
    def->clear_input();
    std::vector<const Edge*> data(node->num_inputs(), nullptr);
    std::vector<const Edge*> control;
    for (const Edge* e : node->in_edges()) {
      if (e->IsControlEdge()) {
        if (e->src->IsOp()) control.push_back(e);
      } else if (e->dst_input < static_cast<int>(data.size())) {
        data[e->dst_input] = e;
      }
    }
    for (const Edge* e : data) {
      if (e == nullptr) {
        def->add_input("");  // unconnected: keeps later input indices right
      } else {
        def->add_input(e->src_output == 0 ? e->src->name() : StrCat(e->src->name(), ":", e->src_output));
      }
    }
    std::sort(control.begin(), control.end(), [](const Edge* a, const Edge* b) { return a->src->id() < b->src->id(); });
    for (const Edge* e : control) def->add_input("^" + e->src->name());
  }
}

void Graph::ConnectToSourceAndSink() {
  for (Node* n : op_nodes()) {
    bool has_in = false, has_out = false;
    for (const Edge* e : n->in_edges()) has_in |= !e->src->IsSource() || !e->IsControlEdge();
    for (const Edge* e : n->out_edges()) has_out |= !e->dst->IsSink();
    if (!has_in) AddControlEdge(source_node(), n);
    if (!has_out) AddControlEdge(n, sink_node());
  }
}

Status CheckEdgeType(const Node& src, int src_output, const Node& dst, int dst_input, const std::string& source) {
  DataType have = src.output_type(src_output);
  DataType want = dst.input_type(dst_input);
  // A ref output may feed a non-ref input (it is read); not the other way round.
  if (have == want || BaseType(have) == want) return Status::OK();
  return errors::InvalidArgument("input ", dst_input, " of node '", dst.name(), "' (op '", dst.type_string(),
                                 "') was passed ", DataTypeString(have), " from '", source,
                                 "', incompatible with the expected ", DataTypeString(want));
}

Status ImportGraphDef(const tensorflow::GraphDef& graph_def, Graph* graph) {
  if (graph->num_op_nodes() != 0) return errors::Internal("ImportGraphDef needs an empty graph");
  if (graph_def.library().function_size() > 0) {
    // TensorFlow 2's function calls: their bodies take their place (graph/function_library.h).
    tensorflow::GraphDef inlined = graph_def;
    TA_RETURN_IF_ERROR(InlineFunctionCalls(&inlined));
    return ImportGraphDef(inlined, graph);
  }
  if (graph_def.has_versions()) graph->set_versions(graph_def.versions());
  std::vector<Node*> added;
  added.reserve(graph_def.node_size());
  for (const NodeDef& def : graph_def.node()) {
    TA_ASSIGN_OR_RETURN(Node * node, graph->AddNode(def));
    added.push_back(node);
  }
  for (Node* node : added) {
    int data_index = 0;
    for (const std::string& input : node->def().input()) {
      TensorId id;
      Status s = ParseTensorName(input, &id);
      if (!s.ok()) return s.WithContext(StrCat("node '", node->name(), "'"));
      Node* src = graph->FindNode(id.node);
      if (src == nullptr || !src->IsOp()) {
        return errors::InvalidArgument("node '", node->name(), "' has input '", input,
                                       "' but no node is named '", id.node, "'");
      }
      if (id.IsControl()) {
        graph->AddControlEdge(src, node);
        continue;
      }
      if (id.index >= src->num_outputs()) {
        return errors::InvalidArgument("node '", node->name(), "' has input '", input, "' but node '",
                                       src->name(), "' (op '", src->type_string(), "') has only ",
                                       src->num_outputs(), " output(s)");
      }
      TA_RETURN_IF_ERROR(CheckEdgeType(*src, id.index, *node, data_index, input));
      graph->AddEdge(src, id.index, node, data_index);
      ++data_index;
    }
  }
  graph->ConnectToSourceAndSink();
  // Reports a cycle, else infers every node's shapes, producers first.
  TA_RETURN_IF_ERROR(shape_inference::InferGraphShapes(graph));
  // Loops and conditionals must form well-nested frames (graph/control_flow.h).
  for (Node* node : added) {
    if (IsControlFlow(*node)) {
      ControlFlowInfo info;
      return BuildControlFlowInfo(*graph, &info);
    }
  }
  return Status::OK();
}

Status TopologicalOrder(const Graph& graph, std::vector<Node*>* order) {
  order->clear();
  std::vector<int> pending(graph.num_node_ids(), 0);
  std::vector<Node*> ready;
  // A loop's back edges (NextIteration -> Merge) are left out: they are what makes a
  // control-flow loop a cycle, and its Merge comes before its body.
  for (Node* n : graph.nodes()) {
    for (const Edge* e : n->in_edges()) {
      if (!e->src->IsOp() || !IsNextIteration(*e->src)) ++pending[n->id()];
    }
    if (pending[n->id()] == 0) ready.push_back(n);
  }
  while (!ready.empty()) {
    Node* n = ready.back();
    ready.pop_back();
    order->push_back(n);
    if (n->IsOp() && IsNextIteration(*n)) continue;
    for (const Edge* e : n->out_edges()) {
      if (--pending[e->dst->id()] == 0) ready.push_back(e->dst);
    }
  }
  if (order->size() == graph.nodes().size()) return Status::OK();
  std::string stuck;
  int shown = 0;
  for (Node* n : graph.op_nodes()) {
    if (pending[n->id()] > 0 && shown < 5) {
      stuck += (shown++ ? ", '" : "'") + n->name() + "'";
    }
  }
  return errors::InvalidArgument("the graph has a cycle through node(s) ", stuck,
                                 "; cycles are allowed only in control-flow loops");
}

}  // namespace tensoract
