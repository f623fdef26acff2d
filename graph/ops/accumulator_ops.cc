// Conditional accumulators (TensorFlow 2.21's Resource* forms, what tf.compat.v1's
// ConditionalAccumulator and SyncReplicasOptimizer write): a resource that sums the
// gradients applied to it for the current global step, dropping stale ones (a local step
// below the global step), and gives their mean (or sum) once enough have arrived. The
// whitepaper's backup workers take the first k of n gradients this way.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

Status ApplyGradientShape(InferenceContext* c) {
  PartialTensorShape local_step;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &local_step));
  return Status::OK();
}

Status TakeGradientShape(InferenceContext* c) {
  PartialTensorShape num_required;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &num_required));
  c->set_output(0, PartialTensorShape());  // the handle does not carry the accumulator's shape
  return Status::OK();
}

Status SetGlobalStepShape(InferenceContext* c) {
  PartialTensorShape step;
  return c->WithRank(c->input(1), 0, &step);
}

}  // namespace
}  // namespace tensoract

#define TA_ACCUMULATOR_DTYPES                                                                                       \
  "dtype: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, bfloat16, qint16, " \
  "quint16, uint16, complex128, half, uint32, uint64}"

REGISTER_OP("ResourceConditionalAccumulator")
    .Output("handle: resource")
    .Attr(TA_ACCUMULATOR_DTYPES)
    .Attr("shape: shape")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("reduction_type: {'MEAN', 'SUM'} = 'MEAN'")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::ScalarShape)
    .Doc("An accumulator of gradients for one global step (by shared_name, else the node's name).");

REGISTER_OP("ResourceAccumulatorApplyGradient")
    .Input("handle: resource")
    .Input("local_step: int64")
    .Input("gradient: dtype")
    .Attr(TA_ACCUMULATOR_DTYPES)
    .SetIsStateful()
    .SetShapeFn(tensoract::ApplyGradientShape)
    .Doc("Adds the gradient unless local_step is below the accumulator's global step (stale: dropped).");

REGISTER_OP("ResourceAccumulatorTakeGradient")
    .Input("handle: resource")
    .Input("num_required: int32")
    .Output("average: dtype")
    .Attr(TA_ACCUMULATOR_DTYPES)
    .SetIsStateful()
    .SetShapeFn(tensoract::TakeGradientShape)
    .Doc("Waits for num_required gradients, gives their mean (or sum), resets the count and advances "
         "the global step by one.");

REGISTER_OP("ResourceAccumulatorNumAccumulated")
    .Input("handle: resource")
    .Output("num_accumulated: int32")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::ScalarShape)
    .Doc("How many gradients the accumulator holds.");

REGISTER_OP("ResourceAccumulatorSetGlobalStep")
    .Input("handle: resource")
    .Input("new_global_step: int64")
    .SetIsStateful()
    .SetShapeFn(tensoract::SetGlobalStepShape)
    .Doc("Sets the global step below which applied gradients are dropped.");
