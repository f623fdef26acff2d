// Builder functions for the neural-network ops (graph/ops/nn_ops.cc): activations and
// their gradients, BiasAdd, softmax, the cross-entropy losses, and 2-D convolutions and
// pools with their gradients. Conventions as in graph/builder/ops.h.
#ifndef TENSORACT_GRAPH_BUILDER_NN_OPS_H_
#define TENSORACT_GRAPH_BUILDER_NN_OPS_H_

#include <string>
#include <vector>

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

Output Relu(const Scope& scope, const Input& features);
Output ReluGrad(const Scope& scope, const Input& gradients, const Input& features);
Output Relu6(const Scope& scope, const Input& features);
Output Relu6Grad(const Scope& scope, const Input& gradients, const Input& features);
Output Elu(const Scope& scope, const Input& features);
// `outputs` are Elu's outputs, not its features.
Output EluGrad(const Scope& scope, const Input& gradients, const Input& outputs);
Output Softplus(const Scope& scope, const Input& features);
Output SoftplusGrad(const Scope& scope, const Input& gradients, const Input& features);
// features, or alpha * features where features <= 0 (alpha may exceed 1 or be negative).
Output LeakyRelu(const Scope& scope, const Input& features, float alpha = 0.2f);
Output LeakyReluGrad(const Scope& scope, const Input& gradients, const Input& features, float alpha = 0.2f);
Output Selu(const Scope& scope, const Input& features);
// `outputs` are Selu's outputs, not its features.
Output SeluGrad(const Scope& scope, const Input& gradients, const Input& outputs);
// sum(t * t) / 2, a scalar.
Output L2Loss(const Scope& scope, const Input& t);

struct BiasAddAttrs {
  std::string data_format = "NHWC";  // or "NCHW"
};
Output BiasAdd(const Scope& scope, const Input& value, const Input& bias, BiasAddAttrs attrs = {});
Output BiasAddGrad(const Scope& scope, const Input& out_backprop, BiasAddAttrs attrs = {});

Output Softmax(const Scope& scope, const Input& logits);
Output LogSoftmax(const Scope& scope, const Input& logits);

// Both outputs of the cross-entropy ops: the per-example loss [batch] and its gradient with
// respect to the logits [batch, classes].
struct CrossEntropyOutputs {
  Output loss;
  Output backprop;
};
CrossEntropyOutputs SoftmaxCrossEntropyWithLogits(const Scope& scope, const Input& features, const Input& labels);
// `labels` are int32 or int64 class indices (Tlabels follows them).
CrossEntropyOutputs SparseSoftmaxCrossEntropyWithLogits(const Scope& scope, const Input& features,
                                                        const Input& labels);

// 2-D convolution. `strides` has 4 entries in data_format's order ({1, 2, 2, 1} for stride 2
// in NHWC); `padding` is "SAME", "VALID" or "EXPLICIT" (then explicit_paddings holds
// [before, after] for each of the 4 dimensions). The CPU kernels compute NHWC only.
struct Conv2DAttrs {
  std::string data_format = "NHWC";  // or "NCHW"
  std::vector<int64_t> dilations = {1, 1, 1, 1};
  bool use_cudnn_on_gpu = true;
  std::vector<int64_t> explicit_paddings = {};
};
// input [batch, rows, cols, in_depth] (NHWC), filter [rows, cols, in_depth, out_depth].
Output Conv2D(const Scope& scope, const Input& input, const Input& filter, const std::vector<int64_t>& strides,
              const std::string& padding, Conv2DAttrs attrs = {});
// The gradient of Conv2D with respect to its input; `input_sizes` is the input's shape (int32).
Output Conv2DBackpropInput(const Scope& scope, const Input& input_sizes, const Input& filter,
                           const Input& out_backprop, const std::vector<int64_t>& strides, const std::string& padding,
                           Conv2DAttrs attrs = {});
// The gradient of Conv2D with respect to its filter; `filter_sizes` is the filter's shape (int32).
Output Conv2DBackpropFilter(const Scope& scope, const Input& input, const Input& filter_sizes,
                            const Input& out_backprop, const std::vector<int64_t>& strides,
                            const std::string& padding, Conv2DAttrs attrs = {});

// Pools over windows of `ksize` (4 entries in data_format's order, {1, 2, 2, 1} for 2x2 in
// NHWC) moved by `strides`; `padding` is "SAME" or "VALID".
struct PoolAttrs {
  std::string data_format = "NHWC";  // or "NCHW"
};
Output MaxPool(const Scope& scope, const Input& value, const std::vector<int64_t>& ksize,
               const std::vector<int64_t>& strides, const std::string& padding, PoolAttrs attrs = {});
Output AvgPool(const Scope& scope, const Input& value, const std::vector<int64_t>& ksize,
               const std::vector<int64_t>& strides, const std::string& padding, PoolAttrs attrs = {});
// MaxPool's gradient: `grad` goes to the maximum of each window of `orig_input`.
Output MaxPoolGrad(const Scope& scope, const Input& orig_input, const Input& orig_output, const Input& grad,
                   const std::vector<int64_t>& ksize, const std::vector<int64_t>& strides, const std::string& padding,
                   PoolAttrs attrs = {});
// AvgPool's gradient; `orig_input_shape` is the pooled input's shape (int32).
Output AvgPoolGrad(const Scope& scope, const Input& orig_input_shape, const Input& grad,
                   const std::vector<int64_t>& ksize, const std::vector<int64_t>& strides, const std::string& padding,
                   PoolAttrs attrs = {});

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_NN_OPS_H_
