// Gradients of reductions, reshapes and the neural-net blocks an MLP or CNN is made of.
#include "graph/builder/array_ops.h"
#include "graph/builder/nn_ops.h"
#include "graph/gradients/grad_helpers.h"
#include "graph/shape_inference.h"

namespace tensoract {
namespace grad {
namespace {

using ops::TypedOp;

// The reduction axes of `op` (input 1), normalised to [0, rank), when they are a constant
// and the input's rank is known; an error otherwise (the caller then builds the general form).
Status ConstantAxes(const Node& op, int rank, std::vector<bool>* reduced) {
  tensorflow::TensorProto value;
  if (!KnownValue(InputOf(op, 1), &value) || rank < 0) {
    return errors::Unimplemented("the gradient of '", op.name(), "' (", op.type_string(),
                                 ") needs constant axes and an input of known rank");
  }
  std::vector<int64_t> list;
  TA_RETURN_IF_ERROR(shape_inference::TensorProtoToInt64s(value, &list));
  reduced->assign(rank, false);
  for (int64_t a : list) {
    if (a < -rank || a >= rank) return errors::InvalidArgument("axis ", a, " of '", op.name(), "' is out of range");
    (*reduced)[a < 0 ? a + rank : a] = true;
  }
  return Status::OK();
}

// dy broadcast back over the reduced axes to x's shape.
Status ReductionGrad(const Scope& s, const Node& op, const Output& dy, Output* dx) {
  Output x = InputOf(op, 0);
  const int rank = x.node->output_shape(x.index).dims();
  std::vector<bool> reduced;
  bool keep_dims = false;
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "keep_dims", &keep_dims));
  if (!ConstantAxes(op, rank, &reduced).ok()) {
    // Axes computed at run time, or a rank unknown when building: TensorFlow's general
    // form, dy reshaped to x's shape with 1 at every reduced axis, then broadcast.
    Output x_shape = ops::Shape(s, x);
    Output g = keep_dims ? dy : ops::Reshape(s, dy, ReducedShape(s, x_shape, InputOf(op, 1)));
    *dx = ops::BroadcastTo(s, g, x_shape);
    return Status::OK();
  }
  Output g = dy;
  if (!keep_dims) {
    // x's shape with every reduced dimension set to 1: Shape(x) * mask + ones_where_reduced.
    std::vector<int32_t> mask(rank), ones(rank);
    for (int d = 0; d < rank; ++d) {
      mask[d] = reduced[d] ? 0 : 1;
      ones[d] = reduced[d] ? 1 : 0;
    }
    tensorflow::TensorProto mask_proto, ones_proto;
    for (auto* p : {&mask_proto, &ones_proto}) {
      p->set_dtype(tensorflow::DT_INT32);
      p->mutable_tensor_shape()->add_dim()->set_size(rank);
    }
    for (int d = 0; d < rank; ++d) {
      mask_proto.add_int_val(mask[d]);
      ones_proto.add_int_val(ones[d]);
    }
    Output kept = TypedOp(s, "Add", {TypedOp(s, "Mul", {ops::Shape(s, x), ops::Const(s, mask_proto)}), ops::Const(s, ones_proto)});
    g = ops::Reshape(s, dy, kept);
  }
  *dx = TypedOp(s, "Mul", {g, TypedOp(s, "OnesLike", {x})});
  return Status::OK();
}

Status SumGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  return ReductionGrad(s, op, dy[0], &(*dx)[0]);
}
REGISTER_GRADIENT_OP("Sum", SumGrad);

// Mean: Sum's gradient divided by the number of elements averaged.
Status MeanGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output x = InputOf(op, 0);
  Output sum_grad;
  TA_RETURN_IF_ERROR(ReductionGrad(s, op, dy[0], &sum_grad));
  // Number of elements as the product of the shape (Prod over axis 0 of Shape).
  auto size = [&](const Output& t) {
    return ops::Prod(s, ops::Shape(s, t), 0);
  };
  Output count = TypedOp(s, "RealDiv", {ops::Cast(s, size(x), x.type()), ops::Cast(s, size(OpOutput(op, 0)), x.type())});
  (*dx)[0] = TypedOp(s, "RealDiv", {sum_grad, count});
  return Status::OK();
}
REGISTER_GRADIENT_OP("Mean", MeanGrad);

Status ReshapeGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::Reshape(s, dy[0], ops::Shape(s, InputOf(op, 0)));
  return Status::OK();
}
REGISTER_GRADIENT_OP("Reshape", ReshapeGrad);
REGISTER_GRADIENT_OP("ExpandDims", ReshapeGrad);
REGISTER_GRADIENT_OP("Squeeze", ReshapeGrad);

Status ReluGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = TypedOp(s, "ReluGrad", {dy[0], OpOutput(op, 0)});
  return Status::OK();
}
REGISTER_GRADIENT_OP("Relu", ReluGrad);

Status BiasAddGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  std::string format = "NHWC";
  GetNodeAttr(op.def(), "data_format", &format).IgnoreError();
  (*dx)[0] = dy[0];
  (*dx)[1] = TypedOp(s, "BiasAddGrad", {dy[0]}, {{"data_format", ops::StringAttr(format)}});
  return Status::OK();
}
REGISTER_GRADIENT_OP("BiasAdd", BiasAddGrad);

// d loss / d logits = backprop (the op's second output) scaled by the loss gradient per row.
Status SparseXentGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output scale = ops::ExpandDims(s, dy[0], -1);
  (*dx)[0] = TypedOp(s, "Mul", {scale, OpOutput(op, 1)});
  return Status::OK();  // labels: no gradient
}
REGISTER_GRADIENT_OP("SparseSoftmaxCrossEntropyWithLogits", SparseXentGrad);

// Dense labels are differentiable too: d loss / d labels = -log_softmax(logits) per row.
Status XentGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  TA_RETURN_IF_ERROR(SparseXentGrad(s, op, dy, dx));
  Output scale = ops::ExpandDims(s, dy[0], -1);
  Output log_softmax = TypedOp(s, "LogSoftmax", {InputOf(op, 0)});
  (*dx)[1] = TypedOp(s, "Mul", {scale, TypedOp(s, "Neg", {log_softmax})});
  return Status::OK();
}
REGISTER_GRADIENT_OP("SoftmaxCrossEntropyWithLogits", XentGrad);

// d softmax: (dy - sum(dy * y, last axis, keep_dims)) * y.
Status SoftmaxGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output y = OpOutput(op, 0);
  Output sum = ops::Sum(s, TypedOp(s, "Mul", {dy[0], y}), -1, {/*keep_dims=*/true});
  (*dx)[0] = TypedOp(s, "Mul", {TypedOp(s, "Sub", {dy[0], sum}), y});
  return Status::OK();
}
REGISTER_GRADIENT_OP("Softmax", SoftmaxGrad);

// ---- Convolutions and pools -------------------------------------------------------------

// The window attrs of a Conv2D-family op, to build its gradient ops with the same ones.
struct ConvWindow {
  std::vector<int64_t> strides;
  std::string padding;
  ops::Conv2DAttrs attrs;
};
Status ReadConvAttrs(const Node& op, ConvWindow* a) {
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "strides", &a->strides));
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "padding", &a->padding));
  GetNodeAttr(op.def(), "data_format", &a->attrs.data_format).IgnoreError();  // absent: the default
  GetNodeAttr(op.def(), "dilations", &a->attrs.dilations).IgnoreError();
  GetNodeAttr(op.def(), "use_cudnn_on_gpu", &a->attrs.use_cudnn_on_gpu).IgnoreError();
  GetNodeAttr(op.def(), "explicit_paddings", &a->attrs.explicit_paddings).IgnoreError();
  return Status::OK();
}

// Conv2D(input, filter): input's gradient is the transposed convolution of dy with the
// filter, the filter's the correlation of input with dy.
Status Conv2DGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  ConvWindow a;
  TA_RETURN_IF_ERROR(ReadConvAttrs(op, &a));
  Output input = InputOf(op, 0), filter = InputOf(op, 1);
  if (Needed(op, 0)) {  // not for a first layer's images, eagerly
    (*dx)[0] = ops::Conv2DBackpropInput(s, ops::Shape(s, input), filter, dy[0], a.strides, a.padding, a.attrs);
  }
  if (Needed(op, 1)) {
    (*dx)[1] = ops::Conv2DBackpropFilter(s, input, ops::Shape(s, filter), dy[0], a.strides, a.padding, a.attrs);
  }
  return Status::OK();
}
REGISTER_GRADIENT_OP("Conv2D", Conv2DGrad);

// Conv2DBackpropInput(input_sizes, filter, out_backprop) is linear in filter and in
// out_backprop: out_backprop's gradient is Conv2D of dy, the filter's the filter gradient
// of a convolution of dy giving out_backprop.
Status Conv2DBackpropInputGrad(const Scope& s, const Node& op, const std::vector<Output>& dy,
                               std::vector<Output>* dx) {
  ConvWindow a;
  TA_RETURN_IF_ERROR(ReadConvAttrs(op, &a));
  Output filter = InputOf(op, 1), out_backprop = InputOf(op, 2);
  (*dx)[1] = ops::Conv2DBackpropFilter(s, dy[0], ops::Shape(s, filter), out_backprop, a.strides, a.padding, a.attrs);
  (*dx)[2] = ops::Conv2D(s, dy[0], filter, a.strides, a.padding, a.attrs);
  return Status::OK();  // input_sizes: no gradient
}
REGISTER_GRADIENT_OP("Conv2DBackpropInput", Conv2DBackpropInputGrad);

// Conv2DBackpropFilter(input, filter_sizes, out_backprop), linear in input and out_backprop.
Status Conv2DBackpropFilterGrad(const Scope& s, const Node& op, const std::vector<Output>& dy,
                                std::vector<Output>* dx) {
  ConvWindow a;
  TA_RETURN_IF_ERROR(ReadConvAttrs(op, &a));
  Output input = InputOf(op, 0), out_backprop = InputOf(op, 2);
  (*dx)[0] = ops::Conv2DBackpropInput(s, ops::Shape(s, input), dy[0], out_backprop, a.strides, a.padding, a.attrs);
  (*dx)[2] = ops::Conv2D(s, input, dy[0], a.strides, a.padding, a.attrs);
  return Status::OK();  // filter_sizes: no gradient
}
REGISTER_GRADIENT_OP("Conv2DBackpropFilter", Conv2DBackpropFilterGrad);

struct PoolWindow {
  std::vector<int64_t> ksize, strides;
  std::string padding;
  ops::PoolAttrs attrs;
};
Status ReadPoolAttrs(const Node& op, PoolWindow* a) {
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "ksize", &a->ksize));
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "strides", &a->strides));
  TA_RETURN_IF_ERROR(GetNodeAttr(op.def(), "padding", &a->padding));
  GetNodeAttr(op.def(), "data_format", &a->attrs.data_format).IgnoreError();
  if (a->padding == "EXPLICIT") {
    return errors::Unimplemented("the gradient of '", op.name(), "' (", op.type_string(),
                                 ") with EXPLICIT padding is not supported");
  }
  return Status::OK();
}

Status MaxPoolGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  PoolWindow a;
  TA_RETURN_IF_ERROR(ReadPoolAttrs(op, &a));
  (*dx)[0] = ops::MaxPoolGrad(s, InputOf(op, 0), OpOutput(op, 0), dy[0], a.ksize, a.strides, a.padding, a.attrs);
  return Status::OK();
}
REGISTER_GRADIENT_OP("MaxPool", MaxPoolGrad);

Status AvgPoolGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  PoolWindow a;
  TA_RETURN_IF_ERROR(ReadPoolAttrs(op, &a));
  (*dx)[0] = ops::AvgPoolGrad(s, ops::Shape(s, InputOf(op, 0)), dy[0], a.ksize, a.strides, a.padding, a.attrs);
  return Status::OK();
}
REGISTER_GRADIENT_OP("AvgPool", AvgPoolGrad);

// AvgPoolGrad is linear in its grad input: that gradient is AvgPool of dy.
Status AvgPoolGradGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  PoolWindow a;
  TA_RETURN_IF_ERROR(ReadPoolAttrs(op, &a));
  (*dx)[1] = ops::AvgPool(s, dy[0], a.ksize, a.strides, a.padding, a.attrs);
  return Status::OK();  // orig_input_shape: no gradient
}
REGISTER_GRADIENT_OP("AvgPoolGrad", AvgPoolGradGrad);

}  // namespace
}  // namespace grad
}  // namespace tensoract
