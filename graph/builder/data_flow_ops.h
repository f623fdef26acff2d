// Builder functions for the queue ops (graph/ops/data_flow_ops.cc). Conventions as in
// graph/builder/ops.h.
//
//   auto q = ops::FIFOQueue(s, {DT_FLOAT, DT_INT32}, {.shapes = {{784}, {}}, .capacity = 1000});
//   Node* enqueue = ops::QueueEnqueueMany(s, q, {images, labels});
//   OutputList batch = ops::QueueDequeueMany(s, q, 64, {DT_FLOAT, DT_INT32}, {{784}, {}});
//
// The dequeue ops cannot see the queue's shapes through its handle; given `shapes`, they
// set them on their outputs (dequeue-many's with the batch dimension before).
#ifndef TENSORACT_GRAPH_BUILDER_DATA_FLOW_OPS_H_
#define TENSORACT_GRAPH_BUILDER_DATA_FLOW_OPS_H_

#include <string>
#include <vector>

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

struct QueueAttrs {
  std::vector<PartialTensorShape> shapes;  // one per component, or none
  int64_t capacity = -1;                   // < 0: unbounded
  std::string container;
  std::string shared_name;                 // "": the node's name
  // RandomShuffleQueue only.
  int64_t min_after_dequeue = 0;
  int64_t seed = 0;
  int64_t seed2 = 0;
};

Output FIFOQueue(const Scope& scope, const DataTypeVector& component_types, const QueueAttrs& attrs = {});
// `attrs.shapes` required; -1 marks a dimension padded by dequeue-many.
Output PaddingFIFOQueue(const Scope& scope, const DataTypeVector& component_types, const QueueAttrs& attrs);
Output RandomShuffleQueue(const Scope& scope, const DataTypeVector& component_types, const QueueAttrs& attrs = {});
// Elements are (int64 priority, components...); `attrs.shapes` has one shape per component
// (the priority's is implied).
Output PriorityQueue(const Scope& scope, const DataTypeVector& component_types, const QueueAttrs& attrs);

Node* QueueEnqueue(const Scope& scope, const Input& handle, const InputList& components);
Node* QueueEnqueueMany(const Scope& scope, const Input& handle, const InputList& components);
OutputList QueueDequeue(const Scope& scope, const Input& handle, const DataTypeVector& component_types,
                        const std::vector<PartialTensorShape>& shapes = {});
OutputList QueueDequeueMany(const Scope& scope, const Input& handle, const Input& n,
                            const DataTypeVector& component_types, const std::vector<PartialTensorShape>& shapes = {});
OutputList QueueDequeueUpTo(const Scope& scope, const Input& handle, const Input& n,
                            const DataTypeVector& component_types, const std::vector<PartialTensorShape>& shapes = {});
Node* QueueClose(const Scope& scope, const Input& handle, bool cancel_pending_enqueues = false);
Output QueueSize(const Scope& scope, const Input& handle);
Output QueueIsClosed(const Scope& scope, const Input& handle);

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_DATA_FLOW_OPS_H_
