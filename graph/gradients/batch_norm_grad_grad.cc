// The gradients of FusedBatchNormGrad, GradV2 and GradV3 (second derivatives through batch
// normalization), as TensorFlow's nn_grad.py builds them: the batch norm's gradients are
// written again as element-wise ops and reductions, and their gradients with respect to
// (grad_y, x, scale), weighted by the incoming gradients, are that expression's symbolic
// gradients. In graphs only: the nested AddSymbolicGradients needs one (a tape in eager code
// says so and stops).
#include "graph/builder/array_ops.h"
#include "graph/gradients/grad_helpers.h"
#include "graph/gradients/gradients.h"

namespace tensoract {
namespace grad {
namespace {

struct BatchNormGrads {
  Output x, scale, offset;
};

// The batch norm's gradients as plain ops (TensorFlow's _BatchNormGrad): in training from
// the batch's own statistics (the variance's mean held constant, as its stop_gradient), in
// inference from `mean` and `var`. half and bfloat16 compute in float, as the fused kernels do.
BatchNormGrads BatchNormGradExpr(const Scope& s, Output grad_y, Output x, Output scale, Output mean, Output var,
                                 float epsilon, const std::string& format, bool training) {
  // The channel axis is 1 (NCHW, NCDHW) or the last (NHWC, NDHWC); the statistics reduce
  // every other axis.
  const int rank = static_cast<int>(format.size());
  const bool nchw = format[1] == 'C';
  const DataType x_type = x.type();
  const bool narrow = x_type == tensorflow::DT_HALF || x_type == tensorflow::DT_BFLOAT16;
  if (narrow) {
    x = ops::Cast(s, x, tensorflow::DT_FLOAT);
    grad_y = ops::Cast(s, grad_y, tensorflow::DT_FLOAT);
  }
  const bool five_d = rank == 5;
  const Output axes = nchw ? (five_d ? ops::Const(s, {0, 2, 3, 4}) : ops::Const(s, {0, 2, 3}))
                           : (five_d ? ops::Const(s, {0, 1, 2, 3}) : ops::Const(s, {0, 1, 2}));
  // Per-channel vectors broadcast over channels-first layouts as [1, C, 1, 1(, 1)].
  auto per_channel = [&](const Output& v) {
    if (!nchw) return v;
    return ops::Reshape(s, v, five_d ? ops::Const(s, {1, -1, 1, 1, 1}) : ops::Const(s, {1, -1, 1, 1}));
  };
  const Output eps = ops::Cast(s, ops::Const(s, epsilon), scale.type());
  BatchNormGrads g;
  if (training) {
    const ops::ReductionAttrs keep{nchw};
    const Output mean_grad_y = ops::Mean(s, grad_y, axes, keep);
    const Output mean_x = ops::Mean(s, x, axes, keep);
    const Output var_x = ops::Mean(s, ops::SquaredDifference(s, x, ops::StopGradient(s, mean_x)), axes, keep);
    const Output x_offset = ops::Sub(s, x, mean_x);
    const Output mean_product = ops::Mean(s, ops::Mul(s, grad_y, x_offset), axes, keep);
    const Output var_eps = ops::Add(s, var_x, eps);
    const Output inv_std = ops::Rsqrt(s, var_eps);
    g.x = ops::Mul(s, ops::Mul(s, per_channel(scale), inv_std),
                   ops::Sub(s, ops::Sub(s, grad_y, mean_grad_y),
                            ops::Mul(s, ops::Mul(s, ops::Reciprocal(s, var_eps), mean_product), x_offset)));
    g.scale = ops::Mul(s, inv_std, ops::Sum(s, ops::Mul(s, grad_y, x_offset), axes, keep));
    if (nchw) g.scale = ops::Squeeze(s, g.scale);
  } else {
    const Output inv_std = ops::Rsqrt(s, ops::Add(s, per_channel(var), eps));
    g.scale = ops::Sum(s, ops::Mul(s, ops::Mul(s, grad_y, ops::Sub(s, x, per_channel(mean))), inv_std), axes);
    g.x = ops::Mul(s, ops::Mul(s, grad_y, per_channel(scale)), inv_std);
  }
  g.offset = ops::Sum(s, grad_y, axes);
  if (narrow) g.x = ops::Cast(s, g.x, x_type);
  return g;
}

// Inputs (grad_y, x, scale, mean or reserve_space_1, variance or reserve_space_2[,
// reserve_space_3]); outputs x_backprop, scale_backprop, offset_backprop and the reserve
// spaces, which are not differentiated.
Status FusedBatchNormGradGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  if (s.is_eager()) {
    return errors::Unimplemented("the gradient of ", op.type_string(),
                                 " (a second derivative through batch normalization) is built in graphs only");
  }
  float epsilon = 0;
  std::string format;
  bool training = true;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "epsilon", &epsilon));
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "data_format", &format));
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "is_training", &training));
  if (format != "NHWC" && format != "NCHW" && format != "NDHWC" && format != "NCDHW") {
    return errors::InvalidArgument("the gradient of ", op.type_string(), ": unknown data_format ", format);
  }
  // Fresh names for the three inputs: grad_y usually depends on x upstream, and only the
  // expression's own paths are wanted (TensorFlow records it on a tape of its own).
  const Output grad_y = ops::Identity(s, InputOf(op, 0)), x = ops::Identity(s, InputOf(op, 1)),
               scale = ops::Identity(s, InputOf(op, 2));
  const BatchNormGrads g =
      BatchNormGradExpr(s, grad_y, x, scale, InputOf(op, 3), InputOf(op, 4), epsilon, format, training);
  std::vector<Output> grads;
  TA_RETURN_IF_ERROR(AddSymbolicGradients(s, {g.x, g.scale, g.offset}, {grad_y, x, scale}, {dy[0], dy[1], dy[2]},
                                          &grads));
  for (int i = 0; i < 3; ++i) (*dx)[i] = grads[i];
  return Status::OK();  // mean, variance, reserve_space_3: no gradient
}
REGISTER_GRADIENT_OP("FusedBatchNormGrad", FusedBatchNormGradGrad);
REGISTER_GRADIENT_OP("FusedBatchNormGradV2", FusedBatchNormGradGrad);
REGISTER_GRADIENT_OP("FusedBatchNormGradV3", FusedBatchNormGradGrad);

}  // namespace
}  // namespace grad
}  // namespace tensoract
