// Gradients of Conv3D, MaxPool3D and AvgPool3D, as TensorFlow's nn_grad.py builds them: the
// gradient ops take the forward op's window attrs as they are.
#include "graph/builder/array_ops.h"
#include "graph/builder/attr_util.h"
#include "graph/gradients/grad_helpers.h"

namespace tensoract {
namespace grad {
namespace {

// `op_name`(inputs) with `from`'s attrs `names` and T = `t`.
Output WithAttrs(const Scope& s, const std::string& op_name, const std::vector<Input>& inputs, const Node& from,
                 std::initializer_list<const char*> names, DataType t) {
  ops::Attrs attrs = AttrsOf(from, names);
  attrs["T"] = ops::TypeAttr(t);
  return Output(s.AddOp(op_name, op_name, inputs, attrs), 0);
}

// Conv3D(input, filter): the input's gradient is the transposed convolution of dy with the
// filter, the filter's the correlation of the input with dy.
Status Conv3DGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  Output input = InputOf(op, 0), filter = InputOf(op, 1);
  const DataType t = op.output_type(0);
  if (Needed(op, 0)) {
    (*dx)[0] = WithAttrs(s, "Conv3DBackpropInputV2", {ops::Shape(s, input), filter, dy[0]}, op,
                         {"strides", "padding", "data_format", "dilations"}, t);
  }
  if (Needed(op, 1)) {
    (*dx)[1] = WithAttrs(s, "Conv3DBackpropFilterV2", {input, ops::Shape(s, filter), dy[0]}, op,
                         {"strides", "padding", "data_format", "dilations"}, t);
  }
  return Status::OK();
}
REGISTER_GRADIENT_OP("Conv3D", Conv3DGrad);

Status MaxPool3DGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  ops::Attrs attrs = AttrsOf(op, {"ksize", "strides", "padding", "data_format"});
  attrs["T"] = ops::TypeAttr(op.output_type(0));
  attrs["TInput"] = ops::TypeAttr(op.output_type(0));
  (*dx)[0] = Output(s.AddOp("MaxPool3DGrad", "MaxPool3DGrad", {InputOf(op, 0), OpOutput(op, 0), dy[0]}, attrs), 0);
  return Status::OK();
}
REGISTER_GRADIENT_OP("MaxPool3D", MaxPool3DGrad);

Status AvgPool3DGrad(const Scope& s, const Node& op, const std::vector<Output>& dy, std::vector<Output>* dx) {
  (*dx)[0] = WithAttrs(s, "AvgPool3DGrad", {ops::Shape(s, InputOf(op, 0)), dy[0]}, op,
                       {"ksize", "strides", "padding", "data_format"}, op.output_type(0));
  return Status::OK();
}
REGISTER_GRADIENT_OP("AvgPool3D", AvgPool3DGrad);

}  // namespace
}  // namespace grad
}  // namespace tensoract
