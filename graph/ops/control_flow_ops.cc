// Control flow (whitepaper section 4.4): the five primitives conditionals and loops are
// made of, and the helpers TensorFlow 1.x's cond and while_loop put next to them.
//
//   Switch(data, pred)  data goes to output_true if pred else output_false; the other
//                       output is dead, and so is everything fed only by it.
//   Merge(inputs...)    the first live input, and its index; dead only if all are.
//   Enter(data)         data, inside the child frame `frame_name` (a loop); with
//                       is_constant it is visible in every iteration, else in the first.
//   Exit(data)          data, out of its loop to the parent frame, when the loop ends.
//   NextIteration(data) data, into the next iteration of its loop.
//   LoopCond(pred)      pred: the loop's termination condition, marked for the runtime.
//   ControlTrigger      runs even when its inputs are dead (a control-only join).
//
// The executor (actors/executor.cc) gives them their meaning; the kernels only forward
// values. graph/control_flow.h works out which frame each node runs in. "Leave", the
// whitepaper's name for Exit, is an alias: a node written as Leave is an Exit.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

namespace tensoract {
namespace {

using shape_inference::InferenceContext;

Status SwitchShape(InferenceContext* c) {
  PartialTensorShape pred;
  TA_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &pred));
  for (int i = 0; i < 2; ++i) {
    c->set_output(i, c->input(0));
    if (const auto* data = c->input_handle_data(0)) c->set_output_handle_data(i, *data);
  }
  return Status::OK();
}

// The shape every input agrees on: dimensions that differ become unknown, and a rank that
// differs (or an unknown input, such as a loop's back edge before it is known) makes the
// whole shape unknown.
Status MergeShape(InferenceContext* c) {
  PartialTensorShape out = c->input(0);
  for (int i = 1; i < c->num_inputs() && !out.unknown_rank(); ++i) {
    const PartialTensorShape& in = c->input(i);
    if (in.unknown_rank() || in.dims() != out.dims()) {
      out = InferenceContext::UnknownShape();
      break;
    }
    std::vector<int64_t> dims = InferenceContext::Dims(out);
    for (int d = 0; d < in.dims(); ++d) {
      if (dims[d] != in.dim_size(d)) dims[d] = shape_inference::kUnknownDim;
    }
    out = InferenceContext::MakeShape(std::move(dims));
  }
  c->set_output(0, out);
  c->set_output(1, InferenceContext::Scalar());
  return Status::OK();
}

Status LoopCondShape(InferenceContext* c) { return shape_inference::UnchangedShapeWithRank(c, 0); }

}  // namespace
}  // namespace tensoract

REGISTER_OP("Switch")
    .Input("data: T").Input("pred: bool")
    .Output("output_false: T").Output("output_true: T")
    .Attr("T: type")
    .SetShapeFn(tensoract::SwitchShape)
    .Doc("data to output_true if pred, else to output_false; the other output is dead.");

REGISTER_OP("RefSwitch")
    .Input("data: Ref(T)").Input("pred: bool")
    .Output("output_false: Ref(T)").Output("output_true: Ref(T)")
    .Attr("T: type")
    .SetAllowsUninitializedInput()
    .SetShapeFn(tensoract::SwitchShape)
    .Doc("Switch for a reference (a variable).");

REGISTER_OP("Merge")
    .Input("inputs: N * T")
    .Output("output: T").Output("value_index: int32")
    .Attr("T: type").Attr("N: int >= 1")
    .SetShapeFn(tensoract::MergeShape)
    .Doc("The first live input and its index; dead only if every input is.");

REGISTER_OP("RefMerge")
    .Input("inputs: Ref(N * T)")
    .Output("output: Ref(T)").Output("value_index: int32")
    .Attr("T: type").Attr("N: int >= 1")
    .SetShapeFn(tensoract::MergeShape)
    .Doc("Merge for references.");

REGISTER_OP("Enter")
    .Input("data: T").Output("output: T")
    .Attr("T: type").Attr("frame_name: string").Attr("is_constant: bool = false")
    .Attr("parallel_iterations: int = 10")
    .SetShapeFn(tensoract::shape_inference::UnchangedShape)
    .Doc("data inside the child frame frame_name: in its first iteration, or in every one if is_constant.");

REGISTER_OP("RefEnter")
    .Input("data: Ref(T)").Output("output: Ref(T)")
    .Attr("T: type").Attr("frame_name: string").Attr("is_constant: bool = false")
    .Attr("parallel_iterations: int = 10")
    .SetShapeFn(tensoract::shape_inference::UnchangedShape)
    .Doc("Enter for a reference.");

REGISTER_OP("Exit")
    .Input("data: T").Output("output: T")
    .Attr("T: type")
    .SetShapeFn(tensoract::shape_inference::UnchangedShape)
    .Doc("data, out of its frame to the parent frame.");

REGISTER_OP_ALIAS("Leave", "Exit");

REGISTER_OP("RefExit")
    .Input("data: Ref(T)").Output("output: Ref(T)")
    .Attr("T: type")
    .SetShapeFn(tensoract::shape_inference::UnchangedShape)
    .Doc("Exit for a reference.");

REGISTER_OP("NextIteration")
    .Input("data: T").Output("output: T")
    .Attr("T: type")
    .SetShapeFn(tensoract::shape_inference::UnchangedShape)
    .Doc("data, in the next iteration of its frame.");

REGISTER_OP("RefNextIteration")
    .Input("data: Ref(T)").Output("output: Ref(T)")
    .Attr("T: type")
    .SetShapeFn(tensoract::shape_inference::UnchangedShape)
    .Doc("NextIteration for a reference.");

REGISTER_OP("LoopCond")
    .Input("input: bool").Output("output: bool")
    .SetShapeFn(tensoract::LoopCondShape)
    .Doc("A loop's termination condition: the predicate of its Switch nodes.");

// A whole loop of one CPU device, its iterations run one after another by one kernel
// (graph/optimizer/sequential_loops.h builds it from the primitives above). `body` is the
// GraphDef of the loop's nodes other than its Enter, Merge, Switch, LoopCond, NextIteration
// and Exit nodes; their inputs name loop variable k as "__var:k" and loop invariant j as
// "__inv:j". Each iteration runs the nodes not in `gated` (the condition, and what only the
// invariants feed), reads `pred`, and if it is true runs the `gated` nodes (the body) and
// takes loop variable k's next value from `next[k]`. Output i is loop variable
// exit_vars[i] once `pred` is false.
REGISTER_OP("_SequentialLoop")
    .Input("loop_vars: T")
    .Input("invariants: Tinvariants")
    .Output("exits: Texits")
    .Attr("T: list(type) >= 0")
    .Attr("Tinvariants: list(type) >= 0")
    .Attr("Texits: list(type) >= 0")
    .Attr("exit_vars: list(int) >= 0")
    .Attr("body: string")
    .Attr("pred: string")
    .Attr("next: list(string) >= 0")
    .Attr("gated: list(string) >= 0")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::UnknownShape)
    .Doc("A CPU loop whose iterations one kernel runs in order, without the executor's frames.");

REGISTER_OP("ControlTrigger")
    .SetShapeFn(tensoract::shape_inference::NoOutputs)
    .Doc("Does nothing, and runs even when its (control) inputs are dead.");
