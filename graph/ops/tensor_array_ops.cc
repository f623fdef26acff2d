// TensorFlow 1's TensorArrays (TensorArrayV3 and the ops on its handle): what tf.TensorArray
// is in a graph of TensorFlow 1 control flow (a tf.compat.v1 while_loop, dynamic_rnn). A
// TensorArray is a resource of its step holding `size` elements, written and read by index;
// the float `flow` tensors carry no value, only the order of the ops on one array. TensorFlow
// 2's TensorArray is a TensorList instead (list_ops.cc).
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

Status HandleAndFlowShape(InferenceContext* c) {
  c->set_output(0, InferenceContext::Scalar());
  c->set_output(1, InferenceContext::Scalar());
  return Status::OK();
}

Status FlowOutShape(InferenceContext* c) {
  c->set_output(0, InferenceContext::Scalar());
  return Status::OK();
}

// Gather: [len(indices)] + the element_shape attr.
Status GatherShape(InferenceContext* c) {
  PartialTensorShape element;
  TA_RETURN_IF_ERROR(c->GetAttr("element_shape", &element));
  const PartialTensorShape& indices = c->input(1);
  if (element.unknown_rank()) {
    c->set_output(0, PartialTensorShape());
    return Status::OK();
  }
  std::vector<int64_t> dims = {indices.unknown_rank() || indices.dims() != 1 ? -1 : indices.dim_size(0)};
  for (int d = 0; d < element.dims(); ++d) dims.push_back(element.dim_size(d));
  c->set_output(0, PartialTensorShape(dims));
  return Status::OK();
}

Status ConcatShape(InferenceContext* c) {
  PartialTensorShape rest;
  TA_RETURN_IF_ERROR(c->GetAttr("element_shape_except0", &rest));
  if (rest.unknown_rank()) {
    c->set_output(0, PartialTensorShape());
  } else {
    std::vector<int64_t> dims = {-1};
    for (int d = 0; d < rest.dims(); ++d) dims.push_back(rest.dim_size(d));
    c->set_output(0, PartialTensorShape(dims));
  }
  c->set_output(1, PartialTensorShape({-1}));
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

REGISTER_OP("TensorArrayV3")
    .Input("size: int32").Output("handle: resource").Output("flow: float")
    .Attr("dtype: type").Attr("element_shape: shape = { unknown_rank: true }")
    .Attr("dynamic_size: bool = false").Attr("clear_after_read: bool = true")
    .Attr("identical_element_shapes: bool = false").Attr("tensor_array_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(tensoract::HandleAndFlowShape)
    .Doc("A new TensorArray of `size` unwritten dtype elements, for this step, and its flow.");

REGISTER_OP("TensorArrayWriteV3")
    .Input("handle: resource").Input("index: int32").Input("value: T").Input("flow_in: float")
    .Output("flow_out: float").Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(tensoract::FlowOutShape)
    .Doc("Writes element `index` (once).");

REGISTER_OP("TensorArrayReadV3")
    .Input("handle: resource").Input("index: int32").Input("flow_in: float")
    .Output("value: dtype").Attr("dtype: type")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::UnknownShape)
    .Doc("Element `index` (cleared after the read where the array says so).");

REGISTER_OP("TensorArrayGatherV3")
    .Input("handle: resource").Input("indices: int32").Input("flow_in: float")
    .Output("value: dtype").Attr("dtype: type").Attr("element_shape: shape = { unknown_rank: true }")
    .SetIsStateful()
    .SetShapeFn(tensoract::GatherShape)
    .Doc("Elements `indices` stacked into one tensor.");

REGISTER_OP("TensorArrayScatterV3")
    .Input("handle: resource").Input("indices: int32").Input("value: T").Input("flow_in: float")
    .Output("flow_out: float").Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(tensoract::FlowOutShape)
    .Doc("Writes row i of `value` to element indices[i].");

REGISTER_OP("TensorArrayConcatV3")
    .Input("handle: resource").Input("flow_in: float")
    .Output("value: dtype").Output("lengths: int64")
    .Attr("dtype: type").Attr("element_shape_except0: shape = { unknown_rank: true }")
    .SetIsStateful()
    .SetShapeFn(tensoract::ConcatShape)
    .Doc("Every element joined along its first dimension, and each one's length.");

REGISTER_OP("TensorArraySplitV3")
    .Input("handle: resource").Input("value: T").Input("lengths: int64").Input("flow_in: float")
    .Output("flow_out: float").Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(tensoract::FlowOutShape)
    .Doc("Writes consecutive pieces of `value`, lengths[i] rows each, to elements 0, 1, ...");

REGISTER_OP("TensorArrayGradV3")
    .Input("handle: resource").Input("flow_in: float")
    .Output("grad_handle: resource").Output("flow_out: float").Attr("source: string")
    .SetIsStateful()
    .SetShapeFn(tensoract::HandleAndFlowShape)
    .Doc("The gradient array of the array for `source` (made on the first call): writes to it add up.");

REGISTER_OP("TensorArraySizeV3")
    .Input("handle: resource").Input("flow_in: float").Output("size: int32")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::ScalarShape)
    .Doc("The number of elements.");

REGISTER_OP("TensorArrayCloseV3")
    .Input("handle: resource")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::NoOutputs)
    .Doc("Drops the array and its elements.");
