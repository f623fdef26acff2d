// Gradients of reductions, reshapes and the neural-net blocks an MLP or CNN is made of.
#include <algorithm>

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

// Mean: Sum's gradient divided by the number of elements averaged, as TensorFlow's: a
// constant where the shapes are known when building, else the product of x's dimensions
// at the (normalised) axes. Neither reads the Mean's output, so the forward op need not run
// (and its refusals, duplicate axes, are not the gradient's).
Status MeanGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output x = InputOf(op, 0);
  Output sum_grad;
  TA_RETURN_IF_ERROR(ReductionGrad(s, op, dy[0], &sum_grad));
  const PartialTensorShape& in = x.node->output_shape(x.index);
  const Output y = OpOutput(op, 0);
  const PartialTensorShape& out = y.node->output_shape(y.index);
  Output count;
  if (in.IsFullyDefined() && out.IsFullyDefined()) {
    int64_t in_size = 1, out_size = 1;
    for (int d = 0; d < in.dims(); ++d) in_size *= in.dim_size(d);
    for (int d = 0; d < out.dims(); ++d) out_size *= out.dim_size(d);
    count = ops::Cast(s, in_size / std::max<int64_t>(out_size, 1), x.type());
  } else {
    Output shape = ops::Shape(s, x);
    Output rank = ops::Size(s, shape);
    Output axes = InputOf(op, 1);
    if (axes.type() != tensorflow::DT_INT32) axes = ops::Cast(s, axes, tensorflow::DT_INT32);
    axes = ops::FloorMod(s, ops::Add(s, axes, rank), rank);
    count = ops::Cast(s, ops::Prod(s, ops::GatherV2(s, shape, axes, 0), 0), x.type());
  }
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

// TensorFlow's _BiasAddGradV1: the bias's gradient summed over every dimension but the last
// (a Sum over range(rank - 1), not a BiasAddGrad). The rank is dy's, as TensorFlow's: a
// scalar dy fails at run time (a Range to -1) as there, not summed to a scalar.
Status BiasAddV1Grad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = dy[0];
  (*dx)[1] = ops::Sum(s, dy[0], ops::Range(s, 0, ops::Sub(s, ops::Rank(s, dy[0]), 1), 1));
  return Status::OK();
}
REGISTER_GRADIENT_OP("BiasAddV1", BiasAddV1Grad);

// Whether `dy` is the zeros AddSymbolicGradients (or the tape) puts where no gradient
// reached an output: ZerosLike of that very output (TensorFlow's _is_zeros_tensor).
bool IsZerosFor(const Output& dy, const Node& op, int i) {
  if (dy.node == nullptr) return true;
  if (dy.node->type_string() != "ZerosLike") return false;
  const Output of = InputOf(*dy.node, 0);
  return of.node == &op && of.index == i;
}

// d loss / d logits = backprop (the op's second output) scaled by the loss gradient per row,
// and, where a gradient reached that backprop output too (a gradient of a gradient, or a
// graph that uses it), the softmax's gradient of that: (dy[1] - sum(dy[1] * softmax, row))
// * softmax, as TensorFlow's. A training graph's ZerosLike there costs no softmax. `logits`
// has the backprop output's shape.
Output XentLogitsGrad(const Scope& s, const Node& op, const Output& logits, const std::vector<Output>& dy) {
  Output scale = ops::ExpandDims(s, dy[0], -1);
  Output grad = TypedOp(s, "Mul", {scale, OpOutput(op, 1)});
  if (IsZerosFor(dy[1], op, 1)) return grad;
  Output softmax = TypedOp(s, "Softmax", {logits});
  Output sum = ops::Sum(s, TypedOp(s, "Mul", {dy[1], softmax}), -1, {/*keep_dims=*/true});
  return TypedOp(s, "AddV2", {grad, TypedOp(s, "Mul", {TypedOp(s, "Sub", {dy[1], sum}), softmax})});
}

Status SparseXentGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = XentLogitsGrad(s, op, InputOf(op, 0), dy);
  return Status::OK();  // labels: no gradient
}
REGISTER_GRADIENT_OP("SparseSoftmaxCrossEntropyWithLogits", SparseXentGrad);

// Dense labels are differentiable too: d loss / d labels = -log_softmax(logits) per row (the
// loss's term alone: TensorFlow's leaves out the backprop output's -dy[1], and so do we).
// Logits and labels may broadcast against each other ([4,7] and [1,7]): both gradients are
// computed at the broadcast shape and summed back to their inputs' shapes (TensorFlow's
// keep the broadcast shape, which tf.gradients then refuses).
Status XentGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output logits = InputOf(op, 0), labels = InputOf(op, 1);
  const PartialTensorShape& a = logits.node->output_shape(logits.index);
  const PartialTensorShape& b = labels.node->output_shape(labels.index);
  bool same = a.IsFullyDefined() && b.IsFullyDefined() && a.dims() == b.dims();
  for (int d = 0; same && d < a.dims(); ++d) same = a.dim_size(d) == b.dim_size(d);
  const Output at = same ? logits : ops::BroadcastTo(s, logits, ops::Shape(s, OpOutput(op, 1)));
  const Output logits_grad = XentLogitsGrad(s, op, at, dy);
  Output scale = ops::ExpandDims(s, dy[0], -1);
  Output labels_grad = TypedOp(s, "Mul", {scale, TypedOp(s, "Neg", {TypedOp(s, "LogSoftmax", {at})})});
  ReduceBroadcast(s, logits, labels, logits_grad, labels_grad, &(*dx)[0], &(*dx)[1]);
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

// MaxPoolGrad takes MaxPool's window attrs as they are: EXPLICIT padding's explicit_paddings
// too (AvgPool has no EXPLICIT padding).
Status MaxPoolGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::TypedOp(s, "MaxPoolGrad", {InputOf(op, 0), OpOutput(op, 0), dy[0]},
                          AttrsOf(op, {"ksize", "strides", "padding", "explicit_paddings", "data_format"}));
  return Status::OK();
}
REGISTER_GRADIENT_OP("MaxPool", MaxPoolGrad);

// The V2 ops' window is their last two inputs (ksize, strides): the gradient op takes the
// same tensors, and they get no gradient (None in TensorFlow's nn_grad.py).
// The window attrs `op` has (a V2 op has only padding and data_format), for its gradient op.
ops::Attrs WindowAttrs(const Node& op) { return AttrsOf(op, {"ksize", "strides", "padding", "data_format"}); }
Status MaxPoolV2Grad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = ops::TypedOp(s, "MaxPoolGradV2", {InputOf(op, 0), OpOutput(op, 0), dy[0], InputOf(op, 1), InputOf(op, 2)},
                          WindowAttrs(op));
  return Status::OK();
}
REGISTER_GRADIENT_OP("MaxPoolV2", MaxPoolV2Grad);

// MaxPoolGrad and MaxPoolGradGrad are linear in their grad, each the other's transpose:
// the gradient of one is the other, and orig_input and orig_output get zeros, as
// TensorFlow's nn_grad.py returns. Neither op takes EXPLICIT padding's explicit_paddings,
// so a MaxPoolGrad with EXPLICIT padding gets TensorFlow's refusal from the op's attrs.
// The V2 pair is the same with the window as inputs 3 and 4 (ksize, strides), passed on.
Status MaxPoolGradOfGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx,
                         const char* grad_op) {
  std::vector<Input> inputs = {InputOf(op, 0), InputOf(op, 1), dy[0]};
  for (int i = 3; i < op.num_inputs(); ++i) inputs.push_back(InputOf(op, i));
  (*dx)[0] = TypedOp(s, "ZerosLike", {InputOf(op, 0)});
  (*dx)[1] = TypedOp(s, "ZerosLike", {InputOf(op, 1)});
  (*dx)[2] = TypedOp(s, grad_op, inputs, WindowAttrs(op));
  return Status::OK();
}
Status MaxPoolGradGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  return MaxPoolGradOfGrad(s, op, dy, dx, "MaxPoolGradGrad");
}
Status MaxPoolGradGradGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  return MaxPoolGradOfGrad(s, op, dy, dx, "MaxPoolGrad");
}
Status MaxPoolGradV2Grad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  return MaxPoolGradOfGrad(s, op, dy, dx, "MaxPoolGradGradV2");
}
Status MaxPoolGradGradV2Grad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  return MaxPoolGradOfGrad(s, op, dy, dx, "MaxPoolGradV2");
}
REGISTER_GRADIENT_OP("MaxPoolGrad", MaxPoolGradGrad);
REGISTER_GRADIENT_OP("MaxPoolGradGrad", MaxPoolGradGradGrad);
REGISTER_GRADIENT_OP("MaxPoolGradV2", MaxPoolGradV2Grad);
REGISTER_GRADIENT_OP("MaxPoolGradGradV2", MaxPoolGradGradV2Grad);

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
