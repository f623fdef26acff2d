#include "graph/builder/scope.h"

#include "graph/builder/eager_node.h"
#include "graph/builder/ops.h"

namespace tensoract {

Output::Output(Node* n, int i) : node(n), index(i) {
  if (n != nullptr && n->eager() != nullptr) eager = n->eager()->shared_from_this();
}

EagerNode::EagerNode(const tensorflow::OpDef* op_def, DataTypeVector input_types, DataTypeVector output_types) {
  node_.eager_ = this;
  node_.op_def_ = op_def;
  node_.input_types_ = std::move(input_types);
  node_.output_types_ = std::move(output_types);
  node_.output_shapes_.resize(node_.output_types_.size());
}

EagerNode::~EagerNode() = default;
EagerRunner::~EagerRunner() = default;

StatusOr<std::shared_ptr<EagerNode>> EagerRunner::RunTypedOp(const Scope& scope, const std::string& op,
                                                             const std::vector<Input>& inputs, DataType type) {
  tensorflow::AttrValue t;
  t.set_type(type);
  return RunOp(scope, op, inputs, {{"T", t}});
}

std::string Output::name() const {
  if (node == nullptr) return "<none>";
  return index == 0 ? node->name() : StrCat(node->name(), ":", index);
}

const PartialTensorShape& Output::shape() const {
  static const PartialTensorShape* const kUnknown = new PartialTensorShape;
  return node == nullptr ? *kUnknown : node->output_shape(index);
}

OutputList AllOutputs(Node* node) {
  OutputList out;
  for (int i = 0; node != nullptr && i < node->num_outputs(); ++i) out.emplace_back(node, i);
  return out;
}

template <class T>
tensorflow::TensorProto Input::MakeProto(const std::vector<T>& values, const std::vector<int64_t>& dims) {
  tensorflow::TensorProto p;
  p.mutable_tensor_shape();  // present even for a scalar, as TensorFlow writes it
  for (int64_t d : dims) p.mutable_tensor_shape()->add_dim()->set_size(d);
  if constexpr (std::is_same_v<T, float>) {
    p.set_dtype(tensorflow::DT_FLOAT);
    for (float v : values) p.add_float_val(v);
  } else if constexpr (std::is_same_v<T, double>) {
    p.set_dtype(tensorflow::DT_DOUBLE);
    for (double v : values) p.add_double_val(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    p.set_dtype(tensorflow::DT_BOOL);
    for (bool v : values) p.add_bool_val(v);
  } else if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, long long>) {
    p.set_dtype(tensorflow::DT_INT64);
    for (auto v : values) p.add_int64_val(v);
  } else {
    static_assert(std::is_integral_v<T>, "an inline constant must be a number, bool or string");
    p.set_dtype(tensorflow::DT_INT32);  // TensorFlow's default for Python ints
    for (auto v : values) p.add_int_val(static_cast<int32_t>(v));
  }
  return p;
}
template tensorflow::TensorProto Input::MakeProto(const std::vector<float>&, const std::vector<int64_t>&);
template tensorflow::TensorProto Input::MakeProto(const std::vector<double>&, const std::vector<int64_t>&);
template tensorflow::TensorProto Input::MakeProto(const std::vector<bool>&, const std::vector<int64_t>&);
template tensorflow::TensorProto Input::MakeProto(const std::vector<int>&, const std::vector<int64_t>&);
template tensorflow::TensorProto Input::MakeProto(const std::vector<long>&, const std::vector<int64_t>&);
template tensorflow::TensorProto Input::MakeProto(const std::vector<long long>&, const std::vector<int64_t>&);

const tensorflow::TensorProto& Input::constant() const {
  static const tensorflow::TensorProto* const kNone = new tensorflow::TensorProto;
  return constant_ ? *constant_ : *kNone;
}

Input::Input(const std::string& s) : is_constant_(true) {
  auto proto = std::make_shared<tensorflow::TensorProto>();
  proto->set_dtype(tensorflow::DT_STRING);
  proto->mutable_tensor_shape();
  proto->add_string_val(s);
  constant_ = std::move(proto);
}

Scope Scope::NewRootScope() {
  Scope s;
  s.shared_ = std::make_shared<Shared>();
  s.shared_->graph = std::make_unique<Graph>();
  // What we write is read as a current graph, not a legacy one (a scalar Placeholder shape
  // means a scalar, not "unknown", from version 22 on).
  tensorflow::VersionDef versions;
  versions.set_producer(kGraphDefVersion);
  s.shared_->graph->set_versions(versions);
  return s;
}

StatusOr<Scope> Scope::FromGraphDef(const tensorflow::GraphDef& graph_def) {
  Scope s = NewRootScope();
  TA_RETURN_IF_ERROR(ImportGraphDef(graph_def, s.graph()));
  for (const Node* n : s.graph()->op_nodes()) s.shared_->name_counts[n->name()] = 1;
  return s;
}

Scope Scope::NewEagerScope(EagerRunner* runner) {
  Scope s = NewRootScope();
  s.shared_->eager = runner;
  return s;
}

void Scope::KeepRecent(std::shared_ptr<EagerNode> node) const {
  shared_->recent[shared_->next_recent] = std::move(node);
  shared_->next_recent = (shared_->next_recent + 1) % Shared::kRecent;
}

Scope Scope::NewSubScope(const std::string& name) const {
  Scope s = *this;
  s.op_name_.clear();
  s.op_named_as_scope_ = false;
  if (name.empty()) return s;
  std::string unique = UniqueName(prefix_.empty() ? name : prefix_ + "/" + name);
  s.prefix_ = unique;
  return s;
}

Scope Scope::WithOpName(const std::string& name) const {
  Scope s = *this;
  s.op_name_ = name;
  s.op_named_as_scope_ = false;
  return s;
}

Scope Scope::WithScopeName() const {
  Scope s = *this;
  s.op_name_.clear();
  s.op_named_as_scope_ = !prefix_.empty();
  return s;
}

Scope Scope::WithDevice(const std::string& device) const {
  Scope s = *this;
  s.device_ = device;
  return s;
}

Scope Scope::WithControlDependencies(const std::vector<Output>& deps) const {
  Scope s = *this;
  for (const Output& dep : deps) {
    if (dep.node == nullptr) {
      UpdateStatus(errors::InvalidArgument("a control dependency of scope '", prefix_, "' is an empty output"));
      continue;
    }
    s.control_deps_.push_back(dep.node);
  }
  return s;
}

Scope Scope::WithNoControlDependencies() const {
  Scope s = *this;
  s.control_deps_.clear();
  return s;
}

Scope Scope::ColocateWith(const Output& op) const {
  Scope s = *this;
  // An eager value is nowhere in a graph; a graph using it names its device instead.
  if (op.is_eager()) return s;
  if (op.node == nullptr) {
    UpdateStatus(errors::InvalidArgument("ColocateWith was given an empty output"));
    return s;
  }
  // As TensorFlow: with a node that is itself colocated with others, join its group rather
  // than start a group around it.
  std::vector<std::string> groups;
  if (GetNodeAttr(op.node->def(), kColocationAttrName, &groups).ok()) {
    for (const std::string& g : groups) {
      const std::string prefix = kColocationGroupPrefix;
      if (g.compare(0, prefix.size(), prefix) == 0) s.colocate_with_.insert(g.substr(prefix.size()));
    }
  } else {
    s.colocate_with_.insert(op.node->name());
  }
  return s;
}

Scope Scope::ClearColocation() const {
  Scope s = *this;
  s.colocate_with_.clear();
  return s;
}

Scope Scope::AtRoot() const {
  Scope s = *this;
  s.prefix_.clear();
  s.op_name_.clear();
  s.op_named_as_scope_ = false;
  s.control_deps_.clear();
  s.colocate_with_.clear();
  return s;
}

void Scope::MarkOutside(const Node* node) const {
  if (node != nullptr) shared_->outside.insert(node->id());
}

bool Scope::IsMarkedOutside(const Node* node) const { return shared_->outside.count(node->id()) > 0; }

void Scope::UpdateStatus(const Status& s) const {
  if (shared_->status.ok() && !s.ok()) shared_->status = s;
}

Status Scope::ToGraphDef(tensorflow::GraphDef* graph_def) const {
  TA_RETURN_IF_ERROR(shared_->status);
  graph()->ToGraphDef(graph_def);
  return Status::OK();
}

std::string Scope::UniqueName(const std::string& base) const {
  // Eager ops have no names to keep apart (and a loop of them must not grow the table).
  if (is_eager()) return base;
  // TensorFlow's rule: the first use is the name itself, the k-th "name_k"; a generated
  // name that someone already took explicitly is skipped.
  auto& counts = shared_->name_counts;
  auto it = counts.find(base);
  if (it == counts.end()) {
    counts[base] = 1;
    return base;
  }
  std::string candidate;
  do {
    candidate = StrCat(base, "_", it->second++);
  } while (counts.count(candidate));
  counts[candidate] = 1;
  return candidate;
}

Node* Scope::ToNode(const Input& input) const {
  if (!input.is_constant() && input.output().is_eager()) {
    // An eager value in a graph: the value a traced function captured from outside it.
    auto captured = input.output().eager->Capture(*this, input.output().index);
    if (!captured.ok()) {
      UpdateStatus(captured.status());
      return nullptr;
    }
    return captured.value().node;
  }
  if (!input.is_constant()) return input.output().node;
  // An inline constant is an ordinary Const node, made (and checked) the one way, in a
  // sub-scope named "Const" as TensorFlow's C++ API does: "Const/Const", "Const_1/Const".
  return ops::Const(NewSubScope("Const"), input).node;
}

Node* Scope::AddTypedOp(const std::string& op, const std::vector<Input>& inputs, DataType type) const {
  if (!is_eager()) {
    tensorflow::AttrValue t;
    t.set_type(type);
    return AddOp(op, op, inputs, {{"T", t}});
  }
  if (!ok()) return nullptr;
  return KeepEager(shared_->eager->RunTypedOp(*this, op, inputs, type));
}

Node* Scope::KeepEager(StatusOr<std::shared_ptr<EagerNode>> result) const {
  if (!result.ok()) {
    UpdateStatus(result.status());
    return nullptr;
  }
  Node* node = &result.value()->node();
  KeepRecent(std::move(result).value());
  return node;
}

Node* Scope::AddOp(const std::string& op, const std::string& default_name, const std::vector<Input>& inputs,
                   const std::map<std::string, tensorflow::AttrValue>& attrs) const {
  if (!ok()) return nullptr;
  if (is_eager()) return KeepEager(shared_->eager->RunOp(*this, op, inputs, attrs));
  std::vector<Output> resolved;
  for (const Input& in : inputs) {
    Node* n = ToNode(in);
    if (n == nullptr) {
      UpdateStatus(errors::InvalidArgument("input ", resolved.size(), " of a new '", op, "' node is empty"));
      return nullptr;
    }
    // An inline constant and a captured eager value are single-output nodes made here.
    resolved.push_back(in.is_constant() || in.output().is_eager() ? Output(n, 0) : in.output());
  }
  const std::string& base = op_name_.empty() ? default_name : op_name_;
  NodeDef def;
  // The scope's prefix is already unique: NewSubScope reserved it.
  def.set_name(op_named_as_scope_ ? prefix_ : UniqueName(prefix_.empty() ? base : prefix_ + "/" + base));
  def.set_op(op);
  def.set_device(device_);
  for (const Output& o : resolved) def.add_input(o.name());
  for (const Node* dep : control_deps_) def.add_input("^" + dep->name());
  for (const auto& [name, value] : attrs) (*def.mutable_attr())[name] = value;
  // Sorted (a std::set), as TensorFlow writes them.
  for (const std::string& g : colocate_with_) (*def.mutable_attr())[kColocationAttrName].mutable_list()->add_s(kColocationGroupPrefix + g);
  auto node = graph()->AddNode(def);
  if (!node.ok()) {
    UpdateStatus(node.status());
    return nullptr;
  }
  // A node in error is taken out again, so the graph only ever holds valid nodes.
  auto fail = [&](const Status& s) -> Node* {
    graph()->RemoveNode(*node);
    UpdateStatus(s);
    return nullptr;
  };
  for (size_t i = 0; i < resolved.size(); ++i) {
    const Output& o = resolved[i];
    if (o.index < 0 || o.index >= o.node->num_outputs()) {
      return fail(errors::InvalidArgument("input ", i, " of node '", (*node)->name(), "' is '", o.name(), "' but node '",
                                          o.node->name(), "' has ", o.node->num_outputs(), " output(s)"));
    }
    Status type_ok = CheckEdgeType(*o.node, o.index, **node, static_cast<int>(i), o.name());
    if (!type_ok.ok()) return fail(type_ok);
    graph()->AddEdge(o.node, o.index, *node, static_cast<int>(i));
  }
  for (Node* dep : control_deps_) graph()->AddControlEdge(dep, *node);
  // Shapes are checked as each node is added, so an error points at the call that made it.
  Status shapes = shape_inference::InferNodeShapes(*graph(), *node);
  if (!shapes.ok()) return fail(shapes);
  return *node;
}

}  // namespace tensoract
