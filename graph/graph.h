// Graph: nodes (operations) joined by data edges (tensors) and control edges (ordering).
//
// The runtime's working form of a GraphDef: edges are explicit in both directions, each
// node carries its resolved OpDef and input/output types, and every graph has a Source
// node (before everything) and a Sink node (after everything), as in TensorFlow, so
// "ready at the start" and "all done" are ordinary edges.
//
// A Graph is built once and then read; it is not thread-safe while being modified.
// Node ids are dense and stable: ids of removed nodes are not reused.
#ifndef TENSORACT_GRAPH_GRAPH_H_
#define TENSORACT_GRAPH_GRAPH_H_

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "base/types.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"
#include "messages/graph.pb.h"

namespace tensoract {

class Node;
class EagerNode;

// The GraphDef producer version graphs built here are written with: TensorFlow 2.21's
// TF_GRAPH_DEF_VERSION, whose op semantics we follow. Version-dependent behaviour (a
// Placeholder's scalar shape meant "unknown" before version 22) reads graphs.versions().
inline constexpr int kGraphDefVersion = 2474;

// TensorFlow's colocation attr: `_class: ["loc:@a", ...]` puts a node on a device with the
// nodes `a`, ... (the placer keeps each group on one device).
inline constexpr char kColocationAttrName[] = "_class";
inline constexpr char kColocationGroupPrefix[] = "loc:@";

// A data edge carries output `src_output` of `src` into input `dst_input` of `dst`. A
// control edge has both ports set to kControlSlot.
struct Edge {
  static constexpr int kControlSlot = -1;
  int id;
  Node* src;
  int src_output;
  Node* dst;
  int dst_input;
  bool IsControlEdge() const { return src_output == kControlSlot; }
};

class Node {
 public:
  int id() const { return id_; }
  const std::string& name() const { return def().name(); }
  const std::string& type_string() const { return def().op(); }
  const NodeDef& def() const { return shared_def_ != nullptr ? *shared_def_ : def_; }
  NodeDef* mutable_def() { return &def_; }
  const tensorflow::OpDef& op_def() const { return *op_def_; }
  const std::string& requested_device() const { return def_.device(); }

  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType input_type(int i) const { return input_types_[i]; }
  DataType output_type(int i) const { return output_types_[i]; }
  const DataTypeVector& input_types() const { return input_types_; }
  const DataTypeVector& output_types() const { return output_types_; }

  const std::vector<const Edge*>& in_edges() const { return in_edges_; }
  const std::vector<const Edge*>& out_edges() const { return out_edges_; }
  // The data edge into input `i`, or nullptr.
  const Edge* input_edge(int i) const;

  // The shape inference gave output i (graph/shape_inference.h). Unknown rank where it
  // could not tell, and on nodes it has not run on (Source, Sink, nodes a pass added).
  const PartialTensorShape& output_shape(int i) const;
  const std::vector<PartialTensorShape>& output_shapes() const { return output_shapes_; }
  // For a resource output: the dtype and shape of what the handle refers to, or nullptr.
  const shape_inference::ShapeAndType* output_handle_data(int i) const;
  // Written by shape inference; a pass that rewrites a node may refine them.
  void set_output_shape(int i, PartialTensorShape shape);
  void set_output_handle_data(int i, shape_inference::ShapeAndType data);
  // The op's shape function, or nullptr (Source and Sink, or an op registered without one).
  const ShapeInferenceFn* shape_fn() const { return shape_fn_; }

  bool IsSource() const { return id_ == 0; }
  bool IsSink() const { return id_ == 1; }
  bool IsOp() const { return id_ > 1; }
  bool IsStateful() const { return op_def_->is_stateful(); }

  // The eager op this node describes (graph/builder/eager_node.h), or nullptr for a node
  // of a graph.
  EagerNode* eager() const { return eager_; }

 private:
  friend class Graph;
  friend class EagerNode;
  int id_ = -1;
  EagerNode* eager_ = nullptr;
  NodeDef def_;
  const NodeDef* shared_def_ = nullptr;  // an eager op's, instead of def_ (EagerNode)
  const tensorflow::OpDef* op_def_ = nullptr;
  const ShapeInferenceFn* shape_fn_ = nullptr;
  DataTypeVector input_types_, output_types_;
  std::vector<PartialTensorShape> output_shapes_;  // one per output
  std::vector<shape_inference::ShapeAndType> output_handle_data_;  // one per output
  std::vector<const Edge*> in_edges_, out_edges_;
};

class Graph {
 public:
  explicit Graph(const OpRegistry* registry = OpRegistry::Global());
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Adds a node without edges; its inputs in `def` are not connected (ImportGraphDef and
  // the builder connect them, then run shape inference on it). Fails, naming the node, on
  // an unknown op or a NodeDef the op does not accept; fills in attr defaults. Its output
  // shapes are unknown until shape_inference::InferNodeShapes runs.
  StatusOr<Node*> AddNode(NodeDef def);
  void RemoveNode(Node* node);

  const Edge* AddEdge(Node* src, int src_output, Node* dst, int dst_input);
  const Edge* AddControlEdge(Node* src, Node* dst);
  void RemoveEdge(const Edge* edge);

  Node* source_node() const { return nodes_[0]; }
  Node* sink_node() const { return nodes_[1]; }
  Node* FindNodeId(int id) const { return id >= 0 && id < num_node_ids() ? nodes_[id] : nullptr; }
  Node* FindNode(const std::string& name) const;
  int num_node_ids() const { return static_cast<int>(nodes_.size()); }
  int num_op_nodes() const { return num_op_nodes_; }
  // Every live node, Source and Sink included, in id order.
  std::vector<Node*> nodes() const;
  std::vector<Node*> op_nodes() const;

  const tensorflow::VersionDef& versions() const { return versions_; }
  void set_versions(const tensorflow::VersionDef& v) { versions_ = v; }
  const OpRegistry* op_registry() const { return registry_; }

  // The functions nodes of this graph call (a traced Function calling another adds its
  // callee here); written out by ToGraphDef. An imported graph's calls are inlined, so
  // its library stays empty (graph/function_inline.h).
  const tensorflow::FunctionDefLibrary& library() const { return library_; }
  tensorflow::FunctionDefLibrary* mutable_library() { return &library_; }

  // Writes the op nodes in id order with their inputs rebuilt from the edges: data
  // inputs by input index, then control inputs as "^name". Source and Sink are implicit.
  void ToGraphDef(tensorflow::GraphDef* graph_def) const;

  // Connects every op node without inputs to Source and without outputs to Sink, so the
  // graph has one entry and one exit.
  void ConnectToSourceAndSink();

 private:
  Node* AllocateNode(NodeDef def, const tensorflow::OpDef* op_def);

  const OpRegistry* registry_;
  std::vector<Node*> nodes_;  // by id; nullptr where removed
  std::vector<std::unique_ptr<Node>> node_storage_;
  std::vector<std::unique_ptr<Edge>> edges_;  // by id; nullptr where removed
  std::unordered_map<std::string, Node*> by_name_;
  tensorflow::VersionDef versions_;
  tensorflow::FunctionDefLibrary library_;
  int num_op_nodes_ = 0;
};

// Checks that output `src_output` of `src` may feed input `dst_input` of `dst`: the
// types are equal, or a ref output feeds a value input (it is read). InvalidArgument
// naming both nodes and both types otherwise. `source` is how the input was written.
Status CheckEdgeType(const Node& src, int src_output, const Node& dst, int dst_input, const std::string& source);

// Builds `graph` (which must be empty) from a GraphDef: every node validated against its
// op, every input resolved ("n", "n:1", "^n") and type-checked, any cycle reported, and
// output shapes inferred (incompatible shapes are an InvalidArgument naming the node, its
// op and its input shapes). Errors name the node and input at fault. Attrs starting with
// '_' (TensorFlow's _class, _output_shapes) are kept as they are, and exported again.
Status ImportGraphDef(const tensorflow::GraphDef& graph_def, Graph* graph);

// Node ids in an order where every node comes after all its inputs (data and control).
// Fails with InvalidArgument naming nodes on a cycle.
Status TopologicalOrder(const Graph& graph, std::vector<Node*>* order);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_GRAPH_H_
