#include "graph/builder/nn_depthwise_ops.h"

#include "graph/builder/attr_util.h"

namespace tensoract {
namespace ops {
namespace {

// The attrs of all three ops, T taken from `typed` (the float operand, not the sizes).
Attrs DepthwiseAttrs(const Input& typed, const std::vector<int64_t>& strides, const std::string& padding,
                     const DepthwiseConv2dNativeAttrs& a) {
  return {{"T", TypeAttr(TypeOf(typed))},
          {"strides", IntListAttr(strides)},
          {"padding", StringAttr(padding)},
          {"explicit_paddings", IntListAttr(a.explicit_paddings)},
          {"data_format", StringAttr(a.data_format)},
          {"dilations", IntListAttr(a.dilations)}};
}

}  // namespace

Output DepthwiseConv2dNative(const Scope& scope, const Input& input, const Input& filter,
                             const std::vector<int64_t>& strides, const std::string& padding,
                             DepthwiseConv2dNativeAttrs attrs) {
  return Output(scope.AddOp("DepthwiseConv2dNative", "DepthwiseConv2dNative", {input, filter},
                            DepthwiseAttrs(input, strides, padding, attrs)),
                0);
}

Output DepthwiseConv2dNativeBackpropInput(const Scope& scope, const Input& input_sizes, const Input& filter,
                                          const Input& out_backprop, const std::vector<int64_t>& strides,
                                          const std::string& padding, DepthwiseConv2dNativeAttrs attrs) {
  return Output(scope.AddOp("DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropInput",
                            {input_sizes, filter, out_backprop}, DepthwiseAttrs(filter, strides, padding, attrs)),
                0);
}

Output DepthwiseConv2dNativeBackpropFilter(const Scope& scope, const Input& input, const Input& filter_sizes,
                                           const Input& out_backprop, const std::vector<int64_t>& strides,
                                           const std::string& padding, DepthwiseConv2dNativeAttrs attrs) {
  return Output(scope.AddOp("DepthwiseConv2dNativeBackpropFilter", "DepthwiseConv2dNativeBackpropFilter",
                            {input, filter_sizes, out_backprop}, DepthwiseAttrs(input, strides, padding, attrs)),
                0);
}

}  // namespace ops
}  // namespace tensoract
