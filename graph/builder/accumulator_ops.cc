#include "graph/builder/accumulator_ops.h"

#include "graph/builder/attr_util.h"

namespace tensoract {
namespace ops {

Output ConditionalAccumulator(const Scope& scope, DataType dtype, const PartialTensorShape& shape,
                              const AccumulatorAttrs& attrs) {
  Node* node = scope.AddOp("ResourceConditionalAccumulator", "conditional_accumulator", {},
                           {{"dtype", TypeAttr(dtype)},
                            {"shape", ShapeAttr(shape)},
                            {"container", StringAttr(attrs.container)},
                            {"shared_name", StringAttr(attrs.shared_name)},
                            {"reduction_type", StringAttr(attrs.reduction_type)}});
  return node ? Output(node, 0) : Output();
}

Node* AccumulatorApplyGradient(const Scope& scope, const Input& handle, const Input& local_step,
                               const Input& gradient) {
  return scope.AddOp("ResourceAccumulatorApplyGradient", "AccumulatorApplyGradient", {handle, local_step, gradient},
                     {{"dtype", TypeAttr(TypeOf(gradient))}});
}

Output AccumulatorTakeGradient(const Scope& scope, const Input& handle, const Input& num_required, DataType dtype,
                               const PartialTensorShape& shape) {
  Node* node = scope.AddOp("ResourceAccumulatorTakeGradient", "AccumulatorTakeGradient", {handle, num_required},
                           {{"dtype", TypeAttr(dtype)}});
  if (node == nullptr) return Output();
  if (!shape.unknown_rank()) node->set_output_shape(0, shape);
  return Output(node, 0);
}

Output AccumulatorNumAccumulated(const Scope& scope, const Input& handle) {
  Node* node = scope.AddOp("ResourceAccumulatorNumAccumulated", "AccumulatorNumAccumulated", {handle}, {});
  return node ? Output(node, 0) : Output();
}

Node* AccumulatorSetGlobalStep(const Scope& scope, const Input& handle, const Input& new_global_step) {
  return scope.AddOp("ResourceAccumulatorSetGlobalStep", "AccumulatorSetGlobalStep", {handle, new_global_step}, {});
}

}  // namespace ops
}  // namespace tensoract
