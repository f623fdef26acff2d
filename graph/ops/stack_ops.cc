// Stacks: a step's last-in-first-out store of tensors. Gradients through a while loop use
// them as section 4.4 of the whitepaper sketches: the forward loop pushes what the
// backward loop needs, one value per iteration, and the backward loop pops them in
// reverse (graph/gradients/while_grad.cc). A stack lives until the end of the step that
// made it (or its StackCloseV2).
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

Status StackShape(InferenceContext* c) {
  PartialTensorShape max_size;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, &max_size));
  c->set_output(0, InferenceContext::Scalar());
  return Status::OK();
}

Status StackPushShape(InferenceContext* c) {
  c->set_output(0, c->input(1));
  return Status::OK();
}

}  // namespace
}  // namespace tensoract

REGISTER_OP("StackV2")
    .Input("max_size: int32").Output("handle: resource")
    .Attr("elem_type: type").Attr("stack_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(tensoract::StackShape)
    .Doc("A new empty stack of elem_type tensors (max_size <= 0: unbounded), for this step.");

REGISTER_OP("StackPushV2")
    .Input("handle: resource").Input("elem: T").Output("output: T")
    .Attr("T: type").Attr("swap_memory: bool = false")
    .SetIsStateful()
    .SetShapeFn(tensoract::StackPushShape)
    .Doc("Pushes elem onto the stack; outputs elem.");

REGISTER_OP("StackPopV2")
    .Input("handle: resource").Output("elem: elem_type")
    .Attr("elem_type: type")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::UnknownShape)
    .Doc("Pops the tensor pushed last; OutOfRange on an empty stack.");

REGISTER_OP("StackCloseV2")
    .Input("handle: resource")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::NoOutputs)
    .Doc("Drops the stack and what it holds.");
