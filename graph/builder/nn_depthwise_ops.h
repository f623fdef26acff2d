// ops:: builders of the depthwise 2-D convolution and its gradients
// (graph/ops/nn_depthwise_ops.cc), MobileNet's layers. Conventions as in graph/builder/ops.h.
#ifndef TENSORACT_GRAPH_BUILDER_NN_DEPTHWISE_OPS_H_
#define TENSORACT_GRAPH_BUILDER_NN_DEPTHWISE_OPS_H_

#include <string>
#include <vector>

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

// `strides` has 4 entries in data_format's order, equal in rows and columns ({1, 2, 2, 1}
// for stride 2 in NHWC); `padding` is "SAME", "VALID" or "EXPLICIT" (then
// explicit_paddings holds [before, after] for each of the 4 dimensions). The CPU kernels
// compute NHWC only, and the forward op dilations of 1 only (as TensorFlow's).
struct DepthwiseConv2dNativeAttrs {
  std::string data_format = "NHWC";  // or "NCHW"
  std::vector<int64_t> dilations = {1, 1, 1, 1};
  std::vector<int64_t> explicit_paddings = {};
};
// input [batch, rows, cols, in_depth] (NHWC), filter [rows, cols, in_depth, multiplier]:
// output [batch, out_rows, out_cols, in_depth * multiplier].
Output DepthwiseConv2dNative(const Scope& scope, const Input& input, const Input& filter,
                             const std::vector<int64_t>& strides, const std::string& padding,
                             DepthwiseConv2dNativeAttrs attrs = {});
// The gradient with respect to the input; `input_sizes` is its shape (int32, 4 entries).
Output DepthwiseConv2dNativeBackpropInput(const Scope& scope, const Input& input_sizes, const Input& filter,
                                          const Input& out_backprop, const std::vector<int64_t>& strides,
                                          const std::string& padding, DepthwiseConv2dNativeAttrs attrs = {});
// The gradient with respect to the filter; `filter_sizes` is its shape (int32, 4 entries).
Output DepthwiseConv2dNativeBackpropFilter(const Scope& scope, const Input& input, const Input& filter_sizes,
                                           const Input& out_backprop, const std::vector<int64_t>& strides,
                                           const std::string& padding, DepthwiseConv2dNativeAttrs attrs = {});

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_NN_DEPTHWISE_OPS_H_
