#include "graph/builder/data_flow_ops.h"

#include "graph/builder/attr_util.h"

namespace tensoract {
namespace ops {
namespace {

tensorflow::AttrValue TypeListAttr(const DataTypeVector& types) {
  tensorflow::AttrValue v;
  v.mutable_list();
  for (DataType t : types) v.mutable_list()->add_type(t);
  return v;
}

tensorflow::AttrValue ShapeListAttr(const std::vector<PartialTensorShape>& shapes) {
  tensorflow::AttrValue v;
  v.mutable_list();
  for (const PartialTensorShape& s : shapes) s.AsProto(v.mutable_list()->add_shape());
  return v;
}

Output MakeQueue(const Scope& scope, const std::string& op, const DataTypeVector& types, const QueueAttrs& attrs) {
  std::map<std::string, tensorflow::AttrValue> a{{"component_types", TypeListAttr(types)},
                                                 {"shapes", ShapeListAttr(attrs.shapes)},
                                                 {"capacity", IntAttr(attrs.capacity)},
                                                 {"container", StringAttr(attrs.container)},
                                                 {"shared_name", StringAttr(attrs.shared_name)}};
  if (op == "RandomShuffleQueueV2") {
    a["min_after_dequeue"] = IntAttr(attrs.min_after_dequeue);
    a["seed"] = IntAttr(attrs.seed);
    a["seed2"] = IntAttr(attrs.seed2);
  }
  std::string name = op.substr(0, op.size() - 2);  // "FIFOQueue"
  Node* node = scope.AddOp(op, name, {}, a);
  return node ? Output(node, 0) : Output();
}

Node* Enqueue(const Scope& scope, const std::string& op, const Input& handle, const InputList& components) {
  DataTypeVector types;
  for (const Input& c : components) types.push_back(TypeOf(c));
  std::vector<Input> inputs{handle};
  inputs.insert(inputs.end(), components.begin(), components.end());
  return scope.AddOp(op, op.substr(0, op.size() - 2), inputs, {{"Tcomponents", TypeListAttr(types)}});
}

// `batch`: the batch dimension dequeue-many puts first (-1 when unknown); < -1: none.
OutputList Dequeue(const Scope& scope, const std::string& op, std::vector<Input> inputs, const DataTypeVector& types,
                   const std::vector<PartialTensorShape>& shapes, int64_t batch) {
  Node* node = scope.AddOp(op, op.substr(0, op.size() - 2), inputs, {{"component_types", TypeListAttr(types)}});
  if (node == nullptr) return {};
  for (size_t i = 0; i < shapes.size() && i < types.size(); ++i) {
    if (shapes[i].unknown_rank()) continue;
    std::vector<int64_t> dims;
    if (batch >= -1) dims.push_back(batch);
    for (int d = 0; d < shapes[i].dims(); ++d) dims.push_back(shapes[i].dim_size(d));
    node->set_output_shape(static_cast<int>(i), PartialTensorShape(dims));
  }
  return AllOutputs(node);
}

// n when it is a constant the builder can read, else -1.
int64_t KnownBatch(const Input& n) {
  if (!n.is_constant() || n.constant().int_val_size() != 1) return -1;
  return n.constant().int_val(0);
}

}  // namespace

Output FIFOQueue(const Scope& scope, const DataTypeVector& types, const QueueAttrs& attrs) {
  return MakeQueue(scope, "FIFOQueueV2", types, attrs);
}
Output PaddingFIFOQueue(const Scope& scope, const DataTypeVector& types, const QueueAttrs& attrs) {
  return MakeQueue(scope, "PaddingFIFOQueueV2", types, attrs);
}
Output RandomShuffleQueue(const Scope& scope, const DataTypeVector& types, const QueueAttrs& attrs) {
  return MakeQueue(scope, "RandomShuffleQueueV2", types, attrs);
}
Output PriorityQueue(const Scope& scope, const DataTypeVector& types, const QueueAttrs& attrs) {
  return MakeQueue(scope, "PriorityQueueV2", types, attrs);
}

Node* QueueEnqueue(const Scope& scope, const Input& handle, const InputList& components) {
  return Enqueue(scope, "QueueEnqueueV2", handle, components);
}
Node* QueueEnqueueMany(const Scope& scope, const Input& handle, const InputList& components) {
  return Enqueue(scope, "QueueEnqueueManyV2", handle, components);
}

OutputList QueueDequeue(const Scope& scope, const Input& handle, const DataTypeVector& types,
                        const std::vector<PartialTensorShape>& shapes) {
  return Dequeue(scope, "QueueDequeueV2", {handle}, types, shapes, -2);
}
OutputList QueueDequeueMany(const Scope& scope, const Input& handle, const Input& n, const DataTypeVector& types,
                            const std::vector<PartialTensorShape>& shapes) {
  return Dequeue(scope, "QueueDequeueManyV2", {handle, n}, types, shapes, KnownBatch(n));
}
OutputList QueueDequeueUpTo(const Scope& scope, const Input& handle, const Input& n, const DataTypeVector& types,
                            const std::vector<PartialTensorShape>& shapes) {
  return Dequeue(scope, "QueueDequeueUpToV2", {handle, n}, types, shapes, -1);
}

Node* QueueClose(const Scope& scope, const Input& handle, bool cancel_pending_enqueues) {
  return scope.AddOp("QueueCloseV2", "QueueClose", {handle},
                     {{"cancel_pending_enqueues", BoolAttr(cancel_pending_enqueues)}});
}
Output QueueSize(const Scope& scope, const Input& handle) {
  Node* node = scope.AddOp("QueueSizeV2", "QueueSize", {handle}, {});
  return node ? Output(node, 0) : Output();
}
Output QueueIsClosed(const Scope& scope, const Input& handle) {
  Node* node = scope.AddOp("QueueIsClosedV2", "QueueIsClosed", {handle}, {});
  return node ? Output(node, 0) : Output();
}

}  // namespace ops
}  // namespace tensoract
