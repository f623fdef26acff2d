#include "graph/eval_const_tensor.h"

#include <atomic>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "graph/control_flow.h"
#include "graph/graph.h"
#include "graph/node_def_util.h"
#include "graph/optimizer/constant_folding.h"
#include "graph/optimizer/optimizer_util.h"

namespace tensoract {
namespace shape_inference {
namespace {

std::atomic<const ConstantEvaluator*> g_evaluator{nullptr};

// A Const's value, seen through Identity nodes (which TensorFlow's shape refiner also
// evaluates through without running them) and loop invariants' Enters (a constant that
// graph/optimizer/loop_invariant_motion.h moved out of its loop).
const tensorflow::TensorProto* ConstValue(const Node* node, int port) {
  for (int depth = 0; node != nullptr && depth < 64; ++depth) {
    if (node->type_string() == "Const" && port == 0) {
      const tensorflow::TensorProto* value = nullptr;
      return GetNodeAttr(node->def(), "value", &value).ok() ? value : nullptr;
    }
    if (node->type_string() != "Identity" && !IsConstantEnter(*node)) return nullptr;
    const Edge* in = node->input_edge(0);
    if (in == nullptr) return nullptr;
    node = in->src;
    port = in->src_output;
  }
  return nullptr;
}

// The number of elements a proto's shape says it holds; -1 when it says nothing sensible.
int64_t ProtoElements(const tensorflow::TensorProto& proto) {
  if (proto.tensor_shape().unknown_rank()) return -1;
  int64_t n = 1;
  for (const auto& d : proto.tensor_shape().dim()) {
    if (d.size() < 0) return -1;
    if (d.size() > 0 && n > kMaxEvaluatedElements * 16 / d.size()) return kMaxEvaluatedElements + 1;
    n *= d.size();
  }
  return n;
}

// The number of elements of a fully defined shape, or kMaxEvaluatedElements + 1 when it
// is larger (the exact count could overflow).
int64_t ShapeElements(const PartialTensorShape& shape) {
  int64_t n = 1;
  for (int d = 0; d < shape.dims(); ++d) {
    const int64_t size = shape.dim_size(d);
    if (size == 0) return 0;
    if (n > kMaxEvaluatedElements / size) n = kMaxEvaluatedElements + 1;
    else n *= size;
  }
  return n;
}

// The Shape, Size or Rank of a tensor whose shape is known, as TensorFlow's
// TryInferFromShapes gives it; false when not known (or when it overflows an int32).
bool ValueFromShape(const Node& node, int port, tensorflow::TensorProto* out) {
  const std::string& op = node.type_string();
  if ((op != "Shape" && op != "Size" && op != "Rank") || port != 0 || node.num_inputs() != 1) return false;
  const DataType type = BaseType(node.output_type(0));
  if (type != tensorflow::DT_INT32 && type != tensorflow::DT_INT64) return false;
  const Edge* in = node.input_edge(0);
  if (in == nullptr) return false;
  const PartialTensorShape& shape = in->src->output_shape(in->src_output);
  std::vector<int64_t> values;
  if (op == "Rank") {
    if (shape.unknown_rank()) return false;
    values.push_back(shape.dims());
  } else {
    if (!shape.IsFullyDefined()) return false;
    if (op == "Shape") {
      for (int d = 0; d < shape.dims(); ++d) values.push_back(shape.dim_size(d));
    } else {
      int64_t n = 1;
      for (int d = 0; d < shape.dims(); ++d) {
        if (__builtin_mul_overflow(n, shape.dim_size(d), &n)) return false;
      }
      values.push_back(n);
    }
  }
  out->Clear();
  out->set_dtype(type);
  if (op == "Shape") out->mutable_tensor_shape()->add_dim()->set_size(static_cast<int64_t>(values.size()));
  for (int64_t v : values) {
    if (type == tensorflow::DT_INT32) {
      if (v > std::numeric_limits<int32_t>::max()) return false;
      out->add_int_val(static_cast<int32_t>(v));
    } else {
      out->add_int64_val(v);
    }
  }
  return true;
}

// Whether `node` may be run ahead of time (TensorFlow's IsSupportedForEvaluation), and its
// outputs are small and of a known shape.
bool MayEvaluate(const Node& node) {
  if (!node.IsOp() || node.eager() != nullptr || node.num_inputs() == 0 || node.num_outputs() == 0) return false;
  if (node.IsStateful() || IsNeverEvaluatedAhead(node.type_string()) || HasRefInputOrOutput(node)) return false;
  for (const auto& [name, attr] : node.def().attr()) {
    if (attr.has_func() || attr.list().func_size() > 0) return false;  // a function call
  }
  for (int i = 0; i < node.num_outputs(); ++i) {
    const DataType type = BaseType(node.output_type(i));
    if (type == tensorflow::DT_RESOURCE || type == tensorflow::DT_VARIANT) return false;
    const PartialTensorShape& shape = node.output_shape(i);
    if (!shape.IsFullyDefined() || ShapeElements(shape) > kMaxEvaluatedElements) return false;
  }
  return true;
}

// One evaluation: the outputs of the nodes computed so far, and those found not constant.
class Evaluation {
 public:
  explicit Evaluation(const ConstantEvaluator* evaluator) : evaluator_(evaluator) {}

  const tensorflow::TensorProto* Value(const Node& node, int port) {
    if (const tensorflow::TensorProto* value = ConstValue(&node, port)) return value;
    tensorflow::TensorProto from_shape;
    if (ValueFromShape(node, port, &from_shape)) {
      leaves_.push_back(std::move(from_shape));
      return &leaves_.back();
    }
    if (evaluator_ == nullptr || failed_.count(&node)) return nullptr;
    auto done = computed_.find(&node);
    if (done != computed_.end()) return port < static_cast<int>(done->second.size()) ? &done->second[port] : nullptr;
    if (!Compute(node)) {
      failed_.insert(&node);
      return nullptr;
    }
    return &computed_[&node][port];
  }

 private:
  bool Compute(const Node& node) {
    if (!MayEvaluate(node) || ++evaluated_ > kMaxEvaluatedNodes) return false;
    std::vector<const tensorflow::TensorProto*> inputs(node.num_inputs(), nullptr);
    for (int i = 0; i < node.num_inputs(); ++i) {
      const Edge* in = node.input_edge(i);
      if (in == nullptr) return false;
      inputs[i] = Value(*in->src, in->src_output);
      if (inputs[i] == nullptr) return false;
      const int64_t elements = ProtoElements(*inputs[i]);
      if (elements < 0 || elements > kMaxEvaluatedElements) return false;
    }
    std::vector<tensorflow::TensorProto> outputs;
    // An error is not the graph's: the node's kernel reports it, if it is real, when it runs.
    if (!evaluator_->Evaluate(node.def(), node.op_def(), inputs, &outputs).ok()) return false;
    if (static_cast<int>(outputs.size()) != node.num_outputs()) return false;
    for (int i = 0; i < node.num_outputs(); ++i) {
      if (outputs[i].dtype() != BaseType(node.output_type(i))) return false;
    }
    computed_[&node] = std::move(outputs);
    return true;
  }

  const ConstantEvaluator* evaluator_;
  int evaluated_ = 0;
  std::deque<tensorflow::TensorProto> leaves_;  // Shape/Size/Rank values
  std::map<const Node*, std::vector<tensorflow::TensorProto>> computed_;
  std::set<const Node*> failed_;  // so a shared input found not constant is walked once
};

}  // namespace

const ConstantEvaluator* SetConstantEvaluator(const ConstantEvaluator* evaluator) {
  return g_evaluator.exchange(evaluator);
}

const ConstantEvaluator* GetConstantEvaluator() { return g_evaluator.load(); }

const tensorflow::TensorProto* EvaluateConstantTensor(const Node& node, int port,
                                                      std::deque<tensorflow::TensorProto>* storage) {
  if (port < 0 || port >= node.num_outputs()) return nullptr;
  if (const tensorflow::TensorProto* value = ConstValue(&node, port)) return value;  // the common case
  Evaluation evaluation(GetConstantEvaluator());
  const tensorflow::TensorProto* value = evaluation.Value(node, port);
  if (value == nullptr) return nullptr;
  storage->push_back(*value);
  return &storage->back();
}

}  // namespace shape_inference
}  // namespace tensoract
