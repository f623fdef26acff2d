/// @file
/// The C++ graph builder: Scope, Output and Input.
///
/// @code
///   Scope root = Scope::NewRootScope();
///   auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
///   auto y = ops::Add(root, ops::MatMul(root, w, x), b);   // names "MatMul", "Add"
///   GraphDef def; TA_RETURN_IF_ERROR(root.ToGraphDef(&def));
/// @endcode
///
/// A Scope carries where new nodes go: a name prefix ("layer1/"), a device, control
/// dependencies and colocation. Names are made unique the way TensorFlow does it: the
/// second "Add" in a scope becomes "Add_1", and an inline constant is "Const/Const" (the
/// next "Const_1/Const"). Every node's output shapes are inferred as it is added
/// (graph/shape_inference.h). Errors (an invalid node, a bad input, incompatible shapes)
/// are recorded in the scope and returned by status() and ToGraphDef(), so building code
/// can chain calls and check once, as in TensorFlow; the node in error is not added.
///
/// Scopes are cheap values; all scopes from one root share the graph, the name table and
/// the status. Not thread-safe.
///
/// An eager scope (client/eager_context.h makes one) runs each op at once instead: the same
/// ops:: functions return Outputs that hold the values, and an error is recorded the same
/// way (naming the op and its inputs' shapes). Control dependencies and colocation mean
/// nothing there (ops run in program order where they are called). A Node* an eager builder
/// call returns stays valid while an Output of it is held, and at least for the next 16 ops.
#ifndef TENSORACT_GRAPH_BUILDER_SCOPE_H_
#define TENSORACT_GRAPH_BUILDER_SCOPE_H_

#include <initializer_list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "messages/tensor.pb.h"

namespace tensoract {

class EagerRunner;

/// One output of a node: "node:index". An eager op's Output also holds the op's result
/// alive (graph/builder/eager_node.h); `node` then points into it.
struct Output {
  /// An empty Output (no node), as a failed builder call returns.
  Output() = default;
  /// Output `i` of node `n`; if `n` is an eager op's node, the Output also shares ownership of its EagerNode.
  Output(Node* n, int i = 0);  // NOLINT: implicit like TensorFlow's
  /// The node producing this output; nullptr for an empty Output.
  Node* node = nullptr;
  /// The index of this output among the node's outputs.
  int index = 0;
  std::shared_ptr<EagerNode> eager;  ///< set for an eager op's output
  /// Whether this is an eager op's output (it holds a value, not a graph edge).
  bool is_eager() const { return eager != nullptr; }
  /// The output's dtype, or DT_INVALID for an empty Output.
  DataType type() const { return node ? node->output_type(index) : tensorflow::DT_INVALID; }
  /// "node" for output 0, "node:1" otherwise: what Session::Run feeds and fetches take.
  /// An empty Output's name is `"<none>"`.
  std::string name() const;
  /// The shape inference gave it (unknown rank for an empty Output).
  const PartialTensorShape& shape() const;
};

/// The outputs of a list output argument ("output: num_split * T"), or of a whole node.
using OutputList = std::vector<Output>;
/// Every output of `node` in order; empty for nullptr (a failed builder call).
OutputList AllOutputs(Node* node);

/// An op's input: an existing Output, or a constant written inline, which becomes a Const
/// node: ops::Add(s, x, 1.0f), ops::MatMul(s, {{1.f, 2.f}, {3.f, 4.f}}, x).
class Input {
 public:
  /// An existing tensor: `output` itself.
  Input(const Output& output) : output_(output) {}  // NOLINT
  /// Output 0 of `node`.
  Input(Node* node) : output_(node, 0) {}           // NOLINT
  /// A constant of any dtype and shape, given as a TensorProto (copied).
  Input(const tensorflow::TensorProto& value)  // NOLINT
      : constant_(std::make_shared<const tensorflow::TensorProto>(value)), is_constant_(true) {}
  /// A constant of any dtype and shape, given as a TensorProto (moved from).
  Input(tensorflow::TensorProto&& value)  // NOLINT
      : constant_(std::make_shared<const tensorflow::TensorProto>(std::move(value))), is_constant_(true) {}
  /// A scalar constant: DT_FLOAT for float, DT_DOUBLE for double, DT_BOOL for bool, DT_INT64 for a
  /// 64-bit integer, and DT_INT32 for any other integer type (TensorFlow's default for Python ints).
  template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
  Input(T scalar) : Input(MakeProto(std::vector<T>{scalar}, {})) {}  // NOLINT
  /// A DT_STRING scalar constant holding `s`.
  Input(const char* s) : Input(std::string(s)) {}       // NOLINT
  /// A DT_STRING scalar constant holding `s`.
  Input(const std::string& s);                          // NOLINT
  /// A vector constant of `v.size()` elements, with the dtype a scalar of `T` gets.
  template <class T>
  Input(std::initializer_list<T> v) : Input(MakeProto(std::vector<T>(v), {static_cast<int64_t>(v.size())})) {}  // NOLINT
  /// A matrix constant, one inner list per row, with the dtype a scalar of `T` gets. Rows of
  /// different lengths make an invalid constant, reported when its Const node is added.
  template <class T>
  Input(std::initializer_list<std::initializer_list<T>> rows);  // NOLINT

  /// Whether this Input is an inline constant (constant()) rather than an Output (output()).
  bool is_constant() const { return is_constant_; }
  /// The tensor given; an empty Output for a constant.
  const Output& output() const { return output_; }
  /// The inline constant's value; an empty TensorProto if this Input is an Output.
  const tensorflow::TensorProto& constant() const;

 private:
  template <class T>
  static tensorflow::TensorProto MakeProto(const std::vector<T>& values, const std::vector<int64_t>& dims);

  Output output_;
  // Shared and made only for a constant: an Input of an Output (every eager op's inputs)
  // then costs no TensorProto.
  std::shared_ptr<const tensorflow::TensorProto> constant_;
  bool is_constant_ = false;
};

/// The tensors of a list input argument ("values: N * T", as AddN and ConcatV2 take):
/// ops::AddN(s, {a, b, c}), ops::AddN(s, some_output_list).
class InputList {
 public:
  /// Each Output of `outputs`, in order (e.g. another op's list output).
  InputList(const OutputList& outputs) : inputs_(outputs.begin(), outputs.end()) {}  // NOLINT
  /// The listed Inputs, which may mix Outputs and inline constants.
  InputList(std::initializer_list<Input> inputs) : inputs_(inputs) {}                 // NOLINT
  /// The given Inputs, which may mix Outputs and inline constants.
  InputList(std::vector<Input> inputs) : inputs_(std::move(inputs)) {}                // NOLINT

  /// The list's elements in order, as AddOp takes them in place of the list argument.
  const std::vector<Input>& inputs() const { return inputs_; }
  /// The number of tensors in the list (the op's `N` attr).
  size_t size() const { return inputs_.size(); }
  /// An iterator to the first element.
  std::vector<Input>::const_iterator begin() const { return inputs_.begin(); }
  /// An iterator past the last element.
  std::vector<Input>::const_iterator end() const { return inputs_.end(); }

 private:
  std::vector<Input> inputs_;
};

/// Where new nodes go, and the graph (or eager runner) they go to: a name prefix, a device,
/// control dependencies and colocation, plus the error recorded by the builder calls (see the
/// file's description).
class Scope {
 public:
  /// A new graph, written with producer version kGraphDefVersion.
  static Scope NewRootScope();
  /// A root scope over the graph of `graph_def` (imported: library calls inlined), to add
  /// to it; new names avoid the existing ones.
  static StatusOr<Scope> FromGraphDef(const tensorflow::GraphDef& graph_def);
  /// A scope whose ops run at once through `runner`, which must outlive every scope made
  /// from it (client/eager_context.h: EagerContext::scope()).
  static Scope NewEagerScope(EagerRunner* runner);

  /// A child scope for a block of ops; `name` is made unique ("name_1" if taken), and an empty
  /// `name` keeps this scope's prefix.
  Scope NewSubScope(const std::string& name) const;  ///< its ops are named below "prefix/name/"
  Scope WithOpName(const std::string& name) const;   ///< the next op's exact name (made unique)
  /// The next op is named the scope's own name: NewSubScope("w").WithScopeName() makes "w"
  /// (or "w_1" if taken) whose helper ops are "w/Assign", "w/Read/...", the way TensorFlow's
  /// Python names a variable's handle after its name scope.
  Scope WithScopeName() const;
  /// Ops made in the returned scope request `device` (written to each NodeDef's `device`, e.g.
  /// "/device:CPU:0"; "" leaves placement to the placer).
  Scope WithDevice(const std::string& device) const;
  /// Ops made in the returned scope run after `deps` (added to the scope's own). An empty
  /// Output among `deps` records an InvalidArgument error.
  Scope WithControlDependencies(const std::vector<Output>& deps) const;
  /// Ops made in the returned scope have no control dependencies from the scope.
  Scope WithNoControlDependencies() const;
  /// Ops made in the returned scope are placed with `op`: `_class` lists "loc:@op", or the
  /// groups `op` is itself colocated with, added to the scope's own, sorted.
  Scope ColocateWith(const Output& op) const;
  /// Ops made in the returned scope have no colocation constraint from the scope.
  Scope ClearColocation() const;
  /// The same graph and device, but no name prefix, control dependencies or colocation: for
  /// builders that name helper nodes after other nodes ("cond/add/Switch" for the Switch
  /// feeding "cond/add"), whatever scope they were called in.
  Scope AtRoot() const;

  /// For builders that, while a conditional branch or loop body is being built, add nodes
  /// that belong outside it (a loop's gradient saves forward values onto stacks from inside
  /// the backward loop's body): ops::Cond and ops::WhileLoop leave a marked node where it is
  /// and treat it as made outside them.
  void MarkOutside(const Node* node) const;
  /// Whether MarkOutside() marked `node` (in any scope sharing this graph).
  bool IsMarkedOutside(const Node* node) const;

  /// The name prefix of ops made in this scope ("" at the root, else e.g. "a/b").
  const std::string& name_prefix() const { return prefix_; }
  /// The device ops made in this scope are placed on ("" if none was set).
  const std::string& device() const { return device_; }

  /// The graph this scope adds to, shared by every scope from the same root.
  Graph* graph() const { return shared_->graph.get(); }
  /// The first error any builder call in a scope sharing this graph recorded, or OK.
  Status status() const { return shared_->status; }
  /// Whether no error has been recorded (status().ok()).
  bool ok() const { return shared_->status.ok(); }
  /// Records `s` if it is an error and none was recorded before; the first error is kept.
  void UpdateStatus(const Status& s) const;
  /// Forgets the recorded error, for an eager program that handled it and goes on.
  void ClearStatus() const { shared_->status = Status::OK(); }

  /// Whether ops run at once (an eager scope) rather than being added to a graph.
  bool is_eager() const { return shared_->eager != nullptr; }
  /// The runner an eager scope's ops run through; nullptr for a graph scope.
  EagerRunner* eager_runner() const { return shared_->eager; }
  /// For eager runners: keeps a result alive while the builder function that asked for it
  /// wraps the Node* it got into Outputs (see the note at the top).
  void KeepRecent(std::shared_ptr<EagerNode> node) const;

  /// Exports the graph; fails with the first error any builder call recorded.
  Status ToGraphDef(tensorflow::GraphDef* graph_def) const;

  /// For ops:: functions: adds a node of `op` with these inputs and attrs, named from the
  /// scope (or `default_name`), with the scope's device, control deps and colocation, and
  /// infers its output shapes. `inputs` are the op's inputs flattened, a list argument's
  /// InputList::inputs() in its place. Returns nullptr (and records the error; the node is
  /// not left in the graph) on failure.
  Node* AddOp(const std::string& op, const std::string& default_name, const std::vector<Input>& inputs,
              const std::map<std::string, tensorflow::AttrValue>& attrs) const;
  /// AddOp for an op whose one attr is "T" = `type`, named as the op; on an eager scope
  /// dispatched without building the attrs (EagerRunner::RunTypedOp).
  Node* AddTypedOp(const std::string& op, const std::vector<Input>& inputs, DataType type) const;

 private:
  // An eager op's node, kept alive until an Output holds it, or nullptr with the error kept.
  Node* KeepEager(StatusOr<std::shared_ptr<EagerNode>> result) const;
  struct Shared {
    std::unique_ptr<Graph> graph;
    std::map<std::string, int> name_counts;
    std::set<int> outside;  // node ids (MarkOutside)
    Status status;
    EagerRunner* eager = nullptr;  // set for an eager scope
    static constexpr int kRecent = 16;
    std::shared_ptr<EagerNode> recent[kRecent];  // the last eager results (KeepRecent)
    int next_recent = 0;
  };
  Scope() = default;
  std::string UniqueName(const std::string& base) const;
  Node* ToNode(const Input& input) const;

  std::shared_ptr<Shared> shared_;
  std::string prefix_;  // "" or "a/b"
  std::string op_name_;
  bool op_named_as_scope_ = false;
  std::string device_;
  std::vector<Node*> control_deps_;
  std::set<std::string> colocate_with_;  // node names, without "loc:@"
};

template <class T>
Input::Input(std::initializer_list<std::initializer_list<T>> rows) {
  std::vector<T> flat;
  size_t cols = rows.size() ? rows.begin()->size() : 0;
  bool ragged = false;
  for (const auto& r : rows) {
    ragged |= r.size() != cols;
    flat.insert(flat.end(), r.begin(), r.end());
  }
  auto proto = MakeProto(flat, {static_cast<int64_t>(rows.size()), static_cast<int64_t>(cols)});
  if (ragged) proto.set_dtype(tensorflow::DT_INVALID);  // reported when the Const is added
  constant_ = std::make_shared<const tensorflow::TensorProto>(std::move(proto));
  is_constant_ = true;
}

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_SCOPE_H_
