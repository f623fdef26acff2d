/// @file
/// Builder functions for the control-flow primitives (graph/ops/control_flow_ops.cc) and
/// the stacks (graph/ops/stack_ops.cc), one node each, as TensorFlow's C++ API has them.
/// A reference input (a variable) makes the Ref form of the op (RefSwitch, RefMerge,
/// RefEnter, RefExit, RefNextIteration), as TensorFlow's Python does.
///
/// Most code wants Cond and WhileLoop (graph/builder/control_flow.h), which put these
/// together the way tf.cond and tf.while_loop do.
#ifndef TENSORACT_GRAPH_BUILDER_CONTROL_FLOW_OPS_H_
#define TENSORACT_GRAPH_BUILDER_CONTROL_FLOW_OPS_H_

#include <string>

#include "graph/builder/scope.h"

namespace tensoract {
namespace ops {

/// The two outputs of Switch().
struct SwitchOutputs {
  /// `data` when the predicate is false (else dead), and `data` when it is true (else dead).
  ///@{
  Output output_false, output_true;
  ///@}
};
/// Forwards `data` to output_true if `pred` (a bool scalar) is true, else to output_false; the
/// other output is dead, so what consumes only it does not run.
SwitchOutputs Switch(const Scope& scope, const Input& data, const Input& pred);

/// The two outputs of Merge().
struct MergeOutputs {
  /// The value of the first input that is live, and that input's index (an int32 scalar).
  ///@{
  Output output, value_index;
  ///@}
};
/// The first live tensor among `inputs` (at least one, all of one dtype) and its index; dead
/// only if every input is.
MergeOutputs Merge(const Scope& scope, const InputList& inputs);

/// Optional attributes of Enter().
struct EnterAttrs {
  /// Whether `data` is a loop invariant, seen in every iteration rather than only the first
  /// (default false).
  bool is_constant = false;
  /// How many iterations of the frame may run at once (default 10).
  int64_t parallel_iterations = 10;
};
/// `data`, made available inside the child frame `frame_name` (a while loop's), in its first
/// iteration or, with `attrs.is_constant`, in every one.
Output Enter(const Scope& scope, const Input& data, const std::string& frame_name, EnterAttrs attrs = {});
/// `data`, passed out of its frame to the parent frame: a while loop's result.
Output Exit(const Scope& scope, const Input& data);
/// `data`, passed on to the next iteration of its frame.
Output NextIteration(const Scope& scope, const Input& data);
/// `input` (a bool scalar) as a loop's termination condition: the predicate of the loop's
/// Switch nodes.
Output LoopCond(const Scope& scope, const Input& input);
/// A node that does nothing and runs even when its control inputs are dead.
Node* ControlTrigger(const Scope& scope);

/// A new empty stack of `elem_type` tensors for this step, and its handle; `max_size` is an int32
/// scalar. `stack_name` ("": the node's name) is the base of the stack's resource name.
/// max_size <= 0: unbounded.
Output StackV2(const Scope& scope, const Input& max_size, DataType elem_type, const std::string& stack_name = "");
/// Pushes `elem` onto the stack `handle`; outputs `elem`.
Output StackPushV2(const Scope& scope, const Input& handle, const Input& elem);
/// Pops the tensor pushed last onto the stack `handle`; OutOfRange on an empty stack.
Output StackPopV2(const Scope& scope, const Input& handle, DataType elem_type);
/// Drops the stack `handle` and what it holds.
Node* StackCloseV2(const Scope& scope, const Input& handle);

}  // namespace ops
}  // namespace tensoract

#endif  // TENSORACT_GRAPH_BUILDER_CONTROL_FLOW_OPS_H_
