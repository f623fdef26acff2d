// ops:: builders of FusedBatchNormV3 and FusedBatchNormGradV3 (graph/ops/nn_batch_norm_ops.cc),
// what Keras' BatchNormalization writes, and of the older FusedBatchNorm, FusedBatchNormV2
// and their gradients (TensorFlow 1 graphs). Conventions as in graph/builder/ops.h.
#ifndef TENSORACT_GRAPH_BUILDER_NN_BATCH_NORM_OPS_H_
#define TENSORACT_GRAPH_BUILDER_NN_BATCH_NORM_OPS_H_

#include <string>

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

struct FusedBatchNormAttrs {
  float epsilon = 0.0001f;
  float exponential_avg_factor = 1.0f;  // the forward ops only
  std::string data_format = "NHWC";     // "NCHW"; V3 also "NDHWC", "NCDHW"
  bool is_training = true;
};

// The six outputs of FusedBatchNormV3: y, the (running) statistics to keep, and the reserve
// spaces its gradient takes (the batch's mean and uncorrected variance on the CPU).
struct FusedBatchNormV3Outputs {
  Output y, batch_mean, batch_variance, reserve_space_1, reserve_space_2, reserve_space_3;
};
// x in data_format, scale/offset/mean/variance vectors of its channels (float). In training
// mean and variance are the running statistics mixed by exponential_avg_factor (they may be
// empty when that is 1); in inference, the statistics x is normalised with.
FusedBatchNormV3Outputs FusedBatchNormV3(const Scope& scope, const Input& x, const Input& scale, const Input& offset,
                                         const Input& mean, const Input& variance, FusedBatchNormAttrs attrs = {});

struct FusedBatchNormGradV3Outputs {
  Output x_backprop, scale_backprop, offset_backprop, reserve_space_4, reserve_space_5;
};
// In training the reserve spaces are FusedBatchNormV3's; in inference reserve_space_1 and
// _2 are the population mean and variance it normalised with.
FusedBatchNormGradV3Outputs FusedBatchNormGradV3(const Scope& scope, const Input& y_backprop, const Input& x,
                                                 const Input& scale, const Input& reserve_space_1,
                                                 const Input& reserve_space_2, const Input& reserve_space_3,
                                                 FusedBatchNormAttrs attrs = {});

// FusedBatchNorm (T float for everything) and FusedBatchNormV2 (x of type T, the rest U):
// FusedBatchNormV3 without reserve_space_3, and their gradients without its input.
struct FusedBatchNormOutputs {
  Output y, batch_mean, batch_variance, reserve_space_1, reserve_space_2;
};
FusedBatchNormOutputs FusedBatchNorm(const Scope& scope, const Input& x, const Input& scale, const Input& offset,
                                     const Input& mean, const Input& variance, FusedBatchNormAttrs attrs = {});
FusedBatchNormOutputs FusedBatchNormV2(const Scope& scope, const Input& x, const Input& scale, const Input& offset,
                                       const Input& mean, const Input& variance, FusedBatchNormAttrs attrs = {});

struct FusedBatchNormGradOutputs {
  Output x_backprop, scale_backprop, offset_backprop, reserve_space_3, reserve_space_4;
};
FusedBatchNormGradOutputs FusedBatchNormGrad(const Scope& scope, const Input& y_backprop, const Input& x,
                                             const Input& scale, const Input& reserve_space_1,
                                             const Input& reserve_space_2, FusedBatchNormAttrs attrs = {});
FusedBatchNormGradOutputs FusedBatchNormGradV2(const Scope& scope, const Input& y_backprop, const Input& x,
                                               const Input& scale, const Input& reserve_space_1,
                                               const Input& reserve_space_2, FusedBatchNormAttrs attrs = {});

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_NN_BATCH_NORM_OPS_H_
