#include "graph/builder/nn_ops.h"

#include "graph/builder/attr_util.h"

namespace tensoract {
namespace ops {

Output Relu(const Scope& scope, const Input& features) { return TypedOp(scope, "Relu", {features}); }
Output ReluGrad(const Scope& scope, const Input& gradients, const Input& features) {
  return TypedOp(scope, "ReluGrad", {gradients, features});
}
Output Relu6(const Scope& scope, const Input& features) { return TypedOp(scope, "Relu6", {features}); }
Output Relu6Grad(const Scope& scope, const Input& gradients, const Input& features) {
  return TypedOp(scope, "Relu6Grad", {gradients, features});
}
Output Elu(const Scope& scope, const Input& features) { return TypedOp(scope, "Elu", {features}); }
Output EluGrad(const Scope& scope, const Input& gradients, const Input& outputs) {
  return TypedOp(scope, "EluGrad", {gradients, outputs});
}
Output Softplus(const Scope& scope, const Input& features) { return TypedOp(scope, "Softplus", {features}); }
Output SoftplusGrad(const Scope& scope, const Input& gradients, const Input& features) {
  return TypedOp(scope, "SoftplusGrad", {gradients, features});
}

Output LeakyRelu(const Scope& scope, const Input& features, float alpha) {
  return TypedOp(scope, "LeakyRelu", {features}, {{"alpha", FloatAttr(alpha)}});
}
Output LeakyReluGrad(const Scope& scope, const Input& gradients, const Input& features, float alpha) {
  return TypedOp(scope, "LeakyReluGrad", {gradients, features}, {{"alpha", FloatAttr(alpha)}});
}
Output Selu(const Scope& scope, const Input& features) { return TypedOp(scope, "Selu", {features}); }
Output SeluGrad(const Scope& scope, const Input& gradients, const Input& outputs) {
  return TypedOp(scope, "SeluGrad", {gradients, outputs});
}
Output L2Loss(const Scope& scope, const Input& t) { return TypedOp(scope, "L2Loss", {t}); }

Output BiasAdd(const Scope& scope, const Input& value, const Input& bias, BiasAddAttrs attrs) {
  return TypedOp(scope, "BiasAdd", {value, bias}, {{"data_format", StringAttr(attrs.data_format)}});
}
Output BiasAddGrad(const Scope& scope, const Input& out_backprop, BiasAddAttrs attrs) {
  return TypedOp(scope, "BiasAddGrad", {out_backprop}, {{"data_format", StringAttr(attrs.data_format)}});
}

Output Softmax(const Scope& scope, const Input& logits) { return TypedOp(scope, "Softmax", {logits}); }
Output LogSoftmax(const Scope& scope, const Input& logits) { return TypedOp(scope, "LogSoftmax", {logits}); }

CrossEntropyOutputs SoftmaxCrossEntropyWithLogits(const Scope& scope, const Input& features, const Input& labels) {
  Output loss = TypedOp(scope, "SoftmaxCrossEntropyWithLogits", {features, labels});
  return {loss, Output(loss.node, 1)};
}

CrossEntropyOutputs SparseSoftmaxCrossEntropyWithLogits(const Scope& scope, const Input& features,
                                                        const Input& labels) {
  Output loss = TypedOp(scope, "SparseSoftmaxCrossEntropyWithLogits", {features, labels},
                        {{"Tlabels", TypeAttr(TypeOf(labels))}});
  return {loss, Output(loss.node, 1)};
}

namespace {

Attrs ConvAttrs(const std::vector<int64_t>& strides, const std::string& padding, const Conv2DAttrs& a) {
  return {{"strides", IntListAttr(strides)},
          {"padding", StringAttr(padding)},
          {"data_format", StringAttr(a.data_format)},
          {"dilations", IntListAttr(a.dilations)},
          {"use_cudnn_on_gpu", BoolAttr(a.use_cudnn_on_gpu)},
          {"explicit_paddings", IntListAttr(a.explicit_paddings)}};
}

Attrs PoolAttrValues(const std::vector<int64_t>& ksize, const std::vector<int64_t>& strides, const std::string& padding,
                     const PoolAttrs& a) {
  return {{"ksize", IntListAttr(ksize)},
          {"strides", IntListAttr(strides)},
          {"padding", StringAttr(padding)},
          {"data_format", StringAttr(a.data_format)}};
}

}  // namespace

Output Conv2D(const Scope& scope, const Input& input, const Input& filter, const std::vector<int64_t>& strides,
              const std::string& padding, Conv2DAttrs attrs) {
  return TypedOp(scope, "Conv2D", {input, filter}, ConvAttrs(strides, padding, attrs));
}

Output Conv2DBackpropInput(const Scope& scope, const Input& input_sizes, const Input& filter,
                           const Input& out_backprop, const std::vector<int64_t>& strides, const std::string& padding,
                           Conv2DAttrs attrs) {
  Attrs a = ConvAttrs(strides, padding, attrs);
  a["T"] = TypeAttr(TypeOf(filter));  // TypedOp would take input_sizes' int32
  return Output(scope.AddOp("Conv2DBackpropInput", "Conv2DBackpropInput", {input_sizes, filter, out_backprop}, a), 0);
}

Output Conv2DBackpropFilter(const Scope& scope, const Input& input, const Input& filter_sizes,
                            const Input& out_backprop, const std::vector<int64_t>& strides,
                            const std::string& padding, Conv2DAttrs attrs) {
  return TypedOp(scope, "Conv2DBackpropFilter", {input, filter_sizes, out_backprop},
                 ConvAttrs(strides, padding, attrs));
}

Output MaxPool(const Scope& scope, const Input& value, const std::vector<int64_t>& ksize,
               const std::vector<int64_t>& strides, const std::string& padding, PoolAttrs attrs) {
  return TypedOp(scope, "MaxPool", {value}, PoolAttrValues(ksize, strides, padding, attrs));
}

Output AvgPool(const Scope& scope, const Input& value, const std::vector<int64_t>& ksize,
               const std::vector<int64_t>& strides, const std::string& padding, PoolAttrs attrs) {
  return TypedOp(scope, "AvgPool", {value}, PoolAttrValues(ksize, strides, padding, attrs));
}

Output MaxPoolGrad(const Scope& scope, const Input& orig_input, const Input& orig_output, const Input& grad,
                   const std::vector<int64_t>& ksize, const std::vector<int64_t>& strides, const std::string& padding,
                   PoolAttrs attrs) {
  return TypedOp(scope, "MaxPoolGrad", {orig_input, orig_output, grad},
                 PoolAttrValues(ksize, strides, padding, attrs));
}

Output AvgPoolGrad(const Scope& scope, const Input& orig_input_shape, const Input& grad,
                   const std::vector<int64_t>& ksize, const std::vector<int64_t>& strides, const std::string& padding,
                   PoolAttrs attrs) {
  Attrs a = PoolAttrValues(ksize, strides, padding, attrs);
  a["T"] = TypeAttr(TypeOf(grad));  // TypedOp would take orig_input_shape's int32
  return Output(scope.AddOp("AvgPoolGrad", "AvgPoolGrad", {orig_input_shape, grad}, a), 0);
}

}  // namespace ops
}  // namespace tensoract
