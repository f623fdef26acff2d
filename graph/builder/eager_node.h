/// @file
/// What an eager Scope needs from the runtime, without depending on it.
///
/// The ops:: builder functions work on a graph scope (they add a node) and on an eager scope
/// (the op runs at once). Both return Outputs, so one API serves both. An eager Output's
/// node is the Node inside an EagerNode: it has the op's output types and the concrete
/// output shapes, and, once a gradient tape recorded the op, its attrs (node.def()) and its
/// inputs, which is all the registered gradient functions read. The Output holds the
/// EagerNode alive; the runtime's subclass (client/eager_context.h) holds the tensors.
///
/// The runtime is an EagerRunner that the eager scope calls for every op. This is the same
/// arrangement as constant folding's evaluator: the graph layer states the interface, the
/// runtime above implements it.
#ifndef TENSORACT_GRAPH_BUILDER_EAGER_NODE_H_
#define TENSORACT_GRAPH_BUILDER_EAGER_NODE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph/builder/scope.h"

namespace tensoract {

/// The result of one eager op: a Node that describes it (op, dtypes, shapes and, once recorded,
/// attrs) for the builder and gradient code, kept alive by the Outputs that refer to it. The
/// runtime subclasses it to hold the output tensors (see the file's description).
class EagerNode : public std::enable_shared_from_this<EagerNode> {
 public:
  /// A node of the op `op_def` with these input and output dtypes; its output shapes start unknown.
  /// `op_def` outlives the node (the OpRegistry's).
  EagerNode(const tensorflow::OpDef* op_def, DataTypeVector input_types, DataTypeVector output_types);
  virtual ~EagerNode();
  EagerNode(const EagerNode&) = delete;
  EagerNode& operator=(const EagerNode&) = delete;

  /// The Node that eager Outputs point to; `node().eager()` is this EagerNode.
  Node& node() { return node_; }
  /// The Node that eager Outputs point to; `node().eager()` is this EagerNode.
  const Node& node() const { return node_; }
  /// Sets output `i`'s shape, which an eager op knows exactly once it ran.
  void set_output_shape(int i, PartialTensorShape shape) { node_.output_shapes_[i] = std::move(shape); }
  /// Gives the node its NodeDef (op, name, attrs), for the gradient functions that read attrs.
  void set_def(NodeDef def) { node_.def_ = std::move(def); }
  /// The same without a copy: `def` (a kernel cache's) outlives the node.
  void set_shared_def(const NodeDef* def) { node_.shared_def_ = def; }

  /// The op's inputs, kept while a gradient tape records it (they keep the values that the
  /// op's gradient needs alive); empty otherwise.
  std::vector<Output> inputs;
  /// Output `index` used while building a graph (a traced function reading a tensor made
  /// outside it): the node that stands for it in `graph_scope`'s graph.
  virtual StatusOr<Output> Capture(const Scope& graph_scope, int index) const = 0;

  /// Output `index`'s value, when it is small enough to be worth knowing while building
  /// (gradient functions use constant axes and shapes to build less). Returns false, leaving
  /// `value` alone, when it is not known (the default).
  virtual bool KnownValue(int index, tensorflow::TensorProto* value) const { return false; }

  /// Bit i set: no gradient is wanted for input i (a tape sets it before running the op's
  /// gradient function; grad::Needed reads it), so that one like MatMul's builds only what
  /// is wanted, as PyTorch's needs_input_grad and TensorFlow's skip_input_indices do.
  uint64_t skip_inputs = 0;

  /// A gradient of its own, used instead of the registry's (a traced function's call).
  std::function<Status(const Scope&, const Node&, const std::vector<Output>& dy, std::vector<Output>* dx)> gradient;

 private:
  Node node_;
};

/// What an eager scope runs its ops through: the runtime implements it (client/eager_context.h),
/// so that the graph layer does not depend on the runtime.
class EagerRunner {
 public:
  virtual ~EagerRunner();
  /// Runs `op` now on the scope's device, with `inputs` (eager Outputs or inline constants)
  /// and `attrs`; an error names the op, the device and the inputs' dtypes and shapes.
  virtual StatusOr<std::shared_ptr<EagerNode>> RunOp(const Scope& scope, const std::string& op,
                                                     const std::vector<Input>& inputs,
                                                     const std::map<std::string, tensorflow::AttrValue>& attrs) = 0;
  /// The same for an op whose one attr is "T" = `type` (the element-wise ops: ops::Add ...),
  /// which a runner may dispatch without building the attrs (by default it builds them).
  virtual StatusOr<std::shared_ptr<EagerNode>> RunTypedOp(const Scope& scope, const std::string& op,
                                                          const std::vector<Input>& inputs, DataType type);
};

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_EAGER_NODE_H_
