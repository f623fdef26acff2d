// TensorFlow 2's collective ops, as MultiWorkerMirroredStrategy's graphs hold them: every
// member of a group (a device on some task) runs the same op with the same group_key,
// group_size and instance_key, and each gets the result of all (actors/collective_executor.h
// says how they meet and move the data). group_key names the set of devices; instance_key
// one collective among that group's (the same graph running step after step reuses it).
// ordering_token inputs only order the ops in TensorFlow's automatic control deps. All are
// stateful: no pass may fold, merge or prune one as a pure function.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

// CollectiveGatherV2: the members' inputs concatenated along dimension 0, in rank order.
Status CollectiveGatherShape(shape_inference::InferenceContext* c) {
  const PartialTensorShape& in = c->input(0);
  if (!shape_inference::InferenceContext::RankKnown(in) || in.dims() == 0) {
    c->set_output(0, PartialTensorShape());
    return Status::OK();
  }
  PartialTensorShape out;
  TA_RETURN_IF_ERROR(c->ReplaceDim(in, 0, shape_inference::kUnknownDim, &out));
  c->set_output(0, out);
  return Status::OK();
}

// CollectiveBcastRecvV2: the shape its `shape` input (input 3) says.
Status BcastRecvShape(shape_inference::InferenceContext* c) {
  PartialTensorShape out;
  TA_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(3, &out));
  c->set_output(0, out);
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

REGISTER_OP("CollectiveReduceV2")
    .Input("input: T")
    .Input("group_size: int32")
    .Input("group_key: int32")
    .Input("instance_key: int32")
    .Input("ordering_token: Nordering_token * resource")
    .Output("data: T")
    .Attr("T: {bfloat16, float, half, double, int32, int64}")
    .Attr("merge_op: {'Min', 'Max', 'Mul', 'Add'}")
    .Attr("final_op: {'Id', 'Div'}")
    .Attr("communication_hint: string = 'auto'")
    .Attr("timeout_seconds: float = 0")
    .Attr("is_stateless: bool = false")
    .Attr("Nordering_token: int >= 0 = 0")
    .Attr("max_subdivs_per_device: int = -1")
    .SetIsStateful()
    .SetIsDistributedCommunication()
    .SetShapeFn(tensoract::shape_inference::UnchangedShape)
    .Doc("Every member's input merged element-wise (merge_op), then final_op (Div: by group_size).");

REGISTER_OP("CollectiveGatherV2")
    .Input("input: T")
    .Input("group_size: int32")
    .Input("group_key: int32")
    .Input("instance_key: int32")
    .Input("ordering_token: Nordering_token * resource")
    .Output("data: T")
    .Attr("T: {float, half, double, int32, int64}")
    .Attr("communication_hint: string = 'auto'")
    .Attr("timeout_seconds: float = 0")
    .Attr("is_stateless: bool = false")
    .Attr("Nordering_token: int >= 0 = 0")
    .SetIsStateful()
    .SetIsDistributedCommunication()
    .SetShapeFn(tensoract::CollectiveGatherShape)
    .Doc("Every member's input concatenated along dimension 0, in rank order.");

REGISTER_OP("CollectiveBcastSendV2")
    .Input("input: T")
    .Input("group_size: int32")
    .Input("group_key: int32")
    .Input("instance_key: int32")
    .Output("data: T")
    .Attr("T: {bool, float, half, double, int32, int64}")
    .Attr("communication_hint: string = 'auto'")
    .Attr("timeout_seconds: float = 0")
    .SetIsStateful()
    .SetIsDistributedCommunication()
    .SetShapeFn(tensoract::shape_inference::UnchangedShape)
    .Doc("Sends input to every other member of the group (each runs CollectiveBcastRecvV2).");

REGISTER_OP("CollectiveBcastRecvV2")
    .Input("group_size: int32")
    .Input("group_key: int32")
    .Input("instance_key: int32")
    .Input("shape: Tshape")
    .Output("data: T")
    .Attr("T: {bool, float, half, double, int32, int64}")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .Attr("communication_hint: string = 'auto'")
    .Attr("timeout_seconds: float = 0")
    .SetIsStateful()
    .SetIsDistributedCommunication()
    .SetShapeFn(tensoract::BcastRecvShape)
    .Doc("Receives the tensor the group's CollectiveBcastSendV2 member sends.");
