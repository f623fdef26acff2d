#include "graph/builder/nn_batch_norm_ops.h"

#include "graph/builder/attr_util.h"

namespace tensoract {
namespace ops {

FusedBatchNormV3Outputs FusedBatchNormV3(const Scope& scope, const Input& x, const Input& scale, const Input& offset,
                                         const Input& mean, const Input& variance, FusedBatchNormAttrs attrs) {
  Node* node = scope.AddOp("FusedBatchNormV3", "FusedBatchNormV3", {x, scale, offset, mean, variance},
                           {{"T", TypeAttr(TypeOf(x))},
                            {"U", TypeAttr(TypeOf(scale))},
                            {"epsilon", FloatAttr(attrs.epsilon)},
                            {"exponential_avg_factor", FloatAttr(attrs.exponential_avg_factor)},
                            {"data_format", StringAttr(attrs.data_format)},
                            {"is_training", BoolAttr(attrs.is_training)}});
  return {Output(node, 0), Output(node, 1), Output(node, 2), Output(node, 3), Output(node, 4), Output(node, 5)};
}

FusedBatchNormGradV3Outputs FusedBatchNormGradV3(const Scope& scope, const Input& y_backprop, const Input& x,
                                                 const Input& scale, const Input& reserve_space_1,
                                                 const Input& reserve_space_2, const Input& reserve_space_3,
                                                 FusedBatchNormAttrs attrs) {
  Node* node = scope.AddOp("FusedBatchNormGradV3", "FusedBatchNormGradV3",
                           {y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3},
                           {{"T", TypeAttr(TypeOf(y_backprop))},
                            {"U", TypeAttr(TypeOf(reserve_space_1))},
                            {"epsilon", FloatAttr(attrs.epsilon)},
                            {"data_format", StringAttr(attrs.data_format)},
                            {"is_training", BoolAttr(attrs.is_training)}});
  return {Output(node, 0), Output(node, 1), Output(node, 2), Output(node, 3), Output(node, 4)};
}

namespace {

// v1 has only T; V2 and V3 type their statistics U.
Node* AddBatchNorm(const Scope& scope, const char* op, bool has_u, const std::vector<Input>& inputs, DataType u,
                   const FusedBatchNormAttrs& attrs, bool forward) {
  Attrs a = {{"T", TypeAttr(TypeOf(inputs[0]))},
             {"epsilon", FloatAttr(attrs.epsilon)},
             {"data_format", StringAttr(attrs.data_format)},
             {"is_training", BoolAttr(attrs.is_training)}};
  if (has_u) a["U"] = TypeAttr(u);
  if (forward) a["exponential_avg_factor"] = FloatAttr(attrs.exponential_avg_factor);
  return scope.AddOp(op, op, inputs, a);
}

FusedBatchNormOutputs Forward(Node* node) {
  return {Output(node, 0), Output(node, 1), Output(node, 2), Output(node, 3), Output(node, 4)};
}
FusedBatchNormGradOutputs Backward(Node* node) {
  return {Output(node, 0), Output(node, 1), Output(node, 2), Output(node, 3), Output(node, 4)};
}

}  // namespace

FusedBatchNormOutputs FusedBatchNorm(const Scope& scope, const Input& x, const Input& scale, const Input& offset,
                                     const Input& mean, const Input& variance, FusedBatchNormAttrs attrs) {
  return Forward(AddBatchNorm(scope, "FusedBatchNorm", false, {x, scale, offset, mean, variance}, TypeOf(scale), attrs,
                              true));
}

FusedBatchNormOutputs FusedBatchNormV2(const Scope& scope, const Input& x, const Input& scale, const Input& offset,
                                       const Input& mean, const Input& variance, FusedBatchNormAttrs attrs) {
  return Forward(AddBatchNorm(scope, "FusedBatchNormV2", true, {x, scale, offset, mean, variance}, TypeOf(scale),
                              attrs, true));
}

FusedBatchNormGradOutputs FusedBatchNormGrad(const Scope& scope, const Input& y_backprop, const Input& x,
                                             const Input& scale, const Input& reserve_space_1,
                                             const Input& reserve_space_2, FusedBatchNormAttrs attrs) {
  return Backward(AddBatchNorm(scope, "FusedBatchNormGrad", false,
                               {y_backprop, x, scale, reserve_space_1, reserve_space_2}, TypeOf(scale), attrs,
                               false));
}

FusedBatchNormGradOutputs FusedBatchNormGradV2(const Scope& scope, const Input& y_backprop, const Input& x,
                                               const Input& scale, const Input& reserve_space_1,
                                               const Input& reserve_space_2, FusedBatchNormAttrs attrs) {
  return Backward(AddBatchNorm(scope, "FusedBatchNormGradV2", true,
                               {y_backprop, x, scale, reserve_space_1, reserve_space_2}, TypeOf(reserve_space_1),
                               attrs, false));
}

}  // namespace ops
}  // namespace tensoract
