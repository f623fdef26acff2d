/// @file
/// ops:: builders of FusedBatchNormV3 and FusedBatchNormGradV3 (graph/ops/nn_batch_norm_ops.cc),
/// what Keras' BatchNormalization writes, and of the older FusedBatchNorm, FusedBatchNormV2
/// and their gradients (TensorFlow 1 graphs). Conventions as in graph/builder/ops.h.
#ifndef TENSORACT_GRAPH_BUILDER_NN_BATCH_NORM_OPS_H_
#define TENSORACT_GRAPH_BUILDER_NN_BATCH_NORM_OPS_H_

#include <string>

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

/// Optional attributes of every FusedBatchNorm op and gradient.
struct FusedBatchNormAttrs {
  /// The small number added to the variance before its square root; default 0.0001, the op's default (Keras
  /// passes its layer's epsilon, 0.001 unless set).
  float epsilon = 0.0001f;
  /// In training, the weight f of the batch's statistics in the running ones, (1 - f) * old + f * batch;
  /// 1 (the default) replaces the running statistics without reading them.
  float exponential_avg_factor = 1.0f;  ///< the forward ops only
  /// The layout of x (and y, or the gradients): "NHWC" (the default) puts the channels last, the others in
  /// dimension 1.
  std::string data_format = "NHWC";     ///< Or "NCHW"; V3 also "NDHWC", "NCDHW"
  /// true (the default): normalise with the batch's own statistics, as in training; false: with the mean
  /// and variance given, as in inference.
  bool is_training = true;
};

/// The six outputs of FusedBatchNormV3: y, the (running) statistics to keep, and the reserve
/// spaces its gradient takes (the batch's mean and uncorrected variance on the CPU).
struct FusedBatchNormV3Outputs {
  /// @var y
  /// x normalised per channel, times scale plus offset; x's shape and type.
  /// @var batch_mean
  /// In training, the batch's mean per channel, mixed into the running mean by exponential_avg_factor;
  /// in inference, the mean given.
  /// @var batch_variance
  /// In training, the batch's variance per channel (Bessel-corrected, n / (n - 1)), mixed into the running
  /// variance by exponential_avg_factor; in inference, the variance given.
  /// @var reserve_space_1
  /// The mean x was normalised with, for FusedBatchNormGradV3.
  /// @var reserve_space_2
  /// The (uncorrected) variance x was normalised with, for FusedBatchNormGradV3.
  /// @var reserve_space_3
  /// An opaque reserve space for FusedBatchNormGradV3 (a scalar zero on the CPU).
  Output y, batch_mean, batch_variance, reserve_space_1, reserve_space_2, reserve_space_3;
};
/// Batch normalisation over every dimension of x but the channel one:
/// y = (x - mean) / sqrt(variance + epsilon) * scale + offset, per channel.
/// x in data_format, scale/offset/mean/variance vectors of its channels (float). In training
/// mean and variance are the running statistics mixed by exponential_avg_factor (they may be
/// empty when that is 1); in inference, the statistics x is normalised with.
FusedBatchNormV3Outputs FusedBatchNormV3(const Scope& scope, const Input& x, const Input& scale, const Input& offset,
                                         const Input& mean, const Input& variance, FusedBatchNormAttrs attrs = {});

/// The five outputs of FusedBatchNormGradV3.
struct FusedBatchNormGradV3Outputs {
  /// @var x_backprop
  /// The gradient with respect to x, of x's shape and type.
  /// @var scale_backprop
  /// The gradient with respect to scale, per channel.
  /// @var offset_backprop
  /// The gradient with respect to offset, per channel.
  /// @var reserve_space_4
  /// Unused; empty, as TensorFlow's CPU kernel leaves it.
  /// @var reserve_space_5
  /// Unused; empty, as TensorFlow's CPU kernel leaves it.
  Output x_backprop, scale_backprop, offset_backprop, reserve_space_4, reserve_space_5;
};
/// The gradients of FusedBatchNormV3 with respect to x, scale and offset, from `y_backprop` (the gradient of
/// y), FusedBatchNormV3's x and scale, and its reserve spaces.
/// In training the reserve spaces are FusedBatchNormV3's; in inference reserve_space_1 and
/// reserve_space_2 are the population mean and variance it normalised with.
/// The CPU kernel computes the inference gradient for channels-last layouts only.
FusedBatchNormGradV3Outputs FusedBatchNormGradV3(const Scope& scope, const Input& y_backprop, const Input& x,
                                                 const Input& scale, const Input& reserve_space_1,
                                                 const Input& reserve_space_2, const Input& reserve_space_3,
                                                 FusedBatchNormAttrs attrs = {});

// FusedBatchNorm (T float for everything) and FusedBatchNormV2 (x of type T, the rest U):
// FusedBatchNormV3 without reserve_space_3, and their gradients without its input.
/// The five outputs of FusedBatchNorm and FusedBatchNormV2: FusedBatchNormV3's without reserve_space_3.
struct FusedBatchNormOutputs {
  /// @var y
  /// x normalised per channel, times scale plus offset; x's shape and type.
  /// @var batch_mean
  /// In training, the batch's mean per channel, mixed into the running mean by exponential_avg_factor;
  /// in inference, the mean given.
  /// @var batch_variance
  /// In training, the batch's variance per channel (Bessel-corrected, n / (n - 1)), mixed into the running
  /// variance by exponential_avg_factor; in inference, the variance given.
  /// @var reserve_space_1
  /// The mean x was normalised with, for the gradient op.
  /// @var reserve_space_2
  /// The (uncorrected) variance x was normalised with, for the gradient op.
  Output y, batch_mean, batch_variance, reserve_space_1, reserve_space_2;
};
/// TensorFlow 1's first FusedBatchNorm: FusedBatchNormV3 with every input float and without reserve_space_3;
/// data_format "NHWC" or "NCHW".
FusedBatchNormOutputs FusedBatchNorm(const Scope& scope, const Input& x, const Input& scale, const Input& offset,
                                     const Input& mean, const Input& variance, FusedBatchNormAttrs attrs = {});
/// FusedBatchNormV2: FusedBatchNormV3 without reserve_space_3, x of type T (half, bfloat16 or float) and the
/// other inputs float (U, taken from scale); data_format "NHWC" or "NCHW".
FusedBatchNormOutputs FusedBatchNormV2(const Scope& scope, const Input& x, const Input& scale, const Input& offset,
                                       const Input& mean, const Input& variance, FusedBatchNormAttrs attrs = {});

/// The five outputs of FusedBatchNormGrad and FusedBatchNormGradV2.
struct FusedBatchNormGradOutputs {
  /// @var x_backprop
  /// The gradient with respect to x, of x's shape and type.
  /// @var scale_backprop
  /// The gradient with respect to scale, per channel.
  /// @var offset_backprop
  /// The gradient with respect to offset, per channel.
  /// @var reserve_space_3
  /// Unused; empty, as TensorFlow's CPU kernel leaves it.
  /// @var reserve_space_4
  /// Unused; empty, as TensorFlow's CPU kernel leaves it.
  Output x_backprop, scale_backprop, offset_backprop, reserve_space_3, reserve_space_4;
};
/// The gradients of FusedBatchNorm with respect to x, scale and offset (all float), from `y_backprop` and
/// the forward op's x, scale and reserve spaces (in inference, the population mean and variance).
FusedBatchNormGradOutputs FusedBatchNormGrad(const Scope& scope, const Input& y_backprop, const Input& x,
                                             const Input& scale, const Input& reserve_space_1,
                                             const Input& reserve_space_2, FusedBatchNormAttrs attrs = {});
/// The gradients of FusedBatchNormV2 with respect to x, scale and offset, from `y_backprop` and the forward
/// op's x, scale and reserve spaces (in inference, the population mean and variance); U is reserve_space_1's
/// type.
FusedBatchNormGradOutputs FusedBatchNormGradV2(const Scope& scope, const Input& y_backprop, const Input& x,
                                               const Input& scale, const Input& reserve_space_1,
                                               const Input& reserve_space_2, FusedBatchNormAttrs attrs = {});

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_NN_BATCH_NORM_OPS_H_
