/// @file
/// Builder functions for the queue ops (graph/ops/data_flow_ops.cc). Conventions as in
/// graph/builder/ops.h.
///
/// @code
///   auto q = ops::FIFOQueue(s, {DT_FLOAT, DT_INT32}, {.shapes = {{784}, {}}, .capacity = 1000});
///   Node* enqueue = ops::QueueEnqueueMany(s, q, {images, labels});
///   OutputList batch = ops::QueueDequeueMany(s, q, 64, {DT_FLOAT, DT_INT32}, {{784}, {}});
/// @endcode
///
/// The dequeue ops cannot see the queue's shapes through its handle; given `shapes`, they
/// set them on their outputs (dequeue-many's with the batch dimension before).
#ifndef TENSORACT_GRAPH_BUILDER_DATA_FLOW_OPS_H_
#define TENSORACT_GRAPH_BUILDER_DATA_FLOW_OPS_H_

#include <string>
#include <vector>

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

/// The attributes of a queue (FIFOQueue(), PaddingFIFOQueue(), RandomShuffleQueue(), PriorityQueue()).
struct QueueAttrs {
  /// The shape of each component of an element, which enqueues check.
  std::vector<PartialTensorShape> shapes;  ///< one per component, or none
  /// The most elements the queue holds; enqueues wait while it is full.
  int64_t capacity = -1;                   ///< < 0: unbounded
  /// The resource container the queue lives in; "" is the default one.
  std::string container;
  std::string shared_name;                 ///< "": the node's name
  // RandomShuffleQueue only.
  /// RandomShuffleQueue only: how many elements a dequeue leaves in the queue (until it is closed),
  /// so that the shuffling mixes at least that many (default 0).
  int64_t min_after_dequeue = 0;
  /// RandomShuffleQueue only: the graph-level seed (as RandomAttrs::seed).
  int64_t seed = 0;
  /// RandomShuffleQueue only: the op-level seed; both 0: a random seed.
  int64_t seed2 = 0;
};

/// A queue (FIFOQueueV2) of elements of `component_types`, dequeued in first-in first-out order;
/// its output is the queue's resource handle.
Output FIFOQueue(const Scope& scope, const DataTypeVector& component_types, const QueueAttrs& attrs = {});
/// A FIFO queue whose dequeue-many pads each component to the largest shape in its batch.
/// `attrs.shapes` required; -1 marks a dimension padded by dequeue-many.
Output PaddingFIFOQueue(const Scope& scope, const DataTypeVector& component_types, const QueueAttrs& attrs);
/// A queue that dequeues its elements in a random order, keeping `attrs.min_after_dequeue` of them
/// until it is closed.
Output RandomShuffleQueue(const Scope& scope, const DataTypeVector& component_types, const QueueAttrs& attrs = {});
/// A queue that dequeues the element of the smallest priority first.
/// Elements are (int64 priority, components...); `attrs.shapes` has one shape per component
/// (the priority's is implied).
Output PriorityQueue(const Scope& scope, const DataTypeVector& component_types, const QueueAttrs& attrs);

/// Enqueues one element, `components` (one tensor per component type), into the queue `handle`,
/// waiting while it is full.
Node* QueueEnqueue(const Scope& scope, const Input& handle, const InputList& components);
/// Enqueues the elements of a batch: each of `components` is split along dimension 0, which all
/// must share; waits for room.
Node* QueueEnqueueMany(const Scope& scope, const Input& handle, const InputList& components);
/// Dequeues one element, one output per component, waiting while the queue is empty; fails with
/// OutOfRange once the queue is closed and empty.
OutputList QueueDequeue(const Scope& scope, const Input& handle, const DataTypeVector& component_types,
                        const std::vector<PartialTensorShape>& shapes = {});
/// Dequeues `n` (an int32 scalar) elements, each component batched along a new dimension 0; waits
/// until there are `n`, and fails with OutOfRange if the queue closes with fewer.
OutputList QueueDequeueMany(const Scope& scope, const Input& handle, const Input& n,
                            const DataTypeVector& component_types, const std::vector<PartialTensorShape>& shapes = {});
/// As QueueDequeueMany(), but a closed queue with fewer than `n` elements gives them as a smaller
/// last batch (OutOfRange only once it is empty).
OutputList QueueDequeueUpTo(const Scope& scope, const Input& handle, const Input& n,
                            const DataTypeVector& component_types, const std::vector<PartialTensorShape>& shapes = {});
/// Closes the queue: later enqueues fail, dequeues drain it and then fail with OutOfRange. With
/// `cancel_pending_enqueues`, enqueues waiting for room are cancelled too.
Node* QueueClose(const Scope& scope, const Input& handle, bool cancel_pending_enqueues = false);
/// The number of elements in the queue, an int32 scalar.
Output QueueSize(const Scope& scope, const Input& handle);
/// A bool scalar: whether the queue is closed.
Output QueueIsClosed(const Scope& scope, const Input& handle);

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_DATA_FLOW_OPS_H_
