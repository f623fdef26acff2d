/// @file
/// Builder functions for the neural-network ops (graph/ops/nn_ops.cc): activations and
/// their gradients, BiasAdd, softmax, the cross-entropy losses, and 2-D convolutions and
/// pools with their gradients. Conventions as in graph/builder/ops.h.
#ifndef TENSORACT_GRAPH_BUILDER_NN_OPS_H_
#define TENSORACT_GRAPH_BUILDER_NN_OPS_H_

#include <string>
#include <vector>

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

/// Element-wise max(features, 0), the rectified linear unit.
Output Relu(const Scope& scope, const Input& features);
/// Relu's gradient: `gradients` where features > 0, else 0 (`features` is Relu's input).
Output ReluGrad(const Scope& scope, const Input& gradients, const Input& features);
/// Element-wise min(max(features, 0), 6).
Output Relu6(const Scope& scope, const Input& features);
/// Relu6's gradient: `gradients` where 0 < features < 6, else 0 (`features` is Relu6's input).
Output Relu6Grad(const Scope& scope, const Input& gradients, const Input& features);
/// Element-wise exponential linear unit: exp(features) - 1 where features < 0, else features.
Output Elu(const Scope& scope, const Input& features);
/// Elu's gradient: gradients * (outputs + 1) where outputs < 0, else `gradients`.
/// `outputs` are Elu's outputs, not its features.
Output EluGrad(const Scope& scope, const Input& gradients, const Input& outputs);
/// Element-wise log(exp(features) + 1), a smooth Relu.
Output Softplus(const Scope& scope, const Input& features);
/// Softplus's gradient: gradients / (1 + exp(-features)) (`features` is Softplus's input).
Output SoftplusGrad(const Scope& scope, const Input& gradients, const Input& features);
/// Element-wise leaky Relu: features, or alpha * features where features <= 0 (alpha, 0.2 by default, may
/// exceed 1 or be negative).
Output LeakyRelu(const Scope& scope, const Input& features, float alpha = 0.2f);
/// LeakyRelu's gradient: `gradients` where features > 0, else alpha * gradients (`features` may be LeakyRelu's
/// input or its output; `alpha` must be LeakyRelu's).
Output LeakyReluGrad(const Scope& scope, const Input& gradients, const Input& features, float alpha = 0.2f);
/// Element-wise scaled exponential linear unit: scale * features where features >= 0, else
/// scale * alpha * (exp(features) - 1), with alpha = 1.6732632423543772 and scale = 1.0507009873554805.
Output Selu(const Scope& scope, const Input& features);
/// Selu's gradient: gradients * (outputs + scale * alpha) where outputs < 0, else gradients * scale.
/// `outputs` are Selu's outputs, not its features.
Output SeluGrad(const Scope& scope, const Input& gradients, const Input& outputs);
/// The L2 loss of t: sum(t * t) / 2, a scalar.
Output L2Loss(const Scope& scope, const Input& t);

/// Optional attributes of BiasAdd and BiasAddGrad.
struct BiasAddAttrs {
  std::string data_format = "NHWC";  ///< "NHWC" (the default: channels last) or "NCHW" (channels in dimension 1)
};
/// value + bias, the vector `bias` added along value's channel dimension (the last one, or dimension 1 for
/// "NCHW"); its length is the channel count.
Output BiasAdd(const Scope& scope, const Input& value, const Input& bias, BiasAddAttrs attrs = {});
/// BiasAdd's gradient with respect to the bias: `out_backprop` summed over every dimension but the channel one.
Output BiasAddGrad(const Scope& scope, const Input& out_backprop, BiasAddAttrs attrs = {});

/// The softmax of `logits` along their last dimension: exp(logits) / sum(exp(logits)).
Output Softmax(const Scope& scope, const Input& logits);
/// The log-softmax of `logits` along their last dimension: logits - log(sum(exp(logits))).
Output LogSoftmax(const Scope& scope, const Input& logits);

/// Both outputs of the cross-entropy ops: the per-example loss [batch] and its gradient with
/// respect to the logits [batch, classes].
struct CrossEntropyOutputs {
  /// The cross entropy of each example, a vector [batch].
  Output loss;
  /// The loss's gradient with respect to the logits (`features`), [batch, classes]: softmax(features) - labels.
  Output backprop;
};
/// The cross entropy of softmax(features) against the probability distributions `labels`, per example,
/// and its gradient; `features` (the logits) and `labels` are [batch, classes] (they may broadcast to it).
CrossEntropyOutputs SoftmaxCrossEntropyWithLogits(const Scope& scope, const Input& features, const Input& labels);
/// The cross entropy of softmax(features) ([batch, classes]) against the class indices `labels` ([batch]),
/// per example, and its gradient.
/// `labels` are int32 or int64 class indices (Tlabels follows them).
CrossEntropyOutputs SparseSoftmaxCrossEntropyWithLogits(const Scope& scope, const Input& features,
                                                        const Input& labels);

// 2-D convolution and its gradients.
/// Optional attributes of Conv2D and its gradients.
struct Conv2DAttrs {
  std::string data_format = "NHWC";  ///< "NHWC" (the default) or "NCHW"; the CPU kernels compute NHWC only
  /// The dilation factor of the filter in each of the 4 dimensions, in data_format's order (batch and depth
  /// must be 1); default {1, 1, 1, 1}, no dilation.
  std::vector<int64_t> dilations = {1, 1, 1, 1};
  /// TensorFlow's use_cudnn_on_gpu attr (default true), kept in the node for compatibility; the kernels
  /// ignore it.
  bool use_cudnn_on_gpu = true;
  /// With padding "EXPLICIT": [before, after] for each of the 4 dimensions in data_format's order (8
  /// entries, batch and depth 0); otherwise empty (the default).
  std::vector<int64_t> explicit_paddings = {};
};
/// The 2-D convolution of `input` [batch, rows, cols, in_depth] (NHWC) with `filter`
/// [rows, cols, in_depth, out_depth]. `strides` has 4 entries in data_format's order ({1, 2, 2, 1} for
/// stride 2 in NHWC); `padding` is "SAME", "VALID" or "EXPLICIT" (then Conv2DAttrs::explicit_paddings holds
/// [before, after] for each of the 4 dimensions).
Output Conv2D(const Scope& scope, const Input& input, const Input& filter, const std::vector<int64_t>& strides,
              const std::string& padding, Conv2DAttrs attrs = {});
/// The gradient of Conv2D with respect to its input; `input_sizes` is the input's shape (int32).
/// `out_backprop` is the gradient of Conv2D's output; `strides`, `padding` and `attrs` are Conv2D's.
Output Conv2DBackpropInput(const Scope& scope, const Input& input_sizes, const Input& filter,
                           const Input& out_backprop, const std::vector<int64_t>& strides, const std::string& padding,
                           Conv2DAttrs attrs = {});
/// The gradient of Conv2D with respect to its filter; `filter_sizes` is the filter's shape (int32).
/// `out_backprop` is the gradient of Conv2D's output; `strides`, `padding` and `attrs` are Conv2D's.
Output Conv2DBackpropFilter(const Scope& scope, const Input& input, const Input& filter_sizes,
                            const Input& out_backprop, const std::vector<int64_t>& strides,
                            const std::string& padding, Conv2DAttrs attrs = {});

// Max and average pools and their gradients.
/// Optional attributes of the pools and their gradients.
struct PoolAttrs {
  std::string data_format = "NHWC";  ///< "NHWC" (the default) or "NCHW"; the CPU kernels compute NHWC only
};
/// The maximum of each window of `value`: windows of `ksize` (4 entries in data_format's order, {1, 2, 2, 1}
/// for 2x2 in NHWC) moved by `strides` (4 entries); `padding` is "SAME" or "VALID".
Output MaxPool(const Scope& scope, const Input& value, const std::vector<int64_t>& ksize,
               const std::vector<int64_t>& strides, const std::string& padding, PoolAttrs attrs = {});
/// The mean of each window of `value`, counting only the elements inside the input: windows of `ksize`
/// (4 entries in data_format's order) moved by `strides` (4 entries); `padding` is "SAME" or "VALID".
Output AvgPool(const Scope& scope, const Input& value, const std::vector<int64_t>& ksize,
               const std::vector<int64_t>& strides, const std::string& padding, PoolAttrs attrs = {});
/// MaxPool's gradient: `grad` goes to the maximum of each window of `orig_input`.
/// `orig_output` is MaxPool's output; a window with several maxima sends its gradient to the first one.
Output MaxPoolGrad(const Scope& scope, const Input& orig_input, const Input& orig_output, const Input& grad,
                   const std::vector<int64_t>& ksize, const std::vector<int64_t>& strides, const std::string& padding,
                   PoolAttrs attrs = {});
/// AvgPool's gradient; `orig_input_shape` is the pooled input's shape (int32).
/// Each window's gradient in `grad` is spread evenly over the elements of that window.
Output AvgPoolGrad(const Scope& scope, const Input& orig_input_shape, const Input& grad,
                   const std::vector<int64_t>& ksize, const std::vector<int64_t>& strides, const std::string& padding,
                   PoolAttrs attrs = {});

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_NN_OPS_H_
