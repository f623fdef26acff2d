// Queues (whitepaper 4.6): FIFOQueueV2, PaddingFIFOQueueV2, RandomShuffleQueueV2 and
// PriorityQueueV2 make a queue (a resource of their device), the Queue*V2 ops use it.
// Definitions are TensorFlow 2.21's, so the input pipelines of TensorFlow 1 graphs
// (tf.train.shuffle_batch, string_input_producer) validate unchanged. The dequeue ops'
// shapes are unknown here; the builder (graph/builder/data_flow_ops.h) knows the queue's.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

// Dequeue: one output per component, shape unknown (the handle does not carry it).
Status DequeueShape(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, PartialTensorShape());
  return Status::OK();
}

// DequeueMany and DequeueUpTo: n is a scalar; each output is a batch of unknown elements.
Status DequeueManyShape(InferenceContext* c) {
  PartialTensorShape n;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &n));
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, PartialTensorShape());
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

#define TA_QUEUE_COMMON_ATTRS                      \
  Attr("capacity: int = -1")                       \
      .Attr("container: string = ''")              \
      .Attr("shared_name: string = ''")            \
      .SetIsStateful()                             \
      .SetShapeFn(tensoract::shape_inference::ScalarShape)

REGISTER_OP("FIFOQueueV2")
    .Output("handle: resource")
    .Attr("component_types: list(type) >= 1")
    .Attr("shapes: list(shape) >= 0 = []")
    .TA_QUEUE_COMMON_ATTRS
    .Doc("A queue that produces elements in first-in first-out order.");

REGISTER_OP("PaddingFIFOQueueV2")
    .Output("handle: resource")
    .Attr("component_types: list(type) >= 1")
    .Attr("shapes: list(shape) >= 0 = []")
    .TA_QUEUE_COMMON_ATTRS
    .Doc("A FIFO queue whose dequeue-many pads each component to the largest shape of its batch.");

REGISTER_OP("RandomShuffleQueueV2")
    .Output("handle: resource")
    .Attr("component_types: list(type) >= 1")
    .Attr("shapes: list(shape) >= 0 = []")
    .Attr("capacity: int = -1")
    .Attr("min_after_dequeue: int = 0")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::ScalarShape)
    .Doc("A queue that dequeues elements in a random order, keeping min_after_dequeue until closed.");

REGISTER_OP("PriorityQueueV2")
    .Output("handle: resource")
    .Attr("component_types: list(type) >= 0 = []")
    .Attr("shapes: list(shape) >= 0")
    .TA_QUEUE_COMMON_ATTRS
    .Doc("A queue that dequeues the element of the smallest int64 priority (component 0) first.");

REGISTER_OP("QueueEnqueueV2")
    .Input("handle: resource")
    .Input("components: Tcomponents")
    .Attr("Tcomponents: list(type) >= 1")
    .Attr("timeout_ms: int = -1")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::NoOutputs)
    .Doc("Enqueues one element, waiting while the queue is full.");

REGISTER_OP("QueueEnqueueManyV2")
    .Input("handle: resource")
    .Input("components: Tcomponents")
    .Attr("Tcomponents: list(type) >= 1")
    .Attr("timeout_ms: int = -1")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::NoOutputs)
    .Doc("Enqueues the elements of a batch (split along dimension 0), waiting for room.");

REGISTER_OP("QueueDequeueV2")
    .Input("handle: resource")
    .Output("components: component_types")
    .Attr("component_types: list(type) >= 1")
    .Attr("timeout_ms: int = -1")
    .SetIsStateful()
    .SetShapeFn(tensoract::DequeueShape)
    .Doc("Dequeues one element, waiting while the queue is empty; OutOfRange once closed and empty.");

REGISTER_OP("QueueDequeueManyV2")
    .Input("handle: resource")
    .Input("n: int32")
    .Output("components: component_types")
    .Attr("component_types: list(type) >= 1")
    .Attr("timeout_ms: int = -1")
    .SetIsStateful()
    .SetShapeFn(tensoract::DequeueManyShape)
    .Doc("Dequeues n elements batched along a new dimension 0.");

REGISTER_OP("QueueDequeueUpToV2")
    .Input("handle: resource")
    .Input("n: int32")
    .Output("components: component_types")
    .Attr("component_types: list(type) >= 1")
    .Attr("timeout_ms: int = -1")
    .SetIsStateful()
    .SetShapeFn(tensoract::DequeueManyShape)
    .Doc("As QueueDequeueManyV2, but a closed queue gives its last, smaller batch.");

REGISTER_OP("QueueCloseV2")
    .Input("handle: resource")
    .Attr("cancel_pending_enqueues: bool = false")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::NoOutputs)
    .Doc("Closes the queue: later enqueues fail; dequeues drain it, then fail with OutOfRange.");

REGISTER_OP("QueueIsClosedV2")
    .Input("handle: resource")
    .Output("is_closed: bool")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::ScalarShape)
    .Doc("Whether the queue is closed.");

REGISTER_OP("QueueSizeV2")
    .Input("handle: resource")
    .Output("size: int32")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::ScalarShape)
    .Doc("How many elements the queue holds.");
