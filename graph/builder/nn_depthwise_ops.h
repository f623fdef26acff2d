/// @file
/// ops:: builders of the depthwise 2-D convolution and its gradients
/// (graph/ops/nn_depthwise_ops.cc), MobileNet's layers. Conventions as in graph/builder/ops.h.
#ifndef TENSORACT_GRAPH_BUILDER_NN_DEPTHWISE_OPS_H_
#define TENSORACT_GRAPH_BUILDER_NN_DEPTHWISE_OPS_H_

#include <string>
#include <vector>

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

/// Optional attributes of DepthwiseConv2dNative and its gradients.
/// `strides` has 4 entries in data_format's order, equal in rows and columns ({1, 2, 2, 1}
/// for stride 2 in NHWC); `padding` is "SAME", "VALID" or "EXPLICIT" (then
/// explicit_paddings holds [before, after] for each of the 4 dimensions). The CPU kernels
/// compute NHWC only, and the forward op dilations of 1 only (as TensorFlow's).
struct DepthwiseConv2dNativeAttrs {
  std::string data_format = "NHWC";  ///< "NHWC" (the default) or "NCHW"; the CPU kernels compute NHWC only
  /// The dilation factor of the filter in each of the 4 dimensions, in data_format's order; default
  /// {1, 1, 1, 1}. The CPU forward kernel accepts only 1 (Unimplemented otherwise); the gradients ignore it.
  std::vector<int64_t> dilations = {1, 1, 1, 1};
  /// With padding "EXPLICIT": [before, after] for each of the 4 dimensions in data_format's order (8
  /// entries); otherwise empty (the default).
  std::vector<int64_t> explicit_paddings = {};
};
/// The depthwise 2-D convolution: each input channel i convolved with its own `multiplier` filters, output
/// channel i * multiplier + m being channel i convolved with filter m.
/// input [batch, rows, cols, in_depth] (NHWC), filter [rows, cols, in_depth, multiplier]:
/// output [batch, out_rows, out_cols, in_depth * multiplier].
/// `strides` and `padding` as DepthwiseConv2dNativeAttrs says.
Output DepthwiseConv2dNative(const Scope& scope, const Input& input, const Input& filter,
                             const std::vector<int64_t>& strides, const std::string& padding,
                             DepthwiseConv2dNativeAttrs attrs = {});
/// The gradient with respect to the input; `input_sizes` is its shape (int32, 4 entries).
/// `out_backprop` is the gradient of DepthwiseConv2dNative's output; `strides`, `padding` and `attrs` are the
/// forward op's.
Output DepthwiseConv2dNativeBackpropInput(const Scope& scope, const Input& input_sizes, const Input& filter,
                                          const Input& out_backprop, const std::vector<int64_t>& strides,
                                          const std::string& padding, DepthwiseConv2dNativeAttrs attrs = {});
/// The gradient with respect to the filter; `filter_sizes` is its shape (int32, 4 entries).
/// `out_backprop` is the gradient of DepthwiseConv2dNative's output; `strides`, `padding` and `attrs` are the
/// forward op's.
Output DepthwiseConv2dNativeBackpropFilter(const Scope& scope, const Input& input, const Input& filter_sizes,
                                           const Input& out_backprop, const std::vector<int64_t>& strides,
                                           const std::string& padding, DepthwiseConv2dNativeAttrs attrs = {});

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_NN_DEPTHWISE_OPS_H_
