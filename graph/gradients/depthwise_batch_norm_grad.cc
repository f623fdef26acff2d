// Gradients of the MobileNet-style layers: the depthwise convolution (and its two
// gradients, for second derivatives) and FusedBatchNorm (v1, V2, V3), as TensorFlow's
// nn_grad.py builds them.
#include "graph/builder/array_ops.h"
#include "graph/builder/nn_batch_norm_ops.h"
#include "graph/builder/nn_depthwise_ops.h"
#include "graph/gradients/grad_helpers.h"

namespace tensoract {
namespace grad {
namespace {

// The window attrs of a depthwise op, to build its gradient ops with the same ones.
struct DepthwiseWindow {
  std::vector<int64_t> strides;
  std::string padding;
  ops::DepthwiseConv2dNativeAttrs attrs;
};
Status ReadDepthwiseAttrs(const Node& op, DepthwiseWindow* a) {
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "strides", &a->strides));
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "padding", &a->padding));
  GetNodeAttr(op.def(), "data_format", &a->attrs.data_format).IgnoreError();  // absent: the default
  GetNodeAttr(op.def(), "dilations", &a->attrs.dilations).IgnoreError();
  GetNodeAttr(op.def(), "explicit_paddings", &a->attrs.explicit_paddings).IgnoreError();
  return Status::OK();
}

// DepthwiseConv2dNative(input, filter): both gradients are the backprop ops of dy.
Status DepthwiseConv2dNativeGrad(const Scope& s, const Node& op, const std::vector<Output>& dy,
                                 std::vector<Output>* dx) {
  DepthwiseWindow a;
  TA_RETURN_IF_ERROR(ReadDepthwiseAttrs(op, &a));
  Output input = InputOf(op, 0), filter = InputOf(op, 1);
  if (Needed(op, 0)) {
    (*dx)[0] = ops::DepthwiseConv2dNativeBackpropInput(s, ops::Shape(s, input), filter, dy[0], a.strides, a.padding,
                                                       a.attrs);
  }
  if (Needed(op, 1)) {
    (*dx)[1] = ops::DepthwiseConv2dNativeBackpropFilter(s, input, ops::Shape(s, filter), dy[0], a.strides, a.padding,
                                                        a.attrs);
  }
  return Status::OK();
}
REGISTER_GRADIENT_OP("DepthwiseConv2dNative", DepthwiseConv2dNativeGrad);

// BackpropInput(input_sizes, filter, out_backprop) is linear in filter and out_backprop.
Status DepthwiseBackpropInputGrad(const Scope& s, const Node& op, const std::vector<Output>& dy,
                                  std::vector<Output>* dx) {
  DepthwiseWindow a;
  TA_RETURN_IF_ERROR(ReadDepthwiseAttrs(op, &a));
  Output filter = InputOf(op, 1), out_backprop = InputOf(op, 2);
  (*dx)[1] = ops::DepthwiseConv2dNativeBackpropFilter(s, dy[0], ops::Shape(s, filter), out_backprop, a.strides,
                                                      a.padding, a.attrs);
  (*dx)[2] = ops::DepthwiseConv2dNative(s, dy[0], filter, a.strides, a.padding, a.attrs);
  return Status::OK();  // input_sizes: no gradient
}
REGISTER_GRADIENT_OP("DepthwiseConv2dNativeBackpropInput", DepthwiseBackpropInputGrad);

// BackpropFilter(input, filter_sizes, out_backprop) is linear in input and out_backprop.
Status DepthwiseBackpropFilterGrad(const Scope& s, const Node& op, const std::vector<Output>& dy,
                                   std::vector<Output>* dx) {
  DepthwiseWindow a;
  TA_RETURN_IF_ERROR(ReadDepthwiseAttrs(op, &a));
  Output input = InputOf(op, 0), out_backprop = InputOf(op, 2);
  (*dx)[0] = ops::DepthwiseConv2dNativeBackpropInput(s, ops::Shape(s, input), dy[0], out_backprop, a.strides,
                                                     a.padding, a.attrs);
  (*dx)[2] = ops::DepthwiseConv2dNative(s, input, dy[0], a.strides, a.padding, a.attrs);
  return Status::OK();  // filter_sizes: no gradient
}
REGISTER_GRADIENT_OP("DepthwiseConv2dNativeBackpropFilter", DepthwiseBackpropFilterGrad);

// FusedBatchNorm, V2 and V3 (x, scale, offset, mean, variance): TensorFlow's
// _BaseFusedBatchNormGrad, whose `version` picks the gradient op (FusedBatchNormGrad,
// GradV2, GradV3; only V3's takes reserve_space_3). Training differentiates through the
// batch statistics (the gradient op with the forward op's reserve spaces); inference treats
// mean and variance as constants and takes them as the reserve spaces, in a channels-last
// layout (the CPU kernel's), so NCHW and NCDHW are transposed around it. Only y's gradient
// flows back: the statistics' outputs are not differentiated, and mean and variance get none.
ops::FusedBatchNormGradOutputs BatchNormGradOp(const Scope& s, int version, const Input& grad_y, const Input& x,
                                               const Input& scale, const Input& mean, const Input& var,
                                               const Node& op, const ops::FusedBatchNormAttrs& a) {
  if (version == 0) return ops::FusedBatchNormGrad(s, grad_y, x, scale, mean, var, a);
  if (version == 1) return ops::FusedBatchNormGradV2(s, grad_y, x, scale, mean, var, a);
  ops::FusedBatchNormGradV3Outputs g = ops::FusedBatchNormGradV3(s, grad_y, x, scale, mean, var, OpOutput(op, 5), a);
  return {g.x_backprop, g.scale_backprop, g.offset_backprop, g.reserve_space_4, g.reserve_space_5};
}

template <int kVersion>
Status FusedBatchNormGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  ops::FusedBatchNormAttrs a;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "epsilon", &a.epsilon));
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "data_format", &a.data_format));
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "is_training", &a.is_training));
  Output x = InputOf(op, 0), scale = InputOf(op, 1), grad_y = dy[0];
  ops::FusedBatchNormGradOutputs g;
  if (a.is_training) {
    g = BatchNormGradOp(s, kVersion, grad_y, x, scale, OpOutput(op, 3), OpOutput(op, 4), op, a);
  } else {
    const bool nchw = a.data_format == "NCHW", ncdhw = a.data_format == "NCDHW";
    auto to_last = [&] { return ncdhw ? ops::Const(s, {0, 2, 3, 4, 1}) : ops::Const(s, {0, 2, 3, 1}); };
    auto to_first = [&] { return ncdhw ? ops::Const(s, {0, 4, 1, 2, 3}) : ops::Const(s, {0, 3, 1, 2}); };
    if (nchw || ncdhw) {
      x = ops::Transpose(s, x, to_last());
      grad_y = ops::Transpose(s, grad_y, to_last());
    }
    a.data_format = a.data_format == "NCHW" || a.data_format == "NHWC" ? "NHWC" : "NDHWC";
    g = BatchNormGradOp(s, kVersion, grad_y, x, scale, InputOf(op, 3), InputOf(op, 4), op, a);
    if (nchw || ncdhw) g.x_backprop = ops::Transpose(s, g.x_backprop, to_first());
  }
  (*dx)[0] = g.x_backprop;
  (*dx)[1] = g.scale_backprop;
  (*dx)[2] = g.offset_backprop;
  return Status::OK();  // mean, variance: no gradient
}
REGISTER_GRADIENT_OP("FusedBatchNorm", FusedBatchNormGrad<0>);
REGISTER_GRADIENT_OP("FusedBatchNormV2", FusedBatchNormGrad<1>);
REGISTER_GRADIENT_OP("FusedBatchNormV3", FusedBatchNormGrad<2>);

}  // namespace
}  // namespace grad
}  // namespace tensoract
