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

}  // namespace ops
}  // namespace tensoract
